"""The double-dummy search kernels: ints and numpy arrays only.

Encoding. A card is a bit of one uint64: four 16-bit lanes, one per color,
and within a lane the bits run in rank order (the Python layer re-maps card
indices per trump, so the Rook sits inside the trump lane at its rank, a high
1 above the 14, and so on). A trick is won by the highest bit in the trump
lane, else the highest bit in the led lane.

Search. A probe answers "does the declaring side take at least ``target``
more points from here?" by alpha-beta on a boolean (null-window) game, with an
explicit stack instead of recursion (cache=True and recursion do not mix,
numba issue 6061). A card whose siblings would only repeat its bound (the
cards of its hand and color below everything its bound depended on, worth
what it is worth) stands for them: they are not searched
(``same_bound_moves``). The exact value is found by bisection over multiples of
the point unit. At every trick boundary a transposition table keeps a lower
and an upper bound on the points still to come, reused across probes and
across solves of the same game (``solve_batch``'s groups: other deals too). Its key has an exact part (the leader, every
hand's length in every color, the cards worth points and the birds in
order with their worth and owners, and, when most_tricks is live, the
declaring side's tricks so far)
and a partial part, after DDS's winning ranks: the search records which
cards' ranks decided each bound (a trick won by beating a card of its own
color, the top trumps a quick bound counted), and an entry then matches every
position whose owners agree on those ranks and the ones above them, however
the lower cards lie. tests/test_solver_table.py checks every stored bound
against the reference on the positions it matches.

Payoff-similar positions. The table's exact part pins where the counters
lie, yet two positions that agree on the hand lengths, the bird and the
owners and worth of a bound's relevant ranks differ only in what the lower
cards are worth: the play that proves the bound in one wins the same tricks
in the other, so the bound holds there shifted by at most what those cards
can change (``worth_shift``; Furtak and Buro's payoff-similarity). A second,
smaller cache (``ps_slot``) keeps each stored bound with its whole position,
at a level by how many top cards of a color the bound needs; a position the
table misses looks there before it is searched, where a live card is
worth points or is a bird (bridge positions skip it; benchmarks/RESULTS.md,
tenth session, has what it saves).

Move hints. Where the table holds no move for a position, the first two
leads tried are the last two that cut at a position like it (where it
holds one, that move goes first and the latest other hint second), and
inside a trick the two cards that last cut after the same cards in a
trick begun like it: a small cache (``hint_get``) keyed by the trick
start's structure (hand lengths, worth, birds, the owner of each color's
top card: the payoff-similar cache's first level). A card is kept by its
color and rank among the live cards, so a position whose low cards differ
finds the card in the same place (``move_code``). Hints only order the
moves: the value never depends on them.

Lazy move lists. Where a ply's first move is known (the table's move or a
hint, and a card the list would hold: ``gen_class_head``), it is played
before the other moves are listed, and they are listed (``gen_rest``:
scored and sorted, the first move at the head) only if it does not cut.
Most first moves cut, and listing the moves took about 7 % of the
search's time in a profile by source line (benchmarks/RESULTS.md,
forty-sixth session).

Parameters ``P`` (int64 array): 0 seats, 1 any_time (Rook may be played at
any time), 2 trick_points, 3 points added to the last trick (last-trick bonus
plus the nest when it goes to the last trick), 4 most_tricks N (0: none),
5 most_tricks points, 6 trump lane (-1: no trump).
"""

import numpy as np
from numba import njit

from .bits import highest_bit, lowest_bit, pdep, pext, popcount, prefetch
from .config import FAST_PEXT, JIT, JIT_CALLED

U1 = np.uint64(1)
LANE = np.uint64(0xFFFF)
ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
MAXMOVES = 32
NO_MOVE = -1
L0_WAYS = 4  # level-0 buckets (``entry_level``) are this many times larger
OWNW = 8  # words of a position's owner and worth planes (6), and its two bucket salts
KEYW = 5  # exact key words: 2 of hand lengths, 3 holding the owner and worth masks of the cards worth points
# a table record (``tt_new``): the exact key, the owner and worth planes on
# the relevant ranks, the relevant ranks, and bounds with the best move
R_KEY = 0
R_PART = KEYW
R_REL = KEYW + 6
R_META = KEYW + 7
REC_W = KEYW + 8
# the two-trick cache (``tt_new``): 2**TWO_BITS entries of TWO_W words, the
# exact position (every live card and its owner's seat bits), its tag, and
# the bounds and relevant cards ``two_tricks`` found for it
TWO_BITS = 14
TWO_W = 8
# the payoff-similar cache (``ps_slot``): 2**PS_BITS entries of PS_W words,
# a position's structure (hand lengths, the owner of every live card and
# where the birds are, by rank among the live cards), the worth of every
# live card, its tag and level, and the ranks its bounds depend on; and a
# check word an entry (32 bits of its hash, its bounds), kept apart so a
# lookup reads a small array
PS_BITS = 16
PS_W = 11
PS_LEVELS = (1, 2, 3, 4, 5, 16)  # the top k live cards of each color pinned (16: every live card)
# the move-hint cache (``hint_get``): 2**HINT_BITS words, each 48 bits of a
# hash and two cards, the last two that cut at a position like this: the same
# structure as the payoff-similar cache's first level (hand lengths, worth,
# birds, tag, the owner of each color's top card) and the same cards of the
# trick so far. It only orders moves, so a stale or colliding word costs
# nodes, never a wrong value
HINT_BITS = 18
_PAGE = 4096  # bytes: ``tt_new`` writes one a page
FOLD_MAX = 8  # cards worth points a color at most for those masks to fold into 32 bits

_ENTER = 0
_NEXT = 1
_RETURN = 2

# hashing constants (odd 64-bit multipliers)
_H1 = np.uint64(0x9E3779B97F4A7C15)
_H2 = np.uint64(0xC2B2AE3D27D4EB4F)
_H3 = np.uint64(0x165667B19E3779F9)
_H4 = np.uint64(0xD6E8FEB86659FD93)
_H5 = np.uint64(0xFF51AFD7ED558CCD)


def _pext8_table():
    """PEXT8[m << 8 | x]: the bits of byte x where byte m has ones, packed low."""
    t = np.zeros(1 << 16, np.uint8)
    for m in range(256):
        for x in range(256):
            out = 0
            k = 0
            for b in range(8):
                if m >> b & 1:
                    out |= (x >> b & 1) << k
                    k += 1
            t[m << 8 | x] = out
    return t


PEXT8 = _pext8_table()


@njit(**JIT)
def _compress_lanes_table(x, rem):
    """Per 16-bit lane, the bits of ``x`` at the places where ``rem`` has ones,
    packed to the bottom of that lane: ranks relative to the cards still live."""
    return _compress3_table(x, np.uint64(0), np.uint64(0), rem)[0]


@njit(**JIT)
def _compress3_table(x0, x1, x2, rem):
    """``_compress_lanes`` of three masks by the same ``rem`` (the table key
    compresses its owner and worth planes together): each lane's part of
    ``rem`` is unpacked once, and a mask that is 0 costs nothing."""
    o0 = np.uint64(0)
    o1 = np.uint64(0)
    o2 = np.uint64(0)
    for lane in range(4):
        sh = np.uint64(16 * lane)
        m = (rem >> sh) & LANE
        if m == 0:
            continue
        i0 = (m & np.uint64(0xFF)) << np.uint64(8)
        i1 = (m >> np.uint64(8)) << np.uint64(8)
        up = np.uint64(popcount(m & np.uint64(0xFF)))
        if x0:
            v = (x0 >> sh) & LANE
            o0 |= (np.uint64(PEXT8[i0 | (v & np.uint64(0xFF))]) | (np.uint64(PEXT8[i1 | (v >> np.uint64(8))]) << up)) << sh
        if x1:
            v = (x1 >> sh) & LANE
            o1 |= (np.uint64(PEXT8[i0 | (v & np.uint64(0xFF))]) | (np.uint64(PEXT8[i1 | (v >> np.uint64(8))]) << up)) << sh
        if x2:
            v = (x2 >> sh) & LANE
            o2 |= (np.uint64(PEXT8[i0 | (v & np.uint64(0xFF))]) | (np.uint64(PEXT8[i1 | (v >> np.uint64(8))]) << up)) << sh
    return o0, o1, o2


@njit(**JIT)
def _compress_lanes_pext(x, rem):
    """``_compress_lanes_table`` by BMI2: gather the bits at ``rem``, then
    scatter them to the bottom of their lanes."""
    return pdep(pext(x, rem), live_ranks(rem))


@njit(**JIT)
def _compress3_pext(x0, x1, x2, rem):
    """``_compress3_table`` by BMI2."""
    d = live_ranks(rem)
    return pdep(pext(x0, rem), d), pdep(pext(x1, rem), d), pdep(pext(x2, rem), d)


# what the kernels call: two instructions a mask where the CPU has a fast
# PEXT, else the byte tables (the key's compression runs at every lookup
# and store)
_compress_lanes = _compress_lanes_pext if FAST_PEXT else _compress_lanes_table
_compress3 = _compress3_pext if FAST_PEXT else _compress3_table


@njit(**JIT)
def _bit(c):
    return U1 << np.uint64(c)


@njit(**JIT)
def _seat_after(seat, i, n):
    """The seat ``i`` places after ``seat`` (both below ``n``): no division,
    which costs tens of cycles and runs at every node."""
    s = seat + i
    return s - n if s >= n else s


@njit(**JIT)
def lane_mask(c):
    """Mask of the lane (color) of card bit ``c``."""
    return LANE << np.uint64((c >> 4) << 4)


@njit(**JIT)
def beats(c, w, trump_lane):
    """Does card ``c`` beat the card ``w`` now winning the trick?"""
    if (c >> 4) == (w >> 4):
        return c > w
    return (c >> 4) == trump_lane


@njit(**JIT)
def legal_mask(hand, led, any_time, bird_mask):
    """Cards of ``hand`` that may be played; ``led`` is the led card or -1."""
    if led < 0:
        return hand
    follow = hand & lane_mask(led)
    if follow == 0:
        return hand
    if any_time:
        return follow | (hand & bird_mask)
    return follow


@njit(**JIT)
def bird_apart(a, b, any_time, bird_mask):
    """Under bird_play=any_time, is one of cards ``a`` and ``b`` a bird and
    the other not? The bird may then be played where the other may not (on
    a side color its seat could follow), so neither stands for the other
    when moves are grouped (``gen_moves``, ``class_bottom``, ``two_tricks``),
    whatever their points."""
    if any_time == 0:
        return False
    return ((bird_mask >> np.uint64(a)) ^ (bird_mask >> np.uint64(b))) & U1 != 0


@njit(**JIT)
def mask_points(mask, values):
    total = 0
    m = mask
    while m:
        c = lowest_bit(m)
        total += values[c]
        m &= m - U1
    return total


@njit(inline='always', **JIT)
def _score_move(c, h, live, values, tlen, n, led, win_card, partner_winning, trump_lane, lead_info, bird_mask):
    """Move-ordering score: higher is tried first. From the mover's side.
    ``lead_info`` on lead: bit L set when a partner holds the top card of
    color L, bit 4 + L when an opponent can ruff color L, bit 8 when an
    opponent holds a trump, bit 9 when the mover is of the declaring side
    (``lead_lanes``); mid-trick, before the last seat:
    ``follow_beaters`` (0: every card that follows and wins may be
    beaten)."""
    v = values[c]
    rank = c & 15
    lm = lane_mask(c)
    others_live = live & lm & ~h
    above = ALL << np.uint64(c + 1) if c < 63 else np.uint64(0)
    top = (others_live & above) == 0
    if tlen == 0:
        lane = c >> 4
        if (lead_info >> (4 + lane)) & 1:
            # an opponent ruffs it, the top card too (tried first as a sure
            # winner, it cost a fifth more nodes on hand's work, three
            # quarters more on dixie40 and bridge)
            return -600 - 8 * v - rank
        trump = lane == trump_lane
        if trump and (lead_info >> 8) & 1 == 0:
            # the other side holds no trump: a trump lead draws nothing from
            # it, and the Rook and the top trumps win whenever played, so
            # every trump lead goes after the side colors' leads, counters
            # first (the Rook led first failed 61 % of the times there, a
            # low lead cutting: -1.9 % nodes on hand's work, fifty-eighth
            # session; the Rook alone after them -0.2 %, the top trumps
            # -1.0 %)
            return -500 + 8 * v + rank
        if top:
            # a sure winner in its color: cash it, counters first; a side
            # color's before the leads to a partner's winner, a trump's
            # after them, the bird last (a top trump wins later too, and
            # its lead draws the partner's trumps: -2.9 % nodes on hand's
            # work, -21 % on bridge deals)
            if not trump:
                return 1100 + 8 * v + rank
            if (bird_mask >> np.uint64(c)) & U1:
                return 699
            return 700 + 8 * v + rank
        if (lead_info >> lane) & 1:
            # to partner's winner, with a counter if any; in trumps after
            # the trump cashes
            return (650 if trump else 900) + 8 * v - rank
        if trump and (lead_info >> 9) & 1:
            # the declaring side's low trump (the top trump not the
            # partner's): before the side colors' low cards, the cheapest
            # first; tied with them by rank it came after them (-0.9 %
            # nodes on hand's work, fifty-eighth session, -1.0 % after the
            # session's other two ordering changes; for either side,
            # -1.1 % there but +0.5 % on its first 10 samples and cachegrind
            # 1.019 on its first 5; before the leads to a partner's top
            # trump, +3.2 %; after the colors an opponent ruffs, +19 %)
            return 200 - 8 * v - rank
        return -8 * v - rank
    last = tlen == n - 1
    wins = beats(c, win_card, trump_lane)
    if partner_winning:
        if wins:
            if last and lead_info != 0 and v > 0 and not top and (c >> 4) != trump_lane:
                # the last seat, where the last trick carries no prize
                # (``ply_info``): a side counter that overtakes but is not
                # the top of its color scores as a smear of its worth, the
                # same points and the lead too (after the worthless smears it
                # failed on full deals, an overtaking counter cutting: -6.3 %
                # nodes on bench's 10 full deals, -2.0 % on seed 1's, -1.2 %
                # on hand's full work and on 50 kentucky deals, hasbro's
                # unchanged, fifty-ninth session; with trump counters too,
                # +1.6 % on hasbro's seed 7; where the last trick carries a
                # prize too, +1.9 % there)
                return 800 + 8 * v - rank
            return -2000 + 8 * v - rank
        if last:
            # smear counters on partner's trick, the dearest, and of a worth
            # the lowest first (the highest first cost 8 % more nodes on
            # hand's work), a sure winner last
            return 800 + 8 * v - rank - (200 if top else 0)
        # a seat before the last, its partner sure to win: a top card (it
        # may take a trick of its own later) scores 16 less, after the
        # cards of its worth and in hasbro the 5s after a top 10 or 14,
        # still before the cards worth nothing (-0.7 % nodes on hand's
        # work, fifty-seventh session; last of all, as the last seat's
        # smear, -0.5 %)
        return 400 + 4 * v - rank - (16 if top else 0)
    if wins:
        if last:
            if top and (c >> 4) == trump_lane:
                # a top trump takes a trick whenever it is played: the other
                # winners first, a ruff with it after them (it was tried
                # first where it held a counter: -2.5 % nodes on hand's
                # work, fifty-seventh session; a side color's top card
                # after them too cost nodes, it may be ruffed later)
                return 1300 + 8 * v - rank
            return 1500 + 8 * v - rank  # win as cheaply as possible, with a counter if free
        if top and (c >> 4) != trump_lane:
            if lead_info != 0 and v == 0:
                # a top card worth nothing where no seat of the other side
                # still to play can ruff: one more sure winner, after the
                # cheaper ones (first, it failed 22 % of the times at the
                # third seat on full deals, a cheaper sure winner cutting:
                # -15 % nodes on bench's 10 full deals, most of it on one,
                # -0.1 % on 10 others and on hand's work, fifty-ninth
                # session; for the top counters too, +8 % on kentucky)
                return 1200 - rank
            return 1400 + 4 * v  # a top trump wins later too: ruff or overtake cheaply first
        if (c >> 4) == (led >> 4) and c + lead_info < 64:
            # a seat of the other side still to play may beat it: second hand
            # low; at a later seat, before the last, after the winners it
            # cannot beat (-0.8 % nodes on hand's work, fifty-eighth session),
            # and of these the cards worth nothing before the counters (the
            # cheapest first failed where another such winner cut: -0.6 %
            # nodes on hand's work, fifty-ninth session; the highest first
            # +0.5 to +1.0 %)
            return -8 * v - rank if tlen == 1 else 1100 - 4 * v - rank
        # a ruff, or a card that follows and that no seat of the other side
        # still to play can beat (sure to take the trick): cheapest first, at
        # the second seat too (before: second hand low there, whatever the
        # later seats held: -8.2 % nodes on hand's work, fifty-eighth session;
        # a ruff that a later seat may overruff tried after the losers cost
        # 9 % more, after the sure ruffs 0.4 % more)
        return 1200 - rank
    if (c >> 4) == trump_lane and (led >> 4) != trump_lane:
        # a trump under the ruff that holds the trick: after every side card,
        # the counters too (a low trump scored as the cheapest loser failed
        # 21-31 % of the times at the third seat, a worthless discard
        # cutting: -2.5 % nodes on hand's work, fifty-ninth session; after
        # the discards of its worth only, -1.8 %)
        return -8 * v - rank - 400
    return -8 * v - rank - (200 if top else 0)  # a loser: keep the sure winners


