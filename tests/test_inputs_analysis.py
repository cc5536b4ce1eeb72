"""Bad input to the analysis library: every wrong value is a RookError whose
message quotes it, never a raw TypeError / AttributeError / IndexError, and
nothing is coerced silently (2.9 samples are not 2, True is not 1)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from rook_analyze.analysis import (Constraint, DealSampler, HandReport, HeuristicPolicy, NestReport,
                                   analyze_hand, analyze_nest, bid_curve, nest_candidates, parse_known,
                                   take_nest)
from rook_analyze.analysis.features import hand_features
from rook_analyze.analysis.nest import allowed_trumps, check_nest, halving_schedule
from rook_analyze.analysis.plots import PlotError, check_plot_path
from rook_analyze.analysis.policy import NestChoice
from rook_analyze.analysis.report import build_report, plot_report
from rook_analyze.analysis.sampling import resolve_seed
from rook_analyze.analysis.simulate import (Plan, SimulationError, check_scheduler_address, load_plan, make_plan,
                                            prepare_output, read_dataset, simulate)
from rook_analyze.solver import ConstraintError, Hand, IllegalActionError, RookError, Rules, RulesError
from rook_analyze.solver.errors import DuplicateCardError, InvalidCardError

TINY = "hasbro,hand_size=4"          # 4 cards a seat, 5 in the nest, 20 out of play: solves in microseconds
HAND = "B14 B13 R10 G5"
NEST = "Rook R5 Y5 Y14 G14"
BID_RULES = "hasbro,hand_size=4,min_bid=20,max_bid=60"


def raises(error, *quoted):
    """pytest.raises for ``error`` whose message contains each of ``quoted`` literally."""
    return pytest.raises(error, match=".*".join(re.escape(q) for q in quoted))


@pytest.fixture(scope="module")
def hand_report():
    return analyze_hand(HAND, BID_RULES, samples=3, seed=1)


@pytest.fixture(scope="module")
def nest_report():
    return analyze_nest(HAND, NEST, TINY, samples=2, seed=1, candidates=3)


# ------------------------------------------------------- 1. numbers and seeds
@pytest.mark.parametrize("kw, quoted", [
    (dict(samples=None), "samples=None: expected a whole number, 1 or more"),
    (dict(samples="x"), "samples='x': expected a whole number, 1 or more"),
    (dict(samples=2.9), "samples=2.9: expected a whole number"),
    (dict(samples=2.0), "samples=2.0: expected a whole number"),
    (dict(samples=True), "samples=True: expected a whole number"),
    (dict(samples=0), "samples=0: expected a whole number, 1 or more"),
    (dict(seed=1.7), "seed=1.7: expected a whole number, 0 or more"),
    (dict(seed="x"), "seed='x'"),
    (dict(seed=-1), "seed=-1"),
    (dict(seed=True), "seed=True"),
    (dict(precision="x"), "precision='x'"),
    (dict(precision=0), "precision=0"),
    (dict(precision=float("nan")), "precision=nan"),
    (dict(precision=True), "precision=True"),
    (dict(time_limit=0), "time_limit=0: expected seconds, above 0"),
    (dict(time_limit="60"), "time_limit='60'"),
    (dict(time_limit=float("nan")), "time_limit=nan"),
    (dict(threads="x"), "threads='x': expected a whole number, 1 or more"),
    (dict(threads=0), "threads=0"),
    (dict(threads=1.5), "threads=1.5"),
    (dict(progress=5), "progress=5: expected a function"),
    (dict(policy=None), "policy=None: expected a nest policy"),
], ids=repr)
def test_analyze_hand_numbers_are_checked(kw, quoted):
    args = dict(samples=2, seed=1) | kw
    with raises(ConstraintError, quoted):
        analyze_hand(HAND, BID_RULES, **args)


def test_analyze_hand_takes_numpy_integers_and_threads_none():
    a = analyze_hand(HAND, BID_RULES, samples=np.int64(2), seed=np.int32(5), threads=None)
    b = analyze_hand(HAND, BID_RULES, samples=2, seed=5, threads=1)
    assert a.samples == 2 and a.seed == 5
    assert a.bids.equals(b.bids) and a.trumps.equals(b.trumps)


@pytest.mark.parametrize("kw, quoted", [
    (dict(bid="x"), "bid='x'"),
    (dict(bid=2.5), "bid=2.5"),
    (dict(margin="x"), "margin='x': expected a number of standard errors, 0 or more"),
    (dict(margin=True), "margin=True"),
    (dict(margin=float("nan")), "margin=nan"),
    (dict(samples="x"), "samples='x'"),
    (dict(samples=3.5), "samples=3.5"),
    (dict(samples=1), "samples=1: at least 2"),
    (dict(top="x"), "top='x'"),
    (dict(top=1.5), "top=1.5"),
    (dict(candidates=None), "candidates=None"),
    (dict(seed=-1), "seed=-1"),
    (dict(threads="x"), "threads='x'"),
    (dict(progress="x"), "progress='x'"),
    (dict(policy="heuristic"), "policy='heuristic'"),
    (dict(objective=["mean"]), "objective ['mean']"),
    (dict(time_limit=0), "time_limit=0: expected seconds, above 0"),
    (dict(time_limit="60"), "time_limit='60'"),
    (dict(time_limit=float("nan")), "time_limit=nan"),
    (dict(time_limit=True), "time_limit=True"),
], ids=repr)
def test_analyze_nest_numbers_are_checked(kw, quoted):
    args = dict(samples=2, seed=1, candidates=2) | kw
    with raises(ConstraintError, quoted):
        analyze_nest(HAND, NEST, BID_RULES, **args)


@pytest.mark.parametrize("call, error, quoted", [
    (lambda s: s.deal(-1, 1), ConstraintError, "index=-1: expected a whole number, 0 or more"),
    (lambda s: s.deal(0, -1), ConstraintError, "seed=-1: expected a whole number, 0 or more"),
    (lambda s: s.deal(0, "x"), ConstraintError, "seed='x'"),
    (lambda s: s.deal(0, 1.5), ConstraintError, "seed=1.5"),
    (lambda s: s.deal(0, None), ConstraintError, "seed=None"),
    (lambda s: s.deal(1.0, 1), ConstraintError, "index=1.0"),
    (lambda s: s.deals("x", 1), ConstraintError, "count='x'"),
    (lambda s: s.deals(2, 1, start=-1), ConstraintError, "start=-1"),
], ids=["index -1", "seed -1", "seed 'x'", "seed 1.5", "seed None", "index 1.0", "count", "start"])
def test_deal_sampler_indices_and_seeds(call, error, quoted):
    with raises(error, quoted):
        call(DealSampler(TINY, "N", HAND))


def test_resolve_seed():
    assert resolve_seed(7) == 7 and resolve_seed(np.int64(7)) == 7
    assert resolve_seed(None) >= 0


def test_fresh_seeds_survive_a_json_reader_that_reads_doubles():
    """A fresh seed goes into the json report; JavaScript or jq 1.6 reads its
    numbers as doubles, which changed a 63-bit seed (2353714560264194382
    came back as 2353714560264194560), and the changed seed reran another
    report."""
    fresh = [resolve_seed(None) for _ in range(200)] + [make_plan(TINY, 3).seed for _ in range(50)]
    assert all(0 <= s < 2 ** 53 and int(float(s)) == s for s in fresh)
    assert len(set(fresh)) == len(fresh)  # still fresh: 53 bits
    assert int(float(2353714560264194382)) != 2353714560264194382  # what the old range let through
    for bad in (1.7, "3", True, -2):
        with raises(ConstraintError, f"seed={bad!r}"):
            resolve_seed(bad)


@pytest.mark.parametrize("kw, quoted", [
    (dict(deals="x"), "deals='x': expected a whole number, 1 or more"),
    (dict(deals=2.5), "deals=2.5"),
    (dict(deals=0), "deals=0"),
    (dict(workers="x"), "workers='x': expected a whole number, 1 or more"),
    (dict(workers=0), "workers=0"),
    (dict(out=None), "out=None: expected a folder path"),
    (dict(seed=1.5), "seed=1.5"),
    (dict(chunk_size="4"), "chunk_size='4'"),
    (dict(resume="yes"), "resume='yes'"),
    (dict(progress="yes"), "progress='yes'"),
    (dict(on_chunk=3), "on_chunk=3"),
    (dict(scheduler=8786), "scheduler=8786"),
    (dict(workers=10**6), "workers=1000000: at most"),
    (dict(client=True), "client=True: expected a distributed.Client"),
    (dict(out="   "), "out='   ': expected a folder path"),
    (dict(out="a\0b"), "out='a\\x00b'"),
    (dict(deals=2**70), "at most 2,147,483,647"),
    (dict(workers=2, scheduler="tcp://127.0.0.1:8786"),
     "workers=2 and scheduler='tcp://127.0.0.1:8786': give workers (the embedded cluster) or a scheduler address, "
     "not both"),
], ids=repr)
def test_simulate_arguments_are_checked_before_anything_is_written(tmp_path, kw, quoted):
    args = dict(rules=TINY, deals=4, out=tmp_path / "run", seed=1) | kw
    with raises(SimulationError, quoted):
        simulate(**args)
    assert not (tmp_path / "run").exists()


def test_plan_and_make_plan_check_their_numbers():
    with raises(SimulationError, "deals='x'"):
        make_plan(TINY, "x")
    with raises(SimulationError, "seed=-3"):
        make_plan(TINY, 3, seed=-3)
    with raises(SimulationError, "chunk_size=1.5"):
        make_plan(TINY, 3, seed=1, chunk_size=1.5)
    with raises(SimulationError, "deals='x'"):
        Plan(rules=TINY, seed=1, deals="x")
    with raises(SimulationError, "seed=None"):
        Plan(rules=TINY, seed=None, deals=3)
    with raises(SimulationError, "chunk 1.0"):
        Plan(rules=TINY, seed=1, deals=3).chunk_span(1.0)
    assert make_plan(TINY, np.int64(3), seed=np.int64(2)).deals == 3


@pytest.mark.parametrize("fn", [load_plan, read_dataset, build_report], ids=lambda f: f.__name__)
def test_dataset_functions_want_a_folder(fn):
    with raises(SimulationError, "out=None: expected a folder path"):
        fn(None)


def test_halving_schedule_numbers():
    for bad in ("x", 2.5, True, 0):
        with raises(ConstraintError, f"candidates={bad!r}"):
            halving_schedule(bad, 4)
    with raises(ConstraintError, "samples=None"):
        halving_schedule(4, None)


@pytest.mark.parametrize("bad", [float("nan"), -1, "1", None, True, float("inf"), 10**400],
                         ids=["nan", "negative", "text", "none", "bool", "inf", "huge"])
def test_switch_layouts_takes_a_margin_as_analyze_nest_does(bad):
    # a number of standard errors, 0 or more and finite, as analyze_nest's margin: NaN gave
    # ValueError from math.ceil, "1" and None a TypeError, 10**400 an OverflowError
    from rook_analyze.analysis.nest import switch_layouts

    with raises(ConstraintError, "margin="):
        switch_layouts(bad)


# ------------------------------------------------ 2. one string is one item
def test_one_constraint_string_is_one_constraint():
    s = DealSampler(TINY, "N", HAND, constraints="E:B>=1")
    assert [c.text() for c in s.constraints] == ["E:B>=1"]
    assert s.constraints == DealSampler(TINY, "N", HAND, constraints=["E:B>=1"]).constraints
    assert all(Hand(d.hands[1].mask).count("B") >= 1 for d in s.deals(5, 1))
    one = Constraint.parse("E:B>=1")
    assert DealSampler(TINY, "N", HAND, constraints=one).constraints == (one,)
    assert DealSampler(TINY, "N", HAND, constraints=None).constraints == ()


def test_one_known_string_is_one_item():
    s = DealSampler(TINY, "N", HAND, known="E:B12")
    assert {k: v.rdn() for k, v in s.known.items()} == {"E": "B12"}
    assert all(d.hands[1].mask & Hand.from_rdn("B12").mask for d in s.deals(3, 1))
    assert parse_known("nest:G14 Rook", "hasbro") == parse_known(["nest:G14 Rook"], "hasbro")
    with raises(ConstraintError, "known cards 'B12': expected PLACE:CARDS"):
        DealSampler(TINY, "N", HAND, known="B12")
    with raises(ConstraintError, "known cards 5"):
        DealSampler(TINY, "N", HAND, known=5)
    with raises(InvalidCardError, "known cards for E (5)"):
        DealSampler(TINY, "N", HAND, known={"E": 5})


def test_analyze_hand_one_string_constraint_and_known():
    a = analyze_hand(HAND, BID_RULES, samples=2, seed=4, constraints="E:B>=1", known="W:Y13")
    b = analyze_hand(HAND, BID_RULES, samples=2, seed=4, constraints=["E:B>=1"], known=["W:Y13"])
    assert [c.text() for c in a.constraints] == ["E:B>=1"] and a.known["W"].rdn() == "Y13"
    assert a.bids.equals(b.bids) and list(a.detail["deal"]) == list(b.detail["deal"])


def test_trumps():
    rules = Rules.from_spec(TINY)
    assert allowed_trumps(rules, "b") == ("B",)
    assert allowed_trumps("hasbro", ["R", "b", "R"]) == ("R", "B")
    assert allowed_trumps(rules, None) == rules.trumps
    with raises(RulesError, "trump 'BR'"):
        allowed_trumps(rules, "BR")
    with raises(ConstraintError, "trumps=[]: no trump given"):
        allowed_trumps(rules, [])
    with raises(ConstraintError, "trumps=()"):
        nest_candidates(HAND, NEST, TINY, trumps=())
    with raises(ConstraintError, "trumps=5"):
        allowed_trumps(rules, 5)
    with raises(ConstraintError, "trump None"):
        allowed_trumps(rules, [None])
    with raises(RulesError, "trump 'BR'"):
        analyze_nest(HAND, NEST, TINY, samples=2, seed=1, trumps="BR")
    with raises(ConstraintError, "trumps=[]"):
        analyze_nest(HAND, NEST, TINY, samples=2, seed=1, trumps=[])
    assert {c.trump for c in nest_candidates(HAND, NEST, TINY, trumps="Y")} == {"Y"}


# ------------------------------------------- 3. rules as specs, seats, trumps
def test_rules_given_as_a_spec_everywhere():
    rules = Rules.from_spec("hasbro")
    assert parse_known(["E:B14"], "hasbro") == parse_known(["E:B14"], rules)
    cards = Hand.from_rdn("Rook B14 B13 B12 B11 R5 R6 Y7 Y8 G9 G10 G11 G12 G13")
    policy = HeuristicPolicy()
    assert policy.choose(cards, "hasbro") == policy.choose(cards, rules)
    assert policy.trump(cards, "hasbro") == policy.trump(cards, rules)
    assert policy.discard(cards, "b", "hasbro") == policy.discard(cards, "B", rules)
    assert policy.strength(cards, "B", "hasbro") == policy.strength(cards, "B", rules)
    assert policy.choose(cards.rdn(), "hasbro") == policy.choose(cards, rules)  # cards as text too
    tiny = Rules.from_spec(TINY)
    assert check_nest(HAND, NEST, TINY) == check_nest(HAND, NEST, tiny)
    assert hand_features(TINY, HAND) == hand_features(tiny, Hand.from_rdn(HAND))
    c = Constraint.parse("E:B>=2")
    assert c.holds("B14 B13", TINY) and not c.holds(Hand.from_rdn("B14"), TINY)


def test_policy_refuses_unknown_or_disallowed_trumps():
    cards = Hand.from_rdn("Rook B14 B13 B12 B11 R5 R6 Y7 Y8 G9 G10 G11 G12 G13")
    policy = HeuristicPolicy()
    with raises(RulesError, "trump 'X': choose B, R, Y, G"):
        policy.discard(cards, "X", "hasbro")
    with raises(RulesError, "trump 'none' is not allowed"):
        policy.discard(cards, "none", "hasbro")
    with raises(IllegalActionError, "trump None"):
        policy.discard(cards, None, "hasbro")
    with raises(IllegalActionError, "color 'X'"):
        policy.strength(cards, "X", "hasbro")
    with raises(InvalidCardError, "cards None"):
        policy.choose(None, "hasbro")


def test_take_nest_seats_as_names_or_indices():
    sampler = DealSampler(TINY, "N", HAND)
    deal = sampler.deal(0, 1)
    discard = deal.nest
    assert take_nest(deal, "N", discard) == take_nest(deal, 0, discard)
    assert take_nest(deal, "e", discard) == take_nest(deal, 1, discard)
    assert take_nest(deal, 0, discard.rdn()) == take_nest(deal, 0, discard)
    with raises(RulesError, "declarer seat 9"):
        take_nest(deal, 9, discard)
    with raises(RulesError, "declarer seat 'X'"):
        take_nest(deal, "X", discard)
    with raises(RulesError, "declarer seat True"):
        take_nest(deal, True, discard)
    with raises(IllegalActionError, "deal None"):
        take_nest(None, 0, discard)
    with raises(IllegalActionError, "discard 'B14': the declarer discards 5 cards"):
        take_nest(deal, 0, "B14")


@pytest.mark.parametrize("dealer, quoted", [(9, "dealer seat 9:"), ("Q", "dealer seat 'Q':"), (True, "dealer seat True:")])
def test_a_bad_dealer_is_named_as_the_dealer(dealer, quoted):
    # the seat is good: a message that said only "seat 9" read as the seat argument's
    with raises(RulesError, quoted):
        analyze_hand(HAND, BID_RULES, seat="E", dealer=dealer, samples=2, seed=1)
    with raises(RulesError, quoted):
        analyze_nest(HAND, NEST, BID_RULES, seat="E", dealer=dealer, samples=2, seed=1)


def test_sampler_seats_and_hands():
    assert DealSampler(TINY, "e", HAND).seat == DealSampler(TINY, 1, HAND).seat == 1
    for bad in (9, -1, True, 1.0, "X"):
        with raises(RulesError, f"seat {bad!r}"):
            DealSampler(TINY, bad, HAND)
    for bad in (5, ["B14"]):
        with raises(InvalidCardError, f"hand {bad!r}: expected a Hand"):
            DealSampler(TINY, "N", bad)
    # a seat without its hand, or a hand without its seat (neither: a dealer with no bidder)
    with raises(ConstraintError, "seat=None, hand='B14", "give the seat that holds the hand"):
        DealSampler(TINY, None, HAND)
    with raises(InvalidCardError, "hand None: expected the cards of seat 'N'"):
        DealSampler(TINY, "N", None)
    with raises(InvalidCardError, "hand 'B14 B13 X9 G5'"):
        DealSampler(TINY, "N", "B14 B13 X9 G5")


# ------------------------------------------------ 4. no-ops become errors
def test_nest_candidates_limit_and_per_trump():
    assert len(nest_candidates(HAND, NEST, TINY, limit=1)) == 1
    for name in ("limit", "per_trump"):
        for bad in (0, -1, 1.5, "x", None):
            with raises(ConstraintError, f"{name}={bad!r}: expected a whole number, 1 or more"):
                nest_candidates(HAND, NEST, TINY, **{name: bad})
    with raises(ConstraintError, "policy=None"):
        nest_candidates(HAND, NEST, TINY, policy=None)


def test_build_report_buckets(tmp_path):
    for bad in (0, -1, 2.5, "3", None):
        with raises(SimulationError, f"buckets={bad!r}: expected a whole number, 1 or more"):
            build_report(tmp_path, buckets=bad)
    with raises(SimulationError, "target None"):
        build_report(tmp_path, target=None)


def test_top_options(nest_report):
    assert len(nest_report.top_options(1)) == 1
    assert nest_report.top_options().equals(nest_report.options.head(nest_report.top))
    for bad in (0, -1, 1.5, "2"):
        with raises(ConstraintError, f"k={bad!r}"):
            nest_report.top_options(bad)


def test_max_tries():
    assert DealSampler(TINY, "N", HAND, max_tries=64).max_tries == 64
    for bad in (-5, 0, 1.5, "100", None):
        with raises(ConstraintError, f"max_tries={bad!r}: expected a whole number, 1 or more"):
            DealSampler(TINY, "N", HAND, max_tries=bad)


@pytest.mark.parametrize("args, quoted", [
    (("E", "B", ">=", "3"), "value '3' must be a whole number"),
    (("E", "B", ">=", 3.0), "value 3.0 must be a whole number"),
    (("E", "B", ">=", True), "value True must be a whole number"),
    (("E", "X", ">=", 3), "feature 'X' must be one of"),
    (("E", None, ">=", 3), "feature None"),
    (("E", "B", "!=", 3), "operator '!=' must be one of"),
    (("E", "B", None, 3), "operator None"),
    ((5, "B", ">=", 3), "place 5 must be a seat name"),
    (("E:", "B", ">=", 3), "place 'E:'"),
    (("", "B", ">=", 3), "place ''"),
], ids=repr)
def test_constraint_built_directly_is_checked(args, quoted):
    with raises(ConstraintError, "Constraint(", quoted):
        Constraint(*args)


def test_constraint_built_directly_matches_parse():
    assert Constraint("e", "b", "==", 3) == Constraint.parse("E:B==3") == Constraint("E", "B", "=", 3)
    assert Constraint("Nest", "Counters", "<", np.int64(10)) == Constraint.parse("nest:counters<10")
    assert Constraint("E", "B", "==", 3).bounds == (3, 3)


# ------------------------------------------------------------- 5. plots
def test_bid_curve_takes_a_hand_report(nest_report):
    with raises(PlotError, "bid_curve() takes a HandReport", "not None"):
        bid_curve(None)
    with raises(PlotError, "bid_curve() takes a HandReport", "not NestReport(hand="):
        bid_curve(nest_report)


def test_a_long_hand_is_quoted_cut_short():
    # the hand text, and a list given for one, quoted as the start of it: one screen line
    for hand, error in (("B14 " * 100_000, DuplicateCardError), (["B14"] * 100_000, InvalidCardError)):
        with pytest.raises(error) as err:
            analyze_hand(hand, BID_RULES, samples=2, seed=1)
        assert len(str(err.value)) < 600 and "hand " in str(err.value), len(str(err.value))


def test_a_whole_number_beyond_any_float_is_infinite():
    # as float("1e400") reads: a time limit no run reaches, not an OverflowError
    a = analyze_hand(HAND, BID_RULES, samples=2, seed=1, time_limit=10**400)
    assert a.to_dict()["bids"] == analyze_hand(HAND, BID_RULES, samples=2, seed=1).to_dict()["bids"]
    with raises(ConstraintError, "precision=1000", "finite"):
        analyze_hand(HAND, BID_RULES, samples=2, seed=1, precision=10**400)
    with raises(ConstraintError, "margin=-1000", "0 or more"):
        analyze_nest(HAND, NEST, TINY, samples=2, seed=1, margin=-10**400)


def test_a_plot_path_with_a_nul_character_is_refused_before_the_work(tmp_path):
    # the save after the work would fail with a bare ValueError ("embedded null byte")
    with raises(PlotError, "plot file", "NUL"):
        check_plot_path(str(tmp_path / "a\0b.png"))
    assert check_plot_path(str(tmp_path / "ab.png")) == "png"


def test_plot_report_takes_a_report(hand_report):
    with raises(PlotError, "plot_report() takes a Report", "not None"):
        plot_report(None)
    with raises(PlotError, "plot_report() takes a Report", "not HandReport(hand="):
        plot_report(hand_report)


# ------------------------------------------ 6. simulate messages, from Python
def test_simulate_library_messages_name_no_command_line_flag_alone(tmp_path):
    out = tmp_path / "run"
    plan = make_plan(TINY, 4, seed=3, chunk_size=4)
    prepare_output(out, plan, resume=False)
    with pytest.raises(SimulationError) as e:
        prepare_output(out, plan, resume=False)
    msg = str(e.value)
    assert f"output folder {str(out)!r} is not empty" in msg and "resume=True" in msg
    file = tmp_path / "file"
    file.write_text("x")
    with raises(SimulationError, f"output folder {str(file)!r} is a file"):
        prepare_output(file, plan, resume=False)
    with pytest.raises(SimulationError) as e:
        prepare_output(out, make_plan(TINY, 4, seed=4, chunk_size=4), resume=True)
    assert "seed 3 (asked 4)" in str(e.value) and "--" not in str(e.value)
    with pytest.raises(SimulationError) as e:
        check_scheduler_address("garbage")
    assert str(e.value).startswith("scheduler 'garbage': not a scheduler address")
    with raises(SimulationError, "plan=None"):
        prepare_output(tmp_path / "other", None, resume=False)


# ----------------------------------------------------------- 7. reprs
def test_report_reprs_are_short(hand_report, nest_report):
    text = repr(hand_report)
    assert len(text) < 250, text
    assert text.startswith("HandReport(hand='B14 B13 R10 G5', rules='hasbro,hand_size=4,min_bid=20,max_bid=60'")
    assert "samples=3" in text and "seed=1" in text and hand_report.recommendation.text() in text
    text = repr(nest_report)
    assert len(text) < 300, text
    assert text.startswith(f"NestReport(hand='B14 B13 R10 G5', nest={Hand.from_rdn(NEST).rdn()!r}, "
                           "rules='hasbro,hand_size=4'")
    assert "samples=2" in text and nest_report.recommendation.text() in text
    assert isinstance(hand_report, HandReport) and isinstance(nest_report, NestReport)


def test_sampler_repr():
    s = DealSampler(TINY, "E", HAND, known={"W": "Y13"}, constraints=["S:R>=1"])
    assert repr(s) == ("DealSampler(rules='hasbro,hand_size=4', seat='E', hand='B14 B13 R10 G5', "
                       "known={'W': 'Y13'}, constraints=['S:R>=1'])")


# --------------------------------------------------- the same numbers as before
def test_checked_inputs_give_the_numbers_they_gave_before(hand_report):
    # the fixture's figures, computed the old way by hand: the same seeds give the same deals
    again = analyze_hand(Hand.from_rdn(HAND), Rules.from_spec(BID_RULES), samples=3, seed=1, threads=1)
    assert again.bids.equals(hand_report.bids) and list(again.detail["deal"]) == list(hand_report.detail["deal"])
    s = DealSampler(TINY, 0, Hand.from_rdn(HAND))
    assert DealSampler.generator(5, 2).integers(1 << 30) == np.random.default_rng(
        np.random.SeedSequence(5, spawn_key=(2,))).integers(1 << 30)
    assert s.deal(2, 5) == DealSampler(TINY, "N", HAND).deal(np.int64(2), np.int64(5))


def test_every_error_here_is_a_value_error():
    assert issubclass(SimulationError, RookError) and issubclass(PlotError, RookError)
    assert issubclass(RookError, ValueError)


# ------------------------------------------------ other public inputs
def test_lower_level_nest_and_policy_helpers():
    from rook_analyze.analysis.nest import equivalence_classes, nest_sampler, quick_scores
    from rook_analyze.analysis.policy import color_ranks

    tiny = Rules.from_spec(TINY)
    cards = Hand.from_rdn(HAND) | Hand.from_rdn(NEST)
    assert equivalence_classes(cards, "B", TINY) == equivalence_classes(cards, "B", tiny)
    masks = np.array([Hand.from_rdn("R10 R5 Y5 G5 G14").mask], np.uint64)
    assert quick_scores(cards, "B", TINY, masks) == quick_scores(cards, "B", tiny, masks)
    assert color_ranks(TINY, "B") == color_ranks(tiny, "B")
    with raises(RulesError, "trump 'X'"):
        equivalence_classes(cards, "X", tiny)
    with raises(ConstraintError, "trump None"):
        quick_scores(cards, None, tiny, masks)
    with raises(IllegalActionError, "color 'X'"):
        color_ranks(tiny, "X")
    assert nest_sampler(HAND, NEST, TINY, "N").deal(0, 1) == nest_sampler(
        Hand.from_rdn(HAND), Hand.from_rdn(NEST), tiny, 0).deal(0, 1)


def test_features_inputs():
    with raises(InvalidCardError, "hand 2.5"):
        hand_features(TINY, 2.5)
    mask = Hand.from_rdn(HAND).mask
    assert hand_features(TINY, mask) == hand_features(TINY, HAND)


def test_simulate_helpers_want_a_plan():
    from rook_analyze.analysis.simulate import chunk_deals, declarer_choice, simulate_chunk

    for fn in (chunk_deals, simulate_chunk):
        with raises(SimulationError, "plan=None: expected a Plan"):
            fn(None, 0)
    with raises(SimulationError, "chunk 'x'"):
        chunk_deals(make_plan(TINY, 3, seed=1), "x")
    hand, nest = Hand.from_rdn(HAND), Hand.from_rdn(NEST)
    assert declarer_choice(TINY, hand, nest) == declarer_choice(Rules.from_spec(TINY), hand, nest)
    assert declarer_choice(TINY, HAND, NEST) == declarer_choice(TINY, hand, nest)  # text as Hands
    with raises(InvalidCardError, "None"):
        declarer_choice(TINY, None, nest)
    card = nest.rdn().split()[0]
    with raises(DuplicateCardError, repr(card), "both the hand and the nest"):
        declarer_choice(TINY, hand | Hand.from_rdn(card), nest)


def test_output_folders_the_system_refuses_are_simulation_errors(tmp_path):
    (tmp_path / "file").write_text("")
    for out, why in ((tmp_path / "file" / "sub", "Not a directory"), (tmp_path / ("y" * 300), "File name too long")):
        with raises(SimulationError, f"output folder {str(out)!r}", why):
            simulate(TINY, 2, out, seed=1, workers=1)


def test_read_dataset_columns(tmp_path):
    out = tmp_path / "run"
    simulate(TINY, 2, out, seed=1, workers=1, progress=False)
    assert list(read_dataset(out, columns="seat").columns) == ["seat"]
    assert list(read_dataset(out, columns=["seat", "deal_id"]).columns) == ["seat", "deal_id"]
    for bad in ([1], 0, True, []):
        with raises(SimulationError, f"columns={bad!r}"):
            read_dataset(out, columns=bad)
    for bad in ("nope", ""):
        with raises(SimulationError, f"no column {bad!r}"):
            read_dataset(out, columns=bad)


@pytest.mark.parametrize("hand, quoted", [
    (-1, "hand -1"), (2**63, "bit 63 is no card"), ("B1 B2", "'B1"), (Hand.from_rdn("B1 B2"), "not in the"),
])
def test_hand_features_refuse_what_is_no_hand_of_the_deck(hand, quoted):
    with raises(InvalidCardError, quoted):
        hand_features(TINY, hand)


def test_constraints_take_ascii_digits_only():
    with raises(ConstraintError, "'E:B>=\u0663'"):
        Constraint.parse("E:B>=\u0663")


def test_an_array_is_no_feature_operator_or_trump():
    bad = np.array([0, 1])
    with raises(ConstraintError, "feature array([0, 1])"):
        Constraint("E", bad, ">=", 3)
    with raises(ConstraintError, "operator array([0, 1])"):
        Constraint("E", "B", bad, 3)
    rules = Rules.from_spec(TINY)
    cards = Hand.from_rdn(HAND) | Hand.from_rdn(NEST)
    with raises(IllegalActionError, "trump array([0, 1])"):
        HeuristicPolicy().discard(cards, bad, rules)


# ---------------------------------------------------- a policy of one's own
class _Answers:
    """A policy whose answers are the heuristic's, unless told otherwise."""

    name = "mine"

    def __init__(self, trump=None, discard=None):
        self._trump, self._discard = trump, discard

    def trump(self, cards, rules):
        return self._trump(cards, rules) if self._trump else HeuristicPolicy().trump(cards, rules)

    def discard(self, cards, trump, rules):
        return self._discard(cards, trump, rules) if self._discard else HeuristicPolicy().discard(cards, trump, rules)

    def choose(self, cards, rules):
        # the two answers, unchecked (the discard for the heuristic's trump: one for "X" would fail in here)
        discard = self.discard(cards, HeuristicPolicy().trump(cards, rules), rules)
        return NestChoice(self.trump(cards, rules), discard, discard)


