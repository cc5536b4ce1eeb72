"""The declarer's nest policy: trump and discards from hand + nest alone."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rook_analyze.analysis.policy import DEFAULT_POLICY, HeuristicPolicy, color_ranks, take_nest
from rook_analyze.solver import COLORS, Hand, IllegalActionError, Rules, random_deal
from rook_analyze.solver.cards import mask_indices

FULL = Rules.preset("full")
HASBRO = Rules.preset("hasbro")
P = DEFAULT_POLICY


def cards(text: str) -> Hand:
    return Hand.from_rdn(text)


def test_trump_is_the_long_strong_color():
    c = cards("Rook B14 B13 B12 B11 B10 B9 B8 R14 R10 Y14 Y10 G14 G2 R3 Y4 Y5 G6")
    assert P.trump(c, FULL) == "B"
    # length beats a few honours
    c = cards("Rook B14 B13 R9 R8 R7 R6 R5 R4 R3 R2 Y14 Y2 Y3 G14 G2 G3 G4")
    assert P.trump(c, FULL) == "R"


def test_strength_is_the_documented_formula():
    """strength = 5 x length + honours (4, 3, 2, 1 for the four highest
    ranks of the deck, the 1 first under one_high) + counters / 10; the
    birds are in no color."""
    # 5 x 5 + (4 for the 14, 2 for the 12) + (10 + 10 + 5) / 10
    assert P.strength(cards("B14 B12 B10 B5 B2"), "B", FULL) == 33.5
    assert P.strength(cards("B11"), "B", FULL) == 5 + 1
    # kentucky: the 1 is the highest rank and worth 15; the Rook's 20 points do not vote
    assert P.strength(cards("B1 B14 B13 Rook"), "B", Rules.preset("kentucky")) == 15 + (4 + 3 + 2) + 2.5
    assert P.strength(cards("Rook"), "B", FULL) == 0
    # the weight of length is a field: revision 2's weight 3
    assert HeuristicPolicy(length_weight=3).strength(cards("B14 B12 B10 B5 B2"), "B", FULL) == 23.5


def test_length_weighs_five():
    # five middling greens against three top reds: G 5 x 5 + 2 + 1 = 28, R 5 x 3 + (4 + 3 + 2) + 1 (R14's
    # 10 points) = 25; with revision 2's weight 3, G 18 against R 19
    c = cards("B11 B7 B6 B5 R14 R13 R12 Y13 Y9 G12 G11 G8 G7 G6")
    assert (P.strength(c, "G", HASBRO), P.strength(c, "R", HASBRO)) == (28, 25)
    assert P.trump(c, HASBRO) == "G"
    assert HeuristicPolicy(length_weight=3).trump(c, HASBRO) == "R"


def test_policy_fields_are_checked():
    with pytest.raises(IllegalActionError, match=r"length_weight='5': expected a number, 0 or more and finite"):
        HeuristicPolicy(length_weight="5")
    with pytest.raises(IllegalActionError, match=r"guard_winners='no': expected True or False"):
        HeuristicPolicy(guard_winners="no")
    for name in (None, 3, ""):
        with pytest.raises(IllegalActionError, match=r"name=.*: expected the policy's name"):
            HeuristicPolicy(name=name)


def test_trump_ties_go_to_the_longer_color_first():
    # R: 5 x 3; B: 5 x 2 + 3 + 2 for the 13 and 12: equal strength, R is longer (and after B in order)
    c = cards("B13 B12 R9 R8 R7 Y2")
    assert P.strength(c, "B", FULL) == P.strength(c, "R", FULL) == 15
    assert P.trump(c, FULL) == "R"


@pytest.mark.parametrize("held, discard", [
    # 3. nest_to=declarer: six losing counters for five places, the most points first
    ("Rook B14 B13 B12 B11 B10 B9 B8 R10 R5 R2 Y10 Y5 Y3 G10 G5 G2 G3", "R10 Y10 G10 R5 Y5"),
    # 4. a color with a winner is not voided (G14 keeps G3 G2): red is, then the shortest color's lowest
    ("Rook B14 B13 B12 B11 B10 B9 B8 G14 G3 G2 R9 R8 R7 R6 Y14 Y13 Y12", "R9 R8 R7 R6 G2"),
    # 6. every side card a winner: the lowest non-counters first (R11, then the 12s, then a 13)
    ("Rook B14 B13 B12 B11 B10 B9 B8 R14 R13 R12 R11 Y14 Y13 Y12 G14 G13 G12", "R13 R12 R11 Y12 G12"),
    # 6. a counter inside a run of winners (R10) stays: the lowest non-counters go first
    ("Rook B14 B13 B12 B11 B10 B9 B8 R14 R13 R12 R11 R10 Y14 Y13 Y12 Y11 G14", "R13 R12 R11 Y12 Y11"),
    # 6. side cards run out: then the lowest trumps
    ("Rook B1 B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 B12 B13 B14 R2 R3 G2", "B2 B1 R3 R2 G2"),
])
def test_discard_steps_worked_by_hand(held, discard):
    assert P.discard(cards(held), "B", FULL) == cards(discard)


def test_a_color_that_exactly_fills_the_places_left_is_voided():
    # 4. yellow (2 cards) voided first, then green's 3 fill the 3 places left exactly: voided too,
    # rather than red's losers R10 R5 taking them
    held = cards("B14 B13 B12 Y9 Y8 G9 G8 G7 R13 R11 R10 R9 R8 R5")
    assert P.discard(held, "B", HASBRO) == cards("Y9 Y8 G9 G8 G7")


def test_last_trick_nest_fills_with_losing_counters_first():
    # 5. hasbro: yellow and green voided, one place left among the red losers: the counter R5 goes
    # (kept, the defenders mostly capture it; in the nest it goes with the last trick, mostly the
    # declarer's: benchmarks/bench_policy.py, about +0.85 points a hand in hasbro)
    held = cards("Rook B14 B13 B12 B11 B9 R12 R11 R6 R5 Y12 Y11 G13 G12")
    assert P.discard(held, "B", HASBRO) == cards("R5 Y12 Y11 G13 G12")
    # protecting the counters (the nest advisor's other option): R6, not the lower R5
    assert P.discard(held, "B", HASBRO, protect_counters=True) == cards("R6 Y12 Y11 G13 G12")
    # yellow and green voided; the most points first: R10, not R5 nor (protecting) the non-counter R12
    held = cards("Rook B14 B13 B12 B11 B9 B8 R12 R10 R5 Y9 Y8 G13 G12")
    assert P.discard(held, "B", HASBRO) == cards("R10 Y9 Y8 G13 G12")
    assert P.discard(held, "B", HASBRO, protect_counters=True) == cards("R12 Y9 Y8 G13 G12")


@pytest.mark.parametrize("held, trump, rules, discard, stripped, protected", [
    # trump G: red voided; yellow has no winner, so Y8 and Y12 go, not B11 (under B14 B13)
    ("B14 B13 B11 R13 R9 R8 Y13 Y12 Y8 G14 G13 G12 G11 G8", "G", HASBRO, "R13 R9 R8 Y12 Y8", "B11 R13 R9 R8 Y8",
     "B11 R13 R9 R8 Y8"),
    # trump R: blue voided; the counter Y10 first, then yellow's lowest; G5 and G9 stay with G14
    ("B11 B8 R13 R10 R9 R8 R6 Y12 Y10 Y7 Y6 G14 G9 G5", "R", HASBRO, "B11 B8 Y10 Y7 Y6", "B11 B8 Y10 G9 G5",
     "B11 B8 G9 Y7 Y6"),
    # a declarer's nest (full): red voided; yellow's lowest, not G3 G2 under G14
    ("Rook B14 B13 B12 B11 B10 B9 B8 G14 G3 G2 R9 R8 R7 Y13 Y12 Y3 Y2", "B", FULL, "R9 R8 R7 Y3 Y2", "R9 R8 R7 G3 G2",
     "R9 R8 R7 G3 G2"),
])
def test_fill_keeps_the_small_cards_under_a_winner(held, trump, rules, discard, stripped, protected):
    """5. The last places go to colors without a winner before the small cards
    under one (revision 3; ``guard_winners=False`` makes the earlier fill, by
    counters and length alone; protecting the counters fills by
    non-counters and length, whatever the colors)."""
    assert P.discard(cards(held), trump, rules) == cards(discard)
    assert HeuristicPolicy(guard_winners=False).discard(cards(held), trump, rules) == cards(stripped)
    assert P.discard(cards(held), trump, rules, protect_counters=True) == cards(protected)


def test_trump_ties_go_to_the_longer_color_then_color_order():
    # B and R mirror each other exactly: B wins by color order
    c = cards("Rook B11 B9 B8 B7 B6 R11 R9 R8 R7 R6 Y2 Y3 Y4 G2 G3 G4 G7")
    assert P.strength(c, "B", FULL) == P.strength(c, "R", FULL)
    assert P.trump(c, FULL) == "B"
    # no number card at all: every color ties in every way, so B, as the docstring says
    assert P.trump(cards(""), FULL) == "B" and P.trump(cards("Rook"), FULL) == "B"


def test_a_color_is_taken_in_any_case_as_the_discards_take_it():
    c = cards("Rook B11 B9 B8 B7 B6 R11 R9 R8 R7 R6 Y2 Y3 Y4 G2 G3 G4 G7")
    assert P.strength(c, "b", FULL) == P.strength(c, "B", FULL)
    assert color_ranks(FULL, "g") == color_ranks(FULL, "G")
    assert P.discard(c, "b", FULL) == P.discard(c, "B", FULL)
    with pytest.raises(IllegalActionError, match="color 'X': choose one of B, R, Y, G"):
        P.strength(c, "X", FULL)


def test_discards_keep_trumps_birds_and_winners():
    c = cards("Rook B14 B13 B12 B11 B10 B9 B8 R14 R13 Y14 Y10 G14 G2 R3 Y4 Y5 G6")
    d = P.discard(c, "B", FULL)
    assert len(d) == FULL.nest_size
    assert not d.has_bird()
    assert d.count("B") == 0
    for winner in ("R14", "R13", "Y14", "G14"):
        assert winner not in [x.rdn() for x in d]


def test_declarer_nest_banks_losing_counters():
    # nest_to=declarer: R10 and Y5 would likely be lost in play, so they are buried
    c = cards("Rook B14 B13 B12 B11 B9 B8 B7 B6 R10 R2 Y5 Y3 G14 G13 G12 G11 G9")
    d = P.discard(c, "B", FULL)
    assert {"R10", "Y5"} <= {x.rdn() for x in d}
    assert FULL.points_of_mask(d.mask) >= 15


def test_last_trick_nest_keeps_counters_unless_voiding():
    # protect_counters: the nest goes to the last trick, so a counter is not buried for its own sake
    c = cards("Rook B14 B13 B12 B11 B9 R10 R9 R8 R7 Y12 Y11 G13 G12")
    d = P.discard(c, "B", HASBRO, protect_counters=True)
    assert len(d) == 5
    assert "R10" not in {x.rdn() for x in d} or d.count("R") == 4
    # the policy's own rule: after the voids, the losing counter fills the last place
    assert P.discard(c, "B", HASBRO) == cards("R10 Y12 Y11 G13 G12")
    # a short color is voided, counter and all
    c = cards("Rook B14 B13 B12 B11 B9 B8 R10 Y9 Y8 Y7 G9 G8 G7")
    d = P.discard(c, "B", HASBRO)
    assert "R10" in {x.rdn() for x in d}


def test_voids_the_shortest_side_color():
    c = cards("Rook B14 B13 B12 B11 B10 B9 B8 B7 R13 R12 R11 R9 Y13 Y12 Y11 G2 G3")
    d = P.discard(c, "B", FULL)
    assert c.count("G") == 2 and d.count("G") == 2  # G3 G2: no winner, so both buried: green voided


def test_nest_size_knob_and_wrong_card_counts():
    r6 = FULL.with_knobs(nest_size=6)
    deal = random_deal(r6, 4)
    c = deal.hands[0] | deal.nest
    assert len(c) == r6.hand_size + 6
    assert len(P.discard(c, P.trump(c, r6), r6)) == 6
    with pytest.raises(IllegalActionError, match="hand \\+ nest"):
        P.discard(deal.hands[0], "B", r6)


def test_choose_and_take_nest():
    deal = random_deal(FULL, 9)
    c = deal.hands[2] | deal.nest
    choice = P.choose(c, FULL)
    assert choice.keep | choice.discard == c
    played = take_nest(deal, 2, choice.discard)
    assert played.hands[2] == choice.keep
    assert played.nest == choice.discard
    assert played.hands[0] == deal.hands[0]
    played.check_complete()
    with pytest.raises(IllegalActionError):
        take_nest(deal, 2, deal.hands[0])


@pytest.mark.parametrize("preset", ["full", "hasbro", "kentucky", "dixie40"])
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_policy_invariants(preset, seed):
    rules = Rules.preset(preset)
    deal = random_deal(rules, seed)
    c = deal.hands[0] | deal.nest
    trump = P.trump(c, rules)
    assert trump in COLORS
    for t in COLORS:
        d = P.discard(c, t, rules)
        assert len(d) == rules.nest_size
        assert d.mask & ~c.mask == 0
        assert not d.has_bird()
        side = sum(1 for i in mask_indices(c.mask) if i % 16 and "BRYG"[i // 16] != t)
        if side >= rules.nest_size:
            assert d.count(t) == 0
        # deterministic
        assert HeuristicPolicy().discard(c, t, rules) == d


class _Spy(HeuristicPolicy):
    """The heuristic, writing down every set of cards it is shown."""

    def __init__(self) -> None:
        object.__setattr__(self, "seen", [])

    def trump(self, cards, rules):
        self.seen.append(Hand(cards.mask))
        return super().trump(cards, rules)

    def discard(self, cards, trump, rules):
        self.seen.append(Hand(cards.mask))
        return super().discard(cards, trump, rules)


def test_hand_and_nest_advisors_show_the_policy_only_the_declarers_cards():
    """The policy that declares in each sample sees hand + nest, never the
    hidden hands: with the whole nest known, every layout gets the same
    trump and discards, and the policy is shown nothing but hand + nest."""
    from rook_analyze.analysis import analyze_hand
    from rook_analyze.analysis.nest import analyze_nest

    small = Rules.from_spec("hasbro,hand_size=5,min_bid=40,max_bid=120")
    hand, nest = cards("B14 R12 Y9 G6 G8"), cards("Rook B10 Y5 R5 G14")
    spy = _Spy()
    rep = analyze_hand(hand, small, samples=8, seed=3, known={"nest": nest}, policy=spy, threads=1)
    detail = rep.detail
    assert detail["deal"].nunique() == 8  # the hidden hands differ from layout to layout ...
    for col in ["trump"] + [f"discard_{t}" for t in COLORS]:
        assert detail[col].nunique() == 1, col  # ... the declarer's choices do not
    assert spy.seen and all(c == hand | nest for c in spy.seen)
    spy = _Spy()
    analyze_nest(hand, nest, small, samples=2, seed=3, candidates=4, policy=spy, threads=1)
    assert spy.seen and all(c == hand | nest for c in spy.seen)


def test_a_nest_choice_writes_the_1_first_where_it_ranks_high():
    choice = HeuristicPolicy().choose(Hand.from_rdn("Rook B1 B14 B13 B12 B11 B10 B9 B8 B7 R1 R14 R13 R12 R5"),
                                      Rules.from_spec("kentucky"))
    plain = choice.rdn()
    assert plain.startswith(f"trump {choice.trump}, discard ")
    assert choice.rdn(one_high=True) == f"trump {choice.trump}, discard {choice.discard.rdn(True)}"
    from rook_analyze.analysis.policy import NestChoice
    assert NestChoice("B", Hand.from_rdn("R1 R13"), Hand()).rdn(one_high=True) == "trump B, discard R1 R13"
    assert NestChoice("B", Hand.from_rdn("R1 R13"), Hand()).rdn() == "trump B, discard R13 R1"