@njit(inline='always', **JIT)
def lead_lanes(hands, seat, n, side, trump_lane):
    """For ordering the leads of ``seat``: bit L when a partner holds the
    highest live card of color L; bit 4 + L when an opponent is out of side
    color L and holds a trump; bit 8 when an opponent holds a trump; bit 9
    when ``seat`` is of the declaring side."""
    out = 0
    me = side[seat]
    for lane in range(4):
        sh = np.uint64(16 * lane)
        top_seat = -1
        top = -1
        for s in range(n):
            t = (hands[s] >> sh) & LANE
            if t != 0:
                b = highest_bit(t)
                if b > top:
                    top = b
                    top_seat = s
            elif side[s] != me and lane != trump_lane and trump_lane >= 0:
                if (hands[s] >> np.uint64(16 * trump_lane)) & LANE:
                    out |= 1 << (4 + lane)
            if t != 0 and lane == trump_lane and side[s] != me:
                out |= 1 << 8
        if top_seat >= 0 and top_seat != seat and side[top_seat] == me:
            out |= 1 << lane
    if me == 1:
        out |= 1 << 9
    return out


@njit(inline='always', **JIT)
def follow_beaters(hands, leader, n, side, seat, tlen, led, win_card, trump_lane, bird_mask):
    """For ordering the cards of ``seat`` mid-trick, before the last seat,
    where it may follow and win: 63 - the highest card of the led color that
    a seat of the other side still to play may play (64: none), so a card
    ``c`` that follows and wins is sure to take the trick where c + this
    > 63; 0 where such a seat may ruff, or ``seat`` has no card that follows
    and wins. A bird its holder could play only under any_time is left out, as
    in ``partner_winning``."""
    lm = lane_mask(led)
    above = ALL << np.uint64(win_card + 1) if win_card < 63 else np.uint64(0)
    if (win_card >> 4) != (led >> 4) or (hands[seat] & lm & above) == 0:
        return 0
    tl = LANE << np.uint64(16 * trump_lane) if trump_lane >= 0 and (led >> 4) != trump_lane else np.uint64(0)
    hl = -1
    me = side[seat]
    for i in range(tlen + 1, n):
        s_i = _seat_after(leader, i, n)
        if side[s_i] != me:
            # not a literal 0: legal_mask would compile a second time for it
            lg = legal_mask(hands[s_i], led, np.int64(0), bird_mask)
            if lg & tl:
                return 0
            f = lg & lm
            if f != 0:
                b = highest_bit(f)
                if b > hl:
                    hl = b
    return 63 - hl


@njit(inline='always', **JIT)
def ply_info(hands, leader, n, side, seat, tlen, led, win_card, pw, trump_lane, bird_mask, last_extra):
    """``gen_moves``' lead_info for the seat to move: ``lead_lanes`` at a
    trick start, ``follow_beaters`` before the last seat where no partner
    is sure to win, 1 at the last seat where the partner wins and the last
    trick carries no prize (``last_extra``: 0), else 0."""
    if tlen == 0:
        return lead_lanes(hands, leader, n, side, trump_lane)
    if tlen < n - 1 and not pw:
        return follow_beaters(hands, leader, n, side, seat, tlen, led, win_card, trump_lane, bird_mask)
    if tlen == n - 1 and pw and last_extra == 0:
        return 1  # the last seat, its partner winning, no prize on the last trick
    return 0


@njit(inline='always', **JIT)
def _stood_for(c, legal, live, any_time, bird_mask, values):
    """Does the next live card above legal card ``c`` stand for it in a move
    list? It does when it is equivalent: same hand (also ``legal``), same
    points, and under any_time both birds or neither (``bird_apart``)."""
    if c >= 63:
        return False
    above = live & lane_mask(c) & (ALL << np.uint64(c + 1))
    if above == 0:
        return False
    nxt = lowest_bit(above)
    return (legal >> np.uint64(nxt)) & U1 != 0 and values[nxt] == values[c] \
        and not bird_apart(c, nxt, any_time, bird_mask)


@njit(inline='always', **JIT)
def gen_moves(out, scores, h, live, led, any_time, bird_mask, values, tlen, n, win_card,
              partner_winning, trump_lane, hint, history, lead_info, trick_points, hint2):
    """Write the legal moves of hand ``h`` into ``out``, one card per class of
    equivalent cards, best-first (``scores`` is scratch). Returns their number
    and their mask. ``hint`` goes first and ``hint2`` second (NO_MOVE: none).
    ``partner_winning``: a partner's card wins the trick and no seat of the
    other side still to play can beat it; ``trick_points``: the points of the
    trick's cards so far."""
    legal = legal_mask(h, led, any_time, bird_mask)
    k = 0
    mask = np.uint64(0)
    m = legal
    while m:
        c = highest_bit(m)
        m &= ~_bit(c)
        if _stood_for(c, legal, live, any_time, bird_mask, values):
            continue
        hb = history[c] if history[c] < 4095 else 4095  # the history breaks ties within a score
        s = _score_move(c, h, live, values, tlen, n, led, win_card, partner_winning, trump_lane, lead_info,
                        bird_mask) * 4096 + hb
        if tlen > 0 and (bird_mask >> np.uint64(c)) & U1:
            if not partner_winning and trick_points > 0 \
                    and 2 * trick_points >= values[c]:
                # a trick of half the bird's worth or more that the other
                # side holds or may still take, at any seat (not only the
                # last: -2.9 % nodes on hand's work, fifty-seventh session):
                # after the other winners, before the losers
                s = 1100 * 4096 + hb
            else:
                # within a trick the bird goes last: the top trump wins whenever
                # it is played, so it is seldom the way to win this trick; the
                # scores above prize it as a winner worth points (last to play,
                # the first winner tried), and under bird_play=any_time that
                # was on every trick its holder could win
                s -= 2000 * 4096
        if c == hint:
            s = 1 << 50
        elif c == hint2:
            s = 1 << 49
        # insertion sort, descending
        j = k
        while j > 0 and scores[j - 1] < s:
            scores[j] = scores[j - 1]
            out[j] = out[j - 1]
            j -= 1
        scores[j] = s
        out[j] = c
        mask |= _bit(c)
        k += 1
    return k, mask


@njit(inline='always', **JIT)
def gen_class_head(c, h, live, led, any_time, bird_mask, values):
    """Is ``c`` a legal card of hand ``h`` that ``gen_moves`` would list (the
    top of its class of equivalent cards)?"""
    legal = legal_mask(h, led, any_time, bird_mask)
    if c < 0 or not (legal >> np.uint64(c)) & U1:
        return False
    return not _stood_for(c, legal, live, any_time, bird_mask, values)


@njit(inline='always', **JIT)
def partner_winning(hands, leader, n, side, seat, tlen, led, win_card, winpos, trump_lane, bird_mask, worth):
    """``gen_moves``' partner_winning: a partner's card wins the trick and
    no seat of the other side still to play can beat it, but by a bird
    played on a color it could follow (under bird_play=any_time): the
    same under either rule, so the rule is not a parameter. At the second
    of four seats, also where the partner, last to play, holds a card sure
    to take the trick and the seat may play a card worth points (a mask of
    them: ``worth``) other than a bird."""
    if tlen == 0:
        return False
    wseat = _seat_after(leader, winpos, n)
    pw = side[wseat] == side[seat]
    if pw and tlen < n - 1:
        # a partner's card that a seat of the other side still to play can
        # beat is no winner to play low to: order as if the other side won
        # (-11 % nodes on hand's work). A bird its holder could play there
        # only under any_time is left out (legal as under trump_suit): it
        # takes any trick its holder picks, whatever this seat plays, so
        # the seat still plays low to its partner (-1.5 % nodes on hand's
        # work, fifty-seventh session). Ordering only: the quick bounds and
        # the sibling skips keep the rule's own legal cards. Not a literal
        # 0: legal_mask would compile a second time for it
        pw = sure_taker(hands, leader, n, side, wseat, win_card, led, win_card, wseat, tlen + 1,
                        trump_lane, np.int64(0), bird_mask)[1] >= 0
    elif not pw and tlen == 1 and n == 4 \
            and legal_mask(hands[seat], led, np.int64(0), bird_mask) & worth & ~bird_mask:
        # the second seat, its partner last to play: where the partner's
        # best card (its highest of the led color, else its highest trump)
        # takes the trick whatever the third seat plays, the partner wins
        # it too: the second seat plays a counter to it, not second hand
        # low (there a worthless card first failed 57 % of the times, a
        # counter cutting: -13.8 % nodes on hand's work, fifty-eighth
        # session). Only where the seat holds a counter to play: without
        # one its own winners go last here, and tricks_only took 2.6 % more
        # nodes. Ordering only, as above
        s3 = _seat_after(leader, np.int64(3), n)  # not a literal: _seat_after would compile again
        h3 = hands[s3]
        f = h3 & lane_mask(led)
        if f == 0 and trump_lane >= 0:
            f = h3 & (LANE << np.uint64(16 * trump_lane))
        best = highest_bit(f)  # -1 where it holds neither
        if best >= 0 and side[s3] == side[seat] and beats(best, win_card, trump_lane):
            pw = sure_taker(hands, leader, n, side, s3, best, led, win_card, wseat, 2,
                            trump_lane, np.int64(0), bird_mask)[1] == side[seat]
    return pw


@njit(**JIT_CALLED)
def gen_rest(out, scratch, hands, leader, n, side, seat, tlen, led, win_card, winpos, live, any_time, bird_mask,
             values, trump_lane, first, history, trick_points, hint2, worth, last_extra):
    """``gen_moves`` for a ply whose first move ``first`` was searched
    before its other moves were listed (the probe's lazy plies). Called,
    not inlined: a second copy of the move generator in the probe cost
    more in instruction-cache misses than the call."""
    pw = partner_winning(hands, leader, n, side, seat, tlen, led, win_card, winpos, trump_lane, bird_mask, worth)
    linfo = ply_info(hands, leader, n, side, seat, tlen, led, win_card, pw, trump_lane, bird_mask, last_extra)
    return gen_moves(out, scratch, hands[seat], live, led, any_time, bird_mask, values, tlen, n, win_card, pw,
                     trump_lane, first, history, linfo, trick_points, hint2)


@njit(inline='always', **JIT)
def last_trick_points(hands, leader, n, side, values, trump_lane, tp, last_extra):
    """Declaring side's points from the last trick (one card in each hand):
    returns (points, 1 if the declaring side wins it, relevant card: the
    winner when it beat another card of its color, else none)."""
    led = lowest_bit(hands[leader])
    win = led
    winseat = leader
    total = values[led]
    for i in range(1, n):
        s = _seat_after(leader, i, n)
        c = lowest_bit(hands[s])
        total += values[c]
        if beats(c, win, trump_lane):
            win = c
            winseat = s
    rel = np.uint64(0)
    for i in range(n):
        c = lowest_bit(hands[_seat_after(leader, i, n)])
        if c != win and (c >> 4) == (win >> 4):
            rel = _bit(win)
    if side[winseat] == 1:
        return total + tp + last_extra, 1, rel
    return 0, 0, rel


@njit(**JIT)
def _fold_lanes(x):
    """A mask with at most the low 8 bits of each 16-bit lane set, in 32 bits."""
    return ((x & np.uint64(0xFF)) | ((x >> np.uint64(8)) & np.uint64(0xFF00))
            | ((x >> np.uint64(16)) & np.uint64(0xFF0000)) | ((x >> np.uint64(24)) & np.uint64(0xFF000000)))


@njit(inline='always', **JIT)
def _owner_planes(hands, n):
    """Owner plane j: the cards of the seats whose number has bit j set
    (three planes name the owner of every card, up to 8 seats)."""
    p0 = np.uint64(0)
    p1 = np.uint64(0)
    p2 = np.uint64(0)
    for s in range(n):
        if s & 1:
            p0 |= hands[s]
        if s & 2:
            p1 |= hands[s]
        if s & 4:
            p2 |= hands[s]
    return p0, p1, p2


