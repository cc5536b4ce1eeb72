"""Properties of the solver's values that need no reference solver.

- From a fresh deal, declarer + defender points are the deal's total, the
  defenders' points found by a search of their own (the other side
  declaring, same leader), not taken as the total less the declarer's.
- Along the principal variation (each seat plays a best card by
  ``card_values``) the value never changes, and the points the declaring
  side actually captures on that line equal it.
- ``card_values`` agree with ``solve`` on the position after each card
  (``trick=`` inside a trick, the next trick-boundary deal after it).

Full deals of every preset are slow to solve (seconds to minutes for the
57-card deck), so the full-deal checks use a few fixed deals and the
line-of-play checks also run on 8-card endings of every preset.

The line-of-play checks skip ``most_tricks`` across trick boundaries: the
value of a later position counts the bonus over the tricks played from
there only, so it is not the remainder of the hand's value."""

from __future__ import annotations

import random

import pytest

from naive import naive_card_values, naive_legal, naive_trick_winner, random_endgame, random_trick
from rook_analyze.solver import Deal, Rules, card_values, play_line, random_deal, solve

PRESETS = ["full", "hasbro", "kentucky", "dixie40", "bridge"]


def _trick_points(rules: Rules, trick, last: bool) -> int:
    pts = sum(rules.card_points(c) for c in trick) + rules.trick_points
    if last:
        pts += rules.last_trick_bonus
    return pts


def _walk_line(deal: Deal, trump: str, declarer: int, leader: int, check_every_card: bool) -> int:
    """Play the principal variation to the end. Returns the points the
    declaring side captured; asserts the value stays put on the way."""
    rules = deal.rules
    n = rules.seats
    root = solve(deal, trump, declarer, leader).declarer_points
    captured = 0       # from finished tricks, the nest to the last trick included
    won = 0            # tricks of the declaring side
    trick: list = []
    while deal.cards_per_hand:
        where = f"{deal.rdn()!r} trump {trump} declarer {declarer} leader {leader} trick {[c.rdn() for c in trick]}"
        values = card_values(deal, trump, declarer, leader, trick=trick)
        seat = (leader + len(trick)) % n
        maximise = rules.side_of(seat, declarer) == 1
        best = (max if maximise else min)(values.values())
        # the value of the position, seen from here: captured so far + what is left
        assert captured + best == root, where
        assert captured + solve(deal, trump, declarer, leader, trick=trick).declarer_points == root, where
        if check_every_card:
            for card, v in values.items():
                after = trick + [card]
                if len(after) < n:
                    got = solve(deal, trump, declarer, leader, trick=after).declarer_points
                    assert got == v, (where, card.rdn())
                else:
                    nd, w, pts = _finish(deal, trump, leader, after)
                    last = nd.cards_per_hand == 0
                    mine = pts + (rules.points_of_mask(deal.nest.mask) if last and rules.nest_to == "last_trick" else 0)
                    gain = mine if rules.side_of(w, declarer) else 0
                    rest = solve(nd, trump, declarer, w).declarer_points if not last else (
                        rules.points_of_mask(deal.nest.mask) if rules.nest_to == "declarer" else 0)
                    assert gain + rest == v, (where, card.rdn())
        card = next(c for c, v in values.items() if v == best)
        trick.append(card)
        if len(trick) == n:
            deal, w, pts = _finish(deal, trump, leader, trick)
            last = deal.cards_per_hand == 0
            if last and rules.nest_to == "last_trick":
                pts += rules.points_of_mask(deal.nest.mask)
            if rules.side_of(w, declarer):
                captured += pts
                won += 1
            leader, trick = w, []
    captured = _with_the_hands_end(deal, captured, won)
    assert captured == root
    return captured


def _with_the_hands_end(deal: Deal, captured: int, won: int) -> int:
    """The points the declaring side captured in tricks, plus what the end of
    the hand adds: the nest when it goes to the declarer, and the most_tricks
    bonus when the side won enough tricks (``won``)."""
    rules = deal.rules
    if rules.nest_to == "declarer":
        captured += rules.points_of_mask(deal.nest.mask)
    if rules.most_tricks is not None:
        need, bonus = rules.most_tricks
        captured += bonus if won >= need else 0
    return captured


