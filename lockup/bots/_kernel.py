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

from typing import Any

_JIT = __name__.endswith("_jit")

if _JIT:  # pragma: no cover - exercised through the compiled copy
    import numpy as _np
    from numba import njit as _njit

    def _jit(f: Any) -> Any:
        return _njit(cache=True, nogil=True)(f)

    def _table(values: list[int]) -> Any:
        return _np.array(values, dtype=_np.int64)

else:

    def _jit(f: Any) -> Any:
        return f

    def _table(values: list[int]) -> Any:
        return values


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
I_DUCK = 28  # policy: duck a trick holding at least this many clubs (the tips: 1)
I_RISK = 29  # policy: club risk worth taking for a trick, in thousandths
I_VOIDS = 30  # suits each seat has shown it lacks: 4 bits a seat, seat 0 lowest
I_TOT = 31  # 31..34: game totals before this hand
I_TARGET = 35  # the game's target (R16)
I_ITER = 36  # deals sampled so far by pimc
I_MC_RESTART = 37  # pimc: a fresh chain every this many deals
I_MC_BURN = 38  # pimc: swaps before a fresh chain's first deal
I_MC_STEPS = 39  # pimc: swaps between deals
I_LEADLOW = 40  # policy: 1 to lead the lowest card of the shortest suit, with no master
I_GREEDY = 41  # rollouts: seats (a bit each) that play the greedy policy (greedy_card)
I_REC = 42  # rollouts: the searching seat's decisions searched (rec_card), per rollout
STATE_SIZE = 43

GREEDY_TAKE = 2
"""The most clubs a trick may hold for :func:`greedy_card` to take it."""
REC_DEALS = 8
"""Deals :func:`rec_card` samples for each decision it searches."""

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
def _discard(s: Any, seat: int) -> None:
    hand = s[seat]
    if hand:
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
    ok = s[I_RISK] / 1000.0
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
        if s[I_LEADLOW]:
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
        if last and s[I_CLUBS] == 0 and above_m:
            return 13 * led + LO13[above_m]  # the safe seat: a clean point
        return highest(lg & CLUBM)  # R7: shed a picture club on somebody else's trick
    if s[I_CLUBS] >= s[I_DUCK]:
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


@_jit
def _lowest_rank(m: int) -> int:
    """The card of lowest rank of a non-empty mask (the lowest suit on a tie)."""
    pick = -1
    for su in range(4):
        x = (m >> (13 * su)) & 8191
        if x:
            c = 13 * su + LO13[x]
            if pick < 0 or c % 13 < pick % 13:
                pick = c
    return pick


@_jit
def greedy_card(s: Any) -> int:
    """The greedy policy's card for the seat to play (the arena's ``pimc-greedy``
    playout, :func:`lockup.arena.pimc_greedy.greedy_card`, written again here; a test
    drives both through the same positions to the same cards).

    Leading: the top of a suit no card left outranks (the longest such suit), else the
    lowest card of its longest suit (suits in the order diamonds, hearts, spades, clubs
    on a tie). Following: it takes the trick while the trick holds at most
    :data:`GREEDY_TAKE` clubs, with the cheapest winning card when last to play, else its
    top card; otherwise a club the picture exception allows (R7), else its lowest card of
    the suit. Void in the led suit: its lowest club, else its lowest card."""
    hand = s[s[I_TURN]]
    lg = legal(s)
    if lg & (lg - 1) == 0:
        return lowest(lg)
    if s[I_NTR] == 0:
        left = s[0] | s[1] | s[2] | s[3]
        pick = -1
        pick_n = -1
        long_su = -1
        long_n = -1
        for k in range(4):
            su = (k + 1) % 4
            x = (lg >> (13 * su)) & 8191
            if x == 0:
                continue
            n = POP13[x]
            top = HI13[x]
            if (((left >> (13 * su)) & 8191) >> (top + 1)) == 0 and n > pick_n:
                pick = 13 * su + top
                pick_n = n
            if n > long_n:
                long_n = n
                long_su = su
        if pick >= 0:
            return pick
        return 13 * long_su + LO13[(lg >> (13 * long_su)) & 8191]
    led = s[I_LED]
    shift = 13 * led
    follow = (hand >> shift) & 8191
    if follow == 0:
        cl = hand & CLUBM
        if cl:
            return lowest(cl)
        return _lowest_rank(hand)
    br = s[I_BEST] - shift
    above = (follow >> (br + 1)) << (br + 1)
    if above and s[I_CLUBS] <= GREEDY_TAKE:
        if s[I_NTR] == s[I_NPL] - 1:
            return shift + LO13[above]
        return shift + HI13[follow]
    if led != 0 and lg & CLUBM:
        return lowest(lg & CLUBM)
    return shift + LO13[follow]


