"""Metamorphic checks: changes to a position that the rules say cannot
change its double-dummy value, and the value must not change.

No reference solver is needed, so these reach positions bigger than
``tests/naive.py`` can solve in a test (up to 8 cards a seat, a few whole
deals):

- colors relabeled (every hand, the nest, the trick and trump: no rule
  names a color; the Rook is the trump color's whatever it is), card by
  card through ``card_values``;
- seats turned round the table (hands, leader, declarer and the teams
  with them), card by card, and the same line of play (its ties break in
  card order, which no seat changes);
- another declarer of the same side, the sides' labels swapped, and
  ``teams=alone`` written as a team of one;
- every point (counters, the bird, trick points, bonuses) multiplied by m:
  the value m times as much, and the same line of play;
- cards that cannot matter: a nest of the same points from other cards, a
  card moved to an unplayed one of its color and worth with no card in
  play between them, a deck with more numbers than the cards in play,
  and the knobs of cards not in play (the bird's rank, ``bird_play``, a
  second Rook, ``one_high``);
- the nest as what it is worth: to the declarer, the points added to the
  value of the hand without it; to the last trick, a last-trick bonus;
- a probe at any target (on or off the grid of point values) says the
  target is reached exactly when the value reaches it, and the bound it
  returns is one;
- two cards of one hand next to each other in rank among the cards in
  play, worth the same, neither a bird: the same value (with the colors).

Larger random campaigns of the same relations (tens of thousands of
positions, every preset and random knobs) found no case that breaks
them; this file keeps a quick sample of each."""

from __future__ import annotations

import dataclasses
import itertools
import random
import zlib

import numpy as np
import pytest

from naive import naive_legal, random_endgame, random_trick
from rook_analyze.solver import (COLORS, Card, Deal, Hand, Rules, api, card_values, kernel, play_line, random_deal,
                                 solve)

CONFIGS = [
    "full", "hasbro", "kentucky", "dixie40", "bridge",
    "full,bird=ten_and_half,double_bird=true", "hasbro,bird=low,bird_play=trump_suit,nest_to=declarer",
    "kentucky,bird=ten_and_half", "full,trick_points=5,last_trick_bonus=20", "hasbro,most_tricks=3:20",
    "hasbro,seats=3,teams=alone", "hasbro,seats=5,teams=01011", "full,seats=6,teams=000111",
    "full,seats=2,teams=alone", "hasbro,teams=0011", "bridge,seats=3,teams=011",
]
CASES = 10  # positions per rule set
ALL_PERMS = [p for p in itertools.permutations(range(4)) if p != (0, 1, 2, 3)]


def _cases(spec: str, cards: tuple[int, ...] = (4, 6, 8)):
    """Random positions of a rule set: an ending of 4 to 8 cards a seat (or
    the whole hand) with part of the nest, any trump, declarer and leader,
    and 0 to seats-1 cards played to the trick."""
    rules = Rules.from_spec(spec)
    rng = random.Random(zlib.crc32(spec.encode()))
    n = rules.seats
    for i in range(CASES):
        deal = random_endgame(rules, min(cards[i % len(cards)], rules.hand_size), rng)
        trump = rng.choice(rules.trumps)
        declarer, leader = rng.randrange(n), rng.randrange(n)
        trick = list(random_trick(deal, trump, declarer, leader, rng, rng.randrange(n)))
        yield rng, deal, trump, declarer, leader, trick


def _where(deal: Deal, trump: str, declarer: int, leader: int, trick) -> str:
    r = deal.rules
    return (f"rules {r.spec()!r} deal {deal.rdn()!r} trump {trump} declarer {r.seat_names[declarer]} "
            f"leader {r.seat_names[leader]} trick {[c.rdn() for c in trick]}")


def _value(deal: Deal, trump: str, declarer: int, leader: int, trick=()) -> int:
    return solve(deal, trump, declarer, leader, trick=list(trick)).declarer_points


# ---------------------------------------------------------------- colors
def _recolor_card(card: Card, perm) -> Card:
    # a bird has no color of its own: it stays the trump color's
    return card if card.is_bird else Card(COLORS[perm[COLORS.index(card.color)]], card.number)