@njit(inline='always', **JIT)
def table_key(hands, n, live, class_bits, kp, own):
    """Fill ``kp`` with the exact part of the table key of a trick-boundary
    position and ``own`` with who holds each live card and what it is worth,
    by rank relative to the live cards (3 bits of seat number, 3 bits of
    value class); entries match ``own`` only on the ranks they found
    relevant. The exact part: every hand's length in every color, and the
    cards worth something (points or the bird) in rank order among
    themselves, with their worth and owner; so the cards below the relevant
    ranks may lie anywhere as long as each hand holds the same worth in
    each color. Returns False when the position cannot be keyed (more than
    FOLD_MAX live cards worth something in one color, possible only under
    custom counters): it is then searched without the table."""
    c0 = np.uint64(0)
    c1 = np.uint64(0)
    for s in range(n):
        for lane in range(4):
            cnt = np.uint64(popcount((hands[s] >> np.uint64(16 * lane)) & LANE))
            f = np.uint64((s % 3) * 20 + lane * 5)
            if s < 3:
                c0 |= cnt << f
            else:
                c1 |= cnt << f
    kp[0] = c0
    kp[1] = c1
    valued = live & (class_bits[0] | class_bits[1] | class_bits[2])
    for lane in range(4):
        if popcount((valued >> np.uint64(16 * lane)) & LANE) > FOLD_MAX:
            return False
    # owner plane j (the seats with bit j set) and worth plane j: by rank
    # among the live cards (own), and for the exact key among the cards
    # worth something, 32 bits each, two a word
    p0, p1, p2 = _owner_planes(hands, n)
    own[0], own[1], own[2] = _compress3(p0, p1, p2, live)
    own[3], own[4], own[5] = _compress3(class_bits[0], class_bits[1], class_bits[2], live)
    if valued:
        k0, k1, k2 = _compress3(p0, p1, p2, valued)
        w0, w1, w2 = _compress3(class_bits[0], class_bits[1], class_bits[2], valued)
        kp[2] = _fold_lanes(k0) | (_fold_lanes(w0) << np.uint64(32))
        kp[3] = _fold_lanes(k1) | (_fold_lanes(w1) << np.uint64(32))
        kp[4] = _fold_lanes(k2) | (_fold_lanes(w2) << np.uint64(32))
    else:
        kp[2] = 0
        kp[3] = 0
        kp[4] = 0
    # Where no card is worth points (bridge) the exact key is the hand
    # lengths alone, shared by far more positions than a bucket holds. There
    # an entry goes to one of three buckets by how much it needs (its
    # level): level 2 when its bound depends on the owners of the top two
    # live cards of every color, picked by those owners; level 1 likewise
    # with the top card of every color; level 0, the hand lengths alone. A
    # lookup tries the three buckets of its position, so it finds every
    # entry that matches it. Where cards are worth points, their owners
    # already spread the entries: one bucket (own[6] = own[7] = 0).
    s1 = np.uint64(0)
    s2 = np.uint64(0)
    if valued == 0:
        for lane in range(4):
            m = (live >> np.uint64(16 * lane)) & LANE
            for d in range(2):
                if m == 0:
                    break
                b = highest_bit(m)
                m &= ~(U1 << np.uint64(b))
                c = U1 << np.uint64(16 * lane + b)
                for s in range(n):
                    if hands[s] & c:
                        if d == 0:
                            s1 = s1 * np.uint64(7) + np.uint64(s + 1)
                        s2 = s2 * np.uint64(7) + np.uint64(s + 1)
                        break
        s1 = (s1 << np.uint64(2)) | np.uint64(1)
        s2 = (s2 << np.uint64(2)) | np.uint64(2)
    own[6] = s1
    own[7] = s2
    return True


@njit(inline='always', **JIT)
def _top_level(own):
    """The highest bucket level of a position: 2 where no card is worth
    points (``table_key`` set its salts), else 0 (one bucket a key)."""
    return 2 if own[7] != 0 else 0


@njit(inline='always', **JIT)
def entry_level(relc, live, own):
    """The bucket level of an entry with relevant ranks ``relc``: 2 when
    they hold the top two live cards of every color (all of a shorter
    one), 1 the top card, else 0; always 0 where positions have one bucket."""
    lev = _top_level(own)
    if lev == 0:
        return 0
    for lane in range(4):
        sh = np.uint64(16 * lane)
        k = popcount((relc >> sh) & LANE)
        ln = popcount((live >> sh) & LANE)
        if k < ln and k < lev:
            lev = k
    return lev


@njit(inline='always', **JIT)
def _level_bucket(kp, tag, h0, own, lev, size, ways):
    """(first slot, entries) of a position's bucket at a level: level 0 is
    keyed on the exact key alone (``h0``, its hash) and, where there are
    levels, holds L0_WAYS times as many entries; levels 1 and 2 add their
    salt."""
    if lev == 0:
        wl = ways * L0_WAYS if _top_level(own) > 0 else ways
        return np.int64(h0 & np.uint64(size - 1)) & ~np.int64(wl - 1), wl
    return _bucket(kp, tag, own[5 + lev], size, ways), ways


@njit(**JIT)
def make_tag(gen, live, leader, dtr):
    """A position's tag: generation, cards left, leader, tricks won (the
    low 16 bits are left for ``_entry_tag``'s fingerprint)."""
    return (np.int64(gen) << 32) | (np.int64(popcount(live)) << 24) | (np.int64(leader) << 20) | (np.int64(dtr) << 16)


@njit(**JIT)
def _entry_tag(tag, h0):
    """The tag entries of this exact key carry: ``tag`` and 16 bits of the
    key's hash ``h0``, so a scan of a bucket's tags passes over entries of
    other keys without reading their key and owner words (other cache
    lines)."""
    return tag | np.int64(h0 >> np.uint64(48))


@njit(**JIT)
def relevant_closure(rr, live):
    """Per color, the live cards at or above the lowest card of ``rr``: the
    cards whose owners a bound depends on (DDS's winning ranks)."""
    out = np.uint64(0)
    for lane in range(4):
        sh = np.uint64(16 * lane)
        m = (rr >> sh) & LANE
        if m == 0:
            continue
        low = np.uint64(lowest_bit(m))
        out |= (((live >> sh) & LANE) & (LANE << low) & LANE) << sh
    return out


@njit(**JIT)
def _relevant_threshold_table(relc, live):
    """The inverse of closure-and-compress: for an entry's relevant mask
    (compressed, the top k live cards of each color), the k-th highest live
    card of each color, as a mask of absolute bits."""
    out = np.uint64(0)
    for lane in range(4):
        sh = np.uint64(16 * lane)
        k = popcount((relc >> sh) & LANE)
        if k == 0:
            continue
        m = (live >> sh) & LANE
        c = 0
        for _ in range(k):
            c = highest_bit(m)
            m &= ~(U1 << np.uint64(c))
        out |= U1 << np.uint64(16 * lane + c)
    return out


@njit(**JIT)
def _relevant_threshold_pext(relc, live):
    """``_relevant_threshold_table`` by BMI2, but every one of the top k live
    cards of each color rather than the k-th alone: the same cards to a
    caller, which closes the mask upwards from each color's lowest card
    (``relevant_closure``) or asks only for that lowest card."""
    return pdep(pext(relc, live_ranks(live)), live)


relevant_threshold = _relevant_threshold_pext if FAST_PEXT else _relevant_threshold_table


@njit(inline='always', **JIT)
def _part_match(own, tt_rec, e, r):
    """Same owners and worth as entry ``e`` on its relevant ranks ``r``?"""
    d = np.uint64(0)
    for j in range(6):
        d |= own[j] ^ tt_rec[e, R_PART + j]
    return d & r == 0


@njit(inline='always', **JIT)
def _bucket(kp, tag, salt, size, ways):
    """The first slot of the bucket a position's entries live in."""
    return np.int64(_hash(kp, tag, salt) & np.uint64(size - 1)) & ~np.int64(ways - 1)


@njit(inline='always', **JIT)
def _same_key(tt_rec, e, kp):
    """Does entry ``e`` have the exact key ``kp``?"""
    for j in range(KEYW):
        if tt_rec[e, R_KEY + j] != kp[j]:
            return False
    return True


@njit(inline='always', **JIT)
def entry_lo(tt_rec, e):
    """The entry's lower bound on the points still to come."""
    return np.int64(tt_rec[e, R_META] & np.uint64(0xFFFF))


@njit(inline='always', **JIT)
def entry_hi(tt_rec, e):
    """The entry's upper bound on the points still to come."""
    return np.int64((tt_rec[e, R_META] >> np.uint64(16)) & np.uint64(0xFFFF))


@njit(inline='always', **JIT)
def entry_move(tt_rec, e):
    """The entry's best move, or NO_MOVE."""
    return np.int64(tt_rec[e, R_META] >> np.uint64(32)) - 1


@njit(inline='always', **JIT)
def _set_meta(tt_rec, e, lo, hi, move):
    tt_rec[e, R_META] = np.uint64(lo) | (np.uint64(hi) << np.uint64(16)) | (np.uint64(move + 1) << np.uint64(32))


@njit(inline='always', **JIT)
def table_find(kp, own, relc, lev, tag, h0, gen, tt_tag, tt_work, tt_rec, ways):
    """The slot of an entry for this position (>= 0): same exact key and
    tag, same owners on the entry's relevant ranks, which hold ``relc``
    (0: any). Else -1 - the slot to claim for it in the bucket of level
    ``lev`` (``table_victim``). ``h0``: the exact key's hash."""
    size = tt_tag.shape[0]
    ftag = _entry_tag(tag, h0)
    free = -1
    for lv in range(_top_level(own) + 1):
        base, wl = _level_bucket(kp, tag, h0, own, lv, size, ways)
        for w in range(wl):
            e = base + w
            t = tt_tag[e]
            if (t >> 32) != gen:
                # a bucket's entries of this generation are a prefix of it
                # (entries go to its first stale slot and are never removed)
                if lv == lev:
                    free = e
                break
            if t == ftag:
                r = tt_rec[e, R_REL]
                if (r | relc) == r and _part_match(own, tt_rec, e, r) and _same_key(tt_rec, e, kp):
                    return e
    if free >= 0:
        return -1 - free
    base, wl = _level_bucket(kp, tag, h0, own, lev, size, ways)
    return -1 - table_victim(base, gen, tt_tag, tt_work, wl)


@njit(inline='always', **JIT)
def table_victim(base, gen, tt_tag, tt_work, ways):
    """The slot of a bucket to reuse: a stale one, else the one whose
    search took the fewest nodes (the cheapest to search again)."""
    best = base
    bestwork = np.int64(1) << 40
    for w in range(ways):
        e = base + w
        if (tt_tag[e] >> 32) != gen:
            return e
        work = np.int64(tt_work[e])
        if work < bestwork:
            bestwork = work
            best = e
    return best


@njit(inline='always', **JIT)
def table_lookup(kp, own, tag, need, tt_tag, tt_work, tt_rec, ways):
    """Among the entries for this position, one whose bounds decide ``need``
    (>= 0, else -1), and a best move to try first (or NO_MOVE)."""
    size = tt_tag.shape[0]
    hint = NO_MOVE
    top = _top_level(own)
    h0 = _hash(kp, tag, np.uint64(0))
    ftag = _entry_tag(tag, h0)
    gen = tag >> 32
    for i in range(top + 1):
        base, wl = _level_bucket(kp, tag, h0, own, top - i, size, ways)
        for w in range(wl):
            e = base + w
            t = tt_tag[e]
            if (t >> 32) != gen:
                break  # past this generation's entries (a prefix of the bucket)
            if t == ftag and _part_match(own, tt_rec, e, tt_rec[e, R_REL]) and _same_key(tt_rec, e, kp):
                if entry_lo(tt_rec, e) >= need or entry_hi(tt_rec, e) < need:
                    return e, hint
                if hint == NO_MOVE:
                    hint = entry_move(tt_rec, e)
    return -1, hint


@njit(inline='always', **JIT)
def table_store(kp, own, relc, live, tag, gen, lo, hi, move, work, tt_tag, tt_work, tt_rec, ways):
    """Record ``lo <= points still to come <= hi`` for this position, valid
    wherever the owners of the relevant ranks ``relc`` (compressed) match.
    An entry that already matches is tightened; its relevant ranks become the
    union (both bounds then hold wherever the entry matches)."""
    lev = entry_level(relc, live, own)
    h0 = _hash(kp, tag, np.uint64(0))
    slot = table_find(kp, own, np.uint64(0), lev, tag, h0, gen, tt_tag, tt_work, tt_rec, ways)
    if slot >= 0 and (tt_rec[slot, R_REL] | relc) != tt_rec[slot, R_REL] \
            and (entry_lo(tt_rec, slot) > 0 or entry_hi(tt_rec, slot) < 32767):
        # the new bound needs more ranks than the entry holds: keep it in an
        # entry of its own (one that needs no more ranks, or a new one), so
        # the old entry keeps matching as widely as before
        slot = table_find(kp, own, relc, lev, tag, h0, gen, tt_tag, tt_work, tt_rec, ways)
    lo = min(max(lo, 0), 32767)
    hi = min(max(hi, 0), 32767)
    if slot >= 0:
        old_lo = entry_lo(tt_rec, slot)
        old_hi = entry_hi(tt_rec, slot)
        if lo > old_lo or hi < old_hi:
            r = tt_rec[slot, R_REL] | relc
            tt_rec[slot, R_REL] = r
            for j in range(6):
                tt_rec[slot, R_PART + j] = own[j] & r
        _set_meta(tt_rec, slot, max(lo, old_lo), min(hi, old_hi),
                  move if move != NO_MOVE else entry_move(tt_rec, slot))
        total = np.int64(tt_work[slot]) + work
    else:
        slot = -1 - slot
        for j in range(KEYW):
            tt_rec[slot, R_KEY + j] = kp[j]
        tt_tag[slot] = _entry_tag(tag, h0)
        for j in range(6):
            tt_rec[slot, R_PART + j] = own[j] & relc
        tt_rec[slot, R_REL] = relc
        _set_meta(tt_rec, slot, lo, hi, move)
        total = work
    # the entry's work (nodes searched for it, summed over its stores)
    # picks the victim when its bucket is full
    tt_work[slot] = np.int32(total if total < 0x7FFFFFFF else 0x7FFFFFFF)
    return slot


@njit(**JIT)
def log_store(log, hands, n, leader, dtr, f, res, relevant):
    """Test hook: record a table store in ``log`` (an int64 array longer than
    1000: the count at 999, then 12 words a store), so tests can check each
    stored bound, and that it holds wherever the entry matches."""
    k = log[999]
    b = 1000 + 12 * k
    if b + 12 > log.shape[0]:
        return
    for s in range(6):
        log[b + s] = np.int64(hands[s]) if s < n else 0
    log[b + 6] = leader
    log[b + 7] = dtr
    log[b + 8] = f
    log[b + 9] = 1 if res else 0
    log[b + 10] = np.int64(relevant)
    log[999] = k + 1


@njit(inline='always', **JIT)
def class_bottom(c, hand, live, led, any_time, bird_mask, values):
    """The lowest of the cards ``gen_moves`` let ``c`` stand for: the run of
    legal cards of ``hand`` just below it among the live cards, of the same
    points."""
    legal = legal_mask(hand, led, any_time, bird_mask)
    low = c
    while low & 15:
        below = live & lane_mask(c) & ((U1 << np.uint64(low)) - U1)
        if below == 0:
            break
        nxt = highest_bit(below)
        if (legal >> np.uint64(nxt)) & U1 and values[nxt] == values[low] \
                and not bird_apart(low, nxt, any_time, bird_mask):
            low = nxt
        else:
            break
    return low


