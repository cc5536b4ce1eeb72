"""Arguments found by fuzzing the library: each is refused with a RookError
that quotes it (cut short), never with an error from writing the message."""

import numpy as np
import pytest

from rook_analyze.solver import Card, Hand, RookError, Rules, random_deal
from rook_analyze.solver.cards import shown

HUGE = 10 ** 5000  # too long for repr: Python refuses ints of over 4,300 digits


def test_shown_writes_what_repr_cannot():
    assert shown(HUGE) == "an int of about 5,000 digits"
    assert shown((5, HUGE)) == "a tuple that cannot be written out"
    assert shown(7) == "7"


INT = "an int of about 5,000 digits"  # how shown() writes HUGE
TUPLE = "a tuple that cannot be written out"


@pytest.mark.parametrize("call, quoted", [
    (lambda: Card("B", HUGE), INT), (lambda: Card.from_index(HUGE), INT),
    (lambda: Hand(HUGE), f"{HUGE:#x}"[:40]), (lambda: Hand(-HUGE), f"{-HUGE:#x}"[:40]),  # a mask: in hex, cut short
    (lambda: Rules.preset("hasbro").card_points(HUGE), INT), (lambda: Rules.preset("hasbro").seat_index(HUGE), INT),
    (lambda: Rules.preset(HUGE), INT), (lambda: Rules.preset("hasbro").check_trump(HUGE), INT),
    (lambda: random_deal("hasbro", -HUGE), INT), (lambda: random_deal("hasbro", 1).hand(HUGE), INT),
    (lambda: Rules.preset("hasbro").with_knobs(target=HUGE), INT),
    (lambda: Rules.preset("hasbro").with_knobs(nest_size=HUGE), INT),
    (lambda: Rules.preset("hasbro").with_knobs(numbers=(5, HUGE)), TUPLE),
    (lambda: Rules.preset("hasbro").with_knobs(most_tricks=(HUGE, 1)), TUPLE),
])
def test_huge_ints_are_refused_with_a_short_message(call, quoted):
    with pytest.raises(RookError) as e:
        call()
    assert len(str(e.value)) < 400
    assert quoted in str(e.value)  # the argument quoted (cut short), as the module's docstring says


def test_knobs_take_numpy_arrays_and_bools_as_they_take_lists_and_bools():
    # numbers=np.arange(5, 15) was "expected a tuple of card numbers" where a list was taken
    hasbro = Rules.preset("hasbro")
    assert hasbro.with_knobs(numbers=np.arange(5, 15)) == hasbro.with_knobs(numbers=list(range(5, 15))) == hasbro
    assert hasbro.with_knobs(teams=np.array([0, 0, 1, 1])).spec() == "hasbro,teams=0011"
    assert hasbro.with_knobs(most_tricks=np.array([5, 20])).spec() == "hasbro,most_tricks=5:20"
    assert hasbro.with_knobs(double_bird=np.bool_(True)) == hasbro.with_knobs(double_bird=True)
    assert hasbro.with_knobs(one_high=np.bool_(False)) == hasbro
    with pytest.raises(RookError, match="numbers=.*expected a tuple of card numbers"):
        hasbro.with_knobs(numbers=np.array([[5, 6], [7, 8]]))
    with pytest.raises(RookError, match="double_bird=.*expected true or false"):
        hasbro.with_knobs(double_bird=np.int64(1))
    # a 0-d array is the value it holds: the knob's own checks answer, never numpy's iteration error
    assert hasbro.with_knobs(double_bird=np.array(True)) == hasbro.with_knobs(double_bird=True)
    assert hasbro.with_knobs(hand_size=np.array(9)) == hasbro
    for knob in ("numbers", "teams", "most_tricks"):
        with pytest.raises(RookError, match=f"{knob}="):
            hasbro.with_knobs(**{knob: np.array(5)})


def test_int_knobs_are_64_bit():
    hasbro = Rules.preset("hasbro")
    assert hasbro.with_knobs(target=2**63 - 1).spec() == f"hasbro,target={2**63 - 1}"
    with pytest.raises(RookError, match=r"target=9223372036854775808: expected a positive whole number below 2\^63"):
        hasbro.with_knobs(target=2**63)


def test_long_inputs_are_cut_short():
    # quoted as their start and '...': a message that left the input out would be short too
    with pytest.raises(RookError) as e:
        Card.from_rdn("x" * 3000)
    assert len(str(e.value)) < 400 and "'xxxxxxxxxx" in str(e.value) and "..." in str(e.value)
    with pytest.raises(RookError) as e:
        Rules.preset("hasbro").with_knobs(target="9" * 3000)
    assert len(str(e.value)) < 400 and "target=9999999999" in str(e.value) and "..." in str(e.value)


def test_with_hands_refuses_a_0d_array():
    deal = random_deal("hasbro", 1)
    with pytest.raises(RookError, match=r"hands array\(1\)"):
        deal.with_hands(np.array(1))


def test_check_seat_takes_names_only():
    hasbro = Rules.preset("hasbro")
    for seat in (HUGE, None, b"N", 0):
        with pytest.raises(RookError, match="expected a seat name"):
            hasbro.check_seat(seat)
    with pytest.raises(RookError, match="seats=an int of about 5,000 digits: must be 2..6"):
        hasbro.with_knobs(seats=HUGE)