@_jit
def rollout_card(s: Any) -> int:
    """A rollout's card for the seat to play: :func:`greedy_card` for the seats of
    ``I_GREEDY``, else :func:`policy`."""
    if (s[I_GREEDY] >> s[I_TURN]) & 1:
        return greedy_card(s)
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


@_jit
def rec_card(s: Any, rows: Any, t: Any) -> int:
    """The card of the seat to play chosen by a small determinized search of its own
    (recursive PIMC, one level): :data:`REC_DEALS` deals it cannot tell apart from ``s``
    (the others' hands mixed by :func:`mix_others`), each of its cards that play
    differently (:func:`distinct`) played and rolled out in each (:func:`rollout`, one
    random stream a deal), the card of highest mean :func:`utility` for that seat.
    ``rows`` are two scratch states; the sums live in ``t.sums``. ``s``'s generator
    advances."""
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
    det = rows[0]
    w = rows[1]
    sums = t.sums
    x = todo
    while x:
        c = lowest(x)
        x &= x - 1
        sums[c] = 0.0
    for i in range(STATE_SIZE):
        det[i] = s[i]
    det[I_REC] = 0
    steps = 4 * (
        popcount(s[(seat + 1) % 4]) + popcount(s[(seat + 2) % 4]) + popcount(s[(seat + 3) % 4])
    )
    for _ in range(REC_DEALS):
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
            sums[c] += utility(w, seat, t.totals, t.target, t.wgame)
    s[I_RNG] = det[I_RNG]
    best = -1
    top = -1e18
    x = todo
    while x:
        c = lowest(x)
        x &= x - 1
        if sums[c] > top:
            top = sums[c]
            best = c
    return best


@_jit
def finish(w: Any, rows: Any, t: Any) -> float:
    """Play the hand in ``w`` out by the rollout policy and return the seat ``t.me``'s
    :func:`utility`. With ``I_REC``, the seat's first ``I_REC`` decisions are searched
    (:func:`rec_card`, on the two scratch ``rows``)."""
    rec = w[I_REC]
    me = t.me
    while rec and w[I_TURN] >= 0:
        if w[I_TURN] == me:
            rec -= 1
            play(w, rec_card(w, rows, t))
        else:
            play(w, rollout_card(w))
    rollout(w)
    return utility(w, me, t.totals, t.target, t.wgame)


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
def utility(s: Any, me: int, totals: Any, target: int, wgame: float) -> float:
    """The value of a finished hand for ``me``: its tricks plus ``wgame`` times a game term.

    The game term is 1 or 0 when the hand ends the game (R15: one seat alone at the top,
    at or above the target), 1 if ``me`` is that seat; otherwise a smooth estimate of
    ``me``'s chance from the gap to the best other total and the hands still to play.
    """
    pts = s[I_PTS + me]
    if wgame == 0.0:
        return float(pts)
    mine = totals[me] + pts
    best_other = -1
    second = -1
    for i in range(4):
        if i != me:
            t = totals[i] + s[I_PTS + i]
            if t > best_other:
                second = best_other
                best_other = t
            elif t > second:
                second = t
    if mine >= target and mine > best_other:
        g = 1.0
    elif best_other >= target and best_other > mine and best_other > second:
        g = 0.0
    else:
        top = mine if mine > best_other else best_other
        lead = float(mine - best_other)
        togo = float(target - top)
        if togo < 0.0:
            togo = 0.0
        scale = 2.0 + 0.6 * togo
        g = 0.5 + 0.5 * lead / (abs(lead) + scale)
    return pts + wgame * g


@_jit
def likelihood(det: Any, w: Any, t: Any) -> float:
    """How well a sampled deal explains the other seats' past plays: ``lam`` per surprise.

    Row ``d < t.n_hist`` of ``t.hist`` is the public state before a past play by another
    seat (hands empty); ``t.hist_add[d]`` the cards that seat held then beyond what it holds
    now (played or lost since) and ``t.hist_card[d]`` the card it played. Each play the
    seat's model would not have made, given the deal, multiplies the weight by
    ``t.lams[seat]``: the greedy policy for the seats of ``t.model``, else the ``normal``
    rules (:func:`policy`). ``w`` is scratch state.
    """
    hist = t.hist
    hist_add = t.hist_add
    hist_card = t.hist_card
    lams = t.lams
    model = t.model
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
        if (model >> seat) & 1:
            # the greedy policy reads which cards are left: those not played nor lost
            w[(seat + 1) % 4] = FULL & ~(w[I_PLAYED] | w[I_LOST] | w[seat])
            card = greedy_card(w)
        else:
            card = policy(w)
        if card != hist_card[d]:
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
        out_weight[0] += 1.0
        for j in range(n_cards):
            for i in range(STATE_SIZE):
                w[i] = det[i]
            w[I_RNG] = roll
            play(w, cards[j])
            v = finish(w, work[4:], t)
            out_value[j] += v
            out_tricks[j] += v if wgame == 0.0 else w[I_PTS + me]
    return iterations * n_cards