def _heuristic_discard(cards, trump, rules):
    return HeuristicPolicy().discard(cards, trump, rules)


@pytest.mark.parametrize("policy, quoted", [
    (_Answers(trump=lambda c, r: "X"), "gave 'X': trump 'X': choose B, R, Y, G"),
    (_Answers(trump=lambda c, r: None), "gave None: trump None: expected a trump name"),
    (_Answers(discard=lambda c, t, r: None), "gave None: discard None: expected a Hand"),
    (_Answers(discard=lambda c, t, r: _heuristic_discard(c, t, r).rdn().split()[0]),
     "the declarer discards 5 cards (the nest's size), not 1"),
    (_Answers(discard=lambda c, t, r: Hand.from_rdn("B5 B6 B7 B8 B9")), "the declarer holds only"),
])
def test_a_policys_bad_answer_is_an_error_in_both_advisors(policy, quoted):
    """Before: a bare ValueError from tuple.index, an AttributeError after
    every sample was solved, or (``nest``, a discard of the wrong size) the
    policy's choice dropped without a word. ``hand`` asks trump() and
    discard(), ``nest`` choose() and discard()."""
    with raises(IllegalActionError, "policy 'mine': ", quoted):
        analyze_hand(HAND, BID_RULES, samples=2, seed=1, policy=policy)
    with raises(IllegalActionError, "policy 'mine': ", quoted):
        analyze_nest(HAND, NEST, TINY, samples=2, seed=1, candidates=3, policy=policy)


