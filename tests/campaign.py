"""Random rule sets and the solver-against-reference check they feed.

A fault in the search can hide in a corner of the rules the presets never
reach: counters of unusual worth on unusual ranks, a Rook worth 3, five seats
with uneven sides. ``random_rules`` draws such rule sets (every preset crossed
with random knobs and counters of its own) and ``compare`` runs the solver and
the plain-Python reference (``naive.py``) on one position: every legal card's
value through ``card_values`` (the cards share one table, as the search's
own proofs do, which is where a stored bound that does not carry over to a
matching position shows), then both sides' values through ``solve``.

Used by ``tests/test_solver_reference.py`` (a short seeded run in CI) and by
``benchmarks/fuzz_reference.py`` (long runs after a change to the search)."""

from __future__ import annotations

import dataclasses

import numpy as np

from naive import naive_card_values, naive_defender_value, naive_value, random_endgame, random_trick
from rook_analyze.solver import Card, Hand, Rules, api, card_values, kernel, solve
from rook_analyze.solver.config import TT_WAYS
from rook_analyze.solver.deal import most_tricks_always_awarded
from rook_analyze.solver.errors import RulesError
from rook_analyze.solver.rules import BIRD_PLAYS, BIRD_RANKS, NEST_TO, PRESETS


def random_rules(rng) -> Rules:
    """A random valid rule set: a preset, random knobs (seats and sides, the
    Rook's rank and play, where the nest goes, trick points and bonuses) and
    2 to 6 counter ranks worth 1 to 20 each, the Rook worth 0 to 20."""
    while True:
        base = PRESETS[rng.choice(sorted(PRESETS))]
        knobs = {"bird": rng.choice(BIRD_RANKS), "bird_play": rng.choice(BIRD_PLAYS),
                 "nest_to": rng.choice(NEST_TO), "trick_points": rng.choice((0, 0, 0, 1, 5)),
                 "last_trick_bonus": rng.choice((0, 0, 10, 20)),
                 "min_bid": None, "bid_step": None, "max_bid": None}  # bids play no part in a solve
        knobs["double_bird"] = knobs["bird"] != "none" and rng.random() < 0.2
        seats = rng.choice((4, 4, 4, 2, 3, 5, 6))
        if seats != base.seats:
            knobs["seats"] = seats
            sides = [rng.randrange(2) for _ in range(seats)]
            knobs["teams"] = None if rng.random() < 0.25 else tuple(sides)
        if rng.random() < 0.2:
            knobs["most_tricks"] = (rng.randint(1, 5), rng.choice((10, 20)))
        ranks = rng.sample(base.numbers, rng.randint(2, min(6, len(base.numbers))))
        counters = tuple(sorted((x, rng.randint(1, 20)) for x in ranks))
        try:
            rules = base.with_knobs(**knobs)
            return dataclasses.replace(rules, name="custom", counters=counters,
                                       bird_points=rng.choice((0, 5, 10, 20, rng.randint(1, 20))))
        except RulesError:  # sides not both used, a bonus for tricks one side cannot count, ...
            continue


def random_position(rules: Rules, rng, cards: int):
    """A random ending of ``cards`` a seat (fewer where the hands are
    smaller), a random trump, declarer, leader and part of a trick."""
    n = rules.seats
    deal = random_endgame(rules, min(cards, rules.hand_size), rng)
    trump = rng.choice(rules.trumps)
    declarer, leader = rng.randrange(n), rng.randrange(n)
    trick = random_trick(deal, trump, declarer, leader, rng, rng.randrange(n))
    return deal, trump, declarer, leader, trick


def case_text(deal, trump, declarer, leader, trick) -> str:
    """The position and its rules, written so it can be replayed."""
    r = deal.rules
    return (f"rules {r!r} deal {deal.rdn()!r} trump {trump} declarer {r.seat_names[declarer]} "
            f"leader {r.seat_names[leader]} trick {[c.rdn() for c in trick]}")


def compare(deal, trump, declarer, leader, trick) -> str | None:
    """None when the solver agrees with the reference on every card and on
    both sides' values; otherwise what differs."""
    rules = deal.rules
    want = {c.rdn(): v for c, v in naive_card_values(deal, trump, declarer, leader, trick).items()}
    got = {c.rdn(): v for c, v in card_values(deal, trump, declarer, leader, trick=trick).items()}
    if got != want:
        return f"card values: solver {got}, reference {want}"
    seat = (leader + len(trick)) % rules.seats
    value = (max if rules.side_of(seat, declarer) else min)(want.values())
    res = solve(deal, trump, declarer, leader, trick=trick)
    if rules.most_tricks is None or most_tricks_always_awarded(rules.most_tricks[0], deal.cards_per_hand):
        defenders = deal.total_points() - value  # every point goes to one side or the other
    else:
        defenders = naive_defender_value(deal, trump, declarer, leader, trick)
    if (res.declarer_points, res.defender_points) != (value, defenders):
        return (f"solve: solver {res.declarer_points}/{res.defender_points}, "
                f"reference {value}/{defenders}")
    return None


