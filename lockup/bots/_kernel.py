"""The expert's search kernel: a compact Lockup hand simulator, a rollout policy and PIMC.

This module is loaded twice by :mod:`lockup.bots.kernel`: once as plain Python (the
fallback, always available) and once under a name ending in ``_jit``, where every
function is compiled by numba (``cache=True``). Both give identical results: the code
uses only integer arithmetic that fits in 64 bits, its own 32-bit xorshift generator and
float additions and multiplications in a fixed order.

State layout: one integer array ``s`` (see the ``I_*`` indices). Hands and card sets are
bit masks over card numbers (``suit * 13 + rank``) exactly as in :mod:`lockup.engine`, and
the rules are those of the engine (docs/rules.md R4-R13), re-implemented for speed; the tests
check that both agree move for move.
"""

from __future__ import annotations

from math import log as _log
from typing import Any

_JIT = __name__.endswith("_jit")

if _JIT:  # pragma: no cover - exercised through the compiled copy
    import numpy as _np
    from numba import njit as _njit

    def _jit(f: Any) -> Any:
        return _njit(cache=True, nogil=True)(f)

    def _table(values: list[int]) -> Any:
        return _np.array(values, dtype=_np.int64)

    def _ftable(values: list[float]) -> Any:
        return _np.array(values, dtype=_np.float64)

    @_jit
    def _zeros(n: int) -> Any:
        return _np.zeros(n)
else:

    def _jit(f: Any) -> Any:
        return f

    def _table(values: list[int]) -> Any:
        return values

    def _ftable(values: list[float]) -> Any:
        return values

    def _zeros(n: int) -> Any:
        return [0.0] * n


# State indices.
I_HAND = 0  # 0..3: the four hands
I_LOCK = 4  # 4..7: locks (R9)
I_PTS = 8  # 8..11: tricks won this hand
I_TN = 12  # trick number, 13 at the hand's end
I_NOM = 13  # the seat that would lead the next trick (R11)
I_TURN = 14  # seat to play, -1 once the hand is over
I_LED = 15  # led suit of the current trick
I_BEST = 16  # best card of the led suit so far
I_BSEAT = 17  # its seat
I_CLUBS = 18  # clubs in the current trick
I_PIC = 19  # picture clubs the current trick allows (R7, same-rank): club bits J, Q, K
I_NPL = 20  # seats playing this trick
I_NTR = 21  # cards played to it so far
I_PLAYED = 22  # every card played this hand
I_RNG = 23  # xorshift32 state
I_ANY = 24  # 1 under picture_exception any-club
I_UPF = 25  # 1 under lock_discards upfront
I_LEADER = 26  # leader of the current trick
I_LOST = 27  # every card lockup took this hand
I_EPS = 28  # policy: a random legal card with probability 1 / I_EPS (0: never)
I_DUCK = 29  # policy: duck a trick holding at least this many clubs (the tips: 1)
I_DUCKME = 30  # policy: I_DUCK for seat I_ME
I_ME = 31  # the searching seat (-1: none)
I_RISK = 32  # policy: club risk worth taking for a trick, in thousandths
I_CLEANLAST = 33  # policy: 1 to take a clean trick from the last seat over a picture club
I_VOIDLEAD = 34  # policy: 1 to lead a low singleton early to make a void
I_VOIDS = 35  # suits each seat has shown it lacks: 4 bits a seat, seat 0 lowest
I_TOT = 36  # 36..39: game totals before this hand
I_TARGET = 40  # the game's target (R16)
I_ITER = 41  # deals sampled so far by pimc
I_MC_RESTART = 42  # pimc: a fresh chain every this many deals
I_MC_BURN = 43  # pimc: swaps before a fresh chain's first deal
I_MC_STEPS = 44  # pimc: swaps between deals
I_SOLVE = 45  # pimc: solve the hand exactly once this few tricks are left (0: never)
I_SALT = 46  # nonzero: lockup discards drawn from the hand and this salt (see _discard)
I_SMODE = 47  # the endgame solver: 0 the others play against the seat, 1 by the policy
I_LEADLOW = 48  # policy: 1 to lead the lowest card of the shortest suit, with no master
I_RISKME = 49  # policy: I_RISK for seat I_ME (-1: the same)
I_LEADLOWME = 50  # policy: I_LEADLOW for seat I_ME (-1: the same)
I_BOLD = 51  # policy: other seats (a bit each) played by seat I_ME's settings too
I_LEARN = 52  # rollouts: seats (a bit each) that play the learned policy, not the rules
I_SEE = 53  # rollouts: seats (a bit each) that play the clairvoyant policy (see_card)
I_SEEDUCK = 54  # see_card: clubs (in the trick or still to drop on it) that make it duck
I_REC = 55  # rollouts: decisions of the seats of I_RECSEATS searched (rec_card), per rollout
I_RECN = 56  # rec_card: deals sampled for each searched decision
I_RECSEATS = 57  # rollouts: seats (a bit each) whose first I_REC decisions are searched
STATE_SIZE = 58
SOLVE_ROWS = 32
"""Rows of scratch state the endgame solver needs below the root (a ply each, 13 tricks
of at most four cards would be 52; the solver starts at five tricks left at most)."""

FULL = (1 << 52) - 1
CLUBM = 8191
NONCLUB = FULL ^ CLUBM
M32 = 0xFFFFFFFF

_pop = [0] * 8192
_hi = [-1] * 8192
_lo = [-1] * 8192
for _x in range(1, 8192):
    _pop[_x] = _pop[_x >> 1] + (_x & 1)
    _hi[_x] = _x.bit_length() - 1
    _lo[_x] = (_x & -_x).bit_length() - 1
_comb = [0] * (53 * 53)
for _n in range(53):
    _v = 1
    for _k in range(_n + 1):
        _comb[53 * _n + _k] = _v
        _v = _v * (_n - _k) // (_k + 1)
POP13 = _table(_pop)
COMB = [float(x) for x in _comb] if not _JIT else _np.array(_comb, dtype=_np.float64)
"""``COMB[53*n + k]``: n choose k (0 when k > n), as floats."""
HI13 = _table(_hi)
LO13 = _table(_lo)
del _pop, _hi, _lo, _x, _comb, _n, _k, _v


@_jit
def popcount(m: int) -> int:
    """Cards in a mask."""
    return (
        POP13[m & 8191]
        + POP13[(m >> 13) & 8191]
        + POP13[(m >> 26) & 8191]
        + POP13[(m >> 39) & 8191]
    )


@_jit
def lowest(m: int) -> int:
    """The lowest card number in a non-empty mask."""
    for su in range(4):
        x = (m >> (13 * su)) & 8191
        if x:
            return 13 * su + LO13[x]
    return -1


@_jit
def highest(m: int) -> int:
    """The highest card number in a non-empty mask."""
    for su in range(3, -1, -1):
        x = (m >> (13 * su)) & 8191
        if x:
            return 13 * su + HI13[x]
    return -1


@_jit
def rand32(s: Any) -> int:
    """The next 32-bit number of the state's xorshift32 generator."""
    x = s[I_RNG]
    x ^= (x << 13) & M32
    x ^= x >> 17
    x ^= (x << 5) & M32
    s[I_RNG] = x
    return x


@_jit
def below(s: Any, n: int) -> int:
    """A random integer in ``0..n-1`` (n at most 2**31)."""
    return (rand32(s) * n) >> 32


@_jit
def nth_card(m: int, k: int) -> int:
    """The k-th lowest card (from 0) of a mask."""
    for su in range(4):
        x = (m >> (13 * su)) & 8191
        p = POP13[x]
        if k < p:
            while k:
                x &= x - 1
                k -= 1
            return 13 * su + LO13[x]
        k -= p
    return -1


@_jit
def random_card(s: Any, m: int) -> int:
    """A card of a non-empty mask, uniformly at random."""
    return nth_card(m, below(s, popcount(m)))


@_jit
def legal(s: Any) -> int:
    """The cards the seat to play may play (R5, R6, R7), as the engine's ``legal_mask``."""
    hand = s[s[I_TURN]]
    if s[I_NTR] == 0:
        nc = hand & NONCLUB
        return nc if nc else hand
    follow = hand & (8191 << (13 * s[I_LED]))
    if follow == 0:
        return hand
    pic = s[I_PIC]
    if pic:
        if s[I_ANY]:
            return follow | (hand & CLUBM)
        return follow | (hand & pic)
    return follow