class _Subclassed(HeuristicPolicy):
    """The heuristic's own class, subclassed: its answers may differ from the heuristic's."""

    def discard(self, cards, trump, rules, **kw):
        return Hand.from_rdn("B5 B6 B7 B8 B9")


def test_a_subclass_of_the_heuristic_has_its_answers_checked_too():
    # only the heuristic itself goes unchecked (check_policy: "a subclass may answer otherwise"):
    # a subclass's bad discard is named as the policy's, not a bare error from take_nest
    with raises(IllegalActionError, "policy 'mine': discard() gave", "the declarer holds only"):
        analyze_hand(HAND, BID_RULES, samples=2, seed=1, policy=_Subclassed(name="mine"))


def test_a_policys_answers_as_text_or_any_case_are_taken_as_the_heuristics():
    mine = _Answers(trump=lambda c, r: HeuristicPolicy().trump(c, r).lower(),
                    discard=lambda c, t, r: _heuristic_discard(c, t, r).rdn())
    ours = HeuristicPolicy(name="mine")
    a = analyze_hand(HAND, BID_RULES, samples=3, seed=1, policy=mine)
    b = analyze_hand(HAND, BID_RULES, samples=3, seed=1, policy=ours)
    assert a.policy == b.policy == "mine"
    pd.testing.assert_frame_equal(a.detail, b.detail)
    n = analyze_nest(HAND, NEST, TINY, samples=2, seed=1, candidates=3, policy=mine)
    m = analyze_nest(HAND, NEST, TINY, samples=2, seed=1, candidates=3, policy=ours)
    assert n.to_dict() == m.to_dict() and n.recommendation.policy == m.recommendation.policy


