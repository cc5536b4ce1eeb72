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

import dataclasses
import os
import random
import subprocess
import sys

import numpy as np
import pytest

from campaign import (case_text, deal_of as _deal_of, logged_stores, matching_positions, random_position,
                      random_rules, reference_values, shuffle_irrelevant as _shuffle_irrelevant,
                      stored_bound_faults, table_key as _key)
from naive import random_endgame
from rook_analyze.solver import Card, Deal, Hand, Rules, api, config, kernel, random_deal
from rook_analyze.solver.config import TT_WAYS

CONFIGS = ["full", "hasbro", "kentucky", "dixie40", "bridge", "full,bird_play=any_time",
           "full,double_bird=true", "full,nest_to=last_trick,last_trick_bonus=20", "kentucky,bird=ten_and_half",
           "hasbro,trick_points=5"]
POSITIONS = 60      # random endings per rule set
CARDS = (3, 4)      # cards a seat
SHUFFLES = 4        # matching positions tried per stored bound


def _logged_stores(spec, rng):
    """Solve POSITIONS random endings of ``spec`` with the store log on;
    yield, for every bound stored, (where, the hands, the leader, the bound,
    lower or not, the relevant cards, the ending's context), the context
    being (seats, class_bits, the encoded position, value(hands, leader):
    the reference's points still to come, show(hands): the deal's text)."""
    rules = Rules.from_spec(spec)
    if rules.most_tricks is not None:
        rules = rules.with_knobs(most_tricks=None)
    for _ in range(POSITIONS):
        deal = random_endgame(rules, rng.choice(CARDS), rng)
        trump = rng.choice(rules.trumps)
        declarer, leader = rng.randrange(rules.seats), rng.randrange(rules.seats)
        pos = api._position(deal, trump, declarer, leader, "W", ())
        n = rules.seats
        class_bits, _ = kernel.value_classes(pos.enc.values, pos.enc.bird_mask)
        value = reference_values(deal, pos, trump, declarer)
        for words, lead, f, res, relevant in logged_stores(pos, card_by_card=False):
            where = f"{spec}: {_deal_of(deal, pos.enc, words).rdn()!r} trump {trump} leader {lead}"
            show = (lambda ws, deal=deal, pos=pos: _deal_of(deal, pos.enc, ws).rdn())
            yield where, words, lead, f, res, relevant, (n, class_bits, pos, value, show)


@pytest.mark.parametrize("spec", CONFIGS)
def test_stored_bounds_hold_wherever_they_match(spec):
    rng = random.Random(11)
    stores = checked_matches = 0
    for where, words, lead, f, res, relevant, (n, class_bits, pos, value, show) in _logged_stores(spec, rng):
        v = value(words, lead)
        assert (v >= f) if res else (v <= f), (where, "stored", "lower" if res else "upper", f, "true", v)
        stores += 1
        for moved in matching_positions(words, n, class_bits, relevant, rng, SHUFFLES):
            v2 = value(moved, lead)
            checked_matches += 1
            assert (v2 >= f) if res else (v2 <= f), (where, "matching", show(moved), "stored", f, "true", v2)
    assert stores > 50
    assert checked_matches > 0


@pytest.mark.parametrize("spec", ["hasbro", "full", "kentucky", "dixie40", "full,double_bird=true",
                                  "full,nest_to=last_trick,last_trick_bonus=20", "kentucky,bird=ten_and_half",
                                  "hasbro,trick_points=5", "hasbro,bird=low"])
def test_stored_bounds_hold_shifted_where_only_worth_differs(spec):
    """The payoff-similar cache applies a stored bound to every position
    with the same hand lengths and bird that agrees on the owners and worth
    of its relevant ranks, however the other cards, counters among them, lie
    and whatever they are worth, shifted by ``kernel.worth_shift``. Check
    the shifted bound against the reference on positions made by dealing
    the irrelevant cards to other owners (so counters change hands)."""
    rng = random.Random(13)
    checked = shifted = 0
    for where, words, lead, f, res, relevant, (n, class_bits, pos, value, show) in _logged_stores(spec, rng):
        live = 0
        for w in words:
            live |= w
        live64 = np.uint64(live)
        kp, own = _key(words, n, live, class_bits)
        livec = kernel.live_ranks(live64)
        birdc = kernel.bird_ranks(pos.enc.bird_mask, live64)
        relc = kernel._compress_lanes(np.uint64(relevant), live64)
        lev = kernel.ps_level(relc)
        top = kernel.top_ranks(livec, lev)
        # the entry the cache would keep for this bound (slot 0 of a cache of one)
        entry, check = np.zeros((1, kernel.PS_W), np.uint64), np.zeros(1, np.uint64)
        kernel.ps_store(entry, check, 0, np.uint64(0), kp, own, birdc, 0, lev, top, 0, 0, relc)
        cls_pts, bird_classes = kernel.class_points(class_bits, pos.enc.values, pos.enc.bird_mask)
        thr, nthr = kernel.worth_levels(cls_pts, bird_classes)
        for _ in range(SHUFFLES):
            moved = _shuffle_irrelevant(words, n, live, relevant, rng)
            kp2, own2 = _key(moved, n, live, class_bits)
            if not kernel.ps_agrees(entry, 0, kp2, own2, birdc, 0, lev, top):
                continue  # the cache would not offer the entry here (a bird changed hands)
            loss, gain = kernel.worth_shift(entry, 0, own2, livec, n, cls_pts, bird_classes, thr, nthr)
            assert loss >= 0 and gain >= 0, (where, "relevant ranks unchanged, yet no match")
            v2 = value(moved, lead)
            checked += 1
            shifted += loss + gain > 0
            assert (v2 >= f - loss) if res else (v2 <= f + gain), (where, "payoff-similar", show(moved), "stored", f,
                                                                  "shift", -loss if res else gain, "true", v2)
    assert checked > 100 and shifted > 20