@_jit
def mix32(x: int) -> int:
    """A 32-bit integer hash (two multiply-xorshift rounds; identical compiled or not)."""
    x &= M32
    x ^= x >> 16
    x = (x * 0x45D9F3B) & M32
    x ^= x >> 16
    x = (x * 0x45D9F3B) & M32
    x ^= x >> 16
    return x


@_jit
def _discard(s: Any, seat: int) -> None:
    hand = s[seat]
    if hand:
        salt = s[I_SALT]
        if salt:
            # The endgame solver's discards: a uniform-looking card that depends only on the
            # hand and the sample's salt, so that a position decides its own future (R10).
            h = mix32((hand & M32) ^ mix32((hand >> 32) ^ salt))
            c = nth_card(hand, (h * popcount(hand)) >> 32)
        else:
            c = random_card(s, hand)
        s[seat] = hand ^ (1 << c)
        s[I_LOST] |= 1 << c


@_jit
def start_trick(s: Any) -> None:
    """Begin the next trick: lockup discards (R10), empty tricks (R12), the leader (R11)."""
    while True:
        if s[I_TN] == 13:
            s[I_TURN] = -1
            return
        if not s[I_UPF]:
            for i in range(4):
                if s[I_LOCK + i]:
                    _discard(s, i)
        n = 0
        for i in range(4):
            if s[I_LOCK + i] == 0:
                n += 1
        if n == 0:
            for i in range(4):
                s[I_LOCK + i] -= 1
            s[I_TN] += 1
            continue
        ld = s[I_NOM]
        while s[I_LOCK + ld]:
            ld = (ld + 1) % 4
        s[I_LEADER] = ld
        s[I_TURN] = ld
        s[I_NTR] = 0
        s[I_NPL] = n
        s[I_LED] = -1
        s[I_BEST] = -1
        s[I_BSEAT] = -1
        s[I_CLUBS] = 0
        s[I_PIC] = 0
        return


@_jit
def _complete_trick(s: Any) -> None:
    w = s[I_BSEAT]
    c = s[I_CLUBS]
    s[I_PTS + w] += 1
    for i in range(4):
        if s[I_LOCK + i]:
            s[I_LOCK + i] -= 1
    s[I_TN] += 1
    if c:
        lock = min(c, 13 - s[I_TN])
        if lock:
            s[I_LOCK + w] = lock
            if s[I_UPF]:
                for _ in range(lock):
                    _discard(s, w)
        s[I_NOM] = (w + 1) % 4
    else:
        s[I_NOM] = w
    start_trick(s)


@_jit
def play(s: Any, card: int) -> None:
    """Play a legal card for the seat to play (R8-R11 as the engine's ``_play``)."""
    seat = s[I_TURN]
    bit = 1 << card
    s[seat] ^= bit
    s[I_PLAYED] |= bit
    suit = card // 13
    rank = card % 13
    if s[I_NTR] == 0:
        s[I_LED] = suit
        s[I_BEST] = card
        s[I_BSEAT] = seat
        if suit == 0:  # R5: an all-club hand shows it
            s[I_VOIDS] |= 14 << (4 * seat)
    elif suit == s[I_LED]:
        if card > s[I_BEST]:
            s[I_BEST] = card
            s[I_BSEAT] = seat
    elif not (suit == 0 and s[I_PIC] and (s[I_ANY] or (s[I_PIC] >> card) & 1)):
        s[I_VOIDS] |= 1 << (4 * seat + s[I_LED])  # R6: no card of the led suit
    if suit == 0:
        s[I_CLUBS] += 1
    if 9 <= rank <= 11:
        s[I_PIC] |= 1 << rank
    s[I_NTR] += 1
    if s[I_NTR] == s[I_NPL]:
        _complete_trick(s)
    else:
        nxt = (seat + 1) % 4
        while s[I_LOCK + nxt]:
            nxt = (nxt + 1) % 4
        s[I_TURN] = nxt


@_jit
def comb_ratio(n_minus: int, n: int, k: int) -> float:
    """C(n - n_minus, k) / C(n, k): the chance a random k of n cards avoid n_minus of them."""
    if k > n:
        k = n
    if k < 0 or n - n_minus < 0:
        return 0.0
    return COMB[53 * (n - n_minus) + k] / COMB[53 * n + k]


@_jit
def club_risk(s: Any, card: int, unknown: int) -> float:
    """Chance that a club lands on the trick if the seat to play plays ``card``.

    1 when the trick holds a club; otherwise each later seat may be void in the led suit
    and hold a club (certainly void when it has shown it), or hold a club the picture
    exception (R7) now allows. A seat's cards are taken as a random draw from the unseen
    cards (a hypergeometric estimate); a later seat holds ``13 - tricks played`` cards.
    """
    if s[I_CLUBS] > 0:
        return 1.0
    seat = s[I_TURN]
    led = s[I_LED] if s[I_NTR] > 0 else card // 13
    pic = s[I_PIC]
    rank = card % 13
    if 9 <= rank <= 11:
        pic |= 1 << rank
    if pic and s[I_ANY]:
        pic = CLUBM
    u = popcount(unknown)
    n_suit = popcount(unknown & (8191 << (13 * led)))
    n_club = popcount(unknown & CLUBM)
    pic_left = popcount(pic & unknown)
    h = 13 - s[I_TN]
    if h > u:
        h = u
    p_none = 1.0
    n_later = s[I_NPL] - s[I_NTR] - 1
    t = seat
    for _ in range(n_later):
        t = (t + 1) % 4
        while s[I_LOCK + t]:
            t = (t + 1) % 4
        if h <= 0 or u == 0 or n_club == 0:
            continue
        if (s[I_VOIDS] >> (4 * t + led)) & 1:
            rest = u - n_suit
            if rest < h:
                p = 1.0
            else:
                p = 1.0 - comb_ratio(n_club, rest, h)
        else:
            p = comb_ratio(n_suit, u, h) - comb_ratio(n_suit + n_club, u, h)
            if p < 0.0:
                p = 0.0
            if pic_left:
                p_pic = 1.0 - comb_ratio(pic_left, u, h)
                p = p + (1.0 - p) * p_pic
        if p > 1.0:
            p = 1.0
        p_none *= 1.0 - p
    return 1.0 - p_none


@_jit
def risk_ok(s: Any, seat: int) -> float:
    """How much club risk a trick is worth to ``seat``: more while another seat is locked
    (attack), and when this hand can take it to the target (R15: play for the finish)."""
    r = s[I_RISK]
    if (seat == s[I_ME] or (s[I_BOLD] >> seat) & 1) and s[I_RISKME] >= 0:
        r = s[I_RISKME]
    ok = r / 1000.0
    for i in range(4):
        if i != seat and s[I_LOCK + i]:
            ok += 0.15
            break
    if s[I_TOT + seat] + s[I_PTS + seat] + 13 - s[I_TN] >= s[I_TARGET]:
        ok += 0.2
    if ok > 0.95:
        ok = 0.95
    return ok


@_jit
def masters(hand: int, unknown: int) -> int:
    """The non-club cards of ``hand`` that no unseen card of their suit outranks."""
    out = 0
    for su in range(1, 4):
        mine = (hand >> (13 * su)) & 8191
        others = (unknown >> (13 * su)) & 8191
        while mine:
            r = HI13[mine]
            if others >> r:
                break
            out |= 1 << (13 * su + r)
            mine ^= 1 << r
    return out


