"""The rule model against the preset table and knob list of RULES.md / CONTRACT.md."""

import dataclasses
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rook_analyze.solver import PRESETS, Card, Rules, RulesError
from rook_analyze.solver.cards import ROOK2_INDEX, ROOK_INDEX
from rook_analyze.solver.rules import KNOBS


def idx(text):
    return Card.from_rdn(text).index


# ------------------------------------------------------------- the presets
# One row per preset of RULES.md: numbers per color, deck size, hand / nest,
# Rook rank, counter table, counter total, total in play, first lead,
# bird_play, nest_to, (min, step, max), all_pass, target.
TABLE = {
    "full": dict(numbers=range(1, 15), deck=57, hand=13, nest=5, bird="high",
                 counters={5: 5, 10: 10, 14: 10}, rook=20, counter_total=120, total=120,
                 first_lead="declarer", bird_play="trump_suit", nest_to="declarer",
                 bids=(70, 5, 120), all_pass="redeal", target=300),
    "hasbro": dict(numbers=range(5, 15), deck=41, hand=9, nest=5, bird="high",
                   counters={5: 5, 10: 10, 14: 10}, rook=20, counter_total=120, total=120,
                   first_lead="left_of_dealer", bird_play="any_time", nest_to="last_trick",
                   bids=(70, 5, 120), all_pass="redeal", target=300),
    "kentucky": dict(numbers=[1] + list(range(5, 15)), deck=45, hand=10, nest=5, bird="high",
                     counters={1: 15, 5: 5, 10: 10, 14: 10}, rook=20, counter_total=180, total=180,
                     first_lead="left_of_dealer", bird_play="any_time", nest_to="last_trick",
                     bids=(100, 5, 180), all_pass="dealer_forced", target=500),
    "dixie40": dict(numbers=range(5, 15), deck=40, hand=9, nest=4, bird="none",
                    counters={5: 5, 10: 10, 13: 10}, rook=None, counter_total=100, total=120,
                    first_lead="left_of_dealer", bird_play="trump_suit", nest_to="last_trick",
                    bids=(65, 5, 120), all_pass="dealer_forced", target=300),
    "bridge": dict(numbers=range(2, 15), deck=52, hand=13, nest=0, bird="none",
                   counters={}, rook=None, counter_total=0, total=13,
                   first_lead="left_of_declarer", bird_play="trump_suit", nest_to=None,
                   bids=(None, None, None), all_pass=None, target=300),
}


def test_presets_are_the_table():
    assert set(PRESETS) == set(TABLE)


@pytest.mark.parametrize("name", list(TABLE))
def test_preset_matches_rules_md(name):
    row = TABLE[name]
    r = Rules.preset(name)
    assert r.name == name
    assert r.seats == 4 and r.teams == (0, 1, 0, 1)  # partners opposite: N-S against E-W
    assert set(r.numbers) == set(row["numbers"])
    assert r.deck_size == row["deck"] == len(r.deck())
    assert (r.hand_size, r.nest_size) == (row["hand"], row["nest"])
    assert r.out_of_play == 0
    assert r.bird == row["bird"]
    deck = {c.rdn() for c in r.deck()}
    assert ("Rook" in deck) == (row["rook"] is not None)
    assert "Rook2" not in deck
    # every card's points from the counter table
    for card in r.deck():
        expected = row["rook"] if card.is_bird else row["counters"].get(card.number, 0)
        assert r.card_points(card) == expected, card
    assert r.counter_total == row["counter_total"]
    assert r.total_points == row["total"]
    assert r.first_lead == row["first_lead"]
    assert r.bird_play == row["bird_play"]
    if row["nest_to"] is not None:
        assert r.nest_to == row["nest_to"]
    assert (r.min_bid, r.bid_step, r.max_bid) == row["bids"]
    assert r.has_auction == (row["bids"][0] is not None)
    if row["all_pass"] is not None:
        assert r.all_pass == row["all_pass"]
    assert r.target == row["target"]
    assert r.one_high == (name == "kentucky")
    assert r.trumps == (("B", "R", "Y", "G", "none") if name == "bridge" else ("B", "R", "Y", "G"))
    assert r.spec() == name
    assert Rules.from_spec(name) == r


def test_dixie40_most_tricks_bonus():
    r = Rules.preset("dixie40")
    assert r.most_tricks == (5, 20)
    assert r.counter_total + r.most_tricks[1] == 120