def _finish(deal: Deal, trump: str, leader: int, trick) -> tuple[Deal, int, int]:
    """The next trick-boundary deal, the trick's winner and its points."""
    rules = deal.rules
    hands = list(deal.hands)
    for i, card in enumerate(trick):
        seat = (leader + i) % rules.seats
        hands[seat] = hands[seat].remove(card)
    w = naive_trick_winner(rules, trump, leader, trick)
    return deal.with_hands(hands), w, _trick_points(rules, trick, all(len(h) == 0 for h in hands))


# Fixed full deals: (preset, seed, trump, declarer). Some deals take minutes
# (the 57-card `full` deck above all), so these are ones that solve in seconds.
FULL_RDN = ("N: B12 B7 B5 B4 R14 R12 R11 R3 Y14 Y9 G10 G4 G3 / E: B11 B8 B3 B2 R8 R7 R6 R5 Y8 Y5 G12 G8 G1 / "
            "S: B13 B10 B9 B1 R4 R1 Y13 Y12 Y11 Y7 Y4 G7 G6 / W: Rook B14 R10 R9 R2 Y10 Y6 Y3 Y1 G13 G11 G9 G2 / "
            "nest: B6 R13 Y2 G14 G5")
FULL_DEALS = [("full", None, "Y", 0), ("hasbro", 1, "B", 1), ("hasbro", 2, "G", 2), ("kentucky", 3, "Y", 3),
              ("dixie40", 1, "R", 0), ("dixie40", 2, "Y", 1), ("bridge", 2, "none", 2), ("bridge", 2, "B", 0)]


def _defenders_own_search(deal: Deal, trump: str, declarer: int, leader: int) -> int:
    """The defenders' points from a search that maximises them: the same
    position solved with the other side declaring. ``solve`` itself only
    subtracts its declarer value from the total when the game is zero-sum,
    so comparing its defender_points with the total would test nothing.
    When the nest goes to the declarer, the swapped search credits the
    nest to the defenders, so it is taken off again."""
    rules = deal.rules
    swapped = solve(deal, trump, (declarer + 1) % rules.seats, leader).declarer_points
    return swapped - (rules.points_of_mask(deal.nest.mask) if rules.nest_to == "declarer" else 0)


@pytest.mark.parametrize("preset, seed, trump, declarer", FULL_DEALS)
def test_full_deal_sides_add_up(preset, seed, trump, declarer):
    rules = Rules.preset(preset)
    deal = Deal.from_rdn(FULL_RDN, rules, complete=True) if seed is None else random_deal(rules, seed)
    res = solve(deal, trump, declarer)
    assert res.declarer_points + res.defender_points == deal.total_points() == rules.total_points
    assert 0 <= res.declarer_points <= rules.total_points
    assert res.nodes > 0
    # the defenders' own search (W deals by default: the leader solve picked)
    leader = rules.first_leader(declarer, 3)
    assert _defenders_own_search(deal, trump, declarer, leader) == res.defender_points


def test_full_deal_principal_variation():
    rules = Rules.preset("hasbro")
    deal = random_deal(rules, 1)
    _walk_line(deal, "R", 0, rules.first_leader(0, 3), check_every_card=False)


@pytest.mark.parametrize("spec", PRESETS + ["full,bird_play=any_time,nest_to=last_trick,last_trick_bonus=20",
                                            "hasbro,double_bird=true,bird=ten_and_half,trick_points=5",
                                            "kentucky,bird=low,nest_to=declarer"])
def test_endings_principal_variation(spec):
    rules = Rules.from_spec(spec)
    rng = random.Random(17)
    for _ in range(3):
        deal = random_endgame(rules, 8, rng)
        trump = rng.choice(rules.trumps)
        declarer, leader = rng.randrange(4), rng.randrange(4)
        if rules.most_tricks is not None:
            rules_no_bonus = rules.with_knobs(most_tricks=None)
            deal = Deal(rules_no_bonus, deal.hands, deal.nest)
        _walk_line(deal, trump, declarer, leader, check_every_card=True)
        res = solve(deal, trump, declarer, leader)
        assert res.declarer_points + res.defender_points == deal.total_points()
        assert _defenders_own_search(deal, trump, declarer, leader) == res.defender_points