def test_cache_rank_masks_equal_their_general_forms():
    """The payoff-similar cache's cheap rank masks are the general ones:
    ``live_ranks`` and ``bird_ranks`` compress as ``_compress_lanes`` does,
    and ``top_ranks`` keeps the top k compressed ranks of each color."""
    rng = random.Random(17)
    for _ in range(500):
        live = rng.getrandbits(64)
        birds = (1 << rng.randrange(64)) | ((1 << rng.randrange(64)) if rng.random() < 0.3 else 0)
        live64 = np.uint64(live)
        livec = kernel.live_ranks(live64)
        assert livec == kernel._compress_lanes(live64, live64), hex(live)
        assert kernel.bird_ranks(np.uint64(birds), live64) == kernel._compress_lanes(np.uint64(birds & live), live64)
        k = rng.choice((1, 2, 3, 4, 5, 16))
        want = 0
        for lane in range(4):
            ln = bin((live >> (16 * lane)) & 0xFFFF).count("1")
            for r in range(max(0, ln - k), ln):
                want |= 1 << (16 * lane + r)
        assert kernel.top_ranks(livec, k) == want, (hex(live), k)


def test_relevant_cards_of_an_entry_close_alike_in_both_forms():
    """A hit's relevant cards back in the position's own bits: the byte
    tables' form gives each color's k-th highest live card, BMI2's all top k;
    both close upwards (``relevant_closure``) to the top k live cards, the
    ranks the entry pinned, and share each color's lowest card."""
    forms = [kernel._relevant_threshold_table]
    if config.FAST_PEXT:
        forms.append(kernel._relevant_threshold_pext)
    rng = random.Random(23)
    for _ in range(2000):
        live = rng.getrandbits(64) & rng.getrandbits(64)
        live64 = np.uint64(live)
        relc = want = 0
        for lane in range(4):
            cards = [16 * lane + b for b in range(16) if live >> (16 * lane + b) & 1]
            k = rng.randint(0, len(cards))  # the top k ranks of this color (none: 0)
            for r in range(len(cards) - k, len(cards)):
                relc |= 1 << (16 * lane + r)
                want |= 1 << cards[r]
        relc = np.uint64(relc)
        for form in forms:
            got = np.uint64(form(relc, live64))
            assert int(kernel.relevant_closure(got, live64)) == want, (form, hex(live), hex(int(relc)))
            for lane in range(4):
                lw = want >> (16 * lane) & 0xFFFF
                lg = int(got) >> (16 * lane) & 0xFFFF
                assert (lw & -lw) == (lg & -lg), (form, hex(live), hex(int(relc)), lane)


@pytest.mark.parametrize("spec", ["bridge", "hasbro"])
def test_entry_found_from_every_matching_position(spec):
    """An entry sits in one bucket, picked by how many ranks it needs (under
    `bridge`, the owners of the top one or two cards of every color when it
    depends on them); a lookup from any position that matches it on those
    ranks finds it, and one that differs on a relevant rank does not."""
    rules = Rules.from_spec(spec)
    rng = random.Random(5)
    found = not_found = 0
    for _ in range(200):
        deal = random_endgame(rules, rng.choice((3, 4, 5)), rng)
        trump = rng.choice(rules.trumps)
        pos = api._position(deal, trump, 0, 0, "W", ())
        n = rules.seats
        class_bits, _ = kernel.value_classes(pos.enc.values, pos.enc.bird_mask)
        words = [int(h) for h in pos.hands]
        live = 0
        for w in words:
            live |= w
        # relevant: the top k live cards of each color, k drawn per color
        relevant = 0
        for lane in range(4):
            cards = sorted((b for b in range(16 * lane, 16 * lane + 16) if (live >> b) & 1), reverse=True)
            for b in cards[:rng.randint(0, len(cards))]:
                relevant |= 1 << b
        kp, own = _key(words, n, live, class_bits)
        relc = kernel._compress_lanes(np.uint64(relevant), np.uint64(live))
        tag = kernel.make_tag(1, np.uint64(live), 0, 0)
        tt = kernel.tt_new(10)
        kernel.table_store(kp, own, relc, np.uint64(live), tag, 1, 3, 3, -1, 10, *tt[:3], TT_WAYS)
        for _ in range(SHUFFLES):
            moved = _shuffle_irrelevant(words, n, live, relevant, rng)
            kp2, own2 = _key(moved, n, live, class_bits)
            if not (kp2 == kp).all():
                continue  # other lengths or worth: another exact key
            slot, _ = kernel.table_lookup(kp2, own2, tag, 3, *tt[:3], TT_WAYS)
            assert slot >= 0, (deal.rdn(), hex(relevant), moved)
            found += 1
        # swap a relevant card with a card of the same color in another
        # hand: same lengths, other owners on a relevant rank: no match
        swaps = [(a, b) for a in range(64) if (relevant >> a) & 1 for b in range(64)
                 if (live >> b) & 1 and a // 16 == b // 16
                 and next(s for s in range(n) if (words[s] >> a) & 1) != next(s for s in range(n) if (words[s] >> b) & 1)]
        if swaps:
            a, b = rng.choice(swaps)
            moved = [w ^ ((1 << a) | (1 << b)) if ((w >> a) & 1) != ((w >> b) & 1) else w for w in words]
            kp2, own2 = _key(moved, n, live, class_bits)
            slot, _ = kernel.table_lookup(kp2, own2, tag, 3, *tt[:3], TT_WAYS)
            assert slot < 0, (deal.rdn(), hex(relevant), moved)
            not_found += 1
    assert found > 100 and not_found > 50