@njit(inline='always', **JIT)
def same_bound_moves(c, rr, hand, worth, values, bird_mask):
    """The cards of ``hand`` that would give the bound card ``c`` just gave,
    so its siblings need not be searched: those of c's color below every
    relevant card of it (``rr``: what c's bound depended on), worth what c
    is worth, when c is below them too (not the bird, which plays by rules
    of its own). Playing one instead of c leaves a position that differs
    from c's only in which of two irrelevant cards of one hand is gone: the
    relevant cards' owners, every hand's lengths and the worth of what each
    hand holds are the same, so it matches every bound c's line stored, as
    a table entry matches (and where the two are worth points, no card
    worth points may lie between them, or the exact key's order of those
    cards would change: ``worth`` holds the live cards worth something)."""
    out = np.uint64(0)
    if (bird_mask >> np.uint64(c)) & U1:
        return out
    lane = (c >> 4) << 4
    lr = rr & lane_mask(c)
    thr = lowest_bit(lr) if lr != 0 else lane + 16
    if thr <= c:
        return out
    m = hand & lane_mask(c) & ~bird_mask
    if thr < lane + 16:
        m &= (U1 << np.uint64(thr)) - U1
    while m:
        d = lowest_bit(m)
        m &= m - U1
        if values[d] != values[c]:
            continue
        if values[c] != 0:
            lo = d if d < c else c
            hi = c if d < c else d
            if worth & ((U1 << np.uint64(hi)) - (U1 << np.uint64(lo + 1))):
                continue
        out |= U1 << np.uint64(d)
    return out


@njit(inline='always', **JIT)
def shifted_bound_moves(c, rr, hand, cand, live, led, any_time, values, bird_mask, margin, isor, cur, wc):
    """The siblings of ``c`` whose bound c's bound gives shifted by their
    difference in worth, where that is at most ``margin``: cards d of c's
    hand and color among ``cand`` (neither the bird), either below
    every relevant card of c's (``rr``), or with no card of another hand
    between d and c among the ``live`` cards (the trick's too), so that no
    other card's rank falls between theirs. Playing d instead of c, and c
    later wherever c's line plays d, every trick goes to the same seat, so
    the declaring side's points differ by at most |worth(d) - worth(c)|:
    d's worth goes to the winner of this trick and c's to the winner of
    the later one, or the other way round (the shift the payoff-similar
    cache makes, ``worth_shift``, for one card). In the second case the
    bound depends on the owners of the cards from d to c: the lower of
    the two joins the relevant cards, and where that is d, the lowest of
    the cards d stands for (``class_bottom``, with ``led`` and
    ``any_time`` as the moves were made): they are skipped with it, and a
    matching position must keep them all next to c. Where the side that
    takes this trick is sure once c is played (``cur``: 1 the declaring
    side, 0 the defenders; -1 not known: some seat still to play could
    beat the trick's card; always known when c ends the trick), it is the
    same after d, and the shift goes one way only: d's worth instead of
    c's to that side now, c's instead of d's to whoever wins later. So
    for the bound that matters (an upper one at the declaring side's
    node, ``isor``, a lower one at a defender's) only a change that way
    counts; that rests on no opponent to play beating the trick's winning
    card ``wc``, so where a skip needs it, wc joins the relevant cards.
    Returns (the cards, the largest shift among them, the cards to add to
    the relevant ones)."""
    out = np.uint64(0)
    big = 0
    extra = np.uint64(0)
    if margin < 0 or (bird_mask >> np.uint64(c)) & U1:
        return out, big, extra
    lm = lane_mask(c)
    lane = (c >> 4) << 4
    lr = rr & lm
    thr = lowest_bit(lr) if lr != 0 else lane + 16
    mine = hand & lm & ~bird_mask
    others = live & lm & ~hand
    m = mine & cand & ~_bit(c)
    while m:
        d = lowest_bit(m)
        m &= m - U1
        dv = values[d] - values[c]
        shift = dv if dv >= 0 else -dv
        pinned = np.uint64(0)
        if cur >= 0:
            one = -dv if (cur == 1) != isor else dv
            if one < 0:
                one = 0
            if one < shift:
                shift = one
                pinned = _bit(wc)
        if shift > margin:
            continue
        if not (d < thr and c < thr):
            lo = d if d < c else c
            hi = c if d < c else d
            if others & ((U1 << np.uint64(hi)) - (U1 << np.uint64(lo + 1))):
                continue
            if d < c:
                lo = class_bottom(d, hand, live, led, any_time, bird_mask, values)
            pinned |= _bit(lo)
        extra |= pinned
        out |= _bit(d)
        if shift > big:
            big = shift
    return out, big, extra


@njit(inline='always', **JIT)
def sure_taker(hands, leader, n, side, seat, c, ld, wc, wseat, rest, trump_lane, any_time, bird_mask):
    """Once ``seat`` plays ``c`` to a trick whose led card is ``ld`` and
    whose winning card so far is ``wc`` of ``wseat`` (c, ld and wc all c's
    when it leads): (the trick's winning card, the side sure to take the
    trick: 1 the declaring side, 0 the defenders, -1 not known, where a
    seat of the other side among the places ``rest`` to n - 1 after the
    leader may play a card that beats it)."""
    if beats(c, wc, trump_lane):
        wc = c
        wseat = seat
    cur = side[wseat]
    above = lane_mask(wc) & (ALL << np.uint64(wc + 1)) if wc < 63 else np.uint64(0)
    if trump_lane >= 0 and (wc >> 4) != trump_lane:
        above |= LANE << np.uint64(16 * trump_lane)
    for i in range(rest, n):
        s_i = _seat_after(leader, i, n)
        if side[s_i] != cur and legal_mask(hands[s_i], ld, any_time, bird_mask) & above:
            return wc, -1
    return wc, cur


@njit(**JIT)
def last_trick_side(hands, leader, n, side, seat_pos, ld, trump_lane):
    """Mid-trick, with another trick to come: (the side sure to win the last
    trick: 1 the declaring side, 0 the defenders, -1 not known; the trump
    its bound rests on). ``top_trump_points``' test, one trick on: a seat
    of the top trump's side holding a trump of its run keeps that trump to
    the last trick where, after this trick, it still has as many other
    trumps as any seat of the other side, or only trumps. A trump led
    (``ld``) takes one from every seat still to play to it (from position
    ``seat_pos`` after the leader) that has one; any other lead takes none
    from the seat (it plays a trump only when all its cards are trumps) and
    at most one from the others. Where the other side holds no trump the
    hands' lengths decide it: no relevant card (sixty-first session: before,
    only that case)."""
    if trump_lane < 0:
        return -1, np.uint64(0)
    sh = np.uint64(16 * trump_lane)
    live, owner, theirs, run = _trump_run(hands, n, side, sh)
    if live == 0:
        return -1, np.uint64(0)
    todo = np.uint64(0)
    for i in range(seat_pos, n):
        todo |= U1 << np.uint64(_seat_after(leader, i, n))
    best = _run_keeper(hands, n, side, sh, owner, run, (ld >> 4) == trump_lane, todo)
    if best < 0:
        return -1, np.uint64(0)
    if theirs == 0:
        return owner, np.uint64(0)
    return owner, U1 << np.uint64(16 * trump_lane + best)


@njit(inline='always', **JIT)
def _trump_run(hands, n, side, sh):
    """The trumps in the hands (``sh``: the trump lane's shift), as (all of
    them, the side holding the top one, the other side's, the run: the
    top trump's side's trumps above the other side's best)."""
    live = np.uint64(0)
    decl = np.uint64(0)
    for s in range(n):
        t = (hands[s] >> sh) & LANE
        live |= t
        if side[s] == 1:
            decl |= t
    if live == 0:
        return live, np.int64(0), live, live
    owner = np.int64((decl >> np.uint64(highest_bit(live))) & U1)
    theirs = (live & ~decl) if owner == 1 else decl
    run = live & ~theirs
    if theirs != 0:
        run &= ~((U1 << np.uint64(highest_bit(theirs) + 1)) - U1)
    return live, owner, theirs, run


@njit(inline='always', **JIT)
def _run_keeper(hands, n, side, sh, owner, run, trump_led, todo):
    """The highest trump of the run that a seat of side ``owner`` keeps to
    the last trick (-1 where no seat is sure to): the seat holds a trump of
    the run and at least as many other trumps as any seat of the other
    side, or only trumps (``top_trump_points`` says why). With the trick in
    progress led by a trump (``trump_led``), each seat still to play to it
    (the bits of ``todo``) that holds a trump spends one there."""
    most = 0
    for s in range(n):
        if side[s] != owner:
            c = popcount((hands[s] >> sh) & LANE)
            if trump_led and c > 0 and (todo >> np.uint64(s)) & U1:
                c -= 1
            if c > most:
                most = c
    best = -1
    for s in range(n):
        t = (hands[s] >> sh) & LANE
        if side[s] == owner and t & run:
            c = popcount(t)
            m = c - 1 - (1 if trump_led and (todo >> np.uint64(s)) & U1 else 0)
            if m >= most or c == popcount(hands[s]):
                b = highest_bit(t & run)
                if b > best:
                    best = b
    return best


@njit(inline='always', **JIT)
def _forced(h, ld, any_time, bird_mask):
    """Mid-trick: hand ``h`` has one card it may play to ``ld``'s trick."""
    lm = legal_mask(h, ld, any_time, bird_mask)
    return (lm & (lm - U1)) == 0


@njit(inline='always', **JIT)
def dearest_worth(mask, values):
    """The most points any one card of ``mask`` is worth (0 when none)."""
    top = 0
    while mask:
        c = lowest_bit(mask)
        mask &= mask - U1
        if values[c] > top:
            top = values[c]
    return top


@njit(inline='always', **JIT)
def _top_legal(h, ld, any_time, bird_mask, trump_lane):
    """The card of hand ``h`` that beats the most, of those it may play to a
    trick led by ``ld`` (-1 when none)."""
    lm = legal_mask(h, ld, any_time, bird_mask)
    if lm == 0:
        return -1
    if trump_lane >= 0:
        t = (lm >> np.uint64(16 * trump_lane)) & LANE
        if t:
            return 16 * trump_lane + highest_bit(t)
    t = lm & lane_mask(ld)
    if t:
        return highest_bit(t)
    return -1


@njit(inline='always', **JIT)
def trick_sure_points(hands, leader, n, side, seat_pos, ld, wc, wseat, trickval, values, trump_lane, any_time,
                      bird_mask, tp, worth, est1, est0, t1, t0):
    """Mid-trick: (a side sure to take the trick in progress, -1 when none
    found, the least it gets from it, the card its bound rests on). Sure
    when the winning card so far ``wc``, or a card x of one of its seats
    still to play (from position ``seat_pos`` after the leader), can be
    beaten by no card a seat of the other side still to play may play
    (``sure_taker``'s test): that rests on the owners of that card and the
    cards above it, and on the hands' lengths by color (the table's exact
    key). It gets the cards played, the trick's points, x (the dearest
    card of that seat that wins as surely), the dearest legal card of each
    partner still to play (whatever it plays, the trick stays with the
    side) and the cheapest of each other seat. ``est1`` bounds that from
    above where the declaring side takes the trick, ``est0`` where the
    defenders do; where it is below what the side must get to settle the
    probe (``t1`` for the declaring side, ``t0`` for the defenders) it gives
    up (-1) without working that out."""
    _, cur = sure_taker(hands, leader, n, side, _seat_after(leader, seat_pos, n), wc, ld, wc, wseat, seat_pos,
                        trump_lane, any_time, bird_mask)
    xpos = -1
    key = wc
    if cur < 0:
        for j in range(seat_pos, n):
            sj = _seat_after(leader, j, n)
            x = _top_legal(hands[sj], ld, any_time, bird_mask, trump_lane)
            if x < 0 or not beats(x, wc, trump_lane):
                continue
            _, c2 = sure_taker(hands, leader, n, side, sj, x, ld, x, sj, seat_pos, trump_lane, any_time, bird_mask)
            if c2 >= 0:
                if (est1 < t1) if c2 == 1 else (est0 < t0):
                    return -1, 0, key  # what the side gets cannot settle the probe
                cur = c2
                xpos = j
                key = x
                # a dearer card of the same seat that wins as surely
                lm = legal_mask(hands[sj], ld, any_time, bird_mask) & worth & ~_bit(x)
                while lm:
                    y = lowest_bit(lm)
                    lm &= lm - U1
                    if values[y] > values[key] and beats(y, wc, trump_lane):
                        _, c3 = sure_taker(hands, leader, n, side, sj, y, ld, y, sj, seat_pos, trump_lane,
                                           any_time, bird_mask)
                        if c3 == cur:
                            key = y
                break
        if cur < 0:
            return cur, 0, key
    if (est1 < t1) if cur == 1 else (est0 < t0):
        return -1, 0, key  # what the side gets cannot settle the probe
    got = trickval + tp
    for i in range(seat_pos, n):
        if i == xpos:
            got += values[key]
            continue
        s_i = _seat_after(leader, i, n)
        lm = legal_mask(hands[s_i], ld, any_time, bird_mask)
        if side[s_i] == cur:
            # a partner gives its dearest card: whatever it plays, the trick stays with the side
            got += dearest_worth(lm & worth, values)
            continue
        if lm & ~worth:
            continue  # a card worth nothing
        low = 1 << 30
        while lm:
            c = lowest_bit(lm)
            lm &= lm - U1
            if values[c] < low:
                low = values[c]
        got += low
    return cur, got, key