def test_nest_sizes_of_the_variants_on_every_preset():
    # RULES.md: nest_size 4 or 6 and no nest ('straight') are variants any preset
    # can take; the hands take what the nest leaves, the rest is out of play
    for name in PRESETS:
        for nest in (0, 4, 6):
            r = Rules.from_spec(f"{name},nest_size={nest}")
            assert r.nest_size == nest
            assert r.hand_size == (r.deck_size - nest) // 4
            assert Rules.from_spec(r.spec()) == r
    # dixie40 straight: 10 tricks a hand, the preset's bonus for 5 of them stays
    r = Rules.from_spec("dixie40,nest_size=0")
    assert (r.hand_size, r.out_of_play, r.most_tricks) == (10, 0, (5, 20))


def test_most_tricks_at_half_the_tricks_or_fewer():
    # RULES.md: the side that wins at least n tricks gets p more; with n at
    # most half the tricks both sides may reach it
    r = Rules.from_spec("full,most_tricks=3:5")
    assert r.most_tricks == (3, 5) and Rules.from_spec(r.spec()) == r
    assert Rules.from_spec("hasbro,most_tricks=1:20").most_tricks == (1, 20)
    # n runs up to every trick of the hand, no further
    assert Rules.from_spec("hasbro,hand_size=5,most_tricks=5:20").most_tricks == (5, 20)
    with pytest.raises(RulesError, match="most_tricks=6:20: N must be 1 to 5"):
        Rules.from_spec("hasbro,hand_size=5,most_tricks=6:20")


def test_bid_levels():
    # RULES.md's preset table: (min, step, max) 70/5/120, 100/5/180, 65/5/120
    assert Rules.preset("full").bid_levels() == list(range(70, 121, 5))
    assert Rules.preset("hasbro").bid_levels() == list(range(70, 121, 5))
    assert Rules.preset("kentucky").bid_levels() == list(range(100, 181, 5))
    assert Rules.preset("dixie40").bid_levels() == list(range(65, 121, 5))
    # every multiple of 5 may be bid (bid_step only spaces one bid from the last)
    assert Rules.from_spec("full,bid_step=10,min_bid=80,max_bid=110").bid_levels() == [80, 85, 90, 95, 100, 105, 110]
    # a single level, at every point the hand holds (hasbro's 120)
    assert Rules.from_spec("hasbro,min_bid=120").bid_levels() == [120]
    with pytest.raises(RulesError, match="no bidding"):
        Rules.preset("bridge").bid_levels()


def test_preset_name_ignores_case_and_spaces():
    assert Rules.from_spec(" Hasbro ") == Rules.preset("hasbro")
    assert Rules.from_spec("FULL, bird = LOW") == Rules.preset("full").with_knobs(bird="low")


# ----------------------------------------------------------------- knobs
# Each CONTRACT.md knob with a value that differs from the 'full' preset.
KNOB_VALUES = {
    "teams": ("0011", (0, 0, 1, 1)),
    "numbers": ("4-14", tuple(range(4, 15))),
    "hand_size": ("12", 12),
    "nest_size": ("6", 6),
    "bird": ("low", "low"),
    "double_bird": ("true", True),
    "one_high": ("true", True),
    "first_lead": ("left_of_dealer", "left_of_dealer"),
    "bird_play": ("any_time", "any_time"),
    "nest_to": ("last_trick", "last_trick"),
    "trick_points": ("2", 2),
    "last_trick_bonus": ("20", 20),
    "most_tricks": ("7:20", (7, 20)),
    "min_bid": ("80", 80),
    "bid_step": ("10", 10),
    "max_bid": ("110", 110),
    "all_pass": ("dealer_forced", "dealer_forced"),
    "target": ("500", 500),
}


def test_every_contract_knob_is_covered():
    # seats cannot change alone (the teams must fit): test_seats_knob_in_python_and_in_spec
    assert set(KNOB_VALUES) | {"seats"} == set(KNOBS)


@pytest.mark.parametrize("spec, python, seats, teams, hand", [
    ("hasbro,seats=3,teams=alone", dict(seats=3, teams=None), 3, None, 12),
    ("hasbro,seats=3,teams=none", dict(seats=3, teams="alone"), 3, None, 12),
    ("full,seats=3,teams=011", dict(seats="3", teams=[0, 1, 1]), 3, (0, 1, 1), 17),
    ("full,seats=6,teams=010101,nest_size=3", dict(seats=6, teams=(0, 1, 0, 1, 0, 1), nest_size=3), 6,
     (0, 1, 0, 1, 0, 1), 9),
    ("full,seats=2,teams=alone", dict(seats=2, teams=None), 2, None, 26),
])
def test_seats_knob_in_python_and_in_spec(spec, python, seats, teams, hand):
    by_text = Rules.from_spec(spec)
    assert by_text == Rules.preset(spec.split(",")[0]).with_knobs(**python)
    assert (by_text.seats, by_text.teams, by_text.hand_size) == (seats, teams, hand)
    # the text form keeps the table: what simulate's plan and every report write
    assert f"seats={seats}" in by_text.spec()
    assert Rules.from_spec(by_text.spec()) == by_text