@pytest.mark.parametrize("bits", [7, 32, "21", 2.5, True])
def test_table_size_out_of_range_is_an_error(bits):
    from rook_analyze.solver import RookError, Solver, solve_batch
    with pytest.raises(RookError, match="tt_bits"):
        Solver(tt_bits=bits)
    with pytest.raises(RookError, match=repr(bits).replace(".", r"\.")):
        solve_batch([], "B", 0, tt_bits=bits)


def test_table_size_from_the_environment_is_checked(monkeypatch):
    monkeypatch.setattr(api, "TT_BITS", "lots")
    with pytest.raises(api.RookError, match="ROOK_ANALYZE_TT_BITS 'lots'"):
        api.table_bits(None)
    monkeypatch.setattr(api, "TT_BITS", 8)
    assert api.table_bits(None) == 8


@pytest.mark.parametrize("bits, hand_size, deals, used", [
    (21, 9, 1, 18), (21, 3, 1, 18), (21, 10, 1, 20), (21, 11, 1, 21), (21, 13, 1, 21), (23, 13, 1, 23),
    (16, 9, 1, 16), (21, 9, 2, 19), (21, 9, 12, 21), (21, 10, 3, 21),
])
def test_entries_a_search_uses_by_its_hands_and_deals(bits, hand_size, deals, used):
    # hands of 9 cards or fewer use 2^18 entries, 4 times as many a card
    # over 9, twice as many for twice the deals in a generation; never more than the table
    assert api.used_bits(bits, hand_size, deals) == used


def _entries_placed(tags, gen):
    """The slots of the table entries of generation ``gen``."""
    return np.flatnonzero((tags >> 32) == gen)


def test_a_search_of_short_hands_stores_in_the_front_of_its_table():
    # hasbro's 9 cards a hand search the first 2^18 entries of a 2^21 table,
    # kentucky's 10 the first 2^20; the same solver and table for both
    solver = api.Solver(tt_bits=21)
    hasbro = random_deal("hasbro", 11)
    got = solver.solve(hasbro, "B", "N").declarer_points
    slots = _entries_placed(solver._entry[0][0], solver._gen)
    assert len(slots) > 100 and slots.max() < 1 << 18
    assert got == api.Solver(tt_bits=12).solve(hasbro, "B", "N").declarer_points
    solver.solve(random_deal("kentucky", 11), "B", "N")
    slots = _entries_placed(solver._entry[0][0], solver._gen)
    assert slots.max() >= 1 << 18 and slots.max() < 1 << 20


def test_a_table_made_by_default_is_as_large_as_its_searches_use(monkeypatch):
    # no size given: a hasbro deal's table is made 2^18 entries (40 MB, not
    # 253 MB); a kentucky deal on the same solver takes a table of 2^20, which
    # then serves hasbro deals too (its front). A size given makes every table so
    monkeypatch.setattr(api, "TT_BITS", None)
    api.release_tables()
    solver = api.Solver()
    sizes = []
    for deal in (random_deal("hasbro", 11), random_deal("kentucky", 11), random_deal("hasbro", 12)):
        solver.solve(deal, "B", "N")
        sizes.append(solver._entry[0][0].shape[0])
    assert sizes == [1 << 18, 1 << 20, 1 << 20]
    del solver
    hasbro = [random_deal("hasbro", k) for k in range(4)]
    for env, tt_bits, size in ((None, None, 1 << 18), (19, None, 1 << 19), (None, 17, 1 << 17)):
        monkeypatch.setattr(api, "TT_BITS", env)
        api.release_tables()
        api.solve_batch(hasbro, "B", "N", threads=2, tt_bits=tt_bits)
        assert {e[0][0].shape[0] for e in api._tables._free} == {size}, (env, tt_bits)
    api.release_tables()


def test_a_group_of_deals_sharing_a_generation_searches_a_larger_part():
    # solve_batch: one hasbro deal a unit stays in 2^18 entries; eight deals
    # of one game (the same nest, so the same last trick's prize) in one
    # group are one unit, one generation, and may use 2^21
    first = random_deal("hasbro", 20)
    cards = [c for h in first.hands for c in h]
    deals = []
    for k in range(8):
        random.Random(k).shuffle(cards)
        deals.append(Deal(first.rules, tuple(Hand.from_cards(cards[9 * s:9 * s + 9]) for s in range(4)), first.nest))
    api.release_tables()
    api.solve_batch(deals, "B", "N", threads=1, tt_bits=21)
    table, gen = api._tables._free[-1]
    assert _entries_placed(table[0], gen).max() < 1 << 18  # the last deal's generation
    api.solve_batch(deals, "B", "N", threads=1, tt_bits=21, groups="all")
    table, gen = api._tables._free[-1]
    assert _entries_placed(table[0], gen).max() >= 1 << 18


def test_move_hint_finds_the_card_in_the_same_place():
    # a hint keeps a card by color and rank among the live cards: in a
    # position whose lower cards differ it names the card in the same place
    rng = random.Random(7)
    for _ in range(200):
        live = 0
        for lane in range(4):
            for rank in rng.sample(range(16), rng.randint(0, 16)):
                live |= 1 << (16 * lane + rank)
        live = np.uint64(live)
        for c in range(64):
            if not (int(live) >> c) & 1:
                continue
            code = kernel.move_code(c, live)
            assert kernel.code_card(code, live) == c
            lane_live = (int(live) >> (16 * (c >> 4))) & 0xFFFF
            below = bin(lane_live & ((1 << (c & 15)) - 1)).count("1")
            assert code == 1 + 16 * (c >> 4) + below
    # a color with fewer live cards than the code's rank: no card
    live = np.uint64(0b111 << 16)
    assert kernel.code_card(1 + 16 + 3, live) == kernel.NO_MOVE
    assert kernel.code_card(1 + 16 + 2, live) == 16 + 2