@njit(**JIT_CALLED)
def two_tricks(hands, leader, n, side, values, trump_lane, any_time, bird_mask, tp, last_extra, most_n, most_p,
               dtr, need, live, worth, remval, mv2, nm2, mi2, best2, rel2, trick2):
    """The last two tricks (every hand holds two cards), searched as the
    probe would search them but without its table and quick bounds, which
    cost more here than the few lines they save: does the declaring side
    take ``need`` more points? Returns (a bound on the points it takes, as
    the probe's: at least ``need`` when it can, else below; the cards whose
    ranks decided it, found as the probe finds them; the nodes searched;
    the trick starts among them). ``live``: every card in the hands;
    ``worth``: those worth something; ``remval``: their points; the rest
    is scratch, one entry a ply.
    ``hands`` is restored before returning."""
    ply = np.int64(0)  # not a literal 0, for which each helper it reaches would compile again
    state = _ENTER
    rv = 0
    rr = np.uint64(0)
    nodes = 0
    starts = 0
    wp = np.int64(0)  # position of the card winning the trick so far (int64, as ply)
    tv = 0     # points in the trick so far
    tmask = np.uint64(0)  # cards of the trick so far
    while True:
        if state == _ENTER:
            nodes += 1
            if ply == n:
                # the first trick is complete; the last one is forced
                starts += 1
                wc = trick2[wp]
                wseat = _seat_after(leader, wp, n)
                won1 = 1 if side[wseat] == 1 else 0
                pts1 = tv + tp if won1 else 0
                # the winner's rank decided the trick when it beat a card of its color
                r1 = _bit(wc) if popcount(tmask & lane_mask(wc)) > 1 else np.uint64(0)
                need2 = need - pts1
                rr = np.uint64(0)
                if need2 <= 0:
                    rv = pts1
                else:
                    ub2 = remval - tv + tp + last_extra
                    if most_n > 0 and dtr + won1 + 1 >= most_n:
                        ub2 += most_p
                    if ub2 < need2:
                        rv = pts1 + ub2
                    else:
                        got, won2, rr = last_trick_points(hands, wseat, n, side, values, trump_lane, tp, last_extra)
                        if most_n > 0 and dtr + won1 + won2 >= most_n:
                            got += most_p
                        rv = pts1 + got
                rr |= r1
                ply -= 1
                state = _RETURN
                continue
            seat = _seat_after(leader, ply, n)
            h = hands[seat]
            led = trick2[0] if ply > 0 else -1
            legal = legal_mask(h, led, any_time, bird_mask)
            a = highest_bit(legal)
            b = lowest_bit(legal)
            nm2[ply] = 1
            mv2[ply, 0] = a
            if b != a:
                # the lower stands with the higher when they are neighbours
                # among the live cards and worth the same (as gen_moves; here,
                # with the other card forced on the last trick, a bird and a
                # trump would be alike too, but ``class_bottom`` must find
                # the same classes)
                above = live & lane_mask(b) & (ALL << np.uint64(b + 1))
                if not (lowest_bit(above) == a and values[a] == values[b]
                        and not bird_apart(a, b, any_time, bird_mask)):
                    nm2[ply] = 2
                    mv2[ply, 1] = b
            mi2[ply] = 0
            best2[ply] = -1 if side[seat] == 1 else (1 << 40)
            rel2[ply] = 0
            state = _NEXT
        elif state == _NEXT:
            if mi2[ply] < nm2[ply]:
                c = mv2[ply, mi2[ply]]
                mi2[ply] += 1
                hands[_seat_after(leader, ply, n)] ^= _bit(c)
                trick2[ply] = c
                if ply == 0:
                    wp = 0
                    tv = 0
                    tmask = np.uint64(0)
                elif beats(c, trick2[wp], trump_lane):
                    wp = ply
                tv += values[c]
                tmask |= _bit(c)
                ply += 1
                state = _ENTER
            else:
                rv = best2[ply]
                rr = rel2[ply]
                if ply == 0:
                    break
                ply -= 1
                state = _RETURN
        else:  # _RETURN to ply ``ply`` with the child's bound ``rv``
            seat = _seat_after(leader, ply, n)
            c = mv2[ply, mi2[ply] - 1]
            hands[seat] |= _bit(c)
            # the trick so far, back to before this ply's card
            tv -= values[c]
            tmask &= ~_bit(c)
            if ply > 0 and wp == ply:
                wp = 0
                for i in range(1, ply):
                    if beats(trick2[i], trick2[wp], trump_lane):
                        wp = i
            lr = rr & lane_mask(c)
            if lr != 0 and lowest_bit(lr) <= c:
                rr |= _bit(class_bottom(c, hands[seat], live, trick2[0] if ply > 0 else -1, any_time, bird_mask,
                                        values))
            isor = side[seat] == 1
            if isor:
                if rv > best2[ply]:
                    best2[ply] = rv
            elif rv < best2[ply]:
                best2[ply] = rv
            if isor == (rv >= need):
                # a cut: this ply is decided by that child
                if ply == 0:
                    break
                ply -= 1
            else:
                rel2[ply] |= rr
                if mi2[ply] == 1 and nm2[ply] == 2:
                    d2 = mv2[ply, 1]
                    if (same_bound_moves(c, rr, hands[seat], worth, values, bird_mask) >> np.uint64(d2)) & U1:
                        mi2[ply] = 2  # the lower card gives the bound the higher one just gave
                    else:
                        # or that bound shifted by the two cards' difference in worth, where c's bound
                        # clears the need at all (the taker test costs a pass over the seats to play)
                        margin = need - 1 - rv if isor else rv - need
                        if margin >= 0:
                            # the side that takes the trick, where no opponent still to play can beat it
                            if ply == 0:
                                wc, cur = sure_taker(hands, leader, n, side, seat, c, c, c, seat, 1, trump_lane,
                                                     any_time, bird_mask)
                            else:
                                wc, cur = sure_taker(hands, leader, n, side, seat, c, trick2[0], trick2[wp],
                                                     _seat_after(leader, wp, n), ply + 1, trump_lane, any_time,
                                                     bird_mask)
                            sh, big, extra = shifted_bound_moves(c, rr, hands[seat], _bit(d2), live | tmask,
                                                                 trick2[0] if ply > 0 else -1, any_time, values,
                                                                 bird_mask, margin, isor, cur, wc)
                            if (sh >> np.uint64(d2)) & U1:
                                mi2[ply] = 2
                                rel2[ply] |= extra
                                if isor:
                                    if rv + big > best2[ply]:
                                        best2[ply] = rv + big
                                elif rv - big < best2[ply]:
                                    best2[ply] = rv - big
                state = _NEXT
    return rv, rr, nodes, starts


@njit(inline='always', **JIT)
def two_slot(hands, n, live, tag, tt_two):
    """The two-trick cache slot of a position (every hand two cards) with
    ``tag`` (generation, leader, tricks won), and whether it holds this
    position. The position is kept whole (the live cards and, per bit of
    the seat number, the cards of the seats with that bit), so a slot
    never answers for another position."""
    p0, p1, p2 = _owner_planes(hands, n)
    h = np.uint64(tag) * _H5
    h = (h ^ live) * _H1
    h = (h ^ (h >> np.uint64(29)) ^ p0) * _H2
    h = (h ^ (h >> np.uint64(29)) ^ p1) * _H3
    h = (h ^ (h >> np.uint64(29)) ^ p2) * _H4
    e = np.int64(h >> np.uint64(64 - TWO_BITS))
    same = (tt_two[e, 4] == np.uint64(tag) and tt_two[e, 0] == live and tt_two[e, 1] == p0
            and tt_two[e, 2] == p1 and tt_two[e, 3] == p2)
    if not same:
        tt_two[e, 0] = live
        tt_two[e, 1] = p0
        tt_two[e, 2] = p1
        tt_two[e, 3] = p2
    return e, same


@njit(inline='always', **JIT)
def trick_rank_winner(cards, start, n, c, winpos, trump_lane):
    """The card ``c`` completed the trick ``cards[start:start + n]`` (winning
    so far: position ``winpos``): its winner if that beat another card of its
    color (then its rank mattered), else no card."""
    w = cards[start + winpos]
    if beats(c, w, trump_lane):
        w = c
    for i in range(n):
        x = cards[start + i]
        if x != w and (x >> 4) == (w >> 4):
            return _bit(w)
    return np.uint64(0)


def entry_bytes() -> int:
    """Bytes a table entry takes (the arrays of ``tt_new`` but its fixed
    caches: two-trick, 2**TWO_BITS * TWO_W * 8 bytes = 1 MB, and
    payoff-similar, 2**PS_BITS * (PS_W + 1) * 8 bytes = 6.3 MB, and move
    hints, 2**HINT_BITS * 8 bytes = 2 MB)."""
    return 8 + 4 + REC_W * 8


def tt_new(bits):
    """A table of 2**bits entries: tags (scanned by every lookup), work (read
    when a full bucket picks its victim) and records (key, owners on the
    relevant ranks, bounds and move: one place, so a hit reads one or two
    cache lines rather than one in each of five arrays); the two-trick
    cache (``two_slot``), the payoff-similar cache (``ps_slot``) and the
    move hints (``hint_get``).

    Plain numpy, not a compiled function: numba's boxing of the arrays a
    compiled function returns runs Python code, and a Ctrl-C (or SIGTERM)
    handled there left the tuple half-built with the exception set
    ("returned a result with an exception set"), and the process died of a
    segmentation fault at its next use: a signal in the first second of a
    command, while the first table was made, crashed it."""
    size = 1 << bits
    table = (np.zeros(size, np.int64), np.zeros(size, np.int32), np.zeros((size, REC_W), np.uint64),
             np.zeros((1 << TWO_BITS, TWO_W), np.uint64),
             np.zeros((1 << PS_BITS, PS_W), np.uint64), np.zeros(1 << PS_BITS, np.uint64),
             np.zeros(1 << HINT_BITS, np.uint64))
    # np.zeros only maps the memory: the system zeroes each page at its
    # first write. Written here, so that cost (40-70 ms at the default size)
    # is the making's, not the first solves' (their ``ms``, ``bench``'s first
    # rows), and the memory shows as used at once
    for a in table:
        a.reshape(-1).view(np.uint8)[::_PAGE] = 0
    return table


@njit(inline='always', **JIT)
def _hash(key, tag, salt):
    h = (np.uint64(tag) * _H5) ^ (salt * _H3)
    for i in range(KEYW):
        h ^= key[i]
        h *= _H1
        h ^= h >> np.uint64(29)
    h *= _H2
    h ^= h >> np.uint64(32)
    return h


@njit(**JIT_CALLED)
def top_trump_points(hands, n, side, values, trump_lane, tp, last_extra):
    """Points the holders of the top trumps keep for certain, as
    (declaring side, defenders, relevant card): the run of highest live
    trumps held by one side wins whatever trick each of them falls in; the
    bound depends on who holds the trump that ends the run. And the last
    trick's extra points (``last_extra``) when a seat of that side holds a
    trump of the run and at least as many other trumps as any seat of the
    other side, or only trumps: a trump led by any seat takes one from
    every seat that still has one, so the other side leads trumps at most
    that often and the seat always has a lower trump to follow with; it
    plays a trump otherwise only when all its cards are trumps (and then
    keeps its run trump for the end), and its side leads trumps only when
    all its cards are trumps (a partner left with trumps alone, where the
    seat is then forced to give its run trump to the lead, takes the last
    trick with a trump of its own: the other side has none left, as the
    seat had no lower trump). So the seat keeps its run trump to the last
    trick, and no card of the other side beats it there. The other side
    without a trump is the case of length 0. Before, the test asked only
    the top trump's holder, for as many other trumps as any other seat,
    its partners too (-2.3 % nodes on hand's work with the same test inside
    a trick, ``last_trick_side``, sixty-first session). The hands' lengths
    are in the table's exact key; the seat's run trump and the trumps above
    it are relevant where the other side holds a trump (else the lengths
    decide it)."""
    if trump_lane < 0:
        return 0, 0, np.uint64(0)
    sh = np.uint64(16 * trump_lane)
    live, owner, theirs, run = _trump_run(hands, n, side, sh)
    if live == 0:
        return 0, 0, np.uint64(0)
    rel = np.uint64(0)
    if theirs != 0:
        rel = U1 << np.uint64(16 * trump_lane + highest_bit(theirs))
    last = 0
    if last_extra > 0:
        best = _run_keeper(hands, n, side, sh, owner, run, False, np.uint64(0))
        if best >= 0:
            last = last_extra
            if theirs != 0:
                rel |= U1 << np.uint64(16 * trump_lane + best)
    got = 0
    m = run
    while m:
        c = highest_bit(m)
        got += values[16 * trump_lane + c]
        m &= ~(U1 << np.uint64(c))
    got += tp + last
    if owner == 1:
        return got, 0, rel
    return 0, got, rel


@njit(**JIT)
def value_classes(values, bird_mask):
    """Three masks numbering each card's worth (its points, and bird or not)
    with a small class index, so table keys can carry worth by relative rank.
    Returns (masks, ok); ok is False when the cards have more than 8 kinds
    of worth (possible only under custom counters): 3 bits cannot number
    them, and the search then goes without the table."""
    kinds = np.full(8, -1, np.int64)
    nk = 1
    kinds[0] = 0  # class 0: plain cards worth nothing
    out = np.zeros(3, np.uint64)
    for c in range(64):
        v = values[c]
        code = v * 2 + np.int64((bird_mask >> np.uint64(c)) & U1)
        if code == 0:
            continue
        cls = -1
        for j in range(nk):
            if kinds[j] == code:
                cls = j
        if cls < 0:
            if nk == 8:
                return out, False
            cls = nk
            kinds[nk] = code
            nk += 1
        for j in range(3):
            if (cls >> j) & 1:
                out[j] |= U1 << np.uint64(c)
    return out, True


@njit(inline='always', **JIT)
def class_points(class_bits, values, bird_mask):
    """The points of each worth class of ``value_classes`` (8 ints), and the
    classes of the birds (a bit per class)."""
    out = np.zeros(8, np.int64)
    birds = 0
    for c in range(64):
        k = 0
        for j in range(3):
            if (class_bits[j] >> np.uint64(c)) & U1:
                k |= 1 << j
        if k:
            out[k] = values[c]
            if (bird_mask >> np.uint64(c)) & U1:
                birds |= 1 << k
    return out, birds


@njit(inline='always', **JIT)
def worth_levels(cls_pts, bird_classes):
    """The distinct points above 0 that cards other than the birds are
    worth, ascending (8 ints), and how many (for ``worth_shift``; the birds
    lie alike in the positions it compares)."""
    thr = np.zeros(8, np.int64)
    nthr = 0
    for k in range(1, 8):
        v = cls_pts[k]
        if v > 0 and not (bird_classes >> k) & 1:
            j = 0
            while j < nthr and thr[j] < v:
                j += 1
            if j == nthr or thr[j] != v:
                for q in range(nthr, j, -1):
                    thr[q] = thr[q - 1]
                thr[j] = v
                nthr += 1
    return thr, nthr


@njit(inline='always', **JIT)
def worth_at_least(w0, w1, w2, cls_pts, bird_classes, t):
    """The ranks of the cards other than birds worth ``t`` or more, from
    the three worth planes."""
    out = np.uint64(0)
    for k in range(1, 8):
        if cls_pts[k] >= t and not (bird_classes >> k) & 1:
            out |= (w0 if k & 1 else ~w0) & (w1 if k & 2 else ~w1) & (w2 if k & 4 else ~w2)
    return out


@njit(**JIT)
def live_ranks(live):
    """Every live card as a compressed rank (the low bits of each lane):
    ``_compress_lanes(live, live)`` by four popcounts (it runs at every
    lookup of the payoff-similar cache). Of any mask, as many low bits a
    lane as it has there: where the PEXT path scatters its bits."""
    out = np.uint64(0)
    for lane in range(4):
        sh = np.uint64(16 * lane)
        out |= ((U1 << np.uint64(popcount((live >> sh) & LANE))) - U1) << sh
    return out


@njit(**JIT)
def top_ranks(livec, k):
    """Per color, the top ``k`` live cards (every live card of a color with
    fewer), as compressed ranks; ``livec``: every live card (``live_ranks``)."""
    if k >= 16:
        return livec
    rep = (LANE >> np.uint64(k)) * np.uint64(0x0001000100010001)
    return livec & ~((livec >> np.uint64(k)) & rep)


