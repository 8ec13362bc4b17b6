"""``learned``: a playout policy learned from the expert's choices, played alone as an arena seat.

A linear score over features of each legal card that its seat can see
(:func:`card_features`), with weights (:data:`LEARNED_W`) fitted to the cards the expert
chose in self-play: a softmax over the legal cards, trained once and kept here as data
(the script that fitted them is in the project's history, with its figures in
bench/README.md). The seat plays the card of highest score, no search: a fast, fixed
opponent. Two of the features are the cards of the ``normal`` rules
(:func:`lockup.bots._kernel.policy`), as they are and made bolder (:data:`BOLD`); the
rules themselves are not re-implemented here.
"""

from __future__ import annotations

from typing import Any, Final

from ..bots import _kernel as K
from ..bots.base import Bot
from ..bots.kernel import DEFAULT_POLICY, check_policy, view_state
from ..cards import Card
from ..engine import SeatView

N_FEATURES: Final = 24
"""Features of a legal card (see :func:`card_features`)."""

LEARNED_W: Final = (
    -0.200, 0.516, 0.0, 0.923, 1.132, 0.156, 1.777, 0.949, -0.460, 0.743, 0.789, -0.293,
    0.560, 0.482, 0.190, 0.290, -0.490, -1.955, 0.074, -3.187, -1.017, -3.752, -0.089,
    1.118,
)  # fmt: skip
"""The weights of :func:`learned_card`, fitted to the expert's own choices in self-play."""

BOLD: Final = check_policy({"risk": 900, "duck": 13, "lead_low": 1})
"""The bolder rules one feature names the card of: take a trick that holds clubs when
it can, accept more club risk, lead low from the shortest suit."""


def card_features(s: Any, c: int, rule: int, bold: int, unknown: int, ms: int) -> list[float]:
    """The :data:`N_FEATURES` features of the seat to play in kernel state ``s`` playing
    ``c`` (legal): ``rule`` and ``bold`` are the cards the ``normal`` rules and the bolder
    ones (:data:`BOLD`) pick, ``unknown`` the cards the seat has not seen, ``ms`` its
    masters (:func:`lockup.bots._kernel.masters`). In order: is the normal card, is the
    bold card; leading, and when leading: a master, rank, length of the suit, chance a
    club lands (:func:`lockup.bots._kernel.club_risk`); following, wins the trick so far,
    and times that: clubs in the trick, last to play, chance a club lands, own clubs, a
    master, another seat locked, this hand can reach the target, trick number; a club, a
    club times its rank, a picture club; off the led suit and not a club: rank, length of
    the suit; following and losing: rank; the highest legal card; the lowest legal card.
    Ranks are 0 to 1 (two to ace), lengths and counts in thirteenths."""
    seat = s[K.I_TURN]
    hand = s[K.I_HAND + seat]
    su = c // 13
    r = c % 13
    lead = 1.0 if s[K.I_NTR] == 0 else 0.0
    led = s[K.I_LED]
    suit_len = K.POP13[(hand >> (13 * su)) & 8191] / 13.0
    master = float((ms >> c) & 1)
    wins = 0.0
    if lead == 0.0 and su == led and r > s[K.I_BEST] % 13:
        wins = 1.0
    risk = K.club_risk(s, c, unknown) if lead == 1.0 or wins == 1.0 else 0.0
    last = 1.0 if lead == 0.0 and s[K.I_NTR] == s[K.I_NPL] - 1 else 0.0
    locked = 0.0
    for i in range(4):
        if i != seat and s[K.I_LOCK + i]:
            locked = 1.0
    reach = 0.0
    if s[K.I_TOT + seat] + s[K.I_PTS + seat] + 13 - s[K.I_TN] >= s[K.I_TARGET]:
        reach = 1.0
    off = 1.0 if lead == 0.0 and su != led and su != 0 else 0.0
    loses = 1.0 if lead == 0.0 and su == led and wins == 0.0 else 0.0
    club = 1.0 if su == 0 else 0.0
    lg = K.legal(s)
    return [
        1.0 if c == rule else 0.0,
        1.0 if c == bold else 0.0,
        lead,
        lead * master,
        lead * r / 12.0,
        lead * suit_len,
        lead * risk,
        wins,
        wins * s[K.I_CLUBS],
        wins * last,
        wins * risk,
        wins * K.POP13[hand & K.CLUBM] / 13.0,
        wins * master,
        wins * locked,
        wins * reach,
        wins * s[K.I_TN] / 13.0,
        club,
        club * r / 12.0,
        1.0 if club == 1.0 and 9 <= r <= 11 else 0.0,
        off * r / 12.0,
        off * suit_len,
        loses * r / 12.0,
        1.0 if c == K.highest(lg) else 0.0,
        1.0 if c == K.lowest(lg) else 0.0,
    ]


def learned_card(view: SeatView) -> Card:
    """The legal card of ``view`` of highest score ``LEARNED_W . card_features`` (the
    lowest card on a tie)."""
    lg = view.legal_mask
    if lg & (lg - 1) == 0:
        return (lg & -lg).bit_length() - 1
    s = view_state(view, K, DEFAULT_POLICY)
    rule = K.policy(s)
    bold = K.policy(view_state(view, K, BOLD))
    hand = view.hand_mask
    unknown = K.FULL & ~(s[K.I_PLAYED] | s[K.I_LOST] | hand)
    ms = K.masters(hand, unknown)
    pick = -1
    pick_v = -1e300
    m = lg
    while m:
        c = (m & -m).bit_length() - 1
        m ^= 1 << c
        v = 0.0
        for w, f in zip(LEARNED_W, card_features(s, c, rule, bold, unknown, ms), strict=True):
            v += w * f
        if v > pick_v:
            pick_v = v
            pick = c
    return pick


class LearnedPolicyBot(Bot):
    """The card of highest score under the learned weights (deterministic; the seed is
    accepted and unused; about 0.15 ms a move)."""

    name = "learned"

    def __init__(self, seed: int | None = None) -> None:
        pass

    def choose(self, view: SeatView) -> Card:
        """The learned policy's card for ``view``."""
        return learned_card(view)