def _check_play_line(deal: Deal, trump: str, declarer: int, leader: int, trick=(), reference: bool = True) -> None:
    """``play_line`` to the end: its value stays the position's, every card is
    legal and (``reference``) one of the reference's best for its seat, the
    winners are the reference's, and the points the declaring side captures
    on the line add up to the value (the most_tricks bonus over the tricks it
    won on the line included)."""
    rules = deal.rules
    n, names = rules.seats, rules.seat_names
    line = play_line(deal, trump, declarer, leader, trick=trick)
    root = solve(deal, trump, declarer, leader, trick=trick).declarer_points
    assert line and line[0].declarer_points == root  # the line's own solve of the position
    assert {p.declarer_points for p in line} == {root}
    assert len(line) == sum(len(h) for h in deal.hands) - len(trick)  # every card left, once
    cur, played, lead = deal, list(trick), leader
    captured = won = 0
    number = 1
    for p in line:
        where = (cur.rdn(), trump, declarer, lead, [c.rdn() for c in played], p)
        seat = (lead + len(played)) % n
        assert (p.trick, p.seat) == (number, names[seat]), where
        assert p.card in naive_legal(cur, trump, declarer, lead, played), where
        if reference:
            values = naive_card_values(cur, trump, declarer, lead, played)
            best = (max if rules.side_of(seat, declarer) == 1 else min)(values.values())
            assert values[p.card] == best and captured + best == root, where
        played.append(p.card)
        if len(played) < n:
            assert p.winner is None, where
            continue
        cur, w, pts = _finish(cur, trump, lead, played)
        if cur.cards_per_hand == 0 and rules.nest_to == "last_trick":
            pts += rules.points_of_mask(deal.nest.mask)
        assert p.winner == names[w], where
        if rules.side_of(w, declarer) == 1:
            captured += pts
            won += 1
        lead, played = w, []
        number += 1
    assert cur.cards_per_hand == 0 and not played
    assert _with_the_hands_end(deal, captured, won) == root


def test_play_line_of_a_whole_deal():
    rules = Rules.preset("hasbro")
    deal = random_deal(rules, 1)
    _check_play_line(deal, "R", 0, rules.first_leader(0, 3), reference=False)
    # the module's line is the Solver's, and a LinePlay reads as json would
    line = play_line(deal, "R", "N")
    assert [p.to_dict() for p in line][:2] == [
        {"trick": 1, "seat": line[0].seat, "card": line[0].card.rdn(), "declarer_points": line[0].declarer_points,
         "winner": None},
        {"trick": 1, "seat": line[1].seat, "card": line[1].card.rdn(), "declarer_points": line[1].declarer_points,
         "winner": None}]
    assert line[3].winner is not None and line[4].trick == 2


@pytest.mark.parametrize("spec", PRESETS + ["full,bird_play=any_time,nest_to=last_trick,last_trick_bonus=20",
                                            "kentucky,bird=low,nest_to=declarer",
                                            "hasbro,hand_size=4,most_tricks=3:20",
                                            "hasbro,seats=3,teams=alone"])
def test_play_line_against_the_reference(spec):
    """Across trick boundaries too, with most_tricks (the line counts the
    tricks it won, where a later position's own value would not)."""
    rules = Rules.from_spec(spec)
    rng = random.Random(23)
    for i in range(4):
        deal = random_endgame(rules, 4, rng)
        trump = rng.choice(rules.trumps)
        declarer, leader = rng.randrange(rules.seats), rng.randrange(rules.seats)
        trick = random_trick(deal, trump, declarer, leader, rng, i % rules.seats)
        _check_play_line(deal, trump, declarer, leader, trick, reference=rules.most_tricks is None)



def test_equal_cards_come_in_the_rules_canonical_order_where_the_1_ranks_high():
    # under one_high the 1 ranks above the 14 and RDN writes it first; card_values and play_line
    # listed equals with the 1 last (the default order), so a kentucky line led the B14 for the B1
    deal = Deal.from_rdn("N: B1 B14 / E: R5 R6 / S: Y5 Y6 / W: G5 G6", "kentucky")
    assert deal.rdn().startswith("N: B1 B14")
    values = card_values(deal, "R", "N", leader="N")
    assert [c.rdn() for c in values] == ["B1", "B14"] and len(set(values.values())) == 1
    assert play_line(deal, "R", "N", leader="N")[0].card.rdn() == "B1"
    # without one_high the same cards are equal too, and the 14 comes first
    plain = Deal.from_rdn("N: B1 B14 / E: R5 R6 / S: Y5 Y6 / W: G5 G6", "kentucky,one_high=false")
    assert [c.rdn() for c in card_values(plain, "R", "N", leader="N")] == ["B14", "B1"]
    assert play_line(plain, "R", "N", leader="N")[0].card.rdn() == "B14"
