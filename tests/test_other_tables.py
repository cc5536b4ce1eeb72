"""Tables of other sizes and other splits into sides, through every layer:
the rules' text form (``seats``, ``teams``), the library's default seats
(the first seat bids, the last deals), the command line's seat names
(P1..Pn) and simulate's plan, which rebuilds the rules from their text."""

from __future__ import annotations

import dataclasses
import json

import pytest

from clirunner import CliRunner
from rook_analyze.analysis.hand import analyze_hand
from rook_analyze.analysis.nest import analyze_nest
from rook_analyze.analysis.report import by_position, load_frame
from rook_analyze.analysis.simulate import (Plan, SimulationError, make_plan, prepare_output, simulate_chunk,
                                            write_part)
from rook_analyze.cli.main import main
from rook_analyze.solver import Rules, card_values, random_deal, solve
from rook_analyze.solver.errors import IllegalActionError
from rook_analyze.solver.game import HandResult, Match

THREE = "hasbro,seats=3,teams=alone,hand_size=4"          # the declarer alone against two; 12 cards dealt
PAIRS = "hasbro,teams=0011,hand_size=4"                    # N and E against S and W


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input)


# ------------------------------------------------------------------ solver
def points(res):
    return res.declarer_points, res.defender_points


def test_solve_defaults_to_the_last_seat_dealing():
    rules = Rules.from_spec(THREE)   # left_of_dealer: P3 deals, so P1 leads
    deal = random_deal(rules, seed=4)
    assert points(solve(deal, "B", "P2")) == points(solve(deal, "B", "P2", dealer="P3")) \
        == points(solve(deal, "B", "P2", leader="P1"))
    assert card_values(deal, "B", "P2") == card_values(deal, "B", "P2", leader="P1")
    assert set(card_values(deal, "B", "P2")) == set(deal.hand("P1"))   # P1 is to play
    # another dealer moves the lead
    assert set(card_values(deal, "B", "P2", dealer="P1")) == set(deal.hand("P2"))


# ---------------------------------------------------------------- analysis
def test_hand_and_nest_advice_default_to_the_first_seat_bidding_and_the_last_dealing():
    rules = Rules.from_spec(THREE + ",min_bid=30,max_bid=60")
    deal = random_deal(rules, seed=2)
    report = analyze_hand(deal.hands[0], rules, samples=3, seed=1)
    d = report.to_dict()
    assert (d["seat"], d["dealer"], d["leader"]) == ("P1", "P3", "P1")
    assert d["rules"] == rules.spec() and Rules.from_spec(d["rules"]) == rules
    assert analyze_hand(deal.hands[0], rules, seat="P1", dealer="P3", samples=3, seed=1).to_dict() == d
    nest = analyze_nest(deal.hands[0], deal.nest, rules, samples=2, seed=1, candidates=2).to_dict()
    assert (nest["seat"], nest["dealer"], nest["leader"]) == ("P1", "P3", "P1")


def test_simulate_keeps_the_sides_of_its_rules():
    rules = Rules.from_spec(PAIRS)
    plan = make_plan(rules, 2, seed=1, chunk_size=2)
    assert Rules.from_spec(plan.rules) == rules           # the plan's text rebuilds the same table
    frame = simulate_chunk(plan, 0).to_pandas()
    assert list(frame["seat"]) == ["N", "E", "S", "W"] * 2
    # N leads (W deals): N's and E's side leads, S's and W's does not
    assert list(frame["side_leads"]) == [True, True, False, False] * 2
    three = make_plan(THREE, 2, seed=1, chunk_size=2)
    frame = simulate_chunk(three, 0).to_pandas()
    assert list(frame["seat"]) == ["P1", "P2", "P3"] * 2
    assert list(frame["dealer"]) == ["P3"] * 6


def test_a_plan_made_by_hand_deals_from_the_last_seat_of_its_table():
    plan = Plan(rules=THREE, seed=1, deals=2)              # no W at three seats
    assert plan == make_plan(THREE, 2, seed=1, chunk_size=plan.chunk_size)
    assert list(simulate_chunk(plan, 0).to_pandas()["dealer"]) == ["P3"] * 6
    assert Plan(rules="hasbro", seed=1, deals=2).dealer == "W"
    with pytest.raises(SimulationError, match="seats=3"):
        Plan(rules="hasbro,seats=3", seed=1, deals=2)


def test_simulate_refuses_rules_its_text_cannot_rebuild():
    custom = dataclasses.replace(Rules.preset("hasbro"), counters=((5, 5), (10, 10), (12, 10)))
    with pytest.raises(SimulationError, match="text form"):
        make_plan(custom, 2, seed=1)