@_jit
def policy(s: Any) -> int:
    """The ``normal`` level's card for the seat to play: the strategy tips as rules.

    It reads only the seat's own hand and what is public (cards played and lost, voids
    shown, locks, scores). Leading: cash a master, from the longest suit, when the chance
    of a club landing on it is acceptable; else lead the long suit from the top. Following:
    shed clubs when void or by the picture exception (R7) unless the last seat can take a
    clean trick; duck a trick holding clubs; from the last seat win a clean trick cheaply;
    from a middle seat win with a master when the risk is acceptable; else play low.
    """
    seat = s[I_TURN]
    hand = s[seat]
    lg = legal(s)
    if lg & (lg - 1) == 0:
        return lowest(lg)
    eps = s[I_EPS]
    if eps and below(s, eps) == 0:
        return random_card(s, lg)
    unknown = FULL & ~(s[I_PLAYED] | s[I_LOST] | hand)
    ok = risk_ok(s, seat)
    if s[I_NTR] == 0:
        if lg & NONCLUB == 0:
            return lowest(lg)  # an all-club hand (R5): lead low
        ms = masters(hand, unknown)
        pick = -1
        pick_key = -99.0
        for su in range(1, 4):
            x = (hand >> (13 * su)) & 8191
            if x == 0:
                continue
            top = 13 * su + HI13[x]
            if (ms >> top) & 1:
                risk = club_risk(s, top, unknown)
                if risk <= ok:
                    key = POP13[x] - 2.0 * risk
                    if key > pick_key or (key == pick_key and top > pick):
                        pick_key = key
                        pick = top
        if pick >= 0:
            return pick
        if s[I_VOIDLEAD] and s[I_TN] < 4:
            for su in range(1, 4):
                x = (hand >> (13 * su)) & 8191
                if POP13[x] == 1 and not (ms >> (13 * su + HI13[x])) & 1 and HI13[x] < 8:
                    return 13 * su + HI13[x]
        long_su = -1
        long_x = -1
        long_n = -1
        for su in range(1, 4):
            x = (hand >> (13 * su)) & 8191
            n = POP13[x]
            if n > long_n or (n == long_n and x >= long_x):
                long_n = n
                long_x = x
                long_su = su
        low = s[I_LEADLOW]
        if (seat == s[I_ME] or (s[I_BOLD] >> seat) & 1) and s[I_LEADLOWME] >= 0:
            low = s[I_LEADLOWME]
        if low:
            # Lead low from the shortest suit: the trick goes to someone else, and the
            # void comes sooner (to shed clubs on others' tricks).
            short_su = -1
            short_n = 99
            for su in range(1, 4):
                n = POP13[(hand >> (13 * su)) & 8191]
                if n and n < short_n:
                    short_n = n
                    short_su = su
            return 13 * short_su + LO13[(hand >> (13 * short_su)) & 8191]
        return 13 * long_su + HI13[long_x]
    led = s[I_LED]
    fx = (hand >> (13 * led)) & 8191
    if fx == 0:
        cl = hand & CLUBM
        if cl:
            return highest(cl)  # it cannot win: shed the highest club on the winner
        ms = masters(hand, unknown)
        pick = -1
        pick_key = 1 << 30
        for su in range(1, 4):
            x = (hand >> (13 * su)) & 8191
            n = POP13[x]
            while x:
                r = LO13[x]
                c = 13 * su + r
                key = ((ms >> c) & 1) * 10000 + n * 100 + r
                if key < pick_key:
                    pick_key = key
                    pick = c
                x &= x - 1
        return pick
    br = s[I_BEST] % 13
    below_m = fx & ((1 << br) - 1)
    above_m = (fx >> (br + 1)) << (br + 1)
    last = s[I_NTR] == s[I_NPL] - 1
    if led != 0 and lg & CLUBM:
        if last and s[I_CLUBS] == 0 and above_m and s[I_CLEANLAST]:
            return 13 * led + LO13[above_m]  # the safe seat: a clean point
        return highest(lg & CLUBM)  # R7: shed a picture club on somebody else's trick
    duck = s[I_DUCKME] if seat == s[I_ME] or (s[I_BOLD] >> seat) & 1 else s[I_DUCK]
    if s[I_CLUBS] >= duck:
        if below_m:
            return 13 * led + HI13[below_m]  # duck with the highest card that loses
        return 13 * led + HI13[fx]  # forced to win: shed the highest
    if last:
        if above_m:
            return 13 * led + LO13[above_m]  # the safe seat: win a clean trick cheaply
        return 13 * led + LO13[fx]
    if above_m:
        ms = (masters(hand, unknown) >> (13 * led)) & above_m
        if ms:
            cand = 13 * led + LO13[ms]
        else:
            cand = 13 * led + HI13[above_m]
        risk = club_risk(s, cand, unknown)
        if risk <= ok and (ms or risk < 0.1):
            return cand
    return 13 * led + LO13[fx]


N_FEATURES = 24
"""Features of a legal card for :func:`learned` (see :func:`card_features`)."""

LEARNED_W = _ftable(
    [
        -0.200, 0.516, 0.0, 0.923, 1.132, 0.156, 1.777, 0.949, -0.460, 0.743, 0.789, -0.293,
        0.560, 0.482, 0.190, 0.290, -0.490, -1.955, 0.074, -3.187, -1.017, -3.752, -0.089,
        1.118,
    ]
)  # fmt: skip
"""The weights of :func:`learned`, fitted by ``bench/learned.py`` to the expert's own
choices in self-play (issue 13; docs/bots.md)."""


@_jit
def card_features(s: Any, c: int, rule: int, bold: int, unknown: int, ms: int, out: Any) -> None:
    """The :data:`N_FEATURES` features of the seat to play playing ``c`` (legal), into
    ``out``: ``rule`` and ``bold`` are the cards :func:`policy` picks for the seat by the
    ``normal`` settings and by the searching seat's bolder ones, ``unknown`` the cards the
    seat has not seen, ``ms`` its masters (:func:`masters`). In order: is the normal
    card, is the bold card; leading, and when leading: a master, rank, length of the suit,
    chance a club lands (:func:`club_risk`); following, wins the trick so far, and times
    that: clubs in the trick, last to play, chance a club lands, own clubs, a master,
    another seat locked, this hand can reach the target, trick number; a club, a club
    times its rank, a picture club; off the led suit and not a club: rank, length of the
    suit; following and losing: rank; the highest legal card; the lowest legal card.
    Ranks are 0 to 1 (two to ace), lengths and counts in thirteenths."""
    seat = s[I_TURN]
    hand = s[I_HAND + seat]
    su = c // 13
    r = c % 13
    lead = 1.0 if s[I_NTR] == 0 else 0.0
    led = s[I_LED]
    suit_len = POP13[(hand >> (13 * su)) & 8191] / 13.0
    master = float((ms >> c) & 1)
    wins = 0.0
    if lead == 0.0 and su == led and r > s[I_BEST] % 13:
        wins = 1.0
    risk = club_risk(s, c, unknown) if lead == 1.0 or wins == 1.0 else 0.0  # used only then
    last = 1.0 if lead == 0.0 and s[I_NTR] == s[I_NPL] - 1 else 0.0
    locked = 0.0
    for i in range(4):
        if i != seat and s[I_LOCK + i]:
            locked = 1.0
    reach = 0.0
    if s[I_TOT + seat] + s[I_PTS + seat] + 13 - s[I_TN] >= s[I_TARGET]:
        reach = 1.0
    off = 1.0 if lead == 0.0 and su != led and su != 0 else 0.0
    loses = 1.0 if lead == 0.0 and su == led and wins == 0.0 else 0.0
    club = 1.0 if su == 0 else 0.0
    lg = legal(s)
    out[0] = 1.0 if c == rule else 0.0
    out[1] = 1.0 if c == bold else 0.0
    out[2] = lead
    out[3] = lead * master
    out[4] = lead * r / 12.0
    out[5] = lead * suit_len
    out[6] = lead * risk
    out[7] = wins
    out[8] = wins * s[I_CLUBS]
    out[9] = wins * last
    out[10] = wins * risk
    out[11] = wins * POP13[hand & CLUBM] / 13.0
    out[12] = wins * master
    out[13] = wins * locked
    out[14] = wins * reach
    out[15] = wins * s[I_TN] / 13.0
    out[16] = club
    out[17] = club * r / 12.0
    out[18] = 1.0 if club == 1.0 and 9 <= r <= 11 else 0.0
    out[19] = off * r / 12.0
    out[20] = off * suit_len
    out[21] = loses * r / 12.0
    out[22] = 1.0 if c == highest(lg) else 0.0
    out[23] = 1.0 if c == lowest(lg) else 0.0


@_jit
def rule_cards(s: Any) -> tuple[int, int]:
    """The cards :func:`policy` picks for the seat to play by the ``normal`` settings and
    by the searching seat's (``I_DUCKME``...), never at random."""
    me, bold, eps = s[I_ME], s[I_BOLD], s[I_EPS]
    s[I_EPS] = 0
    s[I_ME] = -1
    s[I_BOLD] = 0
    rule = policy(s)
    s[I_ME] = s[I_TURN]
    mine = policy(s)
    s[I_ME], s[I_BOLD], s[I_EPS] = me, bold, eps
    return rule, mine