def test_move_hint_answers_only_its_own_hash():
    tt_hint = kernel.tt_new(4)[6]
    live = np.uint64((0b1011 << 16) | 0b110)
    none = (kernel.NO_MOVE, kernel.NO_MOVE)
    h = np.uint64(0x123456789ABCDEF0)
    assert kernel.hint_get(tt_hint, h, live) == none  # empty
    kernel.hint_put(tt_hint, h, 16 + 3, live)
    assert kernel.hint_get(tt_hint, h, live) == (16 + 3, kernel.NO_MOVE)
    # hints match positions with as many live cards of each color (the hand
    # lengths are in the hash): where the lower cards are others, the same
    # card; where the card itself is gone, the one now in its place
    assert kernel.hint_get(tt_hint, h, np.uint64((0b1101 << 16) | 0b110))[0] == 16 + 3
    assert kernel.hint_get(tt_hint, h, np.uint64((0b11001 << 16) | 0b110))[0] == 16 + 4
    # a hash that shares the slot but not its check bits
    other = h ^ np.uint64(1 << 20)
    assert other >> np.uint64(64 - kernel.HINT_BITS) == h >> np.uint64(64 - kernel.HINT_BITS)
    assert kernel.hint_get(tt_hint, other, live) == none


def test_move_hint_keeps_the_last_two_cards():
    tt_hint = kernel.tt_new(4)[6]
    live = np.uint64((0b1011 << 16) | 0b110)
    h = np.uint64(0x123456789ABCDEF0)
    kernel.hint_put(tt_hint, h, 16 + 3, live)
    kernel.hint_put(tt_hint, h, 2, live)
    assert kernel.hint_get(tt_hint, h, live) == (2, 16 + 3)
    # the same card again keeps the second
    kernel.hint_put(tt_hint, h, 2, live)
    assert kernel.hint_get(tt_hint, h, live) == (2, 16 + 3)
    kernel.hint_put(tt_hint, h, 16 + 1, live)
    assert kernel.hint_get(tt_hint, h, live) == (16 + 1, 2)
    # another position in the slot starts afresh: no second from the old one
    other = h ^ np.uint64(1 << 20)
    kernel.hint_put(tt_hint, other, 16 + 0, live)
    assert kernel.hint_get(tt_hint, other, live) == (16 + 0, kernel.NO_MOVE)
    assert kernel.hint_get(tt_hint, h, live) == (kernel.NO_MOVE, kernel.NO_MOVE)


def test_move_hints_order_the_leads_first_and_second():
    # at a trick start the table's move (``hint``) goes first and the hint
    # cache's card (``hint2``) second; the others keep their own order
    values = np.zeros(64, np.int64)
    hand = np.uint64(sum(1 << c for c in (2, 7, 11, 16 + 4, 16 + 9, 32 + 1, 32 + 13)))
    live = hand | np.uint64(sum(1 << c for c in (3, 8, 16 + 5, 16 + 12, 32 + 2, 48 + 6)))
    history = np.zeros(64, np.int64)

    def order(hint, hint2):
        out = np.zeros(kernel.MAXMOVES, np.int64)
        scores = np.zeros(kernel.MAXMOVES, np.int64)
        k, mask = kernel.gen_moves(out, scores, hand, live, -1, False, np.uint64(0), values, 0, 4, -1, False,
                                   3, hint, history, 0, 0, hint2)
        assert int(mask) == sum(1 << int(c) for c in out[:k])
        return [int(c) for c in out[:k]]

    plain = order(kernel.NO_MOVE, kernel.NO_MOVE)
    assert len(plain) == 7  # no two of these cards are equivalent
    first, second = plain[-1], plain[-2]
    rest = [c for c in plain if c not in (first, second)]
    assert order(first, second) == [first, second, *rest]
    assert order(kernel.NO_MOVE, second) == [second, *[c for c in plain if c != second]]
    assert order(first, first) == [first, *[c for c in plain if c != first]]


def _codes(pos, names):
    """The encoded card of each name (RDN) at ``pos``, by name."""
    return {name: int(pos.enc.perm[Card.from_rdn(name).index]) for name in names}


def _in_trick(rules, rdn, played):
    """The position of deal ``rdn`` (RDN) with trump B, N declaring and
    leading (W dealing), the cards ``played`` (RDN) already in the trick."""
    return api._position(Deal.from_rdn(rdn, rules), "B", 0, 0, "W", [Card.from_rdn(c) for c in played])


def _gen_order(pos, seat, tlen, win_card, partner_winning, any_time, lead_info, trick_points):
    """``gen_moves``' list for seat ``seat`` at ``pos``, the first ``tlen``
    cards of its trick played: the encoded cards, best first."""
    out = np.zeros(kernel.MAXMOVES, np.int64)
    scores = np.zeros(kernel.MAXMOVES, np.int64)
    live = np.uint64(0)
    for h in pos.hands:
        live |= h
    for i in range(tlen):
        live |= np.uint64(1 << int(pos.trick[i]))
    led = int(pos.trick[0]) if tlen else -1
    k, _ = kernel.gen_moves(out, scores, pos.hands[seat], live, led, any_time, pos.enc.bird_mask,
                            pos.enc.values, tlen, len(pos.hands), win_card, partner_winning,
                            pos.enc.trump_lane, kernel.NO_MOVE, np.zeros(64, np.int64), lead_info, trick_points,
                            kernel.NO_MOVE)
    return [int(c) for c in out[:k]]


def _trick_order(pos, seat, win_pos, partner_winning, trick_points, any_time=0, lead_info=0):
    """``gen_moves``' order of seat ``seat``'s cards mid-trick at ``pos`` (a
    position from ``api._position`` with its trick so far), the card at
    ``win_pos`` in the trick winning it: the encoded cards, best first
    (``lead_info``: ``follow_beaters``' word, which the probe passes)."""
    return _gen_order(pos, seat, pos.tlen, int(pos.trick[win_pos]), partner_winning, any_time, lead_info,
                      trick_points)