def _recolor(deal: Deal, trump: str, trick, perm):
    """The position with color c renamed COLORS[perm[c]] everywhere."""
    def hand(h: Hand) -> Hand:
        return Hand.from_cards(_recolor_card(c, perm) for c in h.cards())
    trump = trump if trump == "none" else COLORS[perm[COLORS.index(trump)]]
    return (Deal(deal.rules, tuple(hand(h) for h in deal.hands), hand(deal.nest)), trump,
            [_recolor_card(c, perm) for c in trick])


def _neighbours(deal: Deal, trump: str, values: dict) -> list[tuple[Card, Card]]:
    """Pairs of the seat to play's legal cards next to each other in rank
    among the cards in play (the trick's included), of one worth, neither a
    bird: playing one or the other leads to positions that differ only in
    their names, so their values are equal."""
    rules = deal.rules
    live = sum(h.mask for h in deal.hands)  # the trick's cards are still listed there
    pairs = []
    for color in COLORS:
        order = [i for i in rules.color_order(None if trump == "none" else trump, color) if live >> i & 1]
        for a, b in zip(order, order[1:]):
            ca, cb = Card.from_index(a), Card.from_index(b)
            if ca in values and cb in values and not ca.is_bird and not cb.is_bird \
                    and rules.card_points(a) == rules.card_points(b):
                pairs.append((ca, cb))
    return pairs


@pytest.mark.parametrize("spec", CONFIGS)
def test_colors_relabeled_keep_every_cards_value(spec):
    for rng, deal, trump, declarer, leader, trick in _cases(spec):
        perm = rng.choice(ALL_PERMS)
        where = _where(deal, trump, declarer, leader, trick) + f" colors {perm}"
        want = card_values(deal, trump, declarer, leader, trick=trick)
        deal2, trump2, trick2 = _recolor(deal, trump, trick, perm)
        got = card_values(deal2, trump2, declarer, leader, trick=trick2)
        assert {c.rdn(): v for c, v in got.items()} == {_recolor_card(c, perm).rdn(): v for c, v in want.items()}, where
        for a, b in _neighbours(deal, trump, want):
            assert want[a] == want[b], (where, a.rdn(), b.rdn())


def test_neighbours_are_met():
    # the check above is not empty: most rule sets' positions have such pairs
    met = [spec for spec in CONFIGS
           if any(_neighbours(deal, trump, naive_legal(deal, trump, declarer, leader, trick))
                  for _, deal, trump, declarer, leader, trick in _cases(spec))]
    assert len(met) >= len(CONFIGS) * 2 // 3, met


def test_colors_relabeled_on_whole_deals():
    for spec, seed, trump, perm in (("hasbro", 1, "B", (1, 2, 3, 0)), ("hasbro", 2, "Y", (3, 2, 1, 0)),
                                    ("hasbro", 3, "G", (0, 3, 1, 2)), ("dixie40", 1, "R", (2, 0, 3, 1)),
                                    ("kentucky", 3, "Y", (1, 0, 3, 2))):
        deal = random_deal(Rules.preset(spec), seed)
        deal2, trump2, _ = _recolor(deal, trump, [], perm)
        assert _value(deal2, trump2, 0, 1) == _value(deal, trump, 0, 1), (deal.rdn(), trump, perm)


# ----------------------------------------------------------------- seats
def _turn(deal: Deal, r: int) -> Deal:
    """Every seat moved r places clockwise, its hand and team with it."""
    rules = deal.rules
    n = rules.seats
    hands = [deal.hands[(s - r) % n] for s in range(n)]
    if rules.teams is not None:
        rules = rules.with_knobs(teams=tuple(rules.teams[(s - r) % n] for s in range(n)))
    return Deal(rules, tuple(hands), deal.nest)


@pytest.mark.parametrize("spec", CONFIGS)
def test_seats_turned_keep_every_cards_value(spec):
    for rng, deal, trump, declarer, leader, trick in _cases(spec):
        n = deal.rules.seats
        r = rng.randrange(1, n)
        where = _where(deal, trump, declarer, leader, trick) + f" turned {r}"
        want = card_values(deal, trump, declarer, leader, trick=trick)
        got = card_values(_turn(deal, r), trump, (declarer + r) % n, (leader + r) % n, trick=trick)
        assert got == want, where