@_jit
def learned(s: Any) -> int:
    """The learned policy's card for the seat to play: the legal card of highest score
    ``LEARNED_W . card_features`` (a random one with probability ``1 / I_EPS``, as
    :func:`policy`)."""
    lg = legal(s)
    if lg & (lg - 1) == 0:
        return lowest(lg)
    eps = s[I_EPS]
    if eps and below(s, eps) == 0:
        return random_card(s, lg)
    rule, bold = rule_cards(s)
    hand = s[I_HAND + s[I_TURN]]
    unknown = FULL & ~(s[I_PLAYED] | s[I_LOST] | hand)
    ms = masters(hand, unknown)
    out = _zeros(N_FEATURES)
    pick = -1
    pick_v = -1e300
    m = lg
    while m:
        c = lowest(m)
        m ^= 1 << c
        card_features(s, c, rule, bold, unknown, ms, out)
        v = 0.0
        for f in range(N_FEATURES):
            v += LEARNED_W[f] * out[f]
        if v > pick_v:
            pick_v = v
            pick = c
    return pick


@_jit
def _later(s: Any) -> int:
    """The seats (a bit each) that play to the current trick after the seat to play."""
    left = s[I_NPL] - s[I_NTR] - 1
    out = 0
    seat = s[I_TURN]
    while left > 0:
        seat = (seat + 1) % 4
        if s[I_LOCK + seat] == 0:
            out |= 1 << seat
            left -= 1
    return out


@_jit
def _beaten(s: Any, later: int, suit: int, rank: int) -> bool:
    """Whether a seat of ``later`` holds a card of ``suit`` above ``rank``."""
    for i in range(4):
        if (later >> i) & 1 and ((s[I_HAND + i] >> (13 * suit)) & 8191) >> (rank + 1):
            return True
    return False


@_jit
def _droppers(s: Any, later: int, suit: int, pic: int) -> int:
    """How many seats of ``later`` could drop a club on a trick of ``suit`` (not clubs)
    whose picture clubs are ``pic`` (R7): void in the suit with a club, or an allowed one."""
    n = 0
    for i in range(4):
        if (later >> i) & 1:
            h = s[I_HAND + i]
            cl = h & CLUBM
            if cl and (((h >> (13 * suit)) & 8191) == 0 or (pic and (s[I_ANY] or cl & pic))):
                n += 1
    return n


@_jit
def _shortest_low(hand: int) -> int:
    """The lowest card of the shortest non-club suit of ``hand`` (it holds one)."""
    pick = -1
    key = 1 << 20
    for su in range(1, 4):
        x = (hand >> (13 * su)) & 8191
        if x:
            k = POP13[x] * 16 + LO13[x]
            if k < key:
                key = k
                pick = 13 * su + LO13[x]
    return pick


@_jit
def see_card(s: Any) -> int:
    """The clairvoyant club-aware policy's card for the seat to play: it reads every hand
    of the (sampled) deal, as a determinized search's playouts may.

    About to win a trick (with the cheapest card no later seat beats), it counts the clubs
    in it and the later seats that could still drop one (void in the led suit with a club,
    or holding a picture club the table allows, R7), and takes it only while that count is
    under ``I_SEEDUCK`` (a lock costs tricks and cards: R9, R10). Otherwise it sheds an
    allowed club, ducks with its highest losing card, or, forced to take a club trick,
    sheds its top card. On lead it cashes the top of its longest suit that nobody beats
    and too few can club, else leads low from its shortest suit; void, it throws its
    highest club, else its lowest card of its shortest suit. A random card once in
    ``I_EPS`` decisions, as :func:`policy`."""
    hand = s[s[I_TURN]]
    lg = legal(s)
    if lg & (lg - 1) == 0:
        return lowest(lg)
    eps = s[I_EPS]
    if eps and below(s, eps) == 0:
        return random_card(s, lg)
    duck = s[I_SEEDUCK]
    later = _later(s)
    if s[I_NTR] == 0:
        nc = hand & NONCLUB
        if nc == 0:
            return lowest(hand)
        pick = -1
        key = -1
        for su in range(1, 4):
            x = (nc >> (13 * su)) & 8191
            if x and POP13[x] > key:
                r = HI13[x]
                pic = (1 << r) if 9 <= r <= 11 else 0
                if not _beaten(s, later, su, r) and _droppers(s, later, su, pic) < duck:
                    key = POP13[x]
                    pick = 13 * su + r
        if pick >= 0:
            return pick
        return _shortest_low(nc)
    led = s[I_LED]
    shift = 13 * led
    fx = (hand >> shift) & 8191
    if fx == 0:
        cl = hand & CLUBM
        if cl:
            return highest(cl)
        return _shortest_low(hand)
    br = s[I_BEST] % 13
    below_m = fx & ((1 << br) - 1)
    above_m = (fx >> (br + 1)) << (br + 1)
    pic = s[I_PIC]
    allowed = 0
    if pic and led:
        allowed = hand & (CLUBM if s[I_ANY] else pic)
    if above_m and led:
        win = above_m
        while win and _beaten(s, later, led, LO13[win]):
            win &= win - 1
        if win:
            r = LO13[win]
            more = (1 << r) if 9 <= r <= 11 else 0
            if s[I_CLUBS] + _droppers(s, later, led, pic | more) < duck:
                return shift + r
    if allowed:
        return highest(allowed)
    if below_m:
        return shift + HI13[below_m]
    if s[I_CLUBS] and not _beaten(s, later, led, HI13[fx]):
        return shift + HI13[fx]  # forced to take a club trick: shed the top card
    return shift + LO13[fx]


@_jit
def rollout_card(s: Any) -> int:
    """A rollout's card for the seat to play: :func:`see_card` for the seats of
    ``I_SEE``, else :func:`learned` for those of ``I_LEARN``, else :func:`policy`."""
    seat = s[I_TURN]
    if (s[I_SEE] >> seat) & 1:
        return see_card(s)
    if (s[I_LEARN] >> seat) & 1:
        return learned(s)
    return policy(s)


@_jit
def rollout(s: Any) -> None:
    """Play the hand out with :func:`rollout_card` for every seat."""
    while s[I_TURN] >= 0:
        play(s, rollout_card(s))


@_jit
def distinct(s: Any, lg: int, live: int) -> int:
    """``lg`` less the cards that play the same as a higher one kept: in one suit, with no
    ``live`` card (a card still to be played by another seat, or the best of the trick)
    between them. Pictures (J, Q, K: R7) are always kept."""
    out = 0
    for su in range(4):
        x = (lg >> (13 * su)) & 8191
        if x == 0:
            continue
        lv = (live >> (13 * su)) & 8191
        prev = -1
        while x:
            r = HI13[x]
            x ^= 1 << r
            keep = prev < 0 or 9 <= r <= 11 or 9 <= prev <= 11
            if not keep and (lv >> (r + 1)) & ((1 << (prev - r - 1)) - 1):
                keep = True
            if keep:
                out |= 1 << (13 * su + r)
            prev = r
    return out


@_jit
def _tt_key(s: Any) -> int:
    """A 62-bit key of a position at a trick's start: hands, locks, leader, points, salt."""
    h1 = mix32(s[I_SALT] ^ 0x3C6EF372)
    h2 = mix32(s[I_SALT] ^ 0x1B873593)
    for i in range(4):
        hand = s[I_HAND + i]
        lo = hand & M32
        hi = (hand >> 32) | (s[I_LOCK + i] << 20) | (s[I_PTS + i] << 24)
        h1 = mix32(h1 ^ lo)
        h1 = mix32(h1 ^ hi)
        h2 = mix32(h2 ^ (lo + 0x9E3779B9 * (i + 1)) & M32)
        h2 = mix32(h2 ^ hi)
    h1 = mix32(h1 ^ s[I_NOM] ^ (s[I_TN] << 4))
    return (h1 << 30) ^ h2