def test_constraint_parse_takes_text_only():
    from rook_analyze.analysis import Constraint
    for text in (HUGE, None, b"E:B>=3", ["E:B>=3"]):
        with pytest.raises(RookError, match="expected SEAT:FEATURE OP N"):
            Constraint.parse(text)
    assert Constraint.parse("E:B>=3").text() == "E:B>=3"


def test_analysis_huge_ints_are_rook_errors():
    from rook_analyze.analysis import analyze_nest, bid_curve
    deal = random_deal("hasbro,hand_size=4", 5)
    with pytest.raises(RookError, match="bid an int of about 5,000 digits"):
        analyze_nest(deal.hands[0], deal.nest, "hasbro,hand_size=4", bid=HUGE, samples=2, seed=1, threads=1)
    with pytest.raises(RookError, match="not an int of about 5,000 digits"):
        bid_curve(HUGE)


def test_a_time_limit_beyond_floats_is_no_limit():
    from rook_analyze.analysis import analyze_hand
    deal = random_deal("hasbro,hand_size=3", 5)
    report = analyze_hand(deal.hands[0], "hasbro,hand_size=3", samples=2, seed=1, threads=1, time_limit=HUGE)
    assert report.timed_out is False and len(report.detail) == 2


def test_seeds_are_64_bit():
    # a seed is stored (a plan, a report's json) and read back by other programs; one of thousands of
    # digits was taken, and the report could then not be written out
    from rook_analyze.analysis.hand import analyze_hand
    from rook_analyze.analysis.nest import analyze_nest
    from rook_analyze.analysis.simulate import simulate
    from rook_analyze.solver import RookError, random_deal

    small = "hasbro,hand_size=3"
    for seed in (2 ** 64, 10 ** 5000):
        with pytest.raises(RookError, match="seed"):
            analyze_hand("B14 B12 B9", small, samples=2, seed=seed)
        with pytest.raises(RookError, match="seed"):
            analyze_nest("B14 B12 B9", "R5 R6 R7 R8 R9", small, samples=2, seed=seed)
        with pytest.raises(RookError, match="seed"):
            random_deal("hasbro", seed)
        with pytest.raises(RookError, match="seed"):
            simulate(small, 4, "/nonexistent/never-made", seed=seed)
    assert random_deal("hasbro", 2 ** 64 - 1) == random_deal("hasbro", 2 ** 64 - 1)


@pytest.mark.parametrize("bid", [HUGE, "9" * 5000], ids=["huge-int", "huge-text"])
def test_a_bid_too_long_to_write_is_an_illegal_action(bid):
    from rook_analyze.solver import IllegalActionError
    from rook_analyze.solver.game import Auction, Round
    with pytest.raises(IllegalActionError, match=r"^call '9999.*\.\.\.: a bid of 5,000 digits|^bid an int of"):
        Auction("hasbro").call(bid)
    deal = random_deal(Rules.from_spec("hasbro"), 1)
    with pytest.raises(IllegalActionError):
        Round(deal).call(bid)
    with pytest.raises(IllegalActionError):
        Round(deal, declarer="N", bid=bid)


@pytest.mark.parametrize("bad", ["False", 0, 1, 0.5, float("nan"), None, np.array([True, False])])
def test_protect_counters_takes_true_or_false_only(bad):
    from rook_analyze.analysis.policy import HeuristicPolicy
    from rook_analyze.solver import IllegalActionError
    rules = Rules.from_spec("hasbro")
    deal = random_deal(rules, 1)
    cards = deal.hands[0] | deal.nest
    with pytest.raises(IllegalActionError, match=r"^protect_counters="):
        HeuristicPolicy().discard(cards, "B", rules, protect_counters=bad)
    assert HeuristicPolicy().discard(cards, "B", rules, protect_counters=np.True_) == \
        HeuristicPolicy().discard(cards, "B", rules, protect_counters=True)


@pytest.mark.parametrize("name", ["trumps", "declarers", "leaders", "groups"])
def test_solve_batch_refuses_a_mapping_for_its_per_deal_values(name):
    from rook_analyze.solver import DealError, solve_batch
    deal = random_deal(Rules.from_spec("hasbro"), 1)
    args = {"trumps": "B", "declarers": "N", name: {0: "E"}}
    with pytest.raises(DealError, match=rf"^{name} \{{0: 'E'\}}: .*not a mapping"):
        solve_batch([deal], **args)


def test_report_buckets_and_long_folders_are_simulation_errors(tmp_path):
    from rook_analyze.analysis.report import MAX_BUCKETS, build_report
    from rook_analyze.analysis.simulate import SimulationError, read_dataset
    for bad in (HUGE, 2 ** 64, MAX_BUCKETS + 1):
        with pytest.raises(SimulationError, match=r"^buckets=.*: at most 100$"):
            build_report(tmp_path, buckets=bad)
    long = "x" * 3000  # a name the system refuses (too long): its error, cut short
    for call in (build_report, read_dataset):
        with pytest.raises(SimulationError, match=r"^'xxx.*\.\.\. cannot be read \(File name too long\)$") as e:
            call(long)
        assert len(str(e.value)) < 300