@njit(**JIT)
def live_place(c, live):
    """Live card ``c``'s place among the ``live`` cards: 16 x its color plus
    how many live cards of its color rank below it (its bit in
    ``_compress_lanes(_bit(c), live)``, by one popcount)."""
    below = live & (LANE << np.uint64(16 * (c >> 4))) & ((U1 << np.uint64(c)) - U1)
    return 16 * (c >> 4) + popcount(below)


@njit(**JIT)
def bird_ranks(bird_mask, live):
    """The live birds as compressed ranks: ``_compress_lanes(bird_mask &
    live, live)`` by a popcount a bird (there are one or two)."""
    out = np.uint64(0)
    m = bird_mask & live
    while m:
        b = lowest_bit(m)
        m &= m - U1
        out |= U1 << np.uint64(live_place(b, live))
    return out


@njit(inline='always', **JIT)
def ps_base(kp, birdc, tag):
    """The part of a position's payoff-similar hash that every level shares."""
    h = np.uint64(tag) * _H5
    for w in (kp[0], kp[1], birdc):
        h = (h ^ w) * _H1
        h ^= h >> np.uint64(29)
    return h


@njit(inline='always', **JIT)
def ps_hash(base, own, lev, top):
    """A trick-start position's payoff-similar hash at level ``lev``
    (``top``: the ranks whose owners that level pins; ``base``: ``ps_base``)."""
    h = base ^ (np.uint64(lev) * _H3)
    for w in (own[0] & top, own[1] & top, own[2] & top):
        h = (h ^ w) * _H1
        h ^= h >> np.uint64(29)
    return h * _H2


@njit(inline='always', **JIT)
def move_code(c, live):
    """Card ``c`` by its color and its rank among the ``live`` cards of that
    color (1 and up), so a like position with other low cards finds the
    card that stands in its place (``code_card``)."""
    return 1 + live_place(c, live)


@njit(inline='always', **JIT)
def code_card(code, live):
    """The live card ``move_code`` numbered ``code`` (NO_MOVE where its color
    has too few live cards)."""
    code -= 1
    lb = (live >> np.uint64(16 * (code >> 4))) & LANE
    k = code & 15
    if popcount(lb) <= k:
        return NO_MOVE
    for _ in range(k):
        lb &= lb - U1
    return 16 * (code >> 4) + lowest_bit(lb)


@njit(inline='always', **JIT)
def hint_hash(similar, trick):
    """The move-hint cache's hash of a position: ``similar``, the trick
    start's ``ps_hash`` at level 1, and ``trick``, the cards played to the
    trick so far."""
    h = (similar ^ trick) * _H1
    h ^= h >> np.uint64(29)
    return h * _H2


@njit(inline='always', **JIT)
def hint_index(h):
    """The hint word of hash ``h``: its top bits."""
    return np.int64(h >> np.uint64(64 - HINT_BITS))


@njit(inline='always', **JIT)
def _hint_word_of(w, h):
    """Is ``w`` the hint word of hash ``h`` (the same 48 check bits)?"""
    return (w ^ h) & ~np.uint64(0xFFFF) == 0


@njit(inline='always', **JIT)
def hint_get(tt_hint, h, live):
    """The two cards that last cut at a position of hash ``h``, the latest
    first (each as the live card of this position that stands in its
    place), or NO_MOVE."""
    w = tt_hint[hint_index(h)]
    if not _hint_word_of(w, h):
        return NO_MOVE, NO_MOVE
    c1 = np.int64(w & np.uint64(0xFF))
    c2 = np.int64((w >> np.uint64(8)) & np.uint64(0xFF))
    return code_card(c1, live) if c1 != 0 else NO_MOVE, code_card(c2, live) if c2 != 0 else NO_MOVE


@njit(inline='always', **JIT)
def hint_prefetch(tt_hint, h):
    """Start bringing the hint word of hash ``h`` into the caches, some work
    before ``hint_get`` reads it: the 2 MB of hints miss the inner caches,
    and that read held 9 % of the probe's time (perf, fifty-ninth session)."""
    prefetch(tt_hint, hint_index(h))


@njit(inline='always', **JIT)
def table_prefetch(kp, own, tag, h0, tt_tag, ways):
    """Start bringing the first tags of a position's buckets (one where
    cards are worth points, three where none is) into the caches, some
    work before ``table_lookup`` or ``table_store`` scans them: the tags of
    the table miss the caches, and that scan held 4 % of the probe's time
    (perf, fifty-ninth session)."""
    size = tt_tag.shape[0]
    for lv in range(_top_level(own) + 1):
        base, _ = _level_bucket(kp, tag, h0, own, lv, size, ways)
        prefetch(tt_tag, base)


@njit(inline='always', **JIT)
def ps_prefetch(tt_ps, tt_psk, e):
    """Start bringing payoff-similar slot ``e`` (its check word and its
    words) into the caches before ``ps_slot`` and ``ps_store`` read them."""
    prefetch(tt_psk, e)
    prefetch(tt_ps, e)


@njit(inline='always', **JIT)
def hint_put(tt_hint, h, c, live):
    """Keep card ``c`` as the one that cut at a position of hash ``h``; the
    card kept before it, if another, becomes the second (a word: 48 bits of
    the hash, the second's code, the first's)."""
    i = hint_index(h)
    w = tt_hint[i]
    code = np.uint64(move_code(c, live))
    second = np.uint64(0)
    if _hint_word_of(w, h):
        first = w & np.uint64(0xFF)
        second = (w >> np.uint64(8)) & np.uint64(0xFF) if first == code else first
    tt_hint[i] = (h & ~np.uint64(0xFFFF)) | (second << np.uint64(8)) | code


@njit(inline='always', **JIT)
def lead_hints(table_move, first, second):
    """The first two leads tried at a trick start: the table's move for
    the position, and ``first``, ``second``: the leads that last cut at a
    position like it (``hint_get``). The last cut goes first, the table's
    move second: it was the best move of a probe for another target, and
    failed first 31 % of the times against 23 % for the last cut (-2.0 %
    nodes on hand's work, fifty-eighth session); where the table gives no
    move, the two last cuts (-17 % nodes on hand's work, with the hints
    inside tricks -30 %; the table's move first, then the last cut: -1.8 %,
    cachegrind 0.990)."""
    if table_move == NO_MOVE:
        return first, second
    if first != NO_MOVE and first != table_move:
        return first, table_move
    return table_move, second


@njit(inline='always', **JIT)
def ps_index(h):
    """The payoff-similar slot of hash ``h``: its top bits."""
    return np.int64(h >> np.uint64(64 - PS_BITS))


@njit(inline='always', **JIT)
def ps_slot(base, own, lev, top, tt_psk):
    """The payoff-similar cache slot of a trick-start position at level
    ``lev`` (``top``: the ranks whose owners that level pins; ``base``:
    ``ps_base``), its hash, and the bounds the slot holds when its check
    word matches the hash, else (0, 32767). ``tt_psk`` holds each slot's
    check word, 32 bits of its hash and its bounds: a lookup reads it (half
    a megabyte, which stays in cache) and the slot itself only when its
    bounds could settle the probe."""
    h = ps_hash(base, own, lev, top)
    e = ps_index(h)
    k = tt_psk[e]
    if (k >> np.uint64(32)) != (h >> np.uint64(32)):
        return e, h, 0, 32767
    return e, h, np.int64(k & np.uint64(0xFFFF)), np.int64((k >> np.uint64(16)) & np.uint64(0xFFFF))


@njit(inline='always', **JIT)
def ps_agrees(tt_ps, e, kp, own, birdc, tag, lev, top):
    """Does slot ``e`` hold a position that agrees with this one at level
    ``lev``: the same tag and hand lengths, the birds at the same ranks in
    the same hands (a bird plays by rules of its own, so the cards below
    the relevant ranks can be matched up only if the birds match), and the
    same owners of the ``top`` ranks?"""
    return (tt_ps[e, 9] == np.uint64(tag | lev) and tt_ps[e, 0] == kp[0] and tt_ps[e, 1] == kp[1]
            and tt_ps[e, 8] == birdc
            and ((tt_ps[e, 2] ^ own[0]) | (tt_ps[e, 3] ^ own[1]) | (tt_ps[e, 4] ^ own[2])) & (top | birdc) == 0)


@njit(inline='always', **JIT)
def _seat_ranks(p0, p1, p2, s, livec):
    """The compressed ranks of seat ``s`` from the three owner planes."""
    m = livec
    m &= p0 if s & 1 else ~p0
    m &= p1 if s & 2 else ~p1
    m &= p2 if s & 4 else ~p2
    return m


@njit(**JIT_CALLED)
def worth_shift(tt_ps, e, own, livec, n, cls_pts, bird_classes, thr, nthr):
    """How far the bounds of entry ``e`` move for this position, which agrees
    with it on the owners of its relevant ranks: (points the declaring side
    may lose, may gain). Every hand holds as many cards of each color below
    those ranks in both, and the play that proves the entry's bounds works
    here with those cards matched up hand by hand and color by color (it
    never needed their ranks); matched by worth, highest with highest, what
    can change is, per hand and color, sum over worth levels t of the step
    to t times how many more cards worth t or more one has than the other.
    -1 when a card on the relevant ranks is worth something else here."""
    r = tt_ps[e, 10]
    if ((tt_ps[e, 5] ^ own[3]) | (tt_ps[e, 6] ^ own[4]) | (tt_ps[e, 7] ^ own[5])) & r:
        return -1, -1
    low = livec & ~r
    loss = 0
    gain = 0
    for i in range(nthr):
        # cards worth thr[i] or more, in the entry's position and in this one
        ge_e = worth_at_least(tt_ps[e, 5], tt_ps[e, 6], tt_ps[e, 7], cls_pts, bird_classes, thr[i]) & low
        ge_c = worth_at_least(own[3], own[4], own[5], cls_pts, bird_classes, thr[i]) & low
        if ge_e == 0 and ge_c == 0:
            continue
        step = thr[i] - (thr[i - 1] if i > 0 else 0)
        for s in range(n):
            he = _seat_ranks(tt_ps[e, 2], tt_ps[e, 3], tt_ps[e, 4], s, livec) & ge_e
            hc = _seat_ranks(own[0], own[1], own[2], s, livec) & ge_c
            if he == 0 and hc == 0:
                continue
            for lane in range(4):
                sh = np.uint64(16 * lane)
                d = popcount((he >> sh) & LANE) - popcount((hc >> sh) & LANE)
                if d > 0:
                    loss += step * d
                else:
                    gain -= step * d
    return loss, gain


@njit(**JIT)
def ps_level(relc):
    """The level an entry with relevant ranks ``relc`` goes to: the most
    relevant ranks of any color, 1 to 5; 16 (every live card) above that."""
    k = 1
    for lane in range(4):
        c = popcount((relc >> np.uint64(16 * lane)) & LANE)
        if c > k:
            k = c
    return k if k <= 5 else 16


@njit(inline='always', **JIT)
def ps_store(tt_ps, tt_psk, e, h, kp, own, birdc, tag, lev, top, lo, hi, relc):
    """Keep ``lo <= points to come <= hi`` (valid wherever the relevant
    ranks ``relc`` match) for this position in its slot ``e`` (hash ``h``):
    tightened when the slot holds the same position, else replacing what it
    held."""
    ident = (tt_psk[e] >> np.uint64(32)) == (h >> np.uint64(32)) and ps_agrees(tt_ps, e, kp, own, birdc, tag, lev, top)
    if ident:
        # the owners in full only where the check word matched: else the
        # slot is overwritten, and its words, outside the caches most
        # times, need not be read (fifty-ninth session)
        for j in range(6):
            if tt_ps[e, 2 + j] != own[j]:
                ident = False
    if ident:
        olo = np.int64(tt_psk[e] & np.uint64(0xFFFF))
        ohi = np.int64((tt_psk[e] >> np.uint64(16)) & np.uint64(0xFFFF))
        if lo > olo or hi < ohi:
            tt_ps[e, 10] |= relc
        lo = max(lo, olo)
        hi = min(hi, ohi)
    else:
        tt_ps[e, 0] = kp[0]
        tt_ps[e, 1] = kp[1]
        for j in range(6):
            tt_ps[e, 2 + j] = own[j]
        tt_ps[e, 8] = birdc
        tt_ps[e, 9] = np.uint64(tag | lev)
        tt_ps[e, 10] = relc
    tt_psk[e] = (h & np.uint64(0xFFFFFFFF00000000)) | np.uint64(lo) | (np.uint64(hi) << np.uint64(16))


@njit(**JIT)
def probe_space(hands, n, tlen0, values, bird_mask):
    """What ``probe`` works in, made once a solve: its per-ply arrays and
    scratch, and the worth classes of the cards. The probe itself runs
    without NRT (``JIT_CALLED``), so the views it takes of these arrays (a
    ply's moves, its key, a seat's history) cost no atomic reference
    counts (with NRT those took 13-14 % of a warm profile; without, the
    search takes 0.93 of the time: benchmarks/RESULTS.md)."""
    total = 0
    for s in range(n):
        total += popcount(hands[s])
    maxp = total + 1
    hbonus = np.empty(maxp, np.int64)  # history credit of a cut at ply p: more for a deeper subtree
    for i in range(maxp):
        hbonus[i] = (maxp - i) // n + 1
    space = (
        np.empty((maxp, MAXMOVES), np.int64),  # mv: the moves at ply p, in order
        np.zeros(maxp, np.int64),  # nm: how many
        np.zeros(maxp, np.int64),  # mi: the next to search
        np.zeros(maxp, np.bool_),  # isor: the declaring side to move
        np.zeros(maxp, np.bool_),  # bd: store the bound at the end
        np.zeros(maxp, np.int64),  # bm: the best move
        np.zeros(maxp, np.int64),  # u_tlen ... u_tval: what undoing a move restores
        np.zeros(maxp, np.int64),
        np.zeros(maxp, np.int64),
        np.zeros(maxp, np.int64),
        np.zeros(maxp, np.int64),
        np.zeros(maxp, np.int64),
        np.zeros(maxp, np.uint64),  # tm: the cards of the trick in progress at ply p
        np.zeros((maxp, KEYW), np.uint64),  # key: the table's exact key at ply p
        np.zeros((maxp, OWNW), np.uint64),  # own: its owner and worth planes
        np.zeros(maxp, np.uint64),  # rel: relevant cards of the children searched so far
        np.zeros(maxp, np.uint64),  # skip: moves whose bound a searched sibling's already gives
        np.zeros(maxp, np.uint64),  # todo: the moves at ply p not yet taken
        np.zeros(maxp, np.uint64),  # birdc_a: where the birds rank at ply p
        np.zeros(maxp, np.int64),  # tag_a: the table tag at ply p
        np.zeros(maxp, np.int64),  # best: the best bound so far at ply p
        np.zeros(maxp, np.int64),  # n_at: the node count when ply p was entered
        np.empty(MAXMOVES, np.int64),  # gen_moves' scratch
        np.empty((8, 2), np.int64),  # two_tricks' scratch
        np.empty(8, np.int64),
        np.empty(8, np.int64),
        np.empty(8, np.int64),
        np.empty(8, np.uint64),
        np.empty(8, np.int64),
        np.zeros((n, 64), np.int64),  # history: cuts a card made, per seat
        hbonus,
        np.empty(tlen0 + maxp, np.int64),  # hist: every card played, the root's trick first
        np.zeros(maxp, np.uint64),  # similar: a trick start's ps_hash at level 1 (0: none), for move hints
        np.zeros(maxp, np.int64),  # lazy: the second hint of a ply whose other moves wait (-2: none wait)
    )
    class_bits, classes_ok = value_classes(values, bird_mask)
    cls_pts, bird_classes = class_points(class_bits, values, bird_mask)
    thr, nthr = worth_levels(cls_pts, bird_classes)
    return space, (class_bits, classes_ok, cls_pts, bird_classes, thr, nthr)