def test_teams_at_four_seats_round_trip():
    r = Rules.from_spec("hasbro,hand_size=4").with_knobs(teams=(0, 0, 1, 1))
    assert r.spec() == "hasbro,teams=0011,hand_size=4"
    assert Rules.from_spec(r.spec()) == r
    assert r.side_of("E", "N") == 1 and r.side_of("S", "N") == 0


@pytest.mark.parametrize("text, numbers, canonical", [
    ("4-14", tuple(range(4, 15)), "4-14"),
    ("1+5-14", (1,) + tuple(range(5, 15)), "1+5-14"),
    ("5-14+1", (1,) + tuple(range(5, 15)), "1+5-14"),
    ("2+4+6-14", (2, 4) + tuple(range(6, 15)), "2+4+6-14"),
])
def test_numbers_knob(text, numbers, canonical):
    r = Rules.from_spec(f"full,numbers={text}")
    assert r.numbers == numbers and r.deck_size == 4 * len(numbers) + 1
    assert f"numbers={canonical}" in r.spec() and Rules.from_spec(r.spec()) == r
    # the deck decides the hand size again, and counters outside it count for nothing
    assert r.hand_size == (r.deck_size - 5) // 4
    assert r.counter_total == 20 + sum(4 * p for n, p in r.counters if n in numbers)


def test_numbers_knob_in_python_is_a_set_of_numbers():
    # in any order, as the text form takes them (5-14+1): a list, a set, a range
    full = Rules.from_spec("full,numbers=1+5-14")
    for numbers in ([14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 1], set(full.numbers), frozenset(full.numbers),
                    (1,) + tuple(range(14, 4, -1))):
        assert Rules.preset("full").with_knobs(numbers=numbers) == full
    with pytest.raises(RulesError, match=r"numbers=\[5, 6, 5\]: 5 given twice"):
        Rules.preset("full").with_knobs(numbers=[5, 6, 5])
    # built directly, unsorted numbers are refused for what they are, not as out of 1..14
    with pytest.raises(RulesError, match="numbers=14\\+5: each number once, from low to high"):
        dataclasses.replace(Rules.preset("hasbro"), numbers=(14, 5))
    with pytest.raises(RulesError, match="at least one number"):
        dataclasses.replace(Rules.preset("hasbro"), numbers=())


def test_three_player_cutthroat_of_the_rules_document():
    # 44 cards 4-14 without the Rook, 12 each, nest 5, 3 out of play, the declarer alone
    r = Rules.from_spec("hasbro,seats=3,teams=alone,numbers=4-14,bird=none,hand_size=12,"
                        "min_bid=50,max_bid=100,target=200")
    assert (r.deck_size, r.hand_size, r.nest_size, r.out_of_play) == (44, 12, 5, 3)
    assert r.total_points == 100 and r.seat_names == ("P1", "P2", "P3")
    assert Rules.from_spec(r.spec()) == r


def test_other_knobs_keep_an_explicit_hand_size():
    r = Rules.from_spec("hasbro,hand_size=5")
    assert r.with_knobs(target=200).hand_size == 5
    assert r.with_knobs(teams=(0, 0, 1, 1), min_bid=50).hand_size == 5
    # the knobs that change the cards to deal derive it again
    assert r.with_knobs(nest_size=4).hand_size == 9
    assert r.with_knobs(seats=3, teams=None).hand_size == 12
    assert r.with_knobs(bird="none").hand_size == 8