@_jit
def solve(stack: Any, t: Any) -> float:
    """The seat ``t.me``'s :func:`utility` at the hand's end from the position ``stack[0]``,
    everything known (one sampled deal), by alpha-beta search.

    ``stack[0]`` must have ``I_SALT`` set (lockup discards then follow from the position)
    and no random policy (``I_EPS`` 0). With ``I_SMODE`` 0 the other seats play to
    minimise the seat's value (a paranoid search); with 1 they play the rollout policy
    and only the seat searches. A row of ``stack`` a ply. Positions at a trick's start
    are kept in the transposition table (``t.tt_key``; ``t.tt_val[2*i]`` and
    ``[2*i + 1]`` the lower and upper bounds). The search keeps its own stack
    (``t.sf``, ``t.si``: numba's cached code must not recurse); cards that play the same
    (:func:`distinct`) are tried once, the policy's card first.
    """
    tt_key = t.tt_key
    tt_val = t.tt_val
    sf = t.sf
    si = t.si
    me = t.me
    mask = len(tt_key) - 1
    d = 0
    sf[0] = -1e9
    sf[1] = 1e9
    entering = True
    v = 0.0
    while True:
        if entering:
            s = stack[d]
            ready = False
            if s[I_TURN] < 0:
                v = utility(s, me, t.totals, t.target, t.wgame, t.gtab)
                ready = True
            else:
                alpha = sf[5 * d]
                beta = sf[5 * d + 1]
                key = -1
                slot = 0
                if s[I_NTR] == 0:
                    key = _tt_key(s)
                    slot = key & mask
                    if tt_key[slot] == key:
                        lo = tt_val[2 * slot]
                        hi = tt_val[2 * slot + 1]
                        if lo >= beta or lo == hi:
                            v = lo
                            ready = True
                        elif hi <= alpha:
                            v = hi
                            ready = True
                        else:
                            if lo > alpha:
                                alpha = lo
                            if hi < beta:
                                beta = hi
                if not ready:
                    seat = s[I_TURN]
                    mine = seat == me
                    first = rollout_card(s)
                    todo = 0
                    if mine or not s[I_SMODE]:
                        live = 0
                        for i in range(4):
                            if i != seat:
                                live |= s[I_HAND + i]
                        if s[I_NTR] > 0:
                            live |= 1 << s[I_BEST]
                        todo = distinct(s, legal(s), live) & ~(1 << first)
                    sf[5 * d] = alpha
                    sf[5 * d + 1] = beta
                    sf[5 * d + 2] = -1e9 if mine else 1e9
                    sf[5 * d + 3] = alpha
                    sf[5 * d + 4] = beta
                    si[4 * d] = todo
                    si[4 * d + 1] = key
                    si[4 * d + 2] = slot
                    si[4 * d + 3] = 1 if mine else 0
                    nxt = stack[d + 1]
                    for i in range(STATE_SIZE):
                        nxt[i] = s[i]
                    play(nxt, first)
                    d += 1
                    sf[5 * d] = alpha
                    sf[5 * d + 1] = beta
                    continue
            if d == 0:
                return v
            d -= 1
            entering = False
            continue
        # Back at node d with a child's value v.
        mine = si[4 * d + 3] == 1
        alpha = sf[5 * d]
        beta = sf[5 * d + 1]
        best = sf[5 * d + 2]
        if mine:
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
        elif v < best:
            best = v
            if v < beta:
                beta = v
        todo = si[4 * d]
        if alpha >= beta or todo == 0:
            key = si[4 * d + 1]
            if key >= 0:
                slot = si[4 * d + 2]
                tt_key[slot] = key
                if best <= sf[5 * d + 3]:
                    tt_val[2 * slot] = -1e9
                    tt_val[2 * slot + 1] = best
                elif best >= sf[5 * d + 4]:
                    tt_val[2 * slot] = best
                    tt_val[2 * slot + 1] = 1e9
                else:
                    tt_val[2 * slot] = best
                    tt_val[2 * slot + 1] = best
            v = best
            if d == 0:
                return v
            d -= 1
            continue
        sf[5 * d] = alpha
        sf[5 * d + 1] = beta
        sf[5 * d + 2] = best
        c = highest(todo) if mine else lowest(todo)
        si[4 * d] = todo ^ (1 << c)
        s = stack[d]
        nxt = stack[d + 1]
        for i in range(STATE_SIZE):
            nxt[i] = s[i]
        play(nxt, c)
        d += 1
        sf[5 * d] = alpha
        sf[5 * d + 1] = beta
        entering = True


@_jit
def mix_others(s: Any, seat: int, steps: int) -> None:
    """Shuffle the hands of the three seats other than ``seat`` by ``steps`` random swaps of
    one card each between two of them, a swap made only when neither seat has shown it
    lacks the suit it would receive (``I_VOIDS``): hand sizes and voids are kept, so from
    any deal ``seat`` could be in, it walks among the deals it cannot tell apart."""
    voids = s[I_VOIDS]
    for _ in range(steps):
        i = below(s, 3)
        j = (i + 1 + below(s, 2)) % 3
        a = (seat + 1 + i) % 4
        b = (seat + 1 + j) % 4
        if s[a] == 0 or s[b] == 0:
            continue
        ca = random_card(s, s[a])
        cb = random_card(s, s[b])
        sa = ca // 13
        sb = cb // 13
        if sa == sb or (voids >> (4 * a + sb)) & 1 or (voids >> (4 * b + sa)) & 1:
            continue
        s[a] ^= (1 << ca) | (1 << cb)
        s[b] ^= (1 << ca) | (1 << cb)


RC_SIZE = 1 << 15
"""Slots of :func:`rec_card`'s cache of decisions (``rcache``), a power of two."""
RC_PROBE = 8
"""Slots a key may sit in past its own (linear probing); a key finding them full is not kept."""


@_jit
def _mix_in(h: int, v: int) -> int:
    """``h`` (32 bits) with the 64-bit value ``v`` mixed in, half by half."""
    h = mix32(h ^ (v & M32))
    return mix32(h ^ ((v >> 32) & M32))


@_jit
def info_key(s: Any) -> int:
    """A 62-bit hash of what the seat to play in ``s`` knows: its hand, every card played
    and lost, the trick under way, locks, points, voids shown and hand sizes (not the
    other hands beyond their sizes). Two states that differ only in how the unseen cards
    lie give one key."""
    seat = s[I_TURN]
    small = (
        seat
        + 4 * s[I_TN]
        + 64 * s[I_LED]
        + 256 * (s[I_BEST] + 1)
        + 16384 * (s[I_BSEAT] + 1)
        + 131072 * s[I_NPL]
        + 1048576 * s[I_NTR]
        + 8388608 * s[I_LEADER]
        + 33554432 * s[I_NOM]
    )
    locks = 0
    for i in range(4):
        locks = locks * 16 + s[I_LOCK + i]
        locks = locks * 16 + s[I_PTS + i]
        locks = locks * 16 + popcount(s[I_HAND + i])
    a = 0x2545F491
    b = 0x6C8E9CF5
    for v in (s[seat], s[I_PLAYED], s[I_LOST], small, s[I_CLUBS] + 16 * s[I_PIC], locks):
        a = _mix_in(a, v)
        b = _mix_in(b ^ 0x5BD1E995, v)
    a = _mix_in(a, s[I_VOIDS])
    b = _mix_in(b ^ 0x5BD1E995, s[I_VOIDS])
    return (a & 0x3FFFFFFF) * 4294967296 + b