@njit(**JIT_CALLED)
def probe(hands, leader, trick, tlen0, dtr0, target, P, side, values, bird_mask,
          tt_tag, tt_work, tt_rec, tt_two, tt_ps, tt_psk, tt_hint, gen, ways, stats, space, classes, stop):
    """Can the declaring side take at least ``target`` points from here?

    Returns a bound on the points it takes: at least ``target`` (and then a
    lower bound) when it can, below ``target`` (an upper bound) when not.

    ``hands``: uint64 per seat (the cards of the current trick removed);
    ``trick[:tlen0]``: the cards of the current trick, from the leader;
    ``dtr0``: the declaring side's tricks so far (for most_tricks).
    ``stats[0]`` counts nodes; a longer array (for benchmarks and tests)
    also gets, each counter where the array reaches it: 1 table lookups,
    2 table cuts, 3 quick-bound cuts, 4 trick starts (the nodes DDS counts)
    with 5 words or more, 5 payoff-similar cuts with 6 or more, 10 + k
    lookups with k cards a hand left with more than 30, and, past 1000
    words, the log of table stores (``log_store``).
    ``stop[0]`` is read before each trick that the quick bounds and the
    table leave open is searched (not at every node: that cost a quarter of
    the time): when it is not 0 the probe puts the hands back and returns
    -1 at once, storing nothing more.
    ``hands`` is restored before returning."""
    n = P[0]
    any_time = P[1]
    tp = P[2]
    last_extra = P[3]
    most_n = P[4]
    most_p = P[5]
    trump_lane = P[6]

    (mv, nm, mi, isor, bd, bm, u_tlen, u_leader, u_pts, u_dtr, u_win, u_tval, tm, key, own, rel, skip, todo,
     birdc_a, tag_a, best, n_at, scratch, mv2, nm2, mi2, best2, rel2, trick2,
     history, hbonus, hist, similar, lazy) = space
    class_bits, classes_ok, cls_pts, bird_classes, thr, nthr = classes
    worth_bits = class_bits[0] | class_bits[1] | class_bits[2]  # the cards worth points, and the birds
    # as if the arrays were new: what the probe reads before it writes
    # starts at zero (the undo records and the scratch are always written
    # first), and no move-ordering history carries over from the last probe
    nm[:] = 0
    mi[:] = 0
    isor[:] = False
    bd[:] = False
    bm[:] = 0
    tm[:] = 0
    key[:, :] = 0
    own[:, :] = 0
    rel[:] = 0
    skip[:] = 0
    todo[:] = 0
    birdc_a[:] = 0
    tag_a[:] = 0
    best[:] = 0
    n_at[:] = 0
    history[:, :] = 0
    # every card played, the root's trick first: the trick in progress at
    # ply p is hist[tlen0 + p - tlen : tlen0 + p]
    for i in range(tlen0):
        hist[i] = trick[i]
        tm[0] |= _bit(trick[i])

    remval = np.int64(0)  # not a literal 0: two_tricks would compile again for it
    live_all = np.uint64(0)
    for s in range(n):
        remval += mask_points(hands[s], values)
        live_all |= hands[s]
    tlen = tlen0
    trickval = 0
    winpos = np.int64(0)  # not a literal 0 (as ply in two_tricks)
    for i in range(tlen0):
        c = hist[i]
        trickval += values[c]
        if i > 0 and beats(c, hist[winpos], trump_lane):
            winpos = i
    pts = 0
    dtr = dtr0
    p = 0
    rv = 0
    rr = np.uint64(0)  # the cards whose owners the bound ``rv`` depends on
    state = _ENTER
    nodes = 0
    while True:
        if state == _ENTER:
            nodes += 1
            n_at[p] = nodes
            if tlen == 0 and stats.shape[0] > 4:
                stats[4] += 1  # trick starts (DDS counts these)
            bd[p] = False
            bm[p] = NO_MOVE
            rel[p] = 0
            skip[p] = 0
            lazy[p] = -2
            hint = NO_MOVE
            hint2 = NO_MOVE
            rr = np.uint64(0)
            if tlen == 0:
                similar[p] = 0
                need = target - pts
                if need <= 0:
                    rv = pts
                    state = _RETURN
                    continue
                cnt = popcount(hands[leader])
                if cnt == 0:
                    bonus = most_p if (most_n > 0 and dtr >= most_n) else 0
                    rv = pts + bonus
                    state = _RETURN
                    continue
                ub = remval + tp * cnt + last_extra
                if most_n > 0 and dtr + cnt >= most_n:
                    ub += most_p
                if ub < need:
                    rv = pts + ub
                    state = _RETURN
                    continue
                if cnt == 1:
                    got, won, rr = last_trick_points(hands, leader, n, side, values, trump_lane, tp,
                                                     last_extra)
                    if most_n > 0 and dtr + won >= most_n:
                        got += most_p
                    rv = pts + got
                    state = _RETURN
                    continue
                if cnt == 2:
                    # the last two tricks: a cache of exact positions (the
                    # bisection and transpositions meet them again), else
                    # searched without the table
                    ttag = (gen << 16) | (leader << 8) | dtr
                    e2, same = two_slot(hands, n, live_all, ttag, tt_two)
                    if same:
                        lo2 = np.int64(tt_two[e2, 5])
                        hi2 = np.int64(tt_two[e2, 6])
                        if lo2 >= need or hi2 < need:
                            rv = pts + (lo2 if lo2 >= need else hi2)
                            rr = tt_two[e2, 7]
                            state = _RETURN
                            continue
                    else:
                        tt_two[e2, 4] = np.uint64(ttag)
                        tt_two[e2, 5] = 0
                        tt_two[e2, 6] = np.uint64(1 << 30)
                        tt_two[e2, 7] = 0
                    got, rr, nn, ns = two_tricks(hands, leader, n, side, values, trump_lane, any_time, bird_mask, tp,
                                                 last_extra, most_n, most_p, dtr, need, live_all,
                                                 live_all & worth_bits, remval, mv2, nm2,
                                                 mi2, best2, rel2, trick2)
                    # both bounds hold wherever the union of their relevant cards matches
                    if got >= need:
                        if got > np.int64(tt_two[e2, 5]):
                            tt_two[e2, 5] = np.uint64(got)
                    elif got < np.int64(tt_two[e2, 6]):
                        tt_two[e2, 6] = np.uint64(got)
                    tt_two[e2, 7] |= rr
                    nodes += nn - 1
                    if stats.shape[0] > 4:
                        stats[4] += ns
                    rv = pts + got
                    state = _RETURN
                    continue
                # transposition table: exact on hand lengths and valued cards,
                # partial on the owners of the rest (their relevant ranks).
                # Its key first, so its bucket comes into the caches while
                # the quick bound below works (``table_prefetch``)
                kp = key[p]
                keyed = classes_ok and table_key(hands, n, live_all, class_bits, kp, own[p])
                tag = make_tag(gen, live_all, leader, dtr if most_n > 0 else 0)
                if keyed:
                    table_prefetch(kp, own[p], tag, _hash(kp, tag, np.uint64(0)), tt_tag, ways)
                # quick bound: top trumps keep their points (cheap and often
                # decisive, so before the table)
                tdecl, tdef, trel = top_trump_points(hands, n, side, values, trump_lane, tp, last_extra)
                if tdecl >= need or ub - tdef < need:
                    rv = pts + (tdecl if tdecl >= need else ub - tdef)
                    rr = trel
                    if stats.shape[0] > 4:
                        stats[3] += 1
                    state = _RETURN
                    continue
                slot = -1
                if keyed:
                    slot, hint = table_lookup(kp, own[p], tag, need, tt_tag, tt_work, tt_rec, ways)
                    if stats.shape[0] > 4:
                        stats[1] += 1
                        if stats.shape[0] > 30:
                            stats[10 + cnt] += 1
                if slot >= 0:
                    elo = entry_lo(tt_rec, slot)
                    rv = pts + (elo if elo >= need else entry_hi(tt_rec, slot))
                    rr = relevant_threshold(tt_rec[slot, R_REL], live_all)
                    if stats.shape[0] > 4:
                        stats[2] += 1
                    state = _RETURN
                    continue
                if keyed and _top_level(own[p]) == 0:
                    # a position that agrees with an entry on the owners of
                    # its relevant ranks but whose other cards are worth
                    # other points: its bounds hold here, shifted by what
                    # the difference can change (``worth_shift``)
                    birdc = bird_ranks(bird_mask, live_all)
                    birdc_a[p] = birdc
                    livec = live_ranks(live_all)
                    base = ps_base(kp, birdc, tag)
                    # every level's slot asked for at once, before any is
                    # read: their waits overlap rather than add up
                    for lev in PS_LEVELS:
                        h = ps_hash(base, own[p], lev, top_ranks(livec, lev))
                        prefetch(tt_psk, ps_index(h))
                    hit = False
                    for lev in PS_LEVELS:
                        top = top_ranks(livec, lev)
                        e, h, slo, shi = ps_slot(base, own[p], lev, top, tt_psk)
                        if lev == 1:
                            similar[p] = h
                            # read below, where no level settles it
                            hint_prefetch(tt_hint, hint_hash(h, np.uint64(0)))
                        # a shift only widens the bounds: read the slot only
                        # when they settle the probe as they are
                        if (slo >= need or shi < need) and ps_agrees(tt_ps, e, kp, own[p], birdc, tag, lev, top):
                            loss, gain = worth_shift(tt_ps, e, own[p], livec, n, cls_pts, bird_classes, thr, nthr)
                            if loss >= 0 and (slo - loss >= need or shi + gain < need):
                                rv = pts + (slo - loss if slo - loss >= need else shi + gain)
                                rr = relevant_threshold(tt_ps[e, 10], live_all)
                                hit = True
                                break
                    if hit:
                        if stats.shape[0] > 5:
                            stats[5] += 1
                        state = _RETURN
                        continue
                    # the leads that last cut at a position like this one
                    # (``lead_hints``)
                    first, second = hint_get(tt_hint, hint_hash(similar[p], np.uint64(0)), live_all)
                    hint, hint2 = lead_hints(hint, first, second)
                # the table had nothing: search it. No bound here for the side
                # on lead cashing its top cards: such a cut's bound lies just
                # past the target and depends on more cards than the search's,
                # so later probes seldom reuse it; without one every preset
                # took fewer nodes (benchmarks/RESULTS.md)
                if stop[0] != 0:
                    # Ctrl-C: put back the cards played and give up
                    for q in range(p - 1, -1, -1):
                        hands[_seat_after(u_leader[q], u_tlen[q], n)] |= _bit(mv[q, mi[q] - 1])
                    stats[0] += nodes
                    return -1
                bd[p] = keyed
                tag_a[p] = tag
            elif not _forced(hands[_seat_after(leader, tlen, n)], hist[tlen0 + p - tlen], any_time, bird_mask):
                # mid-trick: the side sure to take this trick keeps its points
                # (not tried where the seat has one card to play: its child's
                # bounds see as much, one card on)
                start = tlen0 + p - tlen
                wseat = _seat_after(leader, winpos, n)
                left = popcount(hands[leader]) + 1
                ubm = remval + trickval + tp * left + last_extra
                if most_n > 0 and dtr + left >= most_n:
                    ubm += most_p
                need = target - pts
                cur = -1
                tsp = 0
                tkey = 0
                # only where the trick's points could settle it, for either
                # side taking it: at most the points played, the dearest card
                # of each of its seats still to play, and of each other seat
                # nothing where it may play a card worth nothing, else the
                # dearest it may play (a bound on its cheapest: -42 % calls)
                est1 = trickval + tp
                est0 = est1
                for i in range(tlen, n):
                    s_i = _seat_after(leader, i, n)
                    dw = dearest_worth(hands[s_i] & worth_bits, values)
                    lg = legal_mask(hands[s_i], hist[start], any_time, bird_mask)
                    cw = 0 if lg & ~worth_bits else dearest_worth(lg, values)
                    if side[s_i] == 1:
                        est1 += dw
                        est0 += cw
                    else:
                        est1 += cw
                        est0 += dw
                # the least the taker's side must get to settle it: need when
                # it is the declaring side, ubm - need + 1 otherwise
                if est1 >= need or est0 > ubm - need:
                    cur, tsp, tkey = trick_sure_points(hands, leader, n, side, tlen, hist[start],
                                                       hist[start + winpos], wseat, trickval, values, trump_lane,
                                                       any_time, bird_mask, tp, worth_bits, est1, est0, need,
                                                       ubm - need + 1)
                if cur >= 0:
                    if (tsp >= need) if cur == 1 else (ubm - tsp < need):
                        rv = pts + (tsp if cur == 1 else ubm - tsp)
                        rr = _bit(tkey)
                        if stats.shape[0] > 4:
                            stats[3] += 1
                        state = _RETURN
                        continue
                # or the last trick's extra points alone settle it, and a side
                # is sure of them (a seat's run trump kept to the end; where the
                # other side holds no trump the hands' lengths decide it)
                if last_extra > 0 and left >= 2 and (last_extra >= need or ubm - last_extra < need):
                    ls, lrr = last_trick_side(hands, leader, n, side, tlen, hist[start], trump_lane)
                    if (ls == 1 and last_extra >= need) or (ls == 0 and ubm - last_extra < need):
                        rv = pts + (last_extra if ls == 1 else ubm - last_extra)
                        rr = lrr
                        if stats.shape[0] > 4:
                            stats[3] += 1
                        state = _RETURN
                        continue
            seat = _seat_after(leader, tlen, n)
            h_s = hands[seat]
            if tlen == 0:
                led = -1
                win_card = -1
            else:
                start = tlen0 + p - tlen
                led = hist[start]
                if _forced(h_s, led, any_time, bird_mask):
                    # one card to play: no ordering to work out (the legal
                    # mask is worked out again here and below, not kept from
                    # the test before the bounds: kept live across them it
                    # cost more, cachegrind 1.007 of this, benchmarks/RESULTS.md)
                    c = lowest_bit(legal_mask(h_s, led, any_time, bird_mask))
                    mv[p, 0] = c
                    nm[p] = 1
                    todo[p] = _bit(c)
                    mi[p] = 0
                    isor[p] = side[seat] == 1
                    best[p] = -1 if isor[p] else (1 << 40)
                    state = _NEXT
                    continue
                win_card = hist[start + winpos]
            if tlen > 0 and p >= tlen and similar[p - tlen] != 0:
                # the card that last cut after the same cards, in a trick begun like this one
                hint, hint2 = hint_get(tt_hint, hint_hash(similar[p - tlen], tm[p]), live_all)
            live = live_all | tm[p]
            if gen_class_head(hint, h_s, live, led, any_time, bird_mask, values):
                # the first move is known: the others are listed only if it
                # does not cut (most first moves do), in _RETURN below
                mv[p, 0] = hint
                nm[p] = 1
                todo[p] = _bit(hint)
                lazy[p] = hint2
            else:
                # gen_rest's work, inlined: calling it here too cost more
                # (cachegrind 0.990 of the old kernel against 0.976)
                pw = partner_winning(hands, leader, n, side, seat, tlen, led, win_card, winpos, trump_lane,
                                     bird_mask, worth_bits)
                linfo = ply_info(hands, leader, n, side, seat, tlen, led, win_card, pw, trump_lane, bird_mask,
                                 last_extra)
                nm[p], todo[p] = gen_moves(mv[p], scratch, h_s, live, led, any_time, bird_mask, values, tlen, n,
                                           win_card, pw, trump_lane, hint, history[seat], linfo, trickval, hint2)
            mi[p] = 0
            isor[p] = side[seat] == 1
            best[p] = -1 if isor[p] else (1 << 40)
            state = _NEXT
        elif state == _NEXT:
            while mi[p] < nm[p] and (skip[p] >> np.uint64(mv[p, mi[p]])) & U1:
                mi[p] += 1
            if mi[p] < nm[p]:
                c = mv[p, mi[p]]
                mi[p] += 1
                todo[p] ^= _bit(c)
                u_tlen[p] = tlen
                u_leader[p] = leader
                u_pts[p] = pts
                u_dtr[p] = dtr
                u_win[p] = winpos
                u_tval[p] = trickval
                seat = _seat_after(leader, tlen, n)
                b = _bit(c)
                hands[seat] ^= b
                live_all ^= b
                remval -= values[c]
                hist[tlen0 + p] = c
                if tlen == 0:
                    winpos = 0
                elif beats(c, hist[tlen0 + p - tlen + winpos], trump_lane):
                    winpos = tlen
                tlen += 1
                trickval += values[c]
                if tlen == n:
                    wseat = _seat_after(leader, winpos, n)
                    if side[wseat] == 1:
                        gained = trickval + tp
                        if hands[seat] == 0:
                            gained += last_extra
                        pts += gained
                        dtr += 1
                    leader = wseat
                    tlen = 0
                    trickval = 0
                tm[p + 1] = tm[p] | b if tlen > 0 else np.uint64(0)
                p += 1
                if tlen > 0 and p >= tlen and similar[p - tlen] != 0:
                    # the child's hint, read after its bounds (``hint_get``)
                    hint_prefetch(tt_hint, hint_hash(similar[p - tlen], tm[p]))
                state = _ENTER
            else:
                # fail-soft: OR: every child fell short, the best is a bound;
                # AND: every child made it, the worst is a bound (and it
                # depends on what every child depended on)
                rv = best[p]
                rr = rel[p]
                state = _RETURN
        else:  # _RETURN: the node at ply p is decided with the bound ``rv``
            res = rv >= target
            if bd[p]:
                # store (finding the slot again: deeper stores may have taken it)
                f = rv - pts  # a bound on the points still to come
                # the table's bucket, the payoff-similar slot and the hint
                # word, asked for together before any is read: they were
                # read long ago (before the search below this node), if ever
                table_prefetch(key[p], own[p], tag_a[p], _hash(key[p], tag_a[p], np.uint64(0)), tt_tag, ways)
                relc = _compress_lanes(relevant_closure(rr, live_all), live_all)
                ps = _top_level(own[p]) == 0
                lev = 1
                top = np.uint64(0)
                if ps:
                    lev = ps_level(relc)
                    top = top_ranks(live_ranks(live_all), lev)
                    h = ps_hash(ps_base(key[p], birdc_a[p], tag_a[p]), own[p], lev, top)
                    ps_prefetch(tt_ps, tt_psk, ps_index(h))
                    if bm[p] != NO_MOVE and similar[p] != 0:
                        hint_prefetch(tt_hint, hint_hash(similar[p], np.uint64(0)))
                if stats.shape[0] > 1000:
                    log_store(stats, hands, n, leader, dtr, f, res, relevant_closure(rr, live_all))
                table_store(key[p], own[p], relc, live_all, tag_a[p], gen, f if res else -1, f if not res else 32767,
                            bm[p], nodes - n_at[p], tt_tag, tt_work, tt_rec, ways)
                if ps:
                    e, h, _, _ = ps_slot(ps_base(key[p], birdc_a[p], tag_a[p]), own[p], lev, top, tt_psk)
                    ps_store(tt_ps, tt_psk, e, h, key[p], own[p], birdc_a[p], tag_a[p], lev, top,
                             max(f, 0) if res else 0, min(f, 32767) if not res else 32767, relc)
                    if bm[p] != NO_MOVE and similar[p] != 0:
                        hint_put(tt_hint, hint_hash(similar[p], np.uint64(0)), bm[p], live_all)
            if p == 0:
                break
            p -= 1
            c = mv[p, mi[p] - 1]
            tlen = u_tlen[p]
            leader = u_leader[p]
            pts = u_pts[p]
            dtr = u_dtr[p]
            winpos = u_win[p]
            trickval = u_tval[p]
            seat = _seat_after(leader, tlen, n)
            b = _bit(c)
            hands[seat] |= b
            live_all |= b
            remval += values[c]
            if isor[p]:
                if rv > best[p]:
                    best[p] = rv
            elif rv < best[p]:
                best[p] = rv
            if tlen == n - 1:
                rr |= trick_rank_winner(hist, tlen0 + p - tlen, n, c, winpos, trump_lane)
            lr = rr & lane_mask(c)
            if lr != 0 and lowest_bit(lr) <= c:
                # ``c`` stood for the equivalent cards below it: what its line
                # needed of its own rank, theirs need of their ranks
                start = tlen0 + p - tlen
                rr |= _bit(class_bottom(c, hands[seat], live_all | tm[p], hist[start] if tlen > 0 else -1, any_time,
                                        bird_mask, values))
            if isor[p] == res:
                # OR node with a winning child / AND node with a losing one: cut
                bm[p] = c
                history[seat, c] += hbonus[p]
                if tlen > 0 and p >= tlen and similar[p - tlen] != 0:
                    hint_put(tt_hint, hint_hash(similar[p - tlen], tm[p]), c, live_all)
                state = _RETURN
            else:
                if lazy[p] != -2:
                    # the first move did not cut: list them all (it heads the
                    # list, as the hint it was) and go on from the second
                    led = hist[tlen0 + p - tlen] if tlen > 0 else -1
                    win_card = hist[tlen0 + p - tlen + winpos] if tlen > 0 else -1
                    nm[p], todo[p] = gen_rest(mv[p], scratch, hands, leader, n, side, seat, tlen, led, win_card,
                                              winpos, live_all | tm[p], any_time, bird_mask, values, trump_lane,
                                              c, history[seat], trickval, lazy[p], worth_bits, last_extra)
                    todo[p] &= ~_bit(c)
                    mi[p] = 1
                    lazy[p] = -2
                rel[p] |= rr
                # the moves still to search in c's color
                pend = todo[p] & lane_mask(c) & ~skip[p]
                if pend != 0:
                    same = same_bound_moves(c, rr, hands[seat], live_all & worth_bits, values, bird_mask) & pend
                    skip[p] |= same
                    # siblings of other worth, where c's bound clears the target by more than that (the
                    # taker test costs a pass over the seats to play: only where there is one and a margin)
                    cand = pend & ~same
                    margin = target - 1 - rv if isor[p] else rv - target
                    if cand != 0 and margin >= 0:
                        # the side that takes the trick, where no seat still to play can beat its card after c
                        if tlen == 0:
                            wc, cur = sure_taker(hands, leader, n, side, seat, c, c, c, seat, 1, trump_lane,
                                                 any_time, bird_mask)
                        else:
                            wc, cur = sure_taker(hands, leader, n, side, seat, c, hist[tlen0 + p - tlen],
                                                 hist[tlen0 + p - tlen + winpos], _seat_after(leader, winpos, n),
                                                 tlen + 1, trump_lane, any_time, bird_mask)
                        sh, big, extra = shifted_bound_moves(c, rr, hands[seat], cand, live_all | tm[p],
                                                             hist[tlen0 + p - tlen] if tlen > 0 else -1, any_time,
                                                             values, bird_mask, margin, isor[p], cur, wc)
                        if sh != 0:
                            rel[p] |= extra
                            if isor[p]:
                                if rv + big > best[p]:
                                    best[p] = rv + big
                            elif rv - big < best[p]:
                                best[p] = rv - big
                            skip[p] |= sh
                state = _NEXT
    stats[0] += nodes
    return rv