def test_a_hand_report_with_numpy_figures_writes_as_json():
    import json

    rep = analyze_hand(HAND, BID_RULES, samples=2, seed=1, precision=np.float32(5), time_limit=np.float32(100))
    doc = json.loads(json.dumps(rep.to_dict(), allow_nan=False))
    assert doc["precision"] == 5.0 and doc["time_limit"] == 100.0


@pytest.mark.parametrize("discards, quoted", [
    ([-1], "discards [-1]: expected a list or 1-d array of card masks"),
    (["x"], "discards ['x']"),
    ([1.5], "discards [1.5]"),
    ([[1, 2]], "discards [[1, 2]]"),
    (7, "discards 7"),
])
def test_quick_scores_take_masks_only(discards, quoted):
    from rook_analyze.analysis.nest import quick_scores

    cards = Hand.from_rdn(HAND) | Hand.from_rdn(NEST)
    with raises(ConstraintError, quoted):
        quick_scores(cards, "B", TINY, discards)


def test_quick_scores_refuse_a_discard_not_held_or_of_another_size():
    from rook_analyze.analysis.nest import quick_scores

    rules = Rules.from_spec(TINY)
    cards = Hand.from_rdn(HAND) | Hand.from_rdn(NEST)
    five = HeuristicPolicy().discard(cards, "B", rules)
    assert quick_scores(cards, "B", rules, [five.mask]).shape == (1,)
    with raises(ConstraintError, "holds 1 cards, not the nest's 5"):
        quick_scores(cards, "B", rules, [five.mask, Hand.from_rdn("B14").mask])
    with raises(ConstraintError, "holds cards not in"):
        quick_scores(cards, "B", rules, [Hand.from_rdn("B5 B6 B7 B8 B9").mask])


