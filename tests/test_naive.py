"""The reference minimax itself, on positions small enough to work out by hand.

Seats N E S W; N-S is the declaring side whenever N (or S) declares. Each
expected number is worked out in the comment above it from RULES.md."""

import random
import zlib

import pytest

from naive import (naive_card_values, naive_defender_value, naive_legal, naive_trick_winner,
                   naive_value, random_endgame, random_trick)
from rook_analyze.solver import Card, Deal, Rules

N, E, S, W = range(4)


def deal(text, spec="full"):
    rules = spec if isinstance(spec, Rules) else Rules.from_spec(spec)
    return Deal.from_rdn(text, rules)


def cards(text):
    return [Card.from_rdn(t) for t in text.split()]


# ------------------------------------------------------------ Rook ranks
ONE_CARD = "N: Rook / E: R14 / S: B5 / W: R1"


@pytest.mark.parametrize("spec, ns", [
    # E leads R14, S (void) B5, W R1, N must follow red with the Rook:
    # high: the Rook wins 20 + 10 + 5 = 35 for N-S
    ("full", 35),
    # low: the Rook is below every trump, R14 wins for E-W
    ("full,bird=low", 0),
    # ten_and_half: R14 is above the Rook
    ("full,bird=ten_and_half", 0),
])
def test_one_card_rook_rank(spec, ns):
    d = deal(ONE_CARD, spec)
    assert naive_value(d, "R", N, E) == ns
    assert naive_defender_value(d, "R", N, E) == 35 - ns


def test_ten_and_half_between_ten_and_eleven():
    # the Rook beats R10 (20 + 10 + 5 for N-S) ...
    d = deal("N: Rook / E: R10 / S: B5 / W: R1", "full,bird=ten_and_half")
    assert naive_value(d, "R", N, E) == 35
    # ... and loses to R11 (E-W take 20 + 5)
    d = deal("N: Rook / E: R11 / S: B5 / W: R1", "full,bird=ten_and_half")
    assert naive_value(d, "R", N, E) == 0
    assert naive_defender_value(d, "R", N, E) == 25
    # low: even R1 beats it
    d = deal("N: Rook / E: R1 / S: B5 / W: B6", "full,bird=low")
    assert naive_value(d, "R", N, E) == 0


def test_one_high_and_ten_and_half():
    # kentucky: the 1 ranks above the 14 and counts 15. ten_and_half: R1 > R11 > Rook.
    d = deal("N: Rook / E: R1 / S: B5 / W: R11", "kentucky,bird=ten_and_half")
    assert naive_value(d, "R", N, E) == 0
    assert naive_defender_value(d, "R", N, E) == 15 + 20 + 5
    # high bird: the Rook takes R1 + Rook + B5 = 40
    d = deal("N: Rook / E: R1 / S: B5 / W: R11", "kentucky")
    assert naive_value(d, "R", N, E) == 40
    # no trump played: G1 beats G14 in its color
    d = deal("N: G14 / E: G1 / S: G5 / W: G6", "kentucky")
    assert naive_value(d, "R", N, N) == 0
    assert naive_defender_value(d, "R", N, N) == 10 + 15 + 5


def test_double_bird():
    # high: Rook2 is just below the Rook: E's Rook wins 20 + 20 + 10
    d = deal("N: Rook2 / E: Rook / S: R14 / W: R13", "full,double_bird=true")
    assert naive_value(d, "R", N, N) == 0
    assert naive_defender_value(d, "R", N, N) == 50
    # ... and above every number trump
    d = deal("N: Rook2 / E: R14 / S: B2 / W: R13", "full,double_bird=true")
    assert naive_value(d, "R", N, E) == 30
    # low: both birds below every number trump: S's R14 wins
    d = deal("N: Rook2 / E: Rook / S: R14 / W: R13", "full,double_bird=true,bird=low")
    assert naive_value(d, "R", N, N) == 50
    # low: Rook2 below the Rook: E's Rook wins when no number trump is played
    d = deal("N: Rook2 / E: Rook / S: B14 / W: B13", "full,double_bird=true,bird=low")
    assert naive_trick_winner(d.rules, "R", N, cards("Rook2 Rook B14 B13")) == E