@njit(**JIT)
def upper_bound(hands, n, trick, tlen0, dtr0, P, values):
    """Most points the declaring side could still take from this position."""
    tp = P[2]
    last_extra = P[3]
    most_n = P[4]
    most_p = P[5]
    total = 0
    for s in range(n):
        total += mask_points(hands[s], values)
    for i in range(tlen0):
        total += values[trick[i]]
    tricks = popcount(hands[0])
    # the trick in progress counts too: the seats still to play hold one more card
    maxc = tricks
    for s in range(n):
        c = popcount(hands[s])
        if c > maxc:
            maxc = c
    if maxc > 0:
        total += tp * maxc + last_extra
        if most_n > 0 and dtr0 + maxc >= most_n:
            total += most_p
    elif most_n > 0 and dtr0 >= most_n:
        total += most_p
    return total


@njit(**JIT)
def solve_exact(hands, leader, trick, tlen0, dtr0, P, side, values, bird_mask, unit,
                tt_tag, tt_work, tt_rec, tt_two, tt_ps, tt_psk, tt_hint, gen, ways, stats, stop):
    """Exact number of points the declaring side takes from this position;
    -1 when ``stop[0]`` was set during the search (see ``probe``)."""
    n = P[0]
    hi = upper_bound(hands, n, trick, tlen0, dtr0, P, values)
    if unit <= 0:
        return 0
    hi -= hi % unit
    lo = 0
    space, classes = probe_space(hands, n, tlen0, values, bird_mask)
    while lo < hi:
        steps = (hi - lo) // unit
        mid = lo + ((steps + 1) // 2) * unit
        bound = probe(hands, leader, trick, tlen0, dtr0, mid, P, side, values, bird_mask,
                      tt_tag, tt_work, tt_rec, tt_two, tt_ps, tt_psk, tt_hint, gen, ways, stats, space, classes, stop)
        if stop[0] != 0:
            return -1
        if bound >= mid:
            lo = bound - bound % unit if bound < hi else hi
        else:
            hi = bound - bound % unit
    return lo


@njit(**JIT)
def play_card(hands, leader, hist, tlen, dtr, c, P, side, values):
    """Play card ``c`` for the seat to move (hands and hist modified).
    Returns (new leader, new trick length, new dtr, declaring side's points gained)."""
    n = P[0]
    tp = P[2]
    last_extra = P[3]
    trump_lane = P[6]
    seat = _seat_after(leader, tlen, n)
    hands[seat] &= ~_bit(c)
    hist[tlen] = c
    tlen += 1
    if tlen < n:
        return leader, tlen, dtr, 0
    winpos = np.int64(0)  # not a literal 0, for which _seat_after would compile again
    total = 0
    for i in range(n):
        total += values[hist[i]]
        if i > 0 and beats(hist[i], hist[winpos], trump_lane):
            winpos = i
    wseat = _seat_after(leader, winpos, n)
    gained = 0
    if side[wseat] == 1:
        gained = total + tp
        if hands[seat] == 0:
            gained += last_extra
        dtr += 1
    return wseat, 0, dtr, gained


@njit(**JIT)
def card_values_kernel(hands, leader, hist, tlen0, dtr0, P, side, values, bird_mask, unit,
                       tt_tag, tt_work, tt_rec, tt_two, tt_ps, tt_psk, tt_hint, gen, ways, stats, stop, out_cards,
                       out_vals):
    """Value after each legal card of the seat to move. Returns how many;
    -1 when ``stop[0]`` was set during the search (see ``probe``)."""
    n = P[0]
    seat = _seat_after(leader, tlen0, n)
    led = hist[0] if tlen0 > 0 else -1
    legal = legal_mask(hands[seat], led, P[1], bird_mask)
    k = 0
    m = legal
    h2 = hands.copy()
    hist2 = hist.copy()
    while m:
        c = highest_bit(m)
        m &= ~_bit(c)
        h2[:] = hands
        hist2[:] = hist
        nl, nt, nd, gained = play_card(h2, leader, hist2, tlen0, dtr0, c, P, side, values)
        # seat-to-move's cards: the trick in progress is hist2[:nt]
        v = solve_exact(h2, nl, hist2, nt, nd, P, side, values, bird_mask, unit,
                        tt_tag, tt_work, tt_rec, tt_two, tt_ps, tt_psk, tt_hint, gen, ways, stats, stop)
        if v < 0:
            return -1
        out_cards[k] = c
        out_vals[k] = gained + v
        k += 1
    return k


@njit(**JIT)
def best_card_kernel(hands, leader, hist, tlen0, dtr0, need, order, m, P, side, values, bird_mask,
                     tt_tag, tt_work, tt_rec, tt_two, tt_ps, tt_psk, tt_hint, gen, ways, stats, stop):
    """The first card of ``order[:m]`` (legal cards of the seat to move, in
    the order that breaks ties) that is best for that seat, where ``need``
    is the position's exact value (the declaring side's points from here):
    for the declaring side a card after which it still takes ``need``, for a
    defender one after which it takes no more. One probe a card tried,
    where ``card_values_kernel`` solves every card exactly. Returns its
    place in ``order``; -1 when ``stop[0]`` was set, -2 when no card
    qualifies (``need`` was not the value)."""
    n = P[0]
    seat = _seat_after(leader, tlen0, n)
    maximise = side[seat] == 1
    h2 = hands.copy()
    hist2 = hist.copy()
    for i in range(m):
        h2[:] = hands
        hist2[:] = hist
        nl, nt, nd, gained = play_card(h2, leader, hist2, tlen0, dtr0, order[i], P, side, values)
        # the declaring side's card keeps the value when the rest brings at
        # least need - gained; a defender's when it brings no more
        target = need - gained if maximise else need - gained + 1
        space, classes = probe_space(h2, n, nt, values, bird_mask)
        bound = probe(h2, nl, hist2, nt, nd, target, P, side, values, bird_mask,
                      tt_tag, tt_work, tt_rec, tt_two, tt_ps, tt_psk, tt_hint, gen, ways, stats, space, classes, stop)
        if stop[0] != 0:
            return -1
        if (bound >= target) == maximise:
            return i
    return -2