@_jit
def rec_card(s: Any, rows: Any, t: Any) -> int:
    """The card of the seat to play chosen by a small determinized search of its own
    (recursive PIMC, one level): ``I_RECN`` deals it cannot tell apart from ``s`` (the
    others' hands mixed by :func:`mix_others`), each of its cards that play differently
    (:func:`distinct`) played and rolled out in each (:func:`rollout`, one random stream
    a deal), the card of highest mean :func:`utility` for that seat. ``rows`` are two
    scratch states; the sums live in ``t.sf[0:52]`` (the solver's stack, not in use
    before it starts). ``s``'s generator advances. With a cache (``t.rc_key`` longer than
    one slot: ``rcache``) a decision is searched once per :func:`info_key` of its seat and
    the search's card is played again wherever that seat knows the same, so the seat plays
    one card per state of its knowledge, whatever the imagined deal; with ``t.rc_sum``
    longer than one slot (``rcache=2``) each later visit adds one deal to that state's sums
    (``t.rc_sum[52*slot:]``) and plays the card of highest sum, so the decision sharpens
    where it recurs. The cards searched (:func:`distinct`, with the unseen cards as the
    live ones) are the same at every visit of a state."""
    seat = s[I_TURN]
    lg = legal(s)
    if lg & (lg - 1) == 0:
        return lowest(lg)
    live = 0
    for i in range(4):
        if i != seat:
            live |= s[I_HAND + i]
    if s[I_NTR] > 0:
        live |= 1 << s[I_BEST]
    todo = distinct(s, lg, live)
    if todo & (todo - 1) == 0:
        return lowest(todo)
    rc_key = t.rc_key
    slot = -1
    hit = -1
    key = 0
    refine = len(t.rc_sum) > 1
    if len(rc_key) > 1:
        key = info_key(s)
        h = key & (len(rc_key) - 1)
        for _p in range(RC_PROBE):
            if rc_key[h] == key:
                if not refine:
                    return t.rc_card[h]
                hit = h
                break
            if rc_key[h] < 0:
                slot = h
                break
            h = (h + 1) & (len(rc_key) - 1)
    det = rows[0]
    w = rows[1]
    sums = t.sf
    off = 0
    deals = s[I_RECN]
    if hit >= 0:
        sums = t.rc_sum
        off = 52 * hit
        deals = 1
    else:
        if refine and slot >= 0:
            sums = t.rc_sum
            off = 52 * slot
        x = todo
        while x:
            c = lowest(x)
            x &= x - 1
            sums[off + c] = 0.0
    for i in range(STATE_SIZE):
        det[i] = s[i]
    det[I_REC] = 0
    det[I_SOLVE] = 0
    steps = 4 * (
        popcount(s[(seat + 1) % 4]) + popcount(s[(seat + 2) % 4]) + popcount(s[(seat + 3) % 4])
    )
    for _ in range(deals):
        mix_others(det, seat, steps)
        roll = rand32(det) | 1
        x = todo
        while x:
            c = lowest(x)
            x &= x - 1
            for i in range(STATE_SIZE):
                w[i] = det[i]
            w[I_RNG] = roll
            play(w, c)
            rollout(w)
            sums[off + c] += utility(w, seat, t.totals, t.target, t.wgame, t.gtab)
    s[I_RNG] = det[I_RNG]
    best = -1
    top = -1e18
    x = todo
    while x:
        c = lowest(x)
        x &= x - 1
        if sums[off + c] > top:
            top = sums[off + c]
            best = c
    if slot >= 0:
        rc_key[slot] = key
        t.rc_card[slot] = best
    return best


@_jit
def finish(w: Any, stack: Any, t: Any) -> float:
    """Play the hand in ``w`` out and return the seat's :func:`utility`: by the rollout
    policy while more than ``I_SOLVE`` tricks are left, then solved exactly
    (:func:`solve`, on a copy in ``stack[0]``). ``w`` ends at the hand's end with the
    rollout's points (the solved value is only returned). With ``I_REC``, the first
    ``I_REC`` decisions of the seats of ``I_RECSEATS`` before that are searched
    (:func:`rec_card`, on the rows after the solver's, ``stack[SOLVE_ROWS:]``)."""
    k = w[I_SOLVE]
    rec = w[I_REC]
    if rec:
        rows = stack[SOLVE_ROWS:]
        while w[I_TURN] >= 0 and 13 - w[I_TN] > k:
            if rec and (w[I_RECSEATS] >> w[I_TURN]) & 1:
                rec -= 1
                play(w, rec_card(w, rows, t))
            else:
                play(w, rollout_card(w))
    if k:
        while w[I_TURN] >= 0 and 13 - w[I_TN] > k:
            play(w, rollout_card(w))
        if w[I_TURN] >= 0:
            root = stack[0]
            for i in range(STATE_SIZE):
                root[i] = w[i]
            root[I_SALT] = rand32(w) | 1
            root[I_EPS] = 0
            v = solve(stack, t)
            rollout(w)
            return v
    rollout(w)
    return utility(w, t.me, t.totals, t.target, t.wgame, t.gtab)


@_jit
def sample_hidden(s: Any, t: Any, cards: Any) -> None:
    """Deal the unseen cards to the three other seats, uniformly among consistent deals.

    ``t`` is the search's tables (:class:`lockup.bots.kernel.Tables`); this reads its
    sampler part, built by :func:`lockup.bots.sampling.deal_tables`: ``t.seats`` the three
    other seats, ``t.caps`` their hand sizes, ``t.voids[k]`` the 4-bit mask of suits seat
    ``t.seats[k]`` has shown it lacks, ``t.suit_cards[13*su + i]`` the ``t.suit_n[su]``
    unseen cards of suit ``su``, ``t.dp`` the counting table
    (:func:`lockup.bots.sampling.deal_counts`, as floats) and ``t.binom[15*n + k]`` n choose
    k. ``cards`` is scratch space for 13 cards. The deal goes into ``s``'s hands; the draw
    is :func:`lockup.bots.sampling.draw`'s, with the kernel's generator.
    """
    seats = t.seats
    caps = t.caps
    voids = t.voids
    suit_cards = t.suit_cards
    suit_n = t.suit_n
    dp = t.dp
    binom = t.binom
    for k in range(3):
        s[seats[k]] = 0
    a = caps[0]
    b = caps[1]
    for su in range(4):
        n = suit_n[su]
        for i in range(n):
            cards[i] = suit_cards[13 * su + i]
        total = dp[(su * 14 + a) * 14 + b]
        r = (rand32(s) / 4294967296.0) * total
        acc = 0.0
        pick0 = -1
        pick1 = -1
        done = False
        for x0 in range(min(n, a) + 1):
            if x0 and (voids[0] >> su) & 1:
                break
            for x1 in range(min(n - x0, b) + 1):
                if x1 and (voids[1] >> su) & 1:
                    break
                x2 = n - x0 - x1
                if x2 and (voids[2] >> su) & 1:
                    continue
                f = dp[((su + 1) * 14 + a - x0) * 14 + b - x1]
                if f == 0.0:
                    continue
                w = binom[15 * n + x0] * binom[15 * (n - x0) + x1] * f
                pick0 = x0
                pick1 = x1
                acc += w
                if acc >= r:
                    done = True
                    break
            if done:
                break
        # Deal the chosen split: a partial shuffle of the suit's unseen cards.
        m0 = 0
        m1 = 0
        m2 = 0
        for i in range(n):
            j = i + below(s, n - i)
            c = cards[j]
            cards[j] = cards[i]
            cards[i] = c
            if i < pick0:
                m0 |= 1 << c
            elif i < pick0 + pick1:
                m1 |= 1 << c
            else:
                m2 |= 1 << c
        s[seats[0]] |= m0
        s[seats[1]] |= m1
        s[seats[2]] |= m2
        a -= pick0
        b -= pick1


@_jit
def utility(s: Any, me: int, totals: Any, target: int, wgame: float, gtab: Any) -> float:
    """The value of a finished hand for ``me``: its tricks plus ``wgame`` times a game term.

    The game term is 1 or 0 when the hand ends the game (R15: a sole leader at or above
    the target), otherwise a smooth estimate of ``me``'s chance from the gap to the best
    other total and the hands still to play; or, when ``gtab`` holds more than one value,
    ``me``'s chance to win the game read from it (:func:`win_table`).
    """
    pts = s[I_PTS + me]
    if wgame == 0.0:
        return float(pts)
    if len(gtab) > 1:
        k = points_key(s[I_PTS], s[I_PTS + 1], s[I_PTS + 2], s[I_PTS + 3])
        return pts + wgame * gtab[me * P4 + k]
    mine = totals[me] + pts
    best_other = -1
    top = mine
    for i in range(4):
        if i != me:
            t = totals[i] + s[I_PTS + i]
            if t > best_other:
                best_other = t
            if t > top:
                top = t
    if top >= target and mine != best_other:
        g = 1.0 if mine > best_other else 0.0
    else:
        lead = float(mine - best_other)
        togo = float(target - top)
        if togo < 0.0:
            togo = 0.0
        scale = 2.0 + 0.6 * togo
        g = 0.5 + 0.5 * lead / (abs(lead) + scale)
    return pts + wgame * g


P4 = 14**4
"""Entries of :func:`win_table` per seat: one per points of a hand ``(p0, p1, p2, p3)``, at
:func:`points_key`."""
PERMS = _table(
    [0, 1, 2, 3, 0, 1, 3, 2, 0, 2, 1, 3, 0, 2, 3, 1, 0, 3, 1, 2, 0, 3, 2, 1]
    + [1, 0, 2, 3, 1, 0, 3, 2, 1, 2, 0, 3, 1, 2, 3, 0, 1, 3, 0, 2, 1, 3, 2, 0]
    + [2, 0, 1, 3, 2, 0, 3, 1, 2, 1, 0, 3, 2, 1, 3, 0, 2, 3, 0, 1, 2, 3, 1, 0]
    + [3, 0, 1, 2, 3, 0, 2, 1, 3, 1, 0, 2, 3, 1, 2, 0, 3, 2, 0, 1, 3, 2, 1, 0]
)
"""The 24 orders of four seats, four entries each."""