def test_a_match_names_what_differs_when_the_text_forms_agree():
    rules = Rules.preset("hasbro")
    custom = dataclasses.replace(rules, counters=((5, 5), (10, 10), (12, 10)))
    assert custom.spec() == rules.spec() and custom != rules
    result = HandResult(custom, dealer=3, declarer=0, bid=70, trump="B", forced=False,
                        tricks_won=(5, 4), captured=(80, 40), score=(80, 40))
    with pytest.raises(IllegalActionError, match="another deck or counters"):
        Match(rules, seed=1).record(result)


# ---------------------------------------------------------- command line
def test_cli_solve_takes_the_tables_seat_names():
    rules = Rules.from_spec(THREE)
    deal = random_deal(rules, seed=4)
    res = run("solve", "--rules", THREE, "--trump", "B", "--declarer", "p2", "--format", "json", deal.rdn())
    assert res.exit_code == 0, res.output
    rec = json.loads(res.stdout)[0]
    assert (rec["declarer"], rec["leader"], rec["dealer"]) == ("P2", "P1", "P3")
    assert rec["rules"] == THREE
    expected = solve(deal, "B", "P2")
    assert (rec["declarer_points"], rec["defender_points"]) == (expected.declarer_points, expected.defender_points)


@pytest.mark.parametrize("args, words", [
    (["solve", "--rules", THREE, "--trump", "B", "--declarer", "N"], ["--declarer", "'N'", "P1 P2 P3"]),
    (["solve", "--rules", "hasbro", "--trump", "B", "--declarer", "P1"], ["--declarer", "'P1'", "N E S W"]),
    (["solve", "--rules", THREE, "--trump", "B", "--declarer", "P1", "--dealer", "W"], ["--dealer", "'W'"]),
    (["solve", "--rules", "hasbro", "--trump", "B", "--declarer", "p7"], ["--declarer", "'P7'", "N E S W"]),
    (["hand", "--rules", THREE, "--seat", "S", "Rook B14 B13 B12"], ["--seat", "'S'", "P1 P2 P3"]),
    (["nest", "--rules", THREE, "--dealer", "E", "--hand", "B5", "--nest", "B6"], ["--dealer", "'E'"]),
    (["deal", "--rules", "hasbro,seats=3"], ["seats=3", "teams=alone"]),
])
def test_cli_seats_that_the_table_lacks_are_one_line(args, words):
    res = run(*args)   # the seat is checked before any deal or hand is read
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.output
    for w in words:
        assert w in lines[0], (w, lines[0])