def test_the_bird_off_color_is_ordered_by_the_trick_and_a_partner_only_a_bird_beats_wins():
    """Move ordering under bird_play=any_time (values never depend on it):
    a partner's card that no seat of the other side still to play can beat
    but by playing a bird on a color it could follow counts as the trick's
    winner (``partner_winning``: play low to it), and a bird goes before
    the losers wherever the other side may take a trick of 10 points or
    more, not only at the last seat (``gen_moves``)."""
    rules = Rules.preset("hasbro")
    side = np.array([1, 0, 1, 0], np.int64)

    def position(rdn, leader, trick):
        d = Deal.from_rdn(rdn, rules)
        return api._position(d, "B", 0, leader, "W", [Card.from_rdn(c) for c in trick])

    # N led the R14, E followed; S to play; W holds the Rook and reds
    pos = position("N: R14 Y5 / E: R5 Y6 / S: R6 Y7 / W: Rook R7", 0, ["R14", "R5"])
    led, n = int(pos.trick[0]), 4
    assert kernel.partner_winning(pos.hands, 0, n, side, 2, 2, led, led, 0, pos.enc.trump_lane,
                                  pos.enc.bird_mask, np.uint64(0))
    # W out of reds with a trump: it may ruff, so the R14 is no sure winner
    pos = position("N: R14 Y5 / E: R5 Y6 / S: R6 Y7 / W: B5 Y8", 0, ["R14", "R5"])
    assert not kernel.partner_winning(pos.hands, 0, n, side, 2, 2, led, led, 0, pos.enc.trump_lane,
                                      pos.enc.bird_mask, np.uint64(0))
    # N led the R10 (10 points); E, second to play, holds the Rook and two
    # low reds: the Rook comes before the losers
    pos = position("N: R10 Y5 Y6 / E: Rook R5 R6 / S: R7 Y7 Y8 / W: R8 Y9 Y10", 0, ["R10"])
    rook = int(pos.enc.perm[Card.from_rdn("Rook").index])
    for points, first in ((10, True), (0, False)):
        order = _trick_order(pos, 1, 0, False, points, any_time=1)
        assert len(order) == 3 and (order[0] == rook) == first, (points, order)
        assert order[-1] == rook or first


def test_the_last_seat_ruffs_with_a_top_trump_after_its_other_winners():
    """Move ordering at the last seat (values never depend on it): a top
    trump takes a trick whenever it is played, so the cheaper winners go
    first, even where the top trump holds a counter; the losers still come
    after every winner (``_score_move``)."""
    rules = Rules.preset("hasbro")
    # N led the R5, E and S followed (S's R7 wins); W, out of reds, holds the
    # B14 (10 points, the top trump: the Rook is out), the B6 (N holds the
    # B13) and the Y9
    pos = _in_trick(rules, "N: R5 B13 Y5 / E: R6 Y6 Y7 / S: R7 Y8 Y10 / W: B14 B6 Y9", ("R5", "R6", "R7"))
    card = _codes(pos, ("B14", "B6", "Y9"))
    assert _trick_order(pos, 3, 2, False, 5) == [card["B6"], card["B14"], card["Y9"]]


def test_a_seat_before_the_last_first_follows_with_a_card_no_later_opponent_beats():
    """Move ordering before the last seat, following the led color (values
    never depend on it): at the second seat a winner that no seat of the
    other side still to play can beat goes first, not low (second hand low
    stays for the winners the other side may beat); at the third seat the
    winners that the last seat cannot beat go before those it can
    (``follow_beaters``, ``_score_move``)."""
    rules = Rules.preset("hasbro")
    side = np.array([1, 0, 1, 0], np.int64)

    def order(rdn, trick, seat, win_pos, names):
        pos = _in_trick(rules, rdn, trick)
        info = kernel.follow_beaters(pos.hands, 0, 4, side, seat, len(trick), int(pos.trick[0]),
                                     int(pos.trick[win_pos]), pos.enc.trump_lane, pos.enc.bird_mask)
        got = _trick_order(pos, seat, win_pos, False, 5, lead_info=info)
        card = _codes(pos, names)
        return got, [card[name] for name in names]

    # N led the R5; E holds the R12 (W, its partner, the R14) and the R6; S
    # holds the R7: the R12 takes the trick, the R6 may not
    got, (r12, r6) = order("N: R5 B13 Y5 / E: R12 R6 Y6 / S: R7 Y8 Y9 / W: R14 Y10 Y7", ["R5"], 1, 0,
                           ["R12", "R6"])
    assert got[0] == r12
    # S void in reds with a trump: it may ruff either, so second hand low
    got, (r12, r6) = order("N: R5 R7 Y5 / E: R12 R6 Y6 / S: B7 Y8 Y9 / W: R14 Y10 Y7", ["R5"], 1, 0,
                           ["R12", "R6"])
    assert got.index(r6) < got.index(r12)
    # N led the R5, E played the R6; S holds the R12 and the R9, W the R10:
    # the R12 first, the cheaper R9 after it
    got, want = order("N: R5 R14 Y5 / E: R6 Y6 Y7 / S: R12 R9 Y8 / W: R10 Y9 Y10", ["R5", "R6"], 2, 1,
                      ["R12", "R9"])
    assert got == want