@pytest.mark.parametrize("spec", CONFIGS)
def test_seats_turned_keep_the_line_of_play(spec):
    for rng, deal, trump, declarer, leader, trick in _cases(spec, cards=(4, 6)):
        names = deal.rules.seat_names
        n = len(names)
        r = rng.randrange(1, n)
        where = _where(deal, trump, declarer, leader, trick) + f" turned {r}"
        want = play_line(deal, trump, declarer, leader, trick=trick)
        got = play_line(_turn(deal, r), trump, (declarer + r) % n, (leader + r) % n, trick=trick)
        assert [(p.card, p.declarer_points) for p in got] == [(p.card, p.declarer_points) for p in want], where
        turned = [None if p.winner is None else names[(names.index(p.winner) + r) % n] for p in want]
        assert [p.winner for p in got] == turned, where


@pytest.mark.parametrize("spec", CONFIGS)
def test_the_side_declares_not_the_seat(spec):
    """Any declarer of the side gives its value; swapping the labels 0 and 1
    of ``teams`` changes nothing; ``teams=alone`` is a team of one."""
    for rng, deal, trump, declarer, leader, trick in _cases(spec, cards=(4, 6)):
        rules, n = deal.rules, deal.rules.seats
        where = _where(deal, trump, declarer, leader, trick)
        want = _value(deal, trump, declarer, leader, trick)
        for s in range(n):
            if s != declarer and rules.side_of(s, declarer) == 1:
                assert _value(deal, trump, s, leader, trick) == want, (where, s)
        if rules.teams is not None:
            flipped = rules.with_knobs(teams=tuple(1 - t for t in rules.teams))
        else:
            flipped = rules.with_knobs(teams=tuple(int(s == declarer) for s in range(n)))
        assert _value(Deal(flipped, deal.hands, deal.nest), trump, declarer, leader, trick) == want, where


# ---------------------------------------------------------------- points
def _scaled(rules: Rules, m: int) -> Rules:
    """Every point m times as much: counters, the birds, trick points and bonuses."""
    most = None if rules.most_tricks is None else (rules.most_tricks[0], rules.most_tricks[1] * m)
    return dataclasses.replace(rules, name="scaled", counters=tuple((k, p * m) for k, p in rules.counters),
                               bird_points=rules.bird_points * m, trick_points=rules.trick_points * m,
                               last_trick_bonus=rules.last_trick_bonus * m, most_tricks=most,
                               min_bid=None, bid_step=None, max_bid=None)


@pytest.mark.parametrize("spec", CONFIGS)
def test_points_scaled_scale_the_value(spec):
    for rng, deal, trump, declarer, leader, trick in _cases(spec, cards=(4, 6)):
        m = rng.choice([2, 3, 7])
        where = _where(deal, trump, declarer, leader, trick) + f" x{m}"
        scaled = Deal(_scaled(deal.rules, m), deal.hands, deal.nest)
        assert _value(scaled, trump, declarer, leader, trick) == m * _value(deal, trump, declarer, leader, trick), where


@pytest.mark.parametrize("spec", ["hasbro", "kentucky,bird=ten_and_half", "full,trick_points=5,last_trick_bonus=20",
                                  "hasbro,most_tricks=3:20", "hasbro,seats=5,teams=01011"])
def test_points_scaled_keep_the_line_of_play(spec):
    for rng, deal, trump, declarer, leader, trick in _cases(spec, cards=(4, 6)):
        where = _where(deal, trump, declarer, leader, trick)
        want = play_line(deal, trump, declarer, leader, trick=trick)
        got = play_line(Deal(_scaled(deal.rules, 3), deal.hands, deal.nest), trump, declarer, leader, trick=trick)
        assert [(p.card, p.declarer_points, p.winner) for p in got] == \
            [(p.card, 3 * p.declarer_points, p.winner) for p in want], where