def test_cli_hand_at_three_seats():
    rules = Rules.from_spec(THREE + ",min_bid=30,max_bid=60")
    deal = random_deal(rules, seed=2)
    res = run("hand", deal.hands[0].rdn(), "--rules", rules.spec(), "--samples", "3", "--seed", "1",
              "--format", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert (doc["seat"], doc["dealer"]) == ("P1", "P3")
    library = analyze_hand(deal.hands[0], rules, samples=3, seed=1).to_dict()
    assert doc["recommendation"] == json.loads(json.dumps(library["recommendation"]))
    assert [t["mean"] for t in doc["trumps"]] == pytest.approx([t["mean"] for t in library["trumps"]])


@pytest.mark.parametrize("spec, across", [
    (PAIRS, "across from dealer"),                        # W deals, S is its partner
    ("hasbro,teams=alone,hand_size=4", "across from dealer"),
    ("hasbro,hand_size=4", "dealer's partner"),
])
def test_report_names_the_seat_across_from_the_dealer_by_the_sides(spec, across, tmp_path):
    plan = make_plan(spec, 1, seed=1, chunk_size=1)
    prepare_output(tmp_path, plan, resume=False)
    write_part(tmp_path, 0, simulate_chunk(plan, 0))
    frame = load_frame(tmp_path)        # the columns the report reads, as 'report' does
    seats = list(by_position(frame, spec, "policy_points", [70])["seat"])
    assert seats == ["left of dealer (bids first)", across, "right of dealer", "dealer"]


@pytest.mark.parametrize("spec, seats", [
    ("hasbro,seats=3,teams=alone,hand_size=3", ["left of dealer (bids first)", "2 left of dealer", "dealer"]),
    ("hasbro,seats=5,teams=01010,hand_size=3",
     ["left of dealer (bids first)", "2 left of dealer", "3 left of dealer", "4 left of dealer", "dealer"]),
])
def test_report_says_who_bids_first_at_other_tables_too(spec, seats, tmp_path):
    # the seat left of the dealer bids first at any table with an auction, as at four seats
    plan = make_plan(spec, 1, seed=1, chunk_size=1)
    prepare_output(tmp_path, plan, resume=False)
    write_part(tmp_path, 0, simulate_chunk(plan, 0))
    assert list(by_position(load_frame(tmp_path), spec, "policy_points", [70])["seat"]) == seats


def test_report_says_nobody_bids_first_where_the_rules_have_no_auction(tmp_path):
    spec = "bridge,hand_size=3"
    plan = make_plan(spec, 1, seed=1, chunk_size=1)
    prepare_output(tmp_path, plan, resume=False)
    write_part(tmp_path, 0, simulate_chunk(plan, 0))
    seats = list(by_position(load_frame(tmp_path), spec, "policy_points", [7])["seat"])
    assert seats == ["left of dealer", "dealer's partner", "right of dealer", "dealer"]


def test_cli_two_deals_as_arguments_at_two_seats_without_a_nest():
    # one such deal has a single '/': two of them were read as one deal with a card 'P1:'
    spec = "hasbro,seats=2,teams=alone,nest_size=0,hand_size=2"
    one, two = (d.rdn() for d in (random_deal(spec, seed=1), random_deal(spec, seed=2)))
    res = run("solve", "--rules", spec, "--trump", "B", "--declarer", "P1", one, two)
    assert res.exit_code == 2 and res.stdout == ""
    assert "more than one deal" in res.stderr and res.stderr.count("\n") == 1
    assert run("solve", "--rules", spec, "--trump", "B", "--declarer", "P1", *one.split()).exit_code == 0


@pytest.mark.parametrize("args", [
    ["deal", "--rules", THREE, "-c", "P2 B>=3"],
    ["hand", "--rules", THREE, "-c", "P2 B>=3", "Rook B14 B13 B12"],
    ["nest", "--rules", THREE, "-c", "P2 B>=3", "--hand", "Rook B14 B13 B12", "--nest", "B5 B6 B7 B8 B9"],
    ["deal", "--rules", THREE, "--known", "B13"],
    ["hand", "--rules", THREE, "--known", "P2 B13", "Rook B14 B13 B12"],
])
def test_cli_a_constraint_or_known_card_that_does_not_parse_is_answered_with_the_tables_seats(args):
    res = run(*args)
    assert res.exit_code == 2, res.output
    line = res.stderr.strip()
    assert "e.g. 'P2:" in line, line               # the table has P1..P3: no E, W or S to copy
    for seat in ("E", "W", "S"):
        assert f"'{seat}:" not in line, line


def test_a_sampler_given_constraint_texts_answers_with_its_tables_seats():
    from rook_analyze.analysis.sampling import Constraint, ConstraintError, DealSampler
    with pytest.raises(ConstraintError, match=r"e\.g\. 'P2:B>=3', 'P5:counters<=10', 'P3:rook=0'"):
        DealSampler("hasbro,seats=5,teams=01010,hand_size=3", constraints=["P2 B>=3"])
    with pytest.raises(ConstraintError, match=r"e\.g\. 'E:B>=3', 'W:counters<=10', 'S:rook=0'"):
        Constraint.parse("E B>=3")                  # without rules: the four-seat names, as before


def test_bid_curve_title_stays_inside_the_figure_at_a_table_with_a_long_rules_text():
    from rook_analyze.analysis.plots import bid_curve
    spec = "full,seats=5,teams=01001,hand_size=3,nest_size=4,min_bid=30,max_bid=40"
    fig = bid_curve(analyze_hand("Rook B14 R5", spec, seat="P3", samples=2, seed=2))
    fig.canvas.draw()                               # as savefig lays it out (no tight bounding box)
    title = fig.get_axes()[0].title
    box = title.get_window_extent()
    assert 0 <= box.x0 and box.x1 <= fig.bbox.width, (box, fig.bbox.width, title.get_text())
    text = title.get_text()
    assert "P3 declares, P5 deals, P3 leads" in text and "2 samples, seed 2" in text
    assert f"rules {spec}" in text.replace(",\n", ",")  # the whole rules text, broken after commas


def test_cli_deal_help_names_the_hands_of_other_tables_too():
    res = run("deal", "--help")
    assert res.exit_code == 0
    text = " ".join(res.output.split())
    # the hands and fields are P1..Pn at tables of other sizes, not only N E S W
    assert "rdn: one deal a line (N / E / S / W / nest; P1 / ... / Pn / nest at tables of other sizes)" in text
    assert "one per hand (N, E, S, W, nest; P1 .. Pn, nest at tables of other sizes)" in text