def test_a_top_card_worth_nothing_is_one_of_the_sure_winners_before_the_last_seat():
    """Move ordering before the last seat, following the led color (values
    never depend on it): where no seat of the other side still to play can
    ruff, a top card worth nothing is one more sure winner, tried after the
    cheaper ones (``_score_move``; before: first, as a top card that may be
    ruffed still is); a top counter still goes first."""
    rules = Rules.preset("full")
    side = np.array([1, 0, 1, 0], np.int64)

    def order(rdn, names):
        pos = _in_trick(rules, rdn, ("R6", "R7"))
        info = kernel.follow_beaters(pos.hands, 0, 4, side, 2, 2, int(pos.trick[0]), int(pos.trick[1]),
                                     pos.enc.trump_lane, pos.enc.bird_mask)
        card = _codes(pos, names)
        return _trick_order(pos, 2, 1, False, 0, lead_info=info), [card[name] for name in names]

    # N led the R6 (it holds the R12), E played the R7; S holds the R13
    # (the top red: the R14 is out) and the R11, W only the R10 below them:
    # the R11 first
    got, want = order("N: R6 R12 Y5 / E: R7 Y6 Y7 / S: R13 R11 Y8 / W: R10 Y9 Y12", ["R11", "R13"])
    assert got == want
    # the R14 (10 points) in S's hand instead: first, as before
    got, want = order("N: R6 R12 Y5 / E: R7 Y6 Y7 / S: R14 R11 Y8 / W: R10 Y9 Y12", ["R14", "R11"])
    assert got == want


def test_the_last_seat_overtakes_its_partner_with_a_counter_where_the_last_trick_carries_no_prize():
    """Move ordering at the last seat, the partner winning (values never
    depend on it): where the last trick carries no prize (``ply_info``: 1),
    a side card worth points that wins the trick but is not the top of its
    color is ordered as a smear of its worth, before the worthless cards
    (``_score_move``; before: after them, as every overtaking card); a ruff
    with a trump counter still goes last."""
    rules = Rules.preset("full")
    side = np.array([1, 0, 1, 0], np.int64)

    def order(rdn, names, last_extra):
        pos = _in_trick(rules, rdn, ("R6", "R8", "R7"))
        info = kernel.ply_info(pos.hands, 0, 4, side, 3, 3, int(pos.trick[0]), int(pos.trick[1]), True,
                               pos.enc.trump_lane, pos.enc.bird_mask, np.int64(last_extra))
        card = _codes(pos, names)
        return _trick_order(pos, 3, 1, True, 0, lead_info=info), [card[name] for name in names]

    # N led the R6 (it holds the R14), E played the R8, S the R7; W, E's
    # partner, holds the R10 (10 points, it beats the R8) and the R2: the
    # R10 first where the last trick carries no prize, else the R2
    hands = "N: R6 R14 Y5 / E: R8 Y6 Y7 / S: R7 Y8 Y10 / W: R10 R2 Y9"
    got, want = order(hands, ["R10", "R2"], 0)
    assert got == want
    got, want = order(hands, ["R2", "R10"], 20)
    assert got == want
    # W out of reds: the B10 ruff after the Y2 all the same
    got, want = order("N: R6 R14 Y5 / E: R8 Y6 Y7 / S: R7 Y8 Y10 / W: B10 Y2 Y9", ["Y2", "B10"], 0)
    assert got[-1] == want[-1]


def test_a_seat_before_the_last_keeps_a_top_card_on_a_partner_sure_to_win():
    """Move ordering before the last seat, the partner sure to win (values
    never depend on it): a top card may take a trick of its own later, so
    it scores a little less (``_score_move``): a top Y14 (10 points) after
    a G5 (5 points, not top), still before a Y7 worth nothing."""
    rules = Rules.preset("hasbro")
    pos = _in_trick(rules, "N: R14 G14 Y5 / E: R5 G6 Y6 / S: Y14 G5 Y7 / W: R6 G7 Y8", ("R14", "R5"))
    card = _codes(pos, ("Y14", "G5", "Y7"))
    assert _trick_order(pos, 2, 0, True, 15) == [card["G5"], card["Y14"], card["Y7"]]


def test_the_second_seat_smears_a_counter_where_its_partner_last_is_sure_to_win():
    """Move ordering at the second seat (values never depend on it): where
    the partner, last to play, holds a card that takes the trick whatever
    the third seat plays, the partner counts as winning
    (``partner_winning``), so the second seat plays a counter to it rather
    than second hand low."""
    rules = Rules.preset("hasbro")
    side = np.array([1, 0, 1, 0], np.int64)

    def order(rdn):
        pos = _in_trick(rules, rdn, ("R9",))
        led = int(pos.trick[0])
        worth = np.uint64(sum(1 << c for c in range(64) if pos.enc.values[c] > 0))
        pw = kernel.partner_winning(pos.hands, 0, 4, side, 1, 1, led, led, 0, pos.enc.trump_lane,
                                    pos.enc.bird_mask, worth)
        card = _codes(pos, ("R5", "R6"))
        return pw, _trick_order(pos, 1, 0, pw, 0)[:2], [card["R5"], card["R6"]]

    # N led the R9; E holds the R5 (5 points) and the R6; S must follow with
    # the R7; W, E's partner, holds the R14: the R5 first
    pw, got, (r5, r6) = order("N: R9 B13 Y5 / E: R5 R6 Y6 / S: R7 Y8 Y10 / W: R14 Y9 Y7")
    assert pw and got == [r5, r6]
    # S out of reds with a trump may ruff the R14: second hand low, the R6
    pw, got, (r5, r6) = order("N: R9 R7 Y5 / E: R5 R6 Y6 / S: B7 Y8 Y10 / W: R14 Y9 Y7")
    assert not pw and got == [r6, r5]


def _lead_order(pos, seat):
    """``gen_moves``' order of the leads of seat ``seat`` at ``pos`` (a
    position from ``api._position`` at a trick start): the encoded cards,
    best first."""
    info = kernel.lead_lanes(pos.hands, seat, len(pos.hands), pos.side, pos.enc.trump_lane)
    return _gen_order(pos, seat, 0, -1, False, int(pos.P[1]), info, 0)