# ------------------------------------------------- cards that cannot matter
def _other_nest(deal: Deal, rng) -> Hand | None:
    """Another nest of the same points, from the cards out of play and the
    nest's own; None when a few tries find none."""
    rules = deal.rules
    free = [i for i in range(64) if rules.deck_mask >> i & 1 and not (deal.in_play_mask >> i & 1)]
    free += [i for i in range(64) if deal.nest.mask >> i & 1]
    want = rules.points_of_mask(deal.nest.mask)
    for _ in range(50):
        pick = rng.sample(free, rng.randint(0, min(rules.nest_size, len(free))))
        mask = sum(1 << i for i in pick)
        if mask != deal.nest.mask and rules.points_of_mask(mask) == want:
            return Hand(mask)
    return None


def _slide(deal: Deal, trump: str, trick, rng, moves: int):
    """Cards in play moved to unplayed cards of their color and worth with
    no card in play between them in rank (birds stay): every comparison the
    play can make comes out as before. The trick's cards move with them."""
    rules = deal.rules
    hands = [h.mask for h in deal.hands]
    used = deal.nest.mask | sum(hands)
    for _ in range(moves):
        order = rules.color_order(None if trump == "none" else trump, rng.choice(COLORS))
        live = [i for i, idx in enumerate(order) if any(h >> idx & 1 for h in hands)]
        movable = [i for i in live if not Card.from_index(order[i]).is_bird]
        if not movable:
            continue
        i = rng.choice(movable)
        src = order[i]
        targets = [order[j] for j in range(len(order))
                   if not used >> order[j] & 1 and not Card.from_index(order[j]).is_bird
                   and rules.card_points(order[j]) == rules.card_points(src)
                   and not any(min(i, j) < x < max(i, j) for x in live)]
        if not targets:
            continue
        dst = rng.choice(targets)
        hands = [h & ~(1 << src) | (1 << dst) if h >> src & 1 else h for h in hands]
        used = used & ~(1 << src) | (1 << dst)
        trick = [Card.from_index(dst) if c.index == src else c for c in trick]
    return deal.with_hands(Hand(h) for h in hands), trick


@pytest.mark.parametrize("spec", CONFIGS)
def test_cards_out_of_play_do_not_matter(spec):
    wide = tuple(range(1, 15))
    slid = 0
    for rng, deal, trump, declarer, leader, trick in _cases(spec, cards=(4, 6)):
        rules = deal.rules
        where = _where(deal, trump, declarer, leader, trick)
        want = _value(deal, trump, declarer, leader, trick)
        nest = _other_nest(deal, rng)
        if nest is not None:
            assert _value(Deal(rules, deal.hands, nest), trump, declarer, leader, trick) == want, (where, nest.rdn())
        deal2, trick2 = _slide(deal, trump, trick, rng, moves=4)
        slid += deal2 != deal
        assert _value(deal2, trump, declarer, leader, trick2) == want, (where, deal2.rdn())
        if rules.numbers != wide:
            wider = Deal(rules.with_knobs(numbers=wide, hand_size=rules.hand_size), deal.hands, deal.nest)
            assert _value(wider, trump, declarer, leader, trick) == want, where
    assert slid >= CASES // 2  # the slides happened


@pytest.mark.parametrize("spec", ["full", "hasbro", "kentucky", "full,bird=ten_and_half,double_bird=true",
                                  "hasbro,bird=low,bird_play=trump_suit,nest_to=declarer", "hasbro,seats=3,teams=alone"])