@_jit
def points_key(p0: int, p1: int, p2: int, p3: int) -> int:
    """Where a hand's points ``(p0, p1, p2, p3)`` sit in a seat's part of :func:`win_table`."""
    return ((p0 * 14 + p1) * 14 + p2) * 14 + p3


@_jit
def game_winner(tot: Any, target: int) -> int:
    """R15 after a hand: the seat with the highest total when that total is at least
    ``target`` and no other seat has it; -1 when another hand is dealt."""
    top = -1
    who = -1
    n = 0
    for i in range(4):
        if tot[i] > top:
            top = tot[i]
            who = i
            n = 1
        elif tot[i] == top:
            n += 1
    if top >= target and n == 1:
        return who
    return -1


@_jit
def win_table(
    pool: Any,
    cum: Any,
    totals: Any,
    target: int,
    sims: int,
    hands: int,
    rng: Any,
    seq: Any,
    tot: Any,
    out: Any,
) -> None:
    """Each seat's chance to win the game, for every way this hand's points can fall.

    ``out[seat * P4 + k]`` (``k`` from :func:`points_key`) becomes the share of ``sims`` imagined
    continuations of the game in which ``seat`` wins when this hand ends with points
    ``(p0, p1, p2, p3)`` (at most 13 together) on top of ``totals``: each later hand's
    points are drawn from ``pool`` (four seats' points a row; ``cum`` the running total of
    the rows' weights) and handed to the seats in a random order, until R15 names a winner
    (at most ``hands`` hands; a game still open then is shared by its leaders). Every
    way of falling meets the same continuations (common random numbers), so a seat with
    one point more never wins less often. ``rng`` holds the generator's state at
    :data:`I_RNG`; ``seq`` is scratch space of ``2 * sims * hands`` integers, ``tot`` of 4.
    """
    n_pool = len(cum)
    total = cum[n_pool - 1]
    for j in range(sims * hands):
        u = below(rng, total)
        lo = 0
        hi = n_pool - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if cum[mid] > u:
                hi = mid
            else:
                lo = mid + 1
        seq[2 * j] = lo
        seq[2 * j + 1] = below(rng, 24)
    for k in range(4 * P4):
        out[k] = 0.0
    share = 1.0 / sims
    for p0 in range(14):
        for p1 in range(14 - p0):
            for p2 in range(14 - p0 - p1):
                for p3 in range(14 - p0 - p1 - p2):
                    k = points_key(p0, p1, p2, p3)
                    for j in range(sims):
                        tot[0] = totals[0] + p0
                        tot[1] = totals[1] + p1
                        tot[2] = totals[2] + p2
                        tot[3] = totals[3] + p3
                        who = game_winner(tot, target)
                        h = 0
                        while who < 0 and h < hands:
                            r = 2 * (j * hands + h)
                            row = 4 * seq[r]
                            perm = 4 * seq[r + 1]
                            for i in range(4):
                                tot[PERMS[perm + i]] += pool[row + i]
                            who = game_winner(tot, target)
                            h += 1
                        if who >= 0:
                            out[who * P4 + k] += share
                        else:
                            top = max(max(tot[0], tot[1]), max(tot[2], tot[3]))
                            n = 0
                            for i in range(4):
                                if tot[i] == top:
                                    n += 1
                            for i in range(4):
                                if tot[i] == top:
                                    out[i * P4 + k] += share / n


@_jit
def likelihood(det: Any, w: Any, t: Any) -> float:
    """How well a sampled deal explains the other seats' past plays: ``lam`` per surprise.

    Row ``d < t.n_hist`` of ``t.hist`` is the public state before a past play by another
    seat (hands empty); ``t.hist_add[d]`` the cards that seat held then beyond what it holds
    now (played or lost since) and ``t.hist_card[d]`` the card it played. Each play the
    rollout policy would not have made, given the deal, multiplies the weight by
    ``t.lams[seat]``. ``w`` is scratch state.
    """
    hist = t.hist
    hist_add = t.hist_add
    hist_card = t.hist_card
    lams = t.lams
    n_hist = t.n_hist
    weight = 1.0
    for d in range(n_hist):
        row = hist[d]
        for i in range(STATE_SIZE):
            w[i] = row[i]
        seat = w[I_TURN]
        w[seat] = det[seat] | hist_add[d]
        lg = legal(w)
        if lg & (lg - 1) == 0:
            continue
        if policy(w) != hist_card[d]:
            weight *= lams[seat]
    return weight