def test_the_rook_and_trumps_are_led_last_when_the_other_side_holds_no_trump():
    """Move ordering at a trick start (values never depend on it): where
    the other side holds no trump, a trump lead draws nothing from it, and
    the Rook and the top trumps win whenever played, so every trump lead
    goes after the side colors' leads (``_score_move``); with a trump left
    to the other side the Rook still comes first."""
    rules = Rules.preset("hasbro")

    def order(rdn):
        pos = _in_trick(rules, rdn, ())
        card = _codes(pos, ("Rook", "B7", "Y6", "R9"))
        return [next(k for k, v in card.items() if v == c) for c in _lead_order(pos, 0)]

    # N (on lead) holds the Rook, the B7 (S holds the B8), a low yellow and
    # the R9; E and W hold no trump
    got = order("N: Rook B7 Y6 R9 / E: Y7 Y8 R14 R10 / S: B8 Y9 R5 G5 / W: Y10 Y11 R6 G6")
    assert set(got[:2]) == {"Y6", "R9"} and set(got[2:]) == {"Rook", "B7"}, got
    # W holds the B6: the Rook draws it first
    got = order("N: Rook B7 Y6 R9 / E: Y7 Y8 R14 R10 / S: B8 Y9 R5 G5 / W: Y10 B6 R6 G6")
    assert got[0] == "Rook", got


def test_the_declaring_side_leads_a_low_trump_before_the_side_colors_low_cards():
    """Move ordering at a trick start (values never depend on it): the
    declaring side's low trump, the top trump an opponent's, is led before
    the side colors' low cards, and a side color's top card is still cashed
    first; a defender's low trump still ranks with the side colors' low
    cards, by rank (``_score_move``)."""
    rules = Rules.preset("hasbro")

    def order_of(rdn, leader, names):
        pos = api._position(Deal.from_rdn(rdn, rules), "B", 0, leader, "W", [])
        card = _codes(pos, names)
        return [next(k for k, v in card.items() if v == c) for c in _lead_order(pos, leader)]

    names = ("B11", "Y6", "G6", "R14")
    # N (declaring) to lead: the B11 (E holds the B13, the top trump: the
    # Rook is out), the Y6 and G6 (W holds the top yellow and green) and the
    # R14 (the top red)
    order = order_of("N: B11 Y6 G6 R14 / E: B13 Y8 G8 R5 / S: B7 Y7 G7 R6 / W: B9 Y9 G9 R7", 0, names)
    assert order[:2] == ["R14", "B11"] and sorted(order[2:]) == ["G6", "Y6"], order
    # E (a defender) to lead the same cards, N holding the top trump, yellow and green
    order = order_of("N: B13 Y9 G9 R5 / E: B11 Y6 G6 R14 / S: B7 Y7 G7 R6 / W: B9 Y8 G8 R7", 1, names)
    assert order[0] == "R14" and order[-1] == "B11", order


def test_the_lead_that_last_cut_goes_before_the_tables_move():
    """Move ordering at a trick start (values never depend on it): the lead
    that last cut at a position like this one (``hint_get``) is tried
    first, the table's move second (its probe was for another target); with
    no move from the table, the two last cuts; the table's move first only
    where it is the last cut or there is none (``lead_hints``)."""
    no = kernel.NO_MOVE
    assert kernel.lead_hints(no, 5, 9) == (5, 9)
    assert kernel.lead_hints(12, 5, 9) == (5, 12)
    assert kernel.lead_hints(12, 12, 9) == (12, 9)
    assert kernel.lead_hints(12, no, no) == (12, no)


@pytest.mark.parametrize("spec", ["hasbro", "kentucky", "full,bird=low", "dixie40"])
def test_a_lazy_first_move_is_one_that_gen_moves_lists(spec):
    # the probe plays a hint before listing the other moves only where
    # ``gen_class_head`` says the list would hold it: else a card that
    # another stands for, or an illegal one, would be searched too
    rng = random.Random(41)
    rules = Rules.from_spec(spec)
    history = np.zeros(64, np.int64)
    out = np.zeros(kernel.MAXMOVES, np.int64)
    scores = np.zeros(kernel.MAXMOVES, np.int64)
    checked = heads = 0
    for seed in range(12):
        pos = api._position(random_deal(rules, seed), "B", 0, None, "W", ())
        values, bird_mask = pos.enc.values, pos.enc.bird_mask
        live = np.uint64(0)
        for h in pos.hands:
            live |= h
        cards = [c for c in range(64) if (int(live) >> c) & 1]
        for any_time in (0, 1):
            for _ in range(20):
                hand = np.uint64(sum(1 << c for c in rng.sample(cards, rng.randint(1, 9))))
                led = rng.choice([-1] + [c for c in cards if not (int(hand) >> c) & 1])
                k, _ = kernel.gen_moves(out, scores, hand, live, led, any_time, bird_mask, values,
                                        0 if led < 0 else 1, 4, led, False, 0, kernel.NO_MOVE, history, 0, 0,
                                        kernel.NO_MOVE)
                listed = {int(c) for c in out[:k]}
                for c in [kernel.NO_MOVE] + cards:
                    head = kernel.gen_class_head(c, hand, live, led, any_time, bird_mask, values)
                    assert head == (c in listed), (spec, seed, hex(hand), led, any_time, c)
                    heads += head
                    checked += 1
    assert heads > 0 and checked > heads