def test_off_color_cannot_win():
    # N leads B2; nobody follows black and nobody trumps: B2 wins the trick
    # over the higher off-color Y14 (G is trump and nobody plays green)
    assert naive_trick_winner(Rules.preset("full"), "G", N, cards("B2 Y14 Y10 R5")) == N
    d = deal("N: B2 / E: G14 / S: Y10 / W: R5", "full")
    assert naive_value(d, "Y", N, N) == 25      # S trumps with Y10: 10 + 10 + 5
    assert naive_value(d, "B", N, N) == 25      # N's B2 is trump and wins
    assert naive_trick_winner(d.rules, "Y", N, cards("B2 G14 Y10 R5")) == S
    assert naive_trick_winner(d.rules, "B", E, cards("G14 Y10 R5 B2")) == N
    assert naive_trick_winner(d.rules, "B", E, cards("G14 G1 G13 Y14")) == E


# ------------------------------------------------------------- following
TWO_CARD = "N: Rook B3 / E: B14 G2 / S: B2 G3 / W: B4 G5"


def test_trump_suit_must_follow_with_rook_belonging_to_trump():
    d = deal(TWO_CARD, "full")
    # black led: N holds B3, so it must follow and may not play the Rook
    assert naive_legal(d, "R", N, E, cards("B14 B2 B4")) == cards("B3")
    # green led: N is void and may play anything
    assert set(naive_legal(d, "R", N, E, cards("G2 G3 G5"))) == set(cards("Rook B3"))


def test_rook_led_is_trump_led():
    d = deal("N: Rook B9 / E: R2 B5 / S: B6 B7 / W: Y5 G5", "full")
    assert naive_legal(d, "R", N, N, cards("Rook")) == cards("R2")
    assert set(naive_legal(d, "R", N, N, cards("Rook R2"))) == set(cards("B6 B7"))
    d = deal("N: Rook B9 / E: R6 B5 / S: B6 B7 / W: Y5 G5", "hasbro")
    assert naive_legal(d, "R", N, N, cards("Rook")) == cards("R6")


def test_any_time_rook():
    d = deal(TWO_CARD, "full,bird_play=any_time")
    # the Rook may be played although N can follow black
    assert set(naive_legal(d, "R", N, E, cards("B14 B2 B4"))) == set(cards("Rook B3"))
    # a player holding the led color still may not discard another color
    d2 = deal("N: Rook B3 G9 / E: B14 G2 Y5 / S: B2 G3 Y6 / W: B4 G5 Y7", "full,bird_play=any_time")
    assert set(naive_legal(d2, "R", N, E, cards("B14 B2 B4"))) == set(cards("Rook B3"))
    # trump led and the Rook the only trump: it must be played
    d3 = deal("N: Rook B3 / E: R5 B2 / S: B6 B7 / W: B8 B9", "full,bird_play=any_time")
    assert naive_legal(d3, "R", N, E, cards("R5 B6 B8")) == cards("Rook")
    # trump led, Rook and another trump: either trump, never the off color
    d4 = deal("N: Rook R2 B3 / E: R5 B2 G2 / S: B6 B7 G3 / W: B8 B9 G4", "full,bird_play=any_time")
    assert set(naive_legal(d4, "R", N, E, cards("R5 B6 B8"))) == set(cards("Rook R2"))


@pytest.mark.parametrize("spec, ns, by_card", [
    # trump_suit: E leads B14, N must follow B3 (E-W 10), then N trumps G2 (Rook + G5 = 25).
    # On G2 first N may discard B3 and ruff W's B4 lead for 30, so E leads B14.
    ("full", 25, {"B14": 25, "G2": 30}),
    # any_time: on B14 N plays the Rook (30) and B3 then wins the last trick (G5): 35;
    # on G2 first the best for N-S is still 30, so E leads G2.
    ("full,bird_play=any_time", 30, {"B14": 35, "G2": 30}),
])
def test_two_card_any_time_against_trump_suit(spec, ns, by_card):
    d = deal(TWO_CARD, spec)
    assert naive_value(d, "R", N, E) == ns
    assert naive_defender_value(d, "R", N, E) == 35 - ns
    got = naive_card_values(d, "R", N, E)
    assert {c.rdn(): v for c, v in got.items()} == by_card
    # mid-trick: after E's lead the value is the card's value
    for lead, v in by_card.items():
        assert naive_value(d, "R", N, E, cards(lead)) == v