@pytest.mark.parametrize("make, words", [
    (lambda: Rules.preset("full").with_knobs(seats=3), ["seats=3", "teams=alone", "teams=010"]),
    (lambda: Rules.from_spec("hasbro,seats=5"), ["seats=5", "teams=alone"]),
    (lambda: Rules.from_spec("full,seats=3,teams=01"), ["teams=01", "3 seats"]),
    (lambda: Rules.from_spec("full,teams=1111"), ["teams=1111", "both sides"]),
    (lambda: Rules.from_spec("full,teams=0x11"), ["teams='0x11'", "alone"]),
    (lambda: Rules.from_spec("full,seats=7,teams=alone"), ["seats=7", "2..6"]),
    (lambda: Rules.preset("hasbro").with_knobs(seats=0, teams=None), ["seats=0", "2..6"]),
    (lambda: Rules.preset("hasbro").with_knobs(seats="x", teams=None), ["seats='x'", "whole number"]),
    (lambda: Rules.from_spec("full,seats=3,teams=alone,hand_size=5,most_tricks=3:20"),
     ["most_tricks=3:20", "two sides"]),
    (lambda: Rules.preset("full").side_of(5, 0), ["seat 5", "0..3"]),
    (lambda: Rules.from_spec("full,numbers=14-5"), ["numbers='14-5'", "low-high"]),
    (lambda: Rules.from_spec("full,numbers=0-14"), ["numbers='0-14'", "1..14"]),
    (lambda: Rules.from_spec("full,numbers=9+x"), ["numbers='9+x'"]),
    (lambda: Rules.from_spec("hasbro,numbers=5-"), ["numbers='5-'", "low-high"]),  # not 5 alone
    (lambda: Rules.from_spec("hasbro,numbers=1+5-"), ["numbers='1+5-'", "low-high"]),
    (lambda: Rules.from_spec("hasbro,seats=3,teams=alone").side_of("N", 0), ["'N'", "P1 P2 P3"]),
    # sizes that would run out of memory or overflow the search: refused before anything is built
    (lambda: Rules.from_spec("hasbro,seats=99999999999999999999"), ["seats=99999999999999999999", "2..6"]),
    (lambda: Rules.from_spec("hasbro,seats=0"), ["seats=0", "2..6"]),
    (lambda: Rules.from_spec("hasbro,numbers=5-99999999999999999999"), ["numbers=", "1..14"]),
    (lambda: Rules.from_spec("hasbro,numbers=5-14+10"), ["numbers='5-14+10'", "10 given twice"]),
    (lambda: Rules.from_spec("hasbro,last_trick_bonus=99999999999999999999"), ["at most 10000"]),
    (lambda: Rules.from_spec("hasbro,most_tricks=5:99999999999999999999"), ["at most 10000"]),
    (lambda: Rules.from_spec("hasbro,trick_points=32768"), ["295032 points", "at most 10000"]),
    (lambda: Rules.from_spec("hasbro,hand_size=0"), ["hand_size=0 must be 1 or more"]),
    (lambda: Rules.from_spec("dixie40,seats=3,teams=alone"), ["most_tricks=5:20 needs two sides"]),
    # odd text and directly built rules
    (lambda: Rules.from_spec("hasbro,min_bid=7_0"), ["min_bid='7_0'", "whole number"]),
    (lambda: Rules.from_spec("hasbro,target=\u0663\u0660\u0660"), ["target=", "whole number"]),
    (lambda: Rules.preset(None), ["preset None"]),
    (lambda: dataclasses.replace(Rules.preset("hasbro"), name=5), ["name=5"]),
    (lambda: dataclasses.replace(Rules.preset("hasbro"), counters=((5, -5),)), ["(5, -5)", "0 points or more"]),
    (lambda: dataclasses.replace(Rules.preset("hasbro"), counters=((15, 5),)), ["(15, 5)", "1..14"]),
    (lambda: dataclasses.replace(Rules.preset("hasbro"), counters=[(5, 5)]), ["counters=[(5, 5)]"]),
    (lambda: dataclasses.replace(Rules.preset("hasbro"), numbers=(0, 5, 6)), ["numbers=0+5-6", "1..14"]),
])
def test_bad_tables_and_odd_inputs_are_rules_errors(make, words):
    with pytest.raises(RulesError) as e:
        make()
    for w in words:
        assert w in str(e.value)


@pytest.mark.parametrize("make, quoted", [
    # case is ignored, but Unicode folds other letters onto ASCII ones: the Kelvin
    # sign lowers to 'k', the long s uppers to 'S'; neither is a preset, knob or seat
    (lambda: Rules.from_spec("\u212aentucky"), "'\u212aentucky'"),
    (lambda: Rules.from_spec("hasbro,tric\u212a_points=1"), "'tric\u212a_points'"),
    (lambda: Rules.from_spec("hasbro,last_tric\u212a_bonus=10"), "'last_tric\u212a_bonus'"),
    (lambda: Rules.preset("hasbro").check_seat("\u017f"), "'\u017f'"),
    (lambda: Rules.preset("hasbro").seat_index("\u017f"), "'\u017f'"),
])
def test_letters_that_only_fold_to_ascii_are_refused(make, quoted):
    with pytest.raises(RulesError) as err:
        make()
    assert quoted in str(err.value)


def test_most_tricks_with_the_declarer_alone_at_two_seats():
    # two seats alone are two sides: the bonus is defined
    r = Rules.from_spec("full,seats=2,teams=alone,hand_size=5,most_tricks=3:20")
    assert r.most_tricks == (3, 20) and r.total_points == r.counter_total + 20