def test_counters_stay_inside_the_stats_array():
    """``stats`` may be any length: the search writes a counter only where
    the array reaches it (a length of 5 once took the payoff-similar count
    at index 5, past its end). Each length is a view into a longer array
    whose words beyond the view must come back untouched; the words it has
    carry the same counts as the longest array's, or stay unwritten."""
    rules = Rules.preset("hasbro")
    pos = api._position(random_deal(rules, 4), "B", 0, None, "W", ())
    runs = {}
    for length in (1, 2, 4, 5, 6, 7, 11, 30, 31, 40):
        room = np.full(length + 64, -7, np.int64)
        tt = kernel.tt_new(16)  # a fresh table each: the same search every time
        value = kernel.solve_exact(pos.hands.copy(), pos.leader, pos.trick, 0, 0, pos.P, pos.side,
                                   pos.enc.values, pos.enc.bird_mask, pos.unit, *tt, 1, TT_WAYS, room[:length],
                                   np.zeros(1, np.int64))
        assert (room[length:] == -7).all(), (length, room[length:length + 12])
        runs[length] = (value, room[:length] + 7)

    def written(i, length):
        return i == 0 or (1 <= i <= 4 and length > 4) or (i == 5 and length > 5) or (i >= 10 and length > 30)

    value40, counts40 = runs[40]
    assert counts40[5] > 0 and counts40[4] > 0  # the counters this guards were written
    for length, (value, counts) in runs.items():
        assert value == value40
        expected = [counts40[i] if written(i, length) else 0 for i in range(length)]
        assert list(counts) == expected, length


def test_stored_bounds_hold_on_random_rule_sets():
    """The same check on rule sets no preset reaches (``campaign.random_rules``:
    counters of their own on other ranks and of other worth, other seats
    and sides), from inside a trick and through ``card_values``, whose
    cards share one table. ``benchmarks/fuzz_reference.py`` runs it for
    minutes; this is a short seeded slice."""
    rng = random.Random(5)
    stores = matches = 0
    sets = 0
    while sets < 24:
        rules = random_rules(rng)
        if rules.most_tricks is not None:
            continue
        sets += 1
        case = random_position(rules, rng, 5 if rules.seats <= 4 else 3)
        s, m, faults = stored_bound_faults(*case, rng)
        assert not faults, (case_text(*case), faults)
        stores += s
        matches += m
    assert stores > 200 and matches > 200


def test_a_sibling_skipped_keeps_the_cards_it_stands_for():
    """A sibling skipped next to the card searched (no other hand's card
    between them) stands for the cards just below it that the move
    generator let it represent. The entry must keep those next to the
    searched card too: it pinned only the sibling itself, so a matching
    position where a card of the leader's came between (N's Y10 and W's Y8
    trading places: N may duck under the lead) read at least 5 where the
    reference gives 0 (found by the store check of
    ``benchmarks/fuzz_reference.py``, thirty-ninth session)."""
    rules = dataclasses.replace(Rules.preset("dixie40"), nest_to="declarer", most_tricks=None, min_bid=None,
                                bid_step=None, max_bid=None, counters=((11, 5), (14, 10)))
    deal = Deal.from_rdn("N: B5 R10 Y14 Y12 Y10 / E: B12 B10 Y9 Y5 G12 / S: B13 B11 B6 G14 G5 "
                         "/ W: R13 R6 Y8 G13 G11 / nest: R7 Y11 G9 G8", rules)
    stores, matches, faults = stored_bound_faults(deal, "R", 1, 0, (), random.Random(1), shuffles=40)
    assert not faults, faults
    assert stores > 100 and matches > 1000


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="resident memory read from Linux's /proc")
def test_a_new_table_is_resident_before_its_first_solve():
    """``tt_new`` writes every page of the table it makes, so the system's
    zeroing of fresh pages is paid there, not inside the first solves'
    timings (``ms``, ``bench``'s first rows). Measured in a fresh process,
    whose first large allocations come straight from the system."""
    script = (
        "import os\n"
        "from rook_analyze.solver import api, kernel\n"
        "page = os.sysconf('SC_PAGE_SIZE')\n"
        "def rss():\n"
        "    with open('/proc/self/statm') as f:\n"
        "        return int(f.read().split()[1]) * page\n"
        "before = rss()\n"
        "table = kernel.tt_new(18)\n"
        "print(rss() - before, api.table_bytes(18))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    grown, size = (int(x) for x in out.split())
    assert grown >= 0.9 * size, (grown, size)


def test_a_seat_out_of_the_led_color_discards_before_playing_a_trump_under_a_ruff():
    """Move ordering after a ruff (values never depend on it): a seat out of
    the led color whose trumps cannot beat the ruff holding the trick
    discards a side card of the same worth before it plays a trump under
    the ruff (``_score_move``)."""
    rules = Rules.preset("hasbro")
    # N led the R6, E (out of reds) ruffed with the B9; S, out of reds too,
    # holds the B7 (N holds the B8), the Y6 and the Y9, worth nothing
    pos = _in_trick(rules, "N: R6 B8 Y5 / E: B9 G6 Y7 / S: B7 Y6 Y9 / W: R8 Y8 G7", ("R6", "B9"))
    card = _codes(pos, ("B7", "Y6", "Y9"))
    assert _trick_order(pos, 2, 1, False, 0) == [card["Y6"], card["Y9"], card["B7"]]


def test_a_later_seat_overtakes_with_a_card_worth_nothing_before_a_counter_the_last_seat_may_beat():
    """Move ordering at the third seat, following the led color (values
    never depend on it): of the winners the last seat may still beat, one
    worth nothing goes before a counter, the cheaper counter though it is
    (``_score_move``)."""
    rules = Rules.preset("hasbro")
    side = np.array([1, 0, 1, 0], np.int64)
    # N led the R6, E played the R7; S holds the R10 (10 points) and the
    # R11, W the R13, which beats both
    pos = _in_trick(rules, "N: R6 B8 Y5 / E: R7 G6 Y7 / S: R10 R11 Y9 / W: R13 Y8 G7", ("R6", "R7"))
    info = kernel.follow_beaters(pos.hands, 0, 4, side, 2, 2, int(pos.trick[0]), int(pos.trick[1]),
                                 pos.enc.trump_lane, pos.enc.bird_mask)
    card = _codes(pos, ("R10", "R11"))
    assert _trick_order(pos, 2, 1, False, 0, lead_info=info) == [card["R11"], card["R10"]]