# ------------------------------------------------------------ nest, bonuses
def test_nest_to():
    text = "N: B14 / E: B13 / S: B5 / W: B6 / nest: R10 Y5"
    # last_trick (hasbro): N wins the only trick, 10 + 5 and the nest's 15
    d = deal(text, "hasbro")
    assert naive_value(d, "R", N, N) == 30
    assert naive_value(d, "R", E, N) == 0          # E-W declare: they lose the last trick
    assert naive_defender_value(d, "R", E, N) == 30
    # declarer: the nest's counters go to the declaring side whoever wins
    d = deal(text, "hasbro,nest_to=declarer")
    assert naive_value(d, "R", N, N) == 30
    assert naive_value(d, "R", E, N) == 15
    assert naive_defender_value(d, "R", E, N) == 15


def test_nest_to_last_trick_decided_by_play():
    # trump Y nobody holds. N leading B14 takes 10, then E's R14 takes the
    # last trick with the nest (10 + 20): N-S 10. Leading R6 first gives E
    # R14 (10), then B14 takes the last trick and the nest: N-S 30.
    text = "N: B14 R6 / E: B7 R14 / S: G7 G8 / W: G9 G11 / nest: B10 R10"
    d = deal(text, "hasbro")
    assert {c.rdn(): v for c, v in naive_card_values(d, "Y", N, N).items()} == {"B14": 10, "R6": 30}
    assert naive_value(d, "Y", N, N) == 30
    assert naive_defender_value(d, "Y", N, N) == 40 - 30  # B14, R14 and the nest
    # to the declarer: the nest's 20 and one of the two 10s
    d = deal(text, "hasbro,nest_to=declarer")
    assert naive_value(d, "Y", N, N) == 30
    assert {c.rdn(): v for c, v in naive_card_values(d, "Y", N, N).items()} == {"B14": 30, "R6": 30}


def test_trick_points_and_last_trick_bonus():
    text = "N: B14 R2 / E: B2 R14 / S: G2 G3 / W: G4 G6"
    # 2 a trick: each side wins one trick whatever the order: 10 + 2
    d = deal(text, "full,trick_points=2")
    assert naive_value(d, "Y", N, N) == 12
    # a last-trick bonus of 10: N leads R2 first to win the last trick with B14
    d = deal(text, "full,trick_points=2,last_trick_bonus=10")
    assert naive_value(d, "Y", N, N) == 22
    assert naive_defender_value(d, "Y", N, N) == 34 - 22  # 20 counters + 2 tricks x 2 + 10
    assert {c.rdn(): v for c, v in naive_card_values(d, "Y", N, N).items()} == {"B14": 12, "R2": 22}


def test_most_tricks():
    rules = Rules.preset("full").with_knobs(hand_size=3, most_tricks=(2, 20))
    # N-S sweep three tricks: B14's 10 and the bonus
    d = deal("N: B14 B13 B12 / E: B2 B3 B4 / S: G2 G3 G4 / W: G6 G7 G8", rules)
    assert naive_value(d, "R", N, N) == 30
    assert naive_defender_value(d, "R", N, N) == 0
    # E-W declare: they get nothing, N-S take B14 and the bonus
    assert naive_value(d, "R", E, N) == 0
    assert naive_defender_value(d, "R", E, N) == 30
    # two tricks left: a 1-1 split gives nobody the bonus (needs 2 of the 2 played)
    d = deal("N: B14 B2 / E: B13 B3 / S: G2 G3 / W: G4 G5", rules)
    assert naive_value(d, "R", N, N) == 10      # W drops G5 on E's trick
    assert naive_defender_value(d, "R", N, N) == 5
    # sweeping both gives the bonus again, counted over the tricks played from here
    d = deal("N: B14 B13 / E: B2 B3 / S: G2 G3 / W: G4 G5", rules)
    assert naive_value(d, "R", N, N) == 10 + 5 + 20