@_jit
def mcmc_step(base: Any, chain: Any, w: Any, t: Any, ll: float) -> float:
    """One Metropolis step on the hidden hands in ``chain``: swap a card between two other
    seats (voids respected), kept with probability min(1, likelihood ratio). Returns the
    chain's likelihood; random numbers come from ``base``; ``t`` is the search's tables."""
    seats = t.seats
    voids = t.voids
    ia = below(base, 3)
    ib = (ia + 1 + below(base, 2)) % 3
    sa = seats[ia]
    sb = seats[ib]
    ha = chain[sa]
    hb = chain[sb]
    if ha == 0 or hb == 0:
        return ll
    a = random_card(base, ha)
    b = random_card(base, hb)
    if (voids[ib] >> (a // 13)) & 1 or (voids[ia] >> (b // 13)) & 1:
        return ll
    swap = (1 << a) | (1 << b)
    chain[sa] = ha ^ swap
    chain[sb] = hb ^ swap
    ll2 = likelihood(chain, w, t)
    if ll2 >= ll or (rand32(base) / 4294967296.0) * ll < ll2:
        return ll2
    chain[sa] = ha
    chain[sb] = hb
    return ll


@_jit
def fit(base: Any, work: Any, t: Any, chains: int, steps: int, out_mis: Any, out_dec: Any) -> None:
    """How well the ``normal`` rules explain each other seat's plays this hand.

    Runs ``chains`` Metropolis chains of ``steps`` swaps (weights ``t.lams``) and, in each
    chain's final deal, counts per seat the past plays with a choice
    (``out_dec[4*chain + seat]``) and those the rules would not have made (``out_mis``).
    Random numbers come from ``base``; ``t`` is the search's tables
    (:class:`lockup.bots.kernel.Tables`), ``work`` as for :func:`pimc`.
    """
    hist = t.hist
    hist_add = t.hist_add
    hist_card = t.hist_card
    n_hist = t.n_hist
    w = work[1]
    scratch = work[2]
    chain = work[3]
    for _c in range(chains):
        for i in range(STATE_SIZE):
            chain[i] = base[i]
        sample_hidden(chain, t, scratch)
        base[I_RNG] = chain[I_RNG]
        ll = likelihood(chain, w, t)
        for _k in range(steps):
            ll = mcmc_step(base, chain, w, t, ll)
        for d in range(n_hist):
            row = hist[d]
            for i in range(STATE_SIZE):
                w[i] = row[i]
            seat = w[I_TURN]
            w[seat] = chain[seat] | hist_add[d]
            lg = legal(w)
            if lg & (lg - 1) == 0:
                continue
            out_dec[4 * _c + seat] += 1
            if policy(w) != hist_card[d]:
                out_mis[4 * _c + seat] += 1


@_jit
def _deal(base: Any, work: Any, t: Any) -> None:
    """The next sampled deal into ``work[0]`` (its hidden hands; the rest is ``base``'s),
    counted in ``base[I_ITER]``: a fresh uniform draw (:func:`sample_hidden`), or with
    ``t.use_chain`` the Metropolis chain's next deal (``work[3]``, restarted every
    ``I_MC_RESTART`` deals; ``t.weight[1]`` its likelihood). Random numbers come from
    ``base``; ``work[1]`` and ``work[2]`` are scratch."""
    det = work[0]
    w = work[1]
    scratch = work[2]
    chain = work[3]
    seats = t.seats
    if not t.use_chain:
        for i in range(STATE_SIZE):
            det[i] = base[i]
        sample_hidden(det, t, scratch)
        base[I_RNG] = det[I_RNG]
    else:
        steps = base[I_MC_STEPS]
        if base[I_ITER] % base[I_MC_RESTART] == 0:
            for i in range(STATE_SIZE):
                chain[i] = base[i]
            sample_hidden(chain, t, scratch)
            base[I_RNG] = chain[I_RNG]
            t.weight[1] = likelihood(chain, w, t)
            steps = base[I_MC_BURN]
        ll = t.weight[1]
        for _k in range(steps):
            ll = mcmc_step(base, chain, w, t, ll)
        t.weight[1] = ll
        for i in range(STATE_SIZE):
            det[i] = base[i]
        for k in range(3):
            det[seats[k]] = chain[seats[k]]
    base[I_ITER] += 1


@_jit
def pimc(base: Any, work: Any, t: Any, iterations: int) -> int:
    """Determinized sampling (PIMC): ``iterations`` deals, every card rolled out in each.

    ``base`` holds the position (hidden hands to be sampled), its generator state and the
    deal count, which advance; ``work`` is four rows of scratch state, the last the chain;
    ``t`` is the search's tables (:class:`lockup.bots.kernel.Tables`).
    Without ``t.use_chain`` each deal is a fresh uniform draw among those consistent with
    the view (:func:`sample_hidden`). Otherwise deals come from a Metropolis chain whose
    stationary law weighs each deal by :func:`likelihood` (how well it explains the other
    seats' plays), started afresh every ``I_MC_RESTART`` deals. In each deal, each of the
    ``t.n_cards`` candidate ``t.cards`` is played and the hand rolled out with the same
    random stream; ``t.value`` and ``t.tricks`` accumulate :func:`utility` and seat
    ``t.me``'s tricks, ``t.weight[0]`` the deals. Returns the hands simulated.
    """
    me = t.me
    cards = t.cards
    n_cards = t.n_cards
    wgame = t.wgame
    out_value = t.value
    out_tricks = t.tricks
    out_weight = t.weight
    det = work[0]
    w = work[1]
    for _ in range(iterations):
        _deal(base, work, t)
        roll = rand32(base) | 1
        weight = 1.0
        out_weight[0] += weight
        for j in range(n_cards):
            for i in range(STATE_SIZE):
                w[i] = det[i]
            w[I_RNG] = roll
            play(w, cards[j])
            v = finish(w, work[4:], t)
            out_value[j] += weight * v
            out_tricks[j] += weight * (v if wgame == 0.0 else w[I_PTS + me])
    return iterations * n_cards


TREE_STATS = 7
"""Numbers a node of :func:`ismcts`'s tree keeps: visits, availability, value per seat,
the searching seat's tricks."""


@_jit
def _new_node(child: Any, stats: Any, meta: Any, parent: int, card: int) -> int:
    """A fresh node of :func:`ismcts`'s tree, the child of ``parent`` by ``card`` (the
    tree must have room: ``meta[0] < meta[1]``)."""
    n = meta[0]
    meta[0] = n + 1
    for k in range(52):
        child[52 * n + k] = -1
    o = TREE_STATS * n
    stats[o] = 0.0
    stats[o + 1] = 1.0
    for k in range(2, TREE_STATS):
        stats[o + k] = 0.0
    child[52 * parent + card] = n
    return n


@_jit
def ismcts(
    base: Any,
    work: Any,
    t: Any,
    child: Any,
    stats: Any,
    meta: Any,
    path: Any,
    deals: int,
    per_deal: int,
) -> int:
    """Information-set Monte Carlo tree search (single observer): ``deals`` sampled deals,
    ``per_deal`` descents of the tree in each.

    The tree is keyed by the cards played from the position, whoever played them; node
    ``n``'s child for card ``c`` is ``child[52*n + c]`` (-1: none), ``stats[7*n:7*n+7]``
    its visits, how often it was available, the summed value of each seat and the searching
    seat's summed tricks. Each descent
    plays the deal down the tree, at each node the legal card of the seat to play with the
    best upper confidence bound on that seat's value (``meta[2]`` / 1000 the exploration
    constant, availability counts as in Cowling, Powley and Whitehouse's ISMCTS), adds one
    node where a legal card has none yet (the policy's card first), and finishes the hand
    by :func:`finish`. The seat's value is :func:`utility` (the endgame solved exactly
    where ``I_SOLVE`` says); the others' is theirs from the rollout. At the root only the
    candidate ``t.cards`` are tried; ``t.value``, ``t.tricks`` and ``t.weight[2 + j]``
    accumulate each candidate's value, tricks and visits. ``meta[0]`` is the nodes in use,
    ``meta[1]`` the capacity (a full tree stops growing). With ``meta[3]`` 1 each deal
    grows a tree of its own instead (determinized UCT: every seat's choices then see the
    whole deal), searched at least once per candidate; the candidates' mean value and
    tricks in each deal's tree are what ``t.value`` and ``t.tricks`` add up. With
    ``meta[3]`` 2 only the searching seat chooses in the tree: the other seats play the
    rollout policy there too, each card they play a branch (what the seat will see).
    ``path`` is scratch for 64 node numbers. Returns the hands simulated.
    """
    me = t.me
    cards = t.cards
    n_cards = t.n_cards
    wgame = t.wgame
    w = work[1]
    det = work[0]
    root_mask = 0
    for j in range(n_cards):
        root_mask |= 1 << cards[j]
    cexp = meta[2] / 1000.0
    vals = _np.zeros(4) if _JIT else [0.0, 0.0, 0.0, 0.0]
    hands = 0
    per_tree = meta[3] == 1
    own_only = meta[3] == 2
    descents = per_deal
    if per_tree and descents < n_cards:
        descents = n_cards
    for _d in range(deals):
        _deal(base, work, t)
        if per_tree:
            meta[0] = 1
            for k in range(52):
                child[k] = -1
        for _r in range(descents):
            for i in range(STATE_SIZE):
                w[i] = det[i]
            w[I_RNG] = rand32(base) | 1
            node = 0
            depth = 0
            first = -1
            while w[I_TURN] >= 0:
                seat = w[I_TURN]
                if own_only and seat != me:
                    # The other seats play the policy: their cards are branches, not choices.
                    c = policy(w)
                    ch = child[52 * node + c]
                    if ch < 0:
                        if meta[0] >= meta[1]:
                            break
                        ch = _new_node(child, stats, meta, node, c)
                    play(w, c)
                    node = ch
                    path[depth] = node
                    depth += 1
                    continue
                lg = root_mask if node == 0 else legal(w)
                untried = 0
                best = -1
                best_u = -1e300
                m = lg
                while m:
                    c = lowest(m)
                    m ^= 1 << c
                    ch = child[52 * node + c]
                    if ch < 0:
                        untried |= 1 << c
                        continue
                    o = TREE_STATS * ch
                    stats[o + 1] += 1.0
                    nv = stats[o]
                    u = stats[o + 2 + seat] / nv + cexp * (_log(stats[o + 1]) / nv) ** 0.5
                    if u > best_u:
                        best_u = u
                        best = c
                if untried and meta[0] < meta[1]:
                    c = policy(w)
                    if not (untried >> c) & 1:
                        c = random_card(w, untried)
                    nn = _new_node(child, stats, meta, node, c)
                    if node == 0:
                        first = c
                    play(w, c)
                    path[depth] = nn
                    depth += 1
                    break
                if best < 0:  # a full tree: the rest by the policy
                    break
                if node == 0:
                    first = best
                node = child[52 * node + best]
                play(w, best)
                path[depth] = node
                depth += 1
            v = finish(w, work[4:], t)
            hands += 1
            for k in range(4):
                vals[k] = utility(w, k, t.totals, t.target, wgame, t.gtab)
            vals[me] = v
            mine = v if wgame == 0.0 else float(w[I_PTS + me])
            for d in range(depth):
                o = TREE_STATS * path[d]
                stats[o] += 1.0
                for k in range(4):
                    stats[o + 2 + k] += vals[k]
                stats[o + 6] += mine
            if per_tree:
                continue
            for j in range(n_cards):
                if cards[j] == first:
                    t.value[j] += v
                    t.tricks[j] += mine
                    t.weight[2 + j] += 1.0
        if per_tree:
            for j in range(n_cards):
                ch = child[cards[j]]
                if ch >= 0:
                    o = TREE_STATS * ch
                    t.value[j] += stats[o + 2 + me] / stats[o]
                    t.tricks[j] += stats[o + 6] / stats[o]
                    t.weight[2 + j] += stats[o]
        t.weight[0] += 1.0
    return hands