@pytest.mark.parametrize("schedule", [None, [(1,)], "ab", [(2, -1)], [(2.5, 4)]])
def test_planned_solves_take_a_schedule_only(schedule):
    from rook_analyze.analysis.nest import planned_solves

    with raises(ConstraintError, f"schedule {schedule!r}: expected (options, layouts) pairs"):
        planned_solves(schedule)


def test_a_nest_too_big_to_list_its_discards_is_refused_at_once():
    # a two-seat table with a nest of 10: 3,268,760 discards a trump, 10 s and 864 MB just to list them
    rules = Rules.from_spec("full,seats=2,teams=alone,nest_size=10")
    from rook_analyze.solver import random_deal

    deal = random_deal(rules, seed=3)
    with raises(ConstraintError, "nest of 10 cards: 3,268,760 ways to bury 10 of 25 cards"):
        nest_candidates(deal.hands[0], deal.nest, rules)


def test_threads_past_four_a_core_are_refused():
    from rook_analyze.solver import solve_batch
    from rook_analyze.solver.api import most_threads

    most = most_threads()
    with raises(ConstraintError, f"threads={most + 1}: at most {most} on this machine"):
        analyze_hand(HAND, BID_RULES, samples=2, seed=1, threads=most + 1)
    with raises(ConstraintError, f"threads={most + 1}: at most {most}"):
        analyze_nest(HAND, NEST, TINY, samples=2, seed=1, threads=most + 1)
    deal = DealSampler(TINY).deal(0, 1)
    with raises(RookError, f"threads {most + 1}: at most {most}"):
        solve_batch([deal], ["B"], "N", threads=most + 1)