def test_knobs_of_cards_not_in_play_do_not_matter(spec):
    """Without a bird in the hands or the nest, the bird's rank, when it may
    be played and a second Rook change nothing; without a 1 there, nor does
    ``one_high``."""
    met = 0
    for rng, deal, trump, declarer, leader, trick in _cases(spec, cards=(4, 6)):
        rules = deal.rules
        where = _where(deal, trump, declarer, leader, trick)
        want = _value(deal, trump, declarer, leader, trick)
        others = []
        if not deal.in_play_mask & (Card.rook().bit | Card.rook(second=True).bit):
            others += [dict(bird=rank) for rank in ("high", "low", "ten_and_half") if rank != rules.bird]
            others.append(dict(bird="none", double_bird=False))
            others += [dict(bird_play="any_time" if rules.bird_play == "trump_suit" else "trump_suit"),
                       dict(double_bird=not rules.double_bird)]
        if 1 in rules.numbers and not any(deal.in_play_mask >> (16 * c + 1) & 1 for c in range(4)):
            others.append(dict(one_high=not rules.one_high))
        for knobs in others:
            # the position's hand size: a deck without the bird may not deal the rules' own
            other = Deal(rules.with_knobs(hand_size=deal.cards_per_hand, **knobs), deal.hands, deal.nest)
            assert _value(other, trump, declarer, leader, trick) == want, (where, knobs)
            met += 1
    assert met  # some positions had the bird or the 1s out of play


@pytest.mark.parametrize("spec", CONFIGS)
def test_the_nest_is_worth_its_points(spec):
    for rng, deal, trump, declarer, leader, trick in _cases(spec, cards=(4, 6)):
        rules = deal.rules
        where = _where(deal, trump, declarer, leader, trick)
        want = _value(deal, trump, declarer, leader, trick)
        points = rules.points_of_mask(deal.nest.mask)
        bare = Deal(rules, deal.hands, Hand(0))
        if rules.nest_to == "declarer":
            assert _value(bare, trump, declarer, leader, trick) + points == want, where
        else:
            bonus = Deal(rules.with_knobs(last_trick_bonus=rules.last_trick_bonus + points), deal.hands, Hand(0))
            assert _value(bonus, trump, declarer, leader, trick) == want, where


# ----------------------------------------------------------------- probes
def _probe(solver: api.Solver, deal: Deal, trump: str, declarer: int, leader: int, trick, target: int,
           fresh: bool) -> int:
    """The kernel's probe at ``target`` (the declaring side's points, the
    nest to the declarer included) on ``solver``'s table; ``fresh``: in a
    new table generation."""
    pos = api._position(deal, trump, declarer, leader, None, list(trick))
    if fresh:
        solver._context = None
    tables = solver._table(pos.context + (False,), pos.longest)
    space, classes = kernel.probe_space(pos.hands, int(pos.P[0]), pos.tlen, pos.enc.values, pos.enc.bird_mask)
    bound = kernel.probe(pos.hands.copy(), pos.leader, pos.trick, pos.tlen, 0, target - pos.nest_points, pos.P,
                         pos.side, pos.enc.values, pos.enc.bird_mask, *tables, solver._gen, api.TT_WAYS,
                         np.zeros(1, np.int64), space, classes, np.zeros(1, np.int64))
    return int(bound) + pos.nest_points


@pytest.mark.parametrize("spec", ["hasbro", "kentucky,bird=ten_and_half", "full,trick_points=5,last_trick_bonus=20",
                                  "hasbro,most_tricks=3:20", "full,seats=6,teams=000111"])
def test_a_probe_answers_every_target(spec):
    """Solving bisects on the grid of point values, and a line of play
    probes one point past it: at every target, on a table the earlier
    probes filled, 'reached' iff value >= target, and the bound holds."""
    solver = api.Solver(tt_bits=12)
    for rng, deal, trump, declarer, leader, trick in itertools.islice(_cases(spec, cards=(4, 6)), 4):
        where = _where(deal, trump, declarer, leader, trick)
        value = _value(deal, trump, declarer, leader, trick)
        floor = deal.rules.points_of_mask(deal.nest.mask) if deal.rules.nest_to == "declarer" else 0
        most = deal.rules.most_tricks[1] if deal.rules.most_tricks else 0  # a bonus total_points may leave out
        targets = list(range(floor, deal.total_points() + most + 2))
        rng.shuffle(targets)
        for i, t in enumerate(targets):
            bound = _probe(solver, deal, trump, declarer, leader, trick, t, fresh=i == 0)
            assert (bound >= t) == (value >= t), (where, t, bound, value)
            assert (bound <= value) if bound >= t else (bound >= value), (where, t, bound, value)