@pytest.mark.parametrize("knob", list(KNOB_VALUES))
def test_knob_in_python_and_in_spec(knob):
    text, value = KNOB_VALUES[knob]
    base = Rules.preset("full")
    by_python = base.with_knobs(**{knob: value})
    by_text = Rules.from_spec(f"full,{knob}={text}")
    assert getattr(by_python, knob) == value
    assert by_text == by_python
    assert by_python != base
    assert f"{knob}={text}" in by_python.spec()
    assert Rules.from_spec(by_python.spec()) == by_python
    # with_knobs also takes the spec's text
    assert base.with_knobs(**{knob: text}) == by_python


def test_knobs_on_other_presets():
    r = Rules.from_spec("hasbro,bird=ten_and_half,bird_play=trump_suit,nest_to=declarer,most_tricks=6:10")
    assert (r.bird, r.bird_play, r.nest_to, r.most_tricks) == ("ten_and_half", "trump_suit", "declarer", (6, 10))
    assert r.total_points == 120 + 10
    assert Rules.from_spec(r.spec()) == r
    assert Rules.from_spec("dixie40,most_tricks=none").most_tricks is None
    assert Rules.from_spec("kentucky,one_high=false").one_high is False


@pytest.mark.parametrize("spec, hand, nest, out", [
    ("full,nest_size=0", 14, 0, 1),        # straight: 57 cards, 14 each, one out of play
    ("full,nest_size=6", 12, 6, 3),
    ("full,nest_size=4", 13, 4, 1),
    ("full,double_bird=true", 13, 5, 1),   # 58 cards
    ("full,bird=none", 12, 5, 3),          # 56 cards
    ("hasbro,nest_size=4", 9, 4, 1),
    ("full,hand_size=12", 12, 5, 4),
])
def test_hand_size_follows_the_deck(spec, hand, nest, out):
    r = Rules.from_spec(spec)
    assert (r.hand_size, r.nest_size, r.out_of_play) == (hand, nest, out)
    assert r.hand_size * r.seats + r.nest_size + r.out_of_play == r.deck_size
    assert Rules.from_spec(r.spec()) == r


def test_explicit_hand_size_round_trips_even_when_it_equals_the_preset():
    # 13 is the preset's size but not what nest_size=0 derives (14): it must be written
    r = Rules.from_spec("full,nest_size=0,hand_size=13")
    assert r.hand_size == 13 and r.out_of_play == 5
    assert "hand_size=13" in r.spec()
    assert Rules.from_spec(r.spec()) == r


def test_double_bird_deck():
    r = Rules.from_spec("full,double_bird=true")
    names = [c.rdn() for c in r.deck()]
    assert names[:2] == ["Rook", "Rook2"]
    assert r.deck_size == 58
    assert r.card_points(Card.rook(second=True)) == 20
    assert r.counter_total == 140


def test_teams_and_seats_knobs():
    r = Rules.from_spec("hasbro").with_knobs(seats=3, teams=None)
    assert (r.hand_size, r.seats, r.out_of_play) == (12, 3, 0)
    assert r.seat_names == ("P1", "P2", "P3")
    assert r.side_of(1, 1) == 1 and r.side_of(0, 1) == 0 and r.side_of(2, 1) == 0
    six = Rules.from_spec("full,bird=none,nest_size=2").with_knobs(seats=6, teams=(0, 1, 0, 1, 0, 1))
    assert (six.hand_size, six.out_of_play) == (9, 0)
    with pytest.raises(RulesError, match="teams"):
        Rules.preset("full").with_knobs(seats=3)  # four-seat teams do not fit three seats


@settings(max_examples=150, deadline=None)
@given(
    preset=st.sampled_from(list(TABLE)),
    knobs=st.dictionaries(
        st.sampled_from(KNOBS),
        st.one_of(st.integers(-10, 200).map(str), st.sampled_from(
            ["high", "low", "ten_and_half", "none", "true", "false", "declarer", "left_of_declarer",
             "left_of_dealer", "any_time", "trump_suit", "last_trick", "redeal", "dealer_forced",
             "6:20", "7:10", "5:20", "x", "", "1.5", "-5"])),
        max_size=5),
)
def test_any_spec_either_round_trips_or_is_a_rules_error(preset, knobs):
    spec = ",".join([preset] + [f"{k}={v}" for k, v in knobs.items()])
    try:
        r = Rules.from_spec(spec)
    except RulesError as e:
        assert str(e)  # a RulesError, never another exception
        return
    assert Rules.from_spec(r.spec()) == r
    assert r.hand_size * r.seats + r.nest_size <= r.deck_size
    assert r.hand_size >= 1