def test_most_tricks_both_sides_reach_it():
    # n = 1 of 2 tricks: each side that wins a trick gets the 20
    rules = Rules.from_spec("hasbro,hand_size=2,most_tricks=1:20")
    d = deal("N: B14 R6 / E: R14 R7 / S: G6 G7 / W: G8 G9", rules)
    # N leads B14 (E keeps R14 back with R7), then R6 to E's R14: one trick
    # each, 10 + 20 a side; leading R6 first, E takes it with R14 and N
    # trumps R7 with B14: the same. N-S cannot keep E-W from a trick.
    assert naive_value(d, "B", N, N) == 30
    assert naive_defender_value(d, "B", N, N) == 30
    assert {c.rdn(): v for c, v in naive_card_values(d, "B", N, N).items()} == {"B14": 30, "R6": 30}
    # with the trump in E's hand E-W take both tricks: 20 + 20, N-S nothing
    d = deal("N: R6 R7 / E: B14 R14 / S: G6 G7 / W: G8 G9", rules)
    assert naive_value(d, "B", N, N) == 0
    assert naive_defender_value(d, "B", N, N) == 40


def test_bridge_tricks():
    # no trump, E leads: each side wins one of the two spade tricks
    d = deal("N: B14 B2 / E: B13 B3 / S: R2 R3 / W: R4 R5", "bridge")
    assert naive_value(d, "none", N, E) == 1
    # hearts trump: S must ruff the spade lead and W (after S) overruffs, then
    # W's last heart beats S's: E-W take both
    assert naive_value(d, "R", N, E) == 0
    assert naive_defender_value(d, "R", N, E) == 2
    # N-S hold every top spade
    d = deal("N: B14 B13 / E: B2 B3 / S: B12 B11 / W: B4 B5", "bridge")
    assert naive_value(d, "none", N, E) == 2


# ------------------------------------------------------------- other tables
def test_three_seats_cutthroat():
    rules = Rules.preset("full").with_knobs(seats=3, teams=None)
    d = Deal.from_rdn("P1: B14 / P2: B5 / P3: B13", rules)
    assert naive_value(d, "R", 0, 0) == 15
    assert naive_value(d, "R", 2, 0) == 0
    assert naive_defender_value(d, "R", 2, 0) == 15
    # the two defenders play together: P2 and P3 against P1
    d = Deal.from_rdn("P1: B14 B2 / P2: B5 G10 / P3: B13 R2", rules)
    # P1 leads B14 (B5 falls: 15), then B2: P2 discards G10 and P3 wins: P1 15
    assert naive_value(d, "R", 0, 0) == 15


def test_six_seats_teams():
    rules = Rules.preset("full").with_knobs(seats=6, teams=(0, 1, 0, 1, 0, 1), nest_size=0)
    d = Deal.from_rdn("P1: B2 / P2: B14 / P3: B5 / P4: B3 / P5: B10 / P6: B4", rules)
    # P2's B14 wins everything: 10 + 5 + 10 for the odd team
    assert naive_value(d, "R", 0, 0) == 0
    assert naive_value(d, "R", 1, 0) == 25
    assert naive_value(d, "R", 3, 0) == 25


# ------------------------------------------------ self-checks on random play
SPECS = ["full", "hasbro", "kentucky", "dixie40", "full,bird=low,double_bird=true",
         "hasbro,bird=ten_and_half", "full,hand_size=4,most_tricks=3:20,last_trick_bonus=10"]