def test_every_name_the_analysis_package_exports_has_docstrings():
    """What ``help()`` shows of ``rook_analyze.analysis``: each exported
    class and function, and their public methods (``Constraint.text``,
    ``NestChoice.rdn``, the ``text()`` of both recommendations and the
    methods of the ``NestPolicy`` protocol had none)."""
    import inspect

    import rook_analyze.analysis as package

    missing = []
    for name in package.__all__:
        obj = getattr(package, name)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if not (obj.__doc__ or "").strip():
            missing.append(name)
        for attr, member in vars(obj).items() if inspect.isclass(obj) else ():
            if attr.startswith("_"):
                continue
            member = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
            member = member.fget if isinstance(member, property) else member
            if inspect.isfunction(member) and not (member.__doc__ or "").strip():
                missing.append(f"{name}.{attr}")
    assert not missing, missing


class _StaticPolicy:
    """A policy whose methods need no instance: the class itself is a policy."""
    name = "static"

    @staticmethod
    def trump(cards, rules):
        return "B"

    @staticmethod
    def discard(cards, trump, rules):
        return HeuristicPolicy().discard(cards, trump, rules)

    @classmethod
    def choose(cls, cards, rules):
        return HeuristicPolicy().choose(cards, rules)


@pytest.mark.parametrize("advise", [
    lambda policy: analyze_hand(HAND, BID_RULES, samples=2, seed=1, policy=policy),
    lambda policy: analyze_nest(HAND, NEST, BID_RULES, samples=2, seed=1, candidates=2, policy=policy),
], ids=["hand", "nest"])
def test_a_policy_class_for_an_instance_is_named(advise):
    """policy=HeuristicPolicy (the class) took the cards for self: a bare
    TypeError ("missing 1 required positional argument: 'rules'") at the
    first sample. A class whose methods need no instance is a policy."""
    with raises(ConstraintError, "policy=<class", "HeuristicPolicy", "pass an instance, e.g. HeuristicPolicy()"):
        advise(HeuristicPolicy)
    assert advise(_StaticPolicy).policy == "static"