def test_a_max_bid_the_deck_no_longer_reaches_is_refused_as_from_spec_refuses_it():
    # the max_bid asked for in one call, the points taken away in the next: spec() writes
    # max_bid=115, which from_spec refuses, so with_knobs refuses it too
    with pytest.raises(RulesError, match=r"max_bid=115 is above the 100 points"):
        Rules.from_spec("hasbro,max_bid=115").with_knobs(numbers="6-14")
    with pytest.raises(RulesError, match=r"max_bid=115 is above the 100 points"):
        Rules.from_spec("hasbro,numbers=6-14,max_bid=115")
    # the preset's own max_bid may still outrun the points (it only adds bids nobody makes)
    assert Rules.from_spec("hasbro").with_knobs(numbers="6-14").max_bid == 120
    assert Rules.from_spec("hasbro,max_bid=100").with_knobs(numbers="6-14").spec() == "hasbro,numbers=6-14,max_bid=100"


_CHAIN_KNOBS = {
    "numbers": ["4-14", "6-14", "10-14", "1+5-14"], "nest_size": [0, 1, 4, 6], "bird": ["none", "low"],
    "double_bird": [True, False], "trick_points": [0, 5], "last_trick_bonus": [0, 20],
    "most_tricks": [None, "7:10", "5:20"], "min_bid": [70, 100], "bid_step": [5, 10],
    "max_bid": [100, 115, 150, 180], "hand_size": [4, 8],
}


@settings(max_examples=300, deadline=None)
@given(
    preset=st.sampled_from(list(TABLE)),
    calls=st.lists(st.dictionaries(
        st.sampled_from(list(_CHAIN_KNOBS)),
        st.integers(0, 3), min_size=1, max_size=2), min_size=1, max_size=4),
)
def test_rules_made_by_with_knobs_calls_round_trip_through_their_spec(preset, calls):
    r = Rules.preset(preset)
    for picks in calls:
        knobs = {k: _CHAIN_KNOBS[k][i % len(_CHAIN_KNOBS[k])] for k, i in picks.items()}
        try:
            r = r.with_knobs(**knobs)
        except RulesError:
            pass
    assert Rules.from_spec(r.spec()) == r

# ---------------------------------------------------------------- errors
@pytest.mark.parametrize("spec, words", [
    ("nope", ["'nope'", "full"]),
    ("", ["preset"]),
    ("full,foo=1", ["'foo'", "unknown"]),
    ("full,bird", ["'bird'", "knob=value"]),
    ("full,bird=mid", ["bird", "'mid'"]),
    ("full,nest_size=x", ["nest_size", "'x'", "whole number"]),
    ("full,double_bird=maybe", ["double_bird", "'maybe'"]),
    ("full,first_lead=dealer", ["first_lead", "'dealer'"]),
    ("full,bird_play=never", ["bird_play", "'never'"]),
    ("full,nest_to=nobody", ["nest_to", "'nobody'"]),
    ("full,all_pass=shuffle", ["all_pass", "'shuffle'"]),
    ("full,most_tricks=a", ["most_tricks", "'a'"]),
    ("full,most_tricks=0:5", ["most_tricks=0:5", "1 to 13"]),
    ("full,most_tricks=14:5", ["most_tricks=14:5", "1 to 13"]),
    ("full,most_tricks=7:-5", ["most_tricks=7:-5", "0 or more"]),
    ("full,min_bid=72", ["min_bid=72", "multiple of 5"]),
    ("full,bid_step=0", ["bid_step=0", "positive"]),
    ("full,min_bid=130", ["min_bid=130", "max_bid=120"]),
    ("hasbro,min_bid=125,max_bid=200", ["max_bid=200", "120 points"]),   # more than a hand holds
    ("hasbro,max_bid=1000", ["max_bid=1000", "120 points"]),
    ("hasbro,bid_step=200", ["bid_step=200", "max_bid - min_bid = 50"]),
    ("full,target=0", ["target=0"]),
    # nothing to play for: every solve would be 0
    ("bridge,trick_points=0", ["no points to play for", "trick_points"]),
    ("hasbro,numbers=6-9,bird=none,min_bid=none,bid_step=none,max_bid=none", ["no points to play for"]),
    ("full,trick_points=-1", ["trick_points=-1"]),
    ("full,nest_size=-1", ["nest_size=-1"]),
    ("full,nest_size=60", ["nest_size=60", "57-card deck"]),          # the deck cannot be dealt
    ("full,hand_size=20", ["hand_size=20", "deck has 57"]),
    ("hasbro,hand_size=10,nest_size=5", ["hand_size=10", "deck has 41"]),
    ("dixie40,double_bird=true", ["double_bird", "Rook"]),
    ("hasbro,one_high=true", ["one_high", "no 1s"]),
    ("full,bird=low,bird=high", ["'bird'", "twice"]),
    # ASCII digits only, as the whole-number knobs take (int() would read these)
    ("full,numbers=1_0-14", ["numbers='1_0-14'", "runs of numbers"]),
    ("full,numbers=\u0665-14", ["numbers=", "runs of numbers"]),
    ("full,most_tricks=7:2_0", ["most_tricks='7:2_0'", "N:P"]),
])
def test_rules_errors_name_the_knob_and_value(spec, words):
    with pytest.raises(RulesError) as err:
        Rules.from_spec(spec)
    for w in words:
        assert w in str(err.value), (w, str(err.value))