@pytest.mark.parametrize("spec", SPECS)
def test_pruned_equals_plain(spec):
    """Alpha-beta with bounds in the memo gives exactly the plain minimax."""
    rules = Rules.from_spec(spec)
    rng = random.Random(zlib.crc32(spec.encode()))
    for _ in range(40):
        k = rng.choice([1, 2, 3, 3, 4])
        d = random_endgame(rules, min(k, rules.hand_size), rng)
        trump = rng.choice(rules.trumps)
        dec, lead = rng.randrange(4), rng.randrange(4)
        trick = random_trick(d, trump, dec, lead, rng, rng.randrange(4))
        assert naive_value(d, trump, dec, lead, trick) == naive_value(d, trump, dec, lead, trick, prune=False)
        assert (naive_defender_value(d, trump, dec, lead, trick)
                == naive_defender_value(d, trump, dec, lead, trick, prune=False))
        assert naive_card_values(d, trump, dec, lead, trick) == naive_card_values(
            d, trump, dec, lead, trick, prune=False)


def _total(d):
    r = d.rules
    k = d.cards_per_hand
    return r.points_of_mask(d.in_play_mask) + r.trick_points * k + (r.last_trick_bonus if k else 0)


@pytest.mark.parametrize("spec", ["full", "hasbro", "kentucky,nest_to=declarer", "full,trick_points=3"])
def test_zero_sum_and_side_swap(spec):
    rules = Rules.from_spec(spec)
    rng = random.Random(7)
    for _ in range(40):
        d = random_endgame(rules, rng.choice([2, 3, 4]), rng)
        trump = rng.choice(rules.trumps)
        dec, lead = rng.randrange(4), rng.randrange(4)
        v = naive_value(d, trump, dec, lead)
        assert v + naive_defender_value(d, trump, dec, lead) == _total(d)
        if rules.nest_to == "last_trick":
            # the defenders' value is the other side's declaring value
            assert naive_defender_value(d, trump, dec, lead) == naive_value(d, trump, (dec + 1) % 4, lead)


def test_most_tricks_not_zero_sum_side_swap():
    # with most_tricks nobody may reach, values need not add up, but the two
    # sides stay symmetric when the nest goes to the last trick
    rules = Rules.from_spec("hasbro,hand_size=5,most_tricks=3:20")
    rng = random.Random(11)
    unequal = 0
    for _ in range(60):
        d = random_endgame(rules, 4, rng)
        trump = rng.choice(rules.trumps)
        dec, lead = rng.randrange(4), rng.randrange(4)
        v, dv = naive_value(d, trump, dec, lead), naive_defender_value(d, trump, dec, lead)
        assert dv == naive_value(d, trump, (dec + 1) % 4, lead)
        base = _total(d)
        assert base <= v + dv <= base + 20
        unequal += v + dv != base
    assert unequal > 0  # some position did leave the bonus unawarded


@pytest.mark.parametrize("spec", ["full", "hasbro", "dixie40"])
def test_card_values_minimax(spec):
    """The value is the best card value for the side to play, mid-trick too."""
    rules = Rules.from_spec(spec)
    rng = random.Random(3)
    for _ in range(40):
        d = random_endgame(rules, rng.choice([2, 3]), rng)
        trump = rng.choice(rules.trumps)
        dec, lead = rng.randrange(4), rng.randrange(4)
        trick = random_trick(d, trump, dec, lead, rng, rng.randrange(4))
        vals = naive_card_values(d, trump, dec, lead, trick)
        seat = (lead + len(trick)) % 4
        pick = max if rules.side_of(seat, dec) else min
        assert pick(vals.values()) == naive_value(d, trump, dec, lead, trick)


def test_reference_rejects_a_bird_it_cannot_rank():
    # the reference's card tables keep the rule methods' refusals: a bird
    # has no color to follow without trump, and no rank with bird=none
    from naive import _Game
    no_trump = _Game(Rules.from_spec("hasbro"), "none", 0)
    for trick in ((0, 17), (17, 0)):
        with pytest.raises(ValueError, match="no trump color"):
            no_trump.winner_offset(trick)
    with pytest.raises(ValueError, match="no trump color"):
        no_trump.legal((1 << 0) | (1 << 18), (0,))
    no_bird = _Game(Rules.from_spec("hasbro,bird=none"), "R", 0)
    with pytest.raises(ValueError, match="bird='none'"):
        no_bird.winner_offset((17, 0))
