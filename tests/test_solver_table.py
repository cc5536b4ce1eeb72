"""Every bound the search stores in its transposition table, checked.

A table entry matches a position on its exact part (hand lengths, the
cards worth points in order with their owners) and on the owners of the
ranks the search found relevant; the cards below those ranks may lie
anywhere. So each stored bound must hold for the position it came from AND
for every position that matches the entry. The kernel logs each store
(``kernel.log_store``, on when ``stats`` is longer than 1000); this test
re-solves the stored position and positions made from it by dealing its
irrelevant cards to other owners, with the plain-Python reference.

This is sharper than comparing root values: a bound that is wrong only for
some matching positions shows up here even when the search that stored it
never met such a position.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from naive import naive_value, random_endgame
from rook_analyze.solver import Card, Hand, Rules, api, kernel
from rook_analyze.solver.config import TT_WAYS

CONFIGS = ["full", "hasbro", "kentucky", "dixie40", "bridge", "full,bird_play=any_time",
           "full,double_bird=true", "full,nest_to=last_trick,last_trick_bonus=20", "kentucky,bird=ten_and_half",
           "hasbro,trick_points=5"]
POSITIONS = 60      # random endings per rule set
CARDS = (3, 4)      # cards a seat
SHUFFLES = 4        # matching positions tried per stored bound


def _deal_of(deal, enc, words):
    hands = [Hand.from_cards([Card.from_index(int(enc.inv[b])) for b in range(64) if (w >> b) & 1])
             for w in words]
    return deal.with_hands(hands)


def _key(hands, n, live, class_bits):
    kp = np.zeros(kernel.KEYW, np.uint64)
    own = np.zeros(7, np.uint64)
    kernel.table_key(np.array(hands, np.uint64), n, np.uint64(live), class_bits, kp, own)
    return kp, own


@pytest.mark.parametrize("spec", CONFIGS)
def test_stored_bounds_hold_wherever_they_match(spec):
    rules = Rules.from_spec(spec)
    if rules.most_tricks is not None:
        rules = rules.with_knobs(most_tricks=None)
    rng = random.Random(11)
    stores = checked_matches = 0
    for _ in range(POSITIONS):
        deal = random_endgame(rules, rng.choice(CARDS), rng)
        trump = rng.choice(rules.trumps)
        declarer, leader = rng.randrange(rules.seats), rng.randrange(rules.seats)
        pos = api._position(deal, trump, declarer, leader, "W", ())
        n = rules.seats
        tt = kernel.tt_new(12)
        log = np.zeros(1000 + 12 * 5000, np.int64)
        kernel.solve_exact(pos.hands.copy(), pos.leader, pos.trick, pos.tlen, 0, pos.P, pos.side, pos.enc.values,
                           pos.enc.bird_mask, pos.unit, *tt, 1, TT_WAYS, log)
        class_bits, _ = kernel.value_classes(pos.enc.values, pos.enc.bird_mask)
        truth: dict = {}

        def value(words, lead):
            k = (tuple(words), lead)
            if k not in truth:
                truth[k] = naive_value(_deal_of(deal, pos.enc, words), trump, declarer, lead) - pos.nest_points
            return truth[k]

        count = int(log[999])
        assert count < 5000  # the log did not overflow
        for i in range(count):
            rec = log[1000 + 12 * i: 1012 + 12 * i]
            words = [int(np.uint64(np.int64(rec[s]).view(np.uint64))) for s in range(n)]
            lead, f, res = int(rec[6]), int(rec[8]), bool(rec[9])
            relevant = int(np.int64(rec[10]).view(np.uint64))
            where = f"{spec}: {_deal_of(deal, pos.enc, words).rdn()!r} trump {trump} leader {lead}"
            v = value(words, lead)
            assert (v >= f) if res else (v <= f), (where, "stored", "lower" if res else "upper", f, "true", v)
            stores += 1
            live = 0
            for w in words:
                live |= w
            kp, _ = _key(words, n, live, class_bits)
            for _ in range(SHUFFLES):
                # deal the cards outside the relevant ranks to other owners
                moved = list(words)
                for lane in range(4):
                    cards = [b for b in range(16 * lane, 16 * lane + 16)
                             if (live >> b) & 1 and not (relevant >> b) & 1]
                    owners = [next(s for s in range(n) if (moved[s] >> b) & 1) for b in cards]
                    rng.shuffle(owners)
                    for b in cards:
                        for s in range(n):
                            moved[s] &= ~(1 << b)
                    for b, o in zip(cards, owners):
                        moved[o] |= 1 << b
                kp2, _ = _key(moved, n, live, class_bits)
                if not (kp2 == kp).all():
                    continue  # not a match for the entry (other worth in some hand)
                v2 = value(moved, lead)
                checked_matches += 1
                assert (v2 >= f) if res else (v2 <= f), (where, "matching", _deal_of(deal, pos.enc, moved).rdn(),
                                                         "stored", f, "true", v2)
    assert stores > 50
    assert checked_matches > 0