@pytest.mark.parametrize("knobs, words", [
    (dict(nest_size="x"), ["nest_size", "'x'"]),
    (dict(double_bird=1), ["double_bird=1", "true or false"]),
    (dict(target=1.5), ["target=1.5", "whole number"]),
    (dict(hand_size=True), ["hand_size=True"]),
    (dict(most_tricks=(7,)), ["most_tricks=(7,)"]),
    (dict(bird="mid"), ["bird", "'mid'"]),
    (dict(colour="B"), ["'colour'", "unknown"]),
])
def test_with_knobs_errors(knobs, words):
    with pytest.raises(RulesError) as err:
        Rules.preset("full").with_knobs(**knobs)
    for w in words:
        assert w in str(err.value), (w, str(err.value))


def test_most_tricks_as_list_in_python():
    assert Rules.preset("full").with_knobs(most_tricks=[7, 20]).most_tricks == (7, 20)


# ------------------------------------------------------------ rank order
def order(rules, trump, color):
    return [Card.from_index(i).rdn() for i in rules.color_order(trump, color)]


def test_rank_order_rook_high():
    r = Rules.preset("full")
    assert order(r, "B", "B") == [f"B{n}" for n in range(1, 15)] + ["Rook"]
    assert order(r, "B", "R") == [f"R{n}" for n in range(1, 15)]  # the Rook is in no other color
    assert order(r, "none", "Y") == [f"Y{n}" for n in range(1, 15)]


def test_rank_order_rook_low():
    r = Rules.from_spec("full,bird=low")
    assert order(r, "G", "G") == ["Rook"] + [f"G{n}" for n in range(1, 15)]


def test_rank_order_ten_and_half():
    r = Rules.from_spec("hasbro,bird=ten_and_half")
    assert order(r, "R", "R") == ["R5", "R6", "R7", "R8", "R9", "R10", "Rook", "R11", "R12", "R13", "R14"]


def test_rank_order_one_high():
    r = Rules.preset("kentucky")
    assert order(r, "B", "R") == ["R5", "R6", "R7", "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R1"]
    assert order(r, "B", "B")[-2:] == ["B1", "Rook"]
    half = r.with_knobs(bird="ten_and_half")
    assert order(half, "Y", "Y") == ["Y5", "Y6", "Y7", "Y8", "Y9", "Y10", "Rook", "Y11", "Y12", "Y13", "Y14", "Y1"]
    low = r.with_knobs(bird="low")
    assert order(low, "Y", "Y")[:2] == ["Rook", "Y5"] and order(low, "Y", "Y")[-1] == "Y1"


@pytest.mark.parametrize("bird, expected", [
    ("high", [f"B{n}" for n in range(5, 15)] + ["Rook2", "Rook"]),
    ("low", ["Rook2", "Rook"] + [f"B{n}" for n in range(5, 15)]),
    ("ten_and_half", ["B5", "B6", "B7", "B8", "B9", "B10", "Rook2", "Rook", "B11", "B12", "B13", "B14"]),
])
def test_rank_order_double_bird(bird, expected):
    r = Rules.from_spec(f"hasbro,double_bird=true,bird={bird}")
    assert order(r, "B", "B") == expected
    assert ROOK_INDEX not in r.color_order("B", "G") and ROOK2_INDEX not in r.color_order("B", "G")


# ---------------------------------------------------------- trump, seats
def test_check_trump():
    assert Rules.preset("full").check_trump("b") == "B"
    assert Rules.preset("bridge").check_trump("None") == "none"
    with pytest.raises(RulesError, match="'none'.*Rook is always a trump"):
        Rules.preset("full").check_trump("none")
    with pytest.raises(RulesError, match="'none'.*Rook is always a trump"):
        Rules.from_spec("bridge,bird=high").check_trump("none")  # a Rook needs a trump color
    assert "none" not in Rules.from_spec("bridge,bird=high").trumps and "none" in Rules.preset("bridge").trumps
    with pytest.raises(RulesError) as err:
        Rules.preset("dixie40").check_trump("none")  # no Rook there: no talk of one
    assert "Rook" not in str(err.value)
    with pytest.raises(RulesError, match="^trump 'X': choose B, R, Y, G$"):  # no name at all: not "not allowed"
        Rules.preset("full").check_trump("X")