# ------------------------------------------------------------ stored bounds
def deal_of(deal, enc, words):
    """``deal`` with the hands given as kernel bit words."""
    hands = [Hand.from_cards([Card.from_index(int(enc.inv[b])) for b in range(64) if (w >> b) & 1])
             for w in words]
    return deal.with_hands(hands)


def table_key(hands, n, live, class_bits):
    """The table's exact key of a position (the key words and the owners)."""
    kp = np.zeros(kernel.KEYW, np.uint64)
    own = np.zeros(kernel.OWNW, np.uint64)
    kernel.table_key(np.array(hands, np.uint64), n, np.uint64(live), class_bits, kp, own)
    return kp, own


def shuffle_irrelevant(words, n, live, relevant, rng):
    """The hands with the cards outside the relevant ranks dealt to other
    owners (each color's such cards shuffled among their holders)."""
    moved = list(words)
    for lane in range(4):
        cards = [b for b in range(16 * lane, 16 * lane + 16) if (live >> b) & 1 and not (relevant >> b) & 1]
        owners = [next(s for s in range(n) if (moved[s] >> b) & 1) for b in cards]
        rng.shuffle(owners)
        for b in cards:
            for s in range(n):
                moved[s] &= ~(1 << b)
        for b, o in zip(cards, owners):
            moved[o] |= 1 << b
    return moved


LOG_STORES = 5000  # stores the log keeps (12 words each after a 1000-word head)


def logged_stores(pos, card_by_card: bool):
    """Search ``pos`` on a fresh small table with the store log on, through
    ``card_values_kernel`` (each legal card, one table) or ``solve_exact``;
    the log's stores as (hands as words, leader, bound, lower or not,
    relevant cards)."""
    tt = kernel.tt_new(12)
    log = np.zeros(1000 + 12 * LOG_STORES, np.int64)
    stop = np.zeros(1, np.int64)
    args = (pos.hands.copy(), pos.leader, pos.trick, pos.tlen, 0, pos.P, pos.side, pos.enc.values,
            pos.enc.bird_mask, pos.unit, *tt, 1, TT_WAYS, log, stop)
    if card_by_card:
        kernel.card_values_kernel(*args, np.zeros(kernel.MAXMOVES, np.int64), np.zeros(kernel.MAXMOVES, np.int64))
    else:
        kernel.solve_exact(*args)
    count = int(log[999])
    assert count < LOG_STORES, "the store log overflowed"
    for i in range(count):
        rec = log[1000 + 12 * i: 1012 + 12 * i]
        words = [int(np.int64(rec[s]).view(np.uint64)) for s in range(pos.P[0])]
        yield words, int(rec[6]), int(rec[8]), bool(rec[9]), int(np.int64(rec[10]).view(np.uint64))


def stored_bound_faults(deal, trump, declarer, leader, trick, rng, shuffles: int = 4):
    """Every bound stored while finding the card values of this position,
    checked by the reference where it was stored and at up to ``shuffles``
    positions matching its entry. Returns (stores, matches checked, faults),
    each fault a line saying which bound failed where. The rules must have
    no most_tricks (a stored bound does not carry the tricks taken so far)."""
    assert deal.rules.most_tricks is None
    pos = api._position(deal, trump, declarer, leader, None, trick)
    n = int(pos.P[0])
    class_bits, _ = kernel.value_classes(pos.enc.values, pos.enc.bird_mask)
    truth: dict = {}

    def value(words, lead):
        k = (tuple(words), lead)
        if k not in truth:
            truth[k] = naive_value(deal_of(deal, pos.enc, words), trump, declarer, lead) - pos.nest_points
        return truth[k]

    stores = matches = 0
    faults = []
    for words, lead, f, lower, relevant in logged_stores(pos, card_by_card=True):
        stores += 1
        kind = "lower" if lower else "upper"
        v = value(words, lead)
        if not (v >= f if lower else v <= f):
            faults.append(f"stored {kind} bound {f} at {deal_of(deal, pos.enc, words).rdn()!r} leader {lead}: "
                          f"the reference gives {v}")
            continue
        live = 0
        for w in words:
            live |= w
        kp, _ = table_key(words, n, live, class_bits)
        for _ in range(shuffles):
            moved = shuffle_irrelevant(words, n, live, relevant, rng)
            if not (table_key(moved, n, live, class_bits)[0] == kp).all():
                continue  # not a match for the entry (other worth in some hand)
            matches += 1
            v2 = value(moved, lead)
            if not (v2 >= f if lower else v2 <= f):
                faults.append(f"stored {kind} bound {f} at {deal_of(deal, pos.enc, words).rdn()!r} leader {lead} "
                              f"fails at the matching {deal_of(deal, pos.enc, moved).rdn()!r}: the reference "
                              f"gives {v2}")
    return stores, matches, faults