def test_seats_and_leaders():
    r = Rules.preset("full")
    assert r.seat_names == ("N", "E", "S", "W")
    assert r.check_seat("s") == 2
    with pytest.raises(RulesError, match="'Q'"):
        r.check_seat("Q")
    assert r.side_of(2, 0) == 1 and r.side_of(1, 0) == 0
    declarer, dealer = 1, 3  # E declares, W deals
    assert Rules.preset("full").first_leader(declarer, dealer) == 1
    assert Rules.preset("bridge").first_leader(declarer, dealer) == 2
    assert Rules.preset("hasbro").first_leader(declarer, dealer) == 0


# ------------------------------------------------------ text form and inputs
def test_rules_without_bidding_round_trip():
    r = Rules.preset("hasbro").with_knobs(min_bid=None, bid_step=None, max_bid=None)
    assert r.spec() == "hasbro,min_bid=none,bid_step=none,max_bid=none"
    assert Rules.from_spec(r.spec()) == r and not r.has_auction
    assert Rules.from_spec("bridge,min_bid=5,bid_step=5,max_bid=10").bid_levels() == [5, 10]


def test_repr_is_the_text_form_where_it_rebuilds_the_rules():
    for spec in ("hasbro", "bridge", "full,seats=3,teams=alone,numbers=4-14", "kentucky,bird=low"):
        r = Rules.from_spec(spec)
        assert repr(r) == f"Rules.from_spec({r.spec()!r})"
        assert eval(repr(r)) == r
    own = dataclasses.replace(Rules.preset("hasbro"), counters=((5, 5), (10, 10), (12, 10)))
    assert repr(own).startswith("Rules(name='hasbro', numbers=") and "(12, 10)" in repr(own)


def test_bird_rank_alone_keeps_the_hand_size():
    r = Rules.from_spec("hasbro,hand_size=5")
    assert r.with_knobs(bird="low").hand_size == 5            # the same cards to deal
    assert r.with_knobs(bird="none").hand_size == 8           # one card fewer: (40 - 5) // 4
    assert r.with_knobs(double_bird=True).hand_size == 9      # one more: (42 - 5) // 4


def test_card_points_takes_text_and_color_order_checks_the_color():
    r = Rules.preset("hasbro")
    assert r.card_points("B5") == r.card_points(Card.from_rdn("B5")) == 5
    assert r.card_points("Rook") == 20 and r.card_points("B9") == 0
    with pytest.raises(RulesError, match="color 'Q'"):
        r.color_order(None, "Q")


def test_knobs_as_numpy_integers_are_whole_numbers():
    import numpy as np
    r = Rules.preset("hasbro")
    assert r.with_knobs(hand_size=np.int64(5)) == r.with_knobs(hand_size=5)
    assert r.with_knobs(seats=np.int64(3), teams="alone") == r.with_knobs(seats=3, teams="alone")
    assert r.with_knobs(min_bid=np.int32(60), max_bid=np.uint8(100)).spec() == "hasbro,min_bid=60,max_bid=100"
    assert r.with_knobs(most_tricks=(np.int64(5), np.int64(20))).most_tricks == (5, 20)
    assert type(r.with_knobs(most_tricks=[np.int64(5), 20]).most_tricks[0]) is int
    assert r.with_knobs(teams=(np.int8(0), 0, 1, 1)).teams == (0, 0, 1, 1)
    assert r.with_knobs(numbers=[np.int64(n) for n in range(6, 15)]) == Rules.from_spec("hasbro,numbers=6-14")
    for bad in (dict(hand_size=np.float64(5)), dict(hand_size=np.bool_(True)), dict(most_tricks=(5, True)),
                dict(teams=(0, 1, 0, 1.0))):
        with pytest.raises(RulesError, match=re.escape(repr(list(bad.values())[0]))):
            r.with_knobs(**bad)


def test_seats_as_numpy_integers_and_specs_that_are_not_text():
    import numpy as np
    r = Rules.preset("hasbro")
    assert r.seat_index(np.int64(2)) == 2 and r.side_of(np.int32(1), 3) == 1
    with pytest.raises(RulesError, match="seat True"):
        r.seat_index(True)
    with pytest.raises(RulesError, match="rules 5: expected a Rules or a spec"):
        Rules.from_spec(5)


def test_a_yes_or_no_knob_takes_the_words_its_message_lists():
    for word, value in (("true", True), ("YES", True), ("on", True), ("1", True),
                        ("false", False), ("no", False), ("Off", False), ("0", False)):
        assert Rules.from_spec(f"full,one_high={word}").one_high is value
    with pytest.raises(RulesError, match=re.escape("one_high='maybe': expected true or false (or yes/no, on/off, "
                                                   "1/0)")):
        Rules.from_spec("full,one_high=maybe")
