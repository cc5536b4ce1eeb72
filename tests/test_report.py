"""The report of a simulate dataset: the fitted hand count, bid-success
tables, trump and seat statistics, the three output formats and the plot."""

from __future__ import annotations

import csv
import dataclasses
import errno
import io
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from clirunner import CliRunner
from figures import leaves_no_figure_open, outside
from rook_analyze.analysis.policy import POLICY_REVISION
from rook_analyze.analysis.report import (bid_success, build_report, by_position, count_step, deals_needed,
                                           feature_text, fit_count, load_frame, make_by_count, make_interval,
                                           plot_report, trump_choice, trump_length)
from rook_analyze.analysis.simulate import SimulationError, make_plan, prepare_output, simulate_chunk, write_part
from rook_analyze.cli.main import main
from rook_analyze.solver import Rules

RULES = "hasbro,hand_size=5"   # fast to solve; still a real auction from 70 to 120
DEALS = 240
CHUNK = 40


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """A small complete dataset, written chunk by chunk in this process (the Dask runs are in test_simulate)."""
    out = tmp_path_factory.mktemp("report") / "run"
    plan = make_plan(RULES, DEALS, seed=21, chunk_size=CHUNK)
    prepare_output(out, plan, resume=False)
    for i in range(plan.chunks):
        write_part(out, i, simulate_chunk(plan, i))
    return out


def run_cli(*args: str):
    return CliRunner().invoke(main, list(args), prog_name="rook-analyze")


def test_fit_count_recovers_a_known_count():
    rng = np.random.default_rng(0)
    n = 4000
    frame = pd.DataFrame({
        "deal_id": np.arange(n) // 4,
        "counters": rng.integers(0, 60, n), "rook": rng.integers(0, 2, n), "longest": rng.integers(2, 7, n),
        "tops": rng.integers(0, 4, n), "high": rng.integers(0, 5, n), "voids": rng.integers(0, 2, n),
    })
    frame["policy_points"] = (30 + 0.8 * frame["counters"] + 15 * frame["rook"] + 3 * frame["longest"]
                              + rng.normal(0, 2, n))
    count = fit_count(frame, "policy_points")
    assert count.intercept == pytest.approx(30, abs=1)
    assert count.weights["counters"] == pytest.approx(0.8, abs=0.05)
    assert count.weights["rook"] == pytest.approx(15, abs=1)
    assert count.weights["longest"] == pytest.approx(3, abs=0.2)
    assert abs(count.weights["tops"]) <= 0.2 and abs(count.weights["voids"]) <= 0.5
    assert count.r2 > 0.95 and 1.5 < count.rmse < 3.0
    assert count.formula().startswith("points = 30 + 0.8 x counters + 15 x rook + 3")
    # the formula is the count it scores
    pred = count.predict(frame)
    assert pred.iloc[0] == pytest.approx(count.intercept + sum(w * frame[f].iloc[0]
                                                              for f, w in count.weights.items()))


def test_the_rounded_count_keeps_the_points_mean():
    """Least squares with an intercept leaves no mean error; rounding the
    weights for the table must not bring one back: the intercept is fitted
    to the rounded weights, so the count's mean is the points' mean (within
    the intercept's own rounding, half a point), in the fit and in each
    held-out fold."""
    rng = np.random.default_rng(11)
    n = 4000
    frame = pd.DataFrame({"deal_id": np.arange(n) // 4, "counters": rng.integers(0, 25, n) * 5,
                          "rook": rng.integers(0, 2, n), "longest": rng.integers(2, 8, n)})
    # 0.149 x counters rounds to 0.1: 0.049 x a mean of 60 counters, about 3 points, lost with it
    frame["policy_points"] = 30 + 0.149 * frame["counters"] + 12 * frame["rook"] + rng.normal(0, 5, n)
    count = fit_count(frame)
    assert count.weights["counters"] == 0.1
    y = frame["policy_points"].to_numpy(float)
    assert abs(count.predict(frame).mean() - y.mean()) <= 0.5
    for k in (0, 1):
        test = (frame["deal_id"] % 2 == k).to_numpy()
        other = fit_count(frame[~test])
        assert abs(other.predict(frame[~test]).mean() - y[~test].mean()) <= 0.5


def test_held_out_figures_are_never_in_sample_ones():
    rng = np.random.default_rng(1)
    n = 40
    frame = pd.DataFrame({"deal_id": np.arange(n) // 4, "counters": rng.integers(0, 60, n),
                          "rook": rng.integers(0, 2, n), "longest": rng.integers(2, 7, n)})
    frame["policy_points"] = 20 + frame["counters"] + rng.normal(0, 8, n)
    feats = ["counters", "rook", "longest"]
    both = fit_count(frame, features=feats)
    # each fold fitted on the other: the held-out R-squared is below the in-sample one
    assert math.isfinite(both.r2) and both.r2 < both.r2_fit
    # all deals in one fold (odd ids only), or a fold of one deal (4 rows) to fit 4 parameters on:
    # no held-out figure
    for few in (frame[frame["deal_id"] % 2 == 1], frame[frame["deal_id"].isin([0, 1, 3])]):
        count = fit_count(few, features=feats)
        assert math.isnan(count.r2) and math.isnan(count.rmse) and math.isnan(count.mae)
        assert math.isfinite(count.r2_fit) and count.weights  # the count itself is still fitted


def test_held_out_figures_are_those_of_each_fold_fitted_on_the_other():
    """R-squared, RMSE and MAE are the rounded count's on held-out deals: the
    count fitted on the odd deals scores the even ones and the other way
    round (seats of one deal stay in one fold), against the mean of all rows."""
    from rook_analyze.analysis.report import HandCount

    rng = np.random.default_rng(7)
    n = 400
    frame = pd.DataFrame({"deal_id": np.arange(n) // 4, "counters": rng.integers(0, 24, n) * 5,
                          "rook": rng.integers(0, 2, n), "longest": rng.integers(2, 8, n)})
    # the seats of a deal share a bonus: a split by row rather than by deal would show it
    frame["policy_points"] = (25 + 0.7 * frame["counters"] + 12 * frame["rook"] + rng.normal(0, 12, n)
                              + rng.normal(0, 10, n // 4).repeat(4)).round()
    count = fit_count(frame)
    y = frame["policy_points"].to_numpy(float)
    pred = np.empty(n)
    for k in (0, 1):
        test = (frame["deal_id"] % 2 == k).to_numpy()
        other = fit_count(frame[~test])
        assert isinstance(other, HandCount) and other.weights.keys() == count.weights.keys()
        pred[test] = other.predict(frame[test]).to_numpy()
    resid = y - pred
    assert count.rmse == pytest.approx(np.sqrt((resid ** 2).mean()), rel=1e-12)
    assert count.mae == pytest.approx(np.abs(resid).mean(), rel=1e-12)
    assert count.r2 == pytest.approx(1 - (resid ** 2).sum() / ((y - y.mean()) ** 2).sum(), rel=1e-12)
    assert abs(resid.mean()) < 0.5 * count.mae  # the absolute error, not the signed one


def test_fit_count_needs_two_rows_more_than_its_features_and_drops_constant_ones():
    """The count needs a hand more than the features and the intercept; a
    feature with one value in every row has no weight and does not count."""
    from rook_analyze.analysis.report import TooFewRows

    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"deal_id": np.arange(6), "counters": rng.integers(0, 60, 6),
                          "rook": [0, 1, 0, 1, 1, 0], "voids": 0})
    frame["policy_points"] = 30 + frame["counters"] + rng.integers(-5, 6, 6)
    count = fit_count(frame.iloc[:4])  # two features that vary, and the intercept: 4 rows fit
    assert set(count.weights) == {"counters", "rook"}
    with pytest.raises(TooFewRows, match="3 rows are too few to fit a hand count on 2 features"):
        fit_count(frame.iloc[:3])


@pytest.mark.parametrize("kwargs, words", [
    (dict(features=["nosuch"]), ["'nosuch'", "not columns"]),
    (dict(features="counters"), ["'counters'", "list of column names"]),
    (dict(target="nosuch"), ["'nosuch'", "not a column"]),
])
def test_fit_count_checks_its_arguments(kwargs, words):
    frame = pd.DataFrame({"deal_id": range(8), "counters": range(8), "policy_points": range(8)})
    with pytest.raises(SimulationError) as e:
        fit_count(frame, **kwargs)
    assert all(w in str(e.value) for w in words), str(e.value)
    with pytest.raises(SimulationError, match="DataFrame"):
        fit_count(None)


def test_fit_by_sums_equals_least_squares_on_the_rows():
    # the fit works from D'D and D'y (memory the size of the features, not
    # of the rows); it must give numpy's least squares on the rows, and with
    # a feature that is a sum of others, the same fitted values
    from rook_analyze.analysis.report import _solve, _sums
    rng = np.random.default_rng(4)
    x = rng.integers(0, 14, (5000, 6)).astype(float)
    x[:, 0] = rng.integers(0, 121, 5000)
    y = np.round(20 + x @ [0.6, -2, 3, 1.5, 0, 4] + rng.normal(0, 15, 5000))
    design = np.column_stack([np.ones(len(x)), x])
    want = np.linalg.lstsq(design, y, rcond=None)[0]
    assert np.allclose(_solve(*_sums(x, y)), want, rtol=0, atol=1e-8)
    x[:, 5] = x[:, 1] + x[:, 2]  # collinear: the weights are not unique, the fit is
    design = np.column_stack([np.ones(len(x)), x])
    got = _solve(*_sums(x, y))
    fitted = design @ np.linalg.lstsq(design, y, rcond=None)[0]
    assert np.allclose(design @ got, fitted, rtol=0, atol=1e-6)


def test_report_tables_agree_with_the_data(dataset):
    frame = load_frame(dataset)
    rep = build_report(dataset)
    assert rep.complete and rep.deals == DEALS and rep.rows == DEALS * 4
    assert list(rep.bids) == list(range(70, 121, 5))
    table = rep.bid_success
    every = table[table["bucket"] == "all hands"].iloc[0]
    for b in rep.bids:
        assert every[f"make_{b}"] == pytest.approx((frame["policy_points"] >= b).mean())
    assert every["mean_count"] == pytest.approx(rep.count.predict(frame).mean())
    buckets = table[table["bucket"] != "all hands"]
    assert buckets["rows"].sum() == len(frame)
    # each bucket is the rows its label names, by the count the report prints
    count = rep.count.predict(frame)
    assert len(buckets) >= 3
    for _, row in buckets.iterrows():
        label = row["bucket"]
        nums = [float(x) for x in re.findall(r"-?\d+", label)]
        if label.startswith("count < "):
            inside = count < nums[0]
        elif label.startswith("count >= "):
            inside = count >= nums[0]
        else:
            inside = (count >= nums[0]) & (count < nums[1])
        group = frame[inside]
        assert row["rows"] == len(group), label
        assert row["mean_points"] == pytest.approx(group["policy_points"].mean()), label
        assert row["mean_count"] == pytest.approx(count[inside].mean()), label
        for b in rep.bids:
            assert row[f"make_{b}"] == pytest.approx((group["policy_points"] >= b).mean()), (label, b)
    for _, row in buckets.iterrows():
        rates = [row[f"make_{b}"] for b in rep.bids]
        assert all(a >= b for a, b in zip(rates, rates[1:])), row["bucket"]
    # stronger buckets make their bids more often, on the whole
    assert buckets["mean_points"].iloc[-1] > buckets["mean_points"].iloc[0]
    stats = dict(zip(rep.trump_choice["statistic"], rep.trump_choice["value"]))
    assert stats["policy trump is a best trump"] == pytest.approx(
        (frame["policy_points"] == frame["best_points"]).mean())
    assert stats["mean cost of the policy trump"] == pytest.approx(
        (frame["best_points"] - frame["policy_points"]).mean())
    assert stats["mean cost of the policy trump"] >= 0
    pos = rep.positions
    assert list(pos["position"]) == [1, 2, 3, 4] and set(pos["rows"]) == {DEALS}
    assert pos.set_index("position")["mean_points"][1] == pytest.approx(
        frame.loc[frame["seat"] == "N", "policy_points"].mean())
    # every figure of every seat: W deals, so N (position 1) leads and N-S is the leading side
    mid = rep.bids[len(rep.bids) // 2]
    for row, seat in zip(pos.to_dict(orient="records"), "NESW"):
        mine = frame[frame["seat"] == seat]
        assert (row["declarer_leads"], row["side_leads"]) == (seat == "N", seat in "NS"), seat
        assert row["mean_best_points"] == pytest.approx(mine["best_points"].mean()), seat
        assert row["mean_points"] == pytest.approx(mine["policy_points"].mean()), seat
        for b in (rep.bids[0], mid):
            assert row[f"make_{b}"] == pytest.approx((mine["policy_points"] >= b).mean()), (seat, b)
    assert (pos["mean_best_points"] > pos["mean_points"]).any()  # the two columns differ here
    assert rep.trump_length["rows"].sum() == len(frame)
    assert rep.make_by_count["rows"].min() >= 20


def test_make_interval_counts_a_deals_hands_together():
    """A deal's hands move together or apart: the interval is the Wilson
    interval of an effective number of hands, between the deals and the hands."""
    from rook_analyze.analysis.hand import wilson

    deals = np.repeat(np.arange(50), 4)
    same = np.repeat(np.arange(50) % 5 == 0, 4)  # every hand of a deal alike: the deals are the draws
    assert make_interval(same, deals) == pytest.approx(wilson(0.2, 50))
    apart = np.tile([True, False, False, True], 50)  # two of four each deal: never narrower than the hands
    assert make_interval(apart, deals) == pytest.approx(wilson(0.5, 200))
    # deals pulling apart less evenly: their spread would make more than the 8 hands; held at 8
    assert make_interval([1, 0, 1, 0, 1, 0, 1, 1], [0, 0, 1, 1, 2, 2, 3, 3]) == pytest.approx(wilson(5 / 8, 8))
    own = np.arange(200) % 5 == 0  # each hand a deal of its own
    assert make_interval(own, np.arange(200)) == pytest.approx(wilson(0.2, 200))
    assert make_interval(np.ones(200, bool), deals) == pytest.approx(wilson(1.0, 200))
    assert make_interval(np.zeros(200, bool), deals) == pytest.approx(wilson(0.0, 200))
    assert make_interval([True, False, False, False], [7, 7, 7, 7]) == pytest.approx(wilson(0.25, 1))
    assert make_interval([], []) == (0.0, 1.0)
    with pytest.raises(SimulationError, match=r"shapes \(3,\) and \(2,\)"):
        make_interval([True, False, True], [1, 2])


def test_make_interval_covers_the_chance_where_a_deals_hands_share_it():
    """On deals whose four hands share a strength (as seats of one deal share its
    cards), the interval covers the true chance about 95% of the time; the
    hands' own Wilson interval, treating them as independent, falls short."""
    from rook_analyze.analysis.hand import wilson

    rng = np.random.default_rng(11)
    truth = 0.5 * 0.7 + 0.5 * 0.2
    deals = np.repeat(np.arange(100), 4)
    ours = naive = 0
    runs = 2000
    for _ in range(runs):
        strong = np.repeat(rng.random(100) < 0.5, 4)
        made = rng.random(400) < np.where(strong, 0.7, 0.2)
        lo, hi = make_interval(made, deals)
        ours += lo <= truth <= hi
        lo, hi = wilson(made.mean(), 400)
        naive += lo <= truth <= hi
    assert 0.935 <= ours / runs <= 0.965, ours / runs
    assert naive / runs < 0.93, naive / runs


def test_report_intervals_are_the_tables_in_json_not_in_the_table_view(dataset):
    frame = load_frame(dataset)
    rep = build_report(dataset)
    every = rep.bid_success[rep.bid_success["bucket"] == "all hands"].iloc[0]
    for b in rep.bids:
        made = frame["policy_points"].to_numpy() >= b
        assert (every[f"make_{b}_lo"], every[f"make_{b}_hi"]) == pytest.approx(
            make_interval(made, frame["deal_id"].to_numpy())), b
    for table in (rep.bid_success, rep.make_by_count):
        assert len(table)
        for b in rep.bids:
            assert (table[f"make_{b}_lo"] <= table[f"make_{b}"]).all() and \
                (table[f"make_{b}"] <= table[f"make_{b}_hi"]).all(), b
    doc = json.loads(run_cli("report", str(dataset), "--format", "json").stdout)
    row = [x for x in doc["bid_success"] if x["bucket"] == "all hands"][0]
    assert row["make_100_lo"] == pytest.approx(every["make_100_lo"])
    assert "make_100_hi" in doc["make_by_count"][0]
    text = run_cli("report", str(dataset)).stdout
    assert "_lo" not in text and "_hi" not in text


def test_table_view_shows_the_json_figures_as_percents(dataset):
    """The table's chance to make each bid is the json share in whole percents,
    rounded, and the trump choice's shares are percents with one decimal."""
    doc = json.loads(run_cli("report", str(dataset), "--format", "json").stdout)
    text = run_cli("report", str(dataset)).stdout
    every = [x for x in doc["bid_success"] if x["bucket"] == "all hands"][0]
    line = next(ln for ln in text.splitlines() if ln.startswith("all hands"))
    shown_percents = [int(v) for v in line.split()[-len(doc["bids"]):]]
    assert shown_percents == [round(100 * every[f"make_{b}"]) for b in doc["bids"]]
    for rec in doc["trump_choice"]:
        if rec["unit"] == "share of hands":
            assert re.search(rf"{re.escape(rec['statistic'])}\s+{100 * rec['value']:.1f}%", text), rec


def test_best_target_is_an_upper_bound(dataset):
    frame = load_frame(dataset)
    policy = build_report(dataset, target="policy").bid_success
    best = build_report(dataset, target="best").bid_success
    # a report equals one built again from the same data (its DataFrames compared by DataFrame.equals)
    assert build_report(dataset) == build_report(dataset) != build_report(dataset, target="best")
    p = policy[policy["bucket"] == "all hands"].iloc[0]
    b = best[best["bucket"] == "all hands"].iloc[0]
    # the best target's figures are the best trump's points (the policy's would pass the bounds below too)
    assert b["mean_points"] == pytest.approx(frame["best_points"].mean())
    assert all(b[f"make_{x}"] == pytest.approx((frame["best_points"] >= x).mean()) for x in range(70, 121, 5))
    assert b["mean_points"] > p["mean_points"]  # the policy's trump is not always a best one here
    assert all(b[f"make_{x}"] >= p[f"make_{x}"] for x in range(70, 121, 5))


def _json_report(dataset, *args):
    r = run_cli("report", str(dataset), "--format", "json", *args)
    assert r.exit_code == 0 and r.stderr == "", r.output
    return json.loads(r.stdout)


def test_cli_target_best_reports_the_best_trumps_points(dataset):
    """--target best (README, --help): the hand count is fitted on the best
    trump's points in hindsight and every points figure is theirs, where the
    default is the policy's trump; the trump-choice statistics weigh both
    trumps whatever the target, so they stay as they were."""
    frame = load_frame(dataset)
    policy, best = _json_report(dataset), _json_report(dataset, "--target", "best")
    assert _json_report(dataset, "--target", "policy") == policy  # the default, named
    assert _json_report(dataset, "--target", "BEST") == best  # read in any case, as --format is
    assert best == json.loads(json.dumps(build_report(dataset, target="best").to_dict()))  # the library's
    for doc, col in ((policy, "policy_points"), (best, "best_points")):
        assert doc["dataset"]["target"] == doc["count"]["target"] == col
        assert doc["count"]["formula"] == fit_count(frame, col).formula()
        every = [x for x in doc["bid_success"] if x["bucket"] == "all hands"][0]
        assert every["mean_points"] == pytest.approx(frame[col].mean())
        for b in doc["bids"]:
            assert every[f"make_{b}"] == pytest.approx((frame[col] >= b).mean()), (col, b)
        for row in doc["positions"]:
            assert row["mean_points"] == pytest.approx(frame.loc[frame["position"] == row["position"], col].mean())
        assert sum(row["rows"] * row["mean_points"] for row in doc["trump_length"]) == pytest.approx(frame[col].sum())
    # the two columns differ in this dataset (else any target would pass the checks above)
    assert best["count"]["formula"] != policy["count"]["formula"]
    assert best["bid_success"] != policy["bid_success"] and best["positions"] != policy["positions"]
    assert best["trump_choice"] == policy["trump_choice"]
    # csv: the same target and figures, one a line
    r = run_cli("report", str(dataset), "--target", "best", "--format", "csv")
    assert r.exit_code == 0, r.output
    value = {(x["section"], x["row"], x["column"]): x["value"] for x in csv.DictReader(io.StringIO(r.stdout))}
    assert value["dataset", "", "target"] == value["count", "", "target"] == "best_points"
    assert value["count", "", "formula"] == best["count"]["formula"]
    every = [x for x in best["bid_success"] if x["bucket"] == "all hands"][0]
    for b in best["bids"]:
        assert float(value["bid_success", "all hands", f"make_{b}"]) == pytest.approx(every[f"make_{b}"]), b


def test_cli_target_best_says_so_in_the_table(dataset):
    best = _json_report(dataset, "--target", "best")
    text = run_cli("report", str(dataset), "--target", "best").stdout
    default = run_cli("report", str(dataset)).stdout
    assert "Points: the declaring side's double-dummy points with the best trump in hindsight" in text
    assert "with the trump the nest policy names" in default and "hindsight" not in default
    assert f"\n  {best['count']['formula']}\n" in text
    # the chances are the best trump's, as the json has them
    every = [x for x in best["bid_success"] if x["bucket"] == "all hands"][0]
    line = next(ln for ln in text.splitlines() if ln.startswith("all hands"))
    assert [int(v) for v in line.split()[-len(best["bids"]):]] == [round(100 * every[f"make_{b}"])
                                                                   for b in best["bids"]]
    assert line != next(ln for ln in default.splitlines() if ln.startswith("all hands"))
    # the trumps held are counted in the color the points were played with
    assert "By trumps in the dealt hand (the best trump's color and the Rook)" in text
    assert "By trumps in the dealt hand (the policy's trump color and the Rook)" in default


@pytest.mark.parametrize("value", ["hindsight", "", "best_points"])  # the column's name is no target either
def test_cli_bad_target_is_one_line_exit_2(dataset, value):
    r = run_cli("report", str(dataset), "--target", value)
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith("Error: Invalid value for '--target': ")
    assert f"'{value}' is not one of 'best', 'policy'" in r.stderr


def test_cli_formats(dataset):
    r = run_cli("report", str(dataset))
    assert r.exit_code == 0, r.output
    assert "points = " in r.stdout and "R-squared" in r.stdout and "Trump choice" in r.stdout
    r = run_cli("report", str(dataset), "--format", "json")
    assert r.exit_code == 0
    doc = json.loads(r.stdout)
    assert set(doc) >= {"dataset", "bids", "count", "bid_success", "make_by_count", "trump_choice",
                        "trump_length", "positions"}
    assert doc["dataset"]["deals"] == DEALS and 0 <= doc["count"]["rmse"]
    assert doc["count"]["formula"].startswith("points = ")
    # the figures are the library's report of the same folder, not merely well-formed
    lib = build_report(dataset).count
    assert doc["count"]["formula"] == lib.formula()
    assert doc["count"]["weights"] == pytest.approx(lib.weights)
    for key in ("intercept", "r2", "rmse", "mae"):
        assert doc["count"][key] == pytest.approx(getattr(lib, key)), key
    assert doc["count"]["mae"] <= doc["count"]["rmse"]  # a mean absolute error never exceeds the root mean square
    r = run_cli("report", str(dataset), "--format", "csv")
    assert r.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert set(rows[0]) == {"section", "row", "column", "value"}
    sections = {row["section"] for row in rows}
    assert {"dataset", "count", "bid_success", "positions"} <= sections
    make_100 = [row for row in rows if row["section"] == "bid_success" and row["row"] == "all hands"
                and row["column"] == "make_100"]
    assert float(make_100[0]["value"]) == pytest.approx(
        [x for x in doc["bid_success"] if x["bucket"] == "all hands"][0]["make_100"])


def test_csv_values_are_numbers_but_where_the_readme_says(dataset):
    # a program reading the csv converts the values to numbers but where the README says otherwise
    readme = " ".join((Path(__file__).resolve().parents[1] / "README.md").read_text().split())
    said = re.search(r"as `section,row,column,value` \((the values are numbers.*?)\)\. `--plot", readme).group(1)
    words = {"out": "folder", "formula": "formula"}  # how the README names a column
    r = run_cli("report", str(dataset), "--format", "csv")
    assert r.exit_code == 0
    text = set()
    for row in csv.DictReader(io.StringIO(r.stdout)):
        try:
            float(row["value"] or "nan")
        except ValueError:
            if row["value"] in ("True", "False"):
                assert f"`{row['column']}`" in said, (row, said)
            else:
                name = "features' descriptions" if row["row"] == "features" else words.get(row["column"],
                                                                                         row["column"])
                text.add((row["section"], name))
    assert {("positions", "seat"), ("trump_choice", "unit"), ("dataset", "target")} <= text  # not vacuous
    for section, name in text:
        assert name in said, (section, name, said)


def test_plot_says_why_the_by_count_panel_is_empty(dataset):
    rep = build_report(dataset)
    few = dataclasses.replace(rep, make_by_count=rep.make_by_count.iloc[0:0])
    right = plot_report(few).get_axes()[1]
    # no legend, so no unnamed even-chance line, and no word of points that are not there
    assert right.get_legend() is None and len(right.get_lines()) == 0
    assert "a point:" not in right.get_xlabel() and "a point:" in plot_report(rep).get_axes()[1].get_xlabel()
    assert any("too few hands" in t.get_text() for t in right.texts)
    assert not any("too few hands" in t.get_text() for t in plot_report(rep).get_axes()[1].texts)


def test_plot_shows_four_bids_against_the_count_in_every_game(dataset):
    # the README: "the chance to make four bids against the hand count"; dixie40 bids 65 to 120,
    # where a spacing rounded to the nearest 5 (20) left room for three
    rep = build_report(dataset)
    frame = load_frame(dataset)
    count = rep.count.predict(frame)
    for bids in (Rules.from_spec("dixie40").bid_levels(), Rules.from_spec("hasbro,min_bid=50").bid_levels(),
                 list(range(1, 14)), rep.bids):  # the last: bridge's thresholds (tricks), the dataset's own
        bids = list(bids)
        other = dataclasses.replace(rep, bids=tuple(bids),
                                    bid_success=bid_success(frame, count, bids, "policy_points"),
                                    make_by_count=make_by_count(frame, count, bids, "policy_points", min_rows=1))
        right = plot_report(other).get_axes()[1]
        shown = [int(t.get_text().split()[1]) for t in right.get_legend().get_texts()
                 if t.get_text().startswith("bid ")]  # not the band's entry
        assert len(shown) == 4 and shown[0] == bids[0] and set(shown) <= set(bids), (bids, shown)
        assert len({b - a for a, b in zip(shown, shown[1:])}) == 1, shown  # evenly spaced
    assert shown == [70, 85, 100, 115]  # hasbro's, as before


def test_plot_names_a_nest_only_where_the_rules_have_one(dataset):
    # as the table: bridge has no nest and no discards to speak of
    def words(fig):
        return " ".join(t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text")))

    rep = build_report(dataset)
    assert "before the nest" in words(plot_report(rep)) and "policy discards" in words(plot_report(rep))
    text = words(plot_report(dataclasses.replace(rep, rules="bridge")))
    assert "hand count of the dealt hand" in text and "nest" not in text and "discard" not in text


def test_plot_reads_without_explanation(dataset, tmp_path):
    fig = plot_report(build_report(dataset))
    axes = fig.get_axes()
    assert len(axes) == 2
    for ax in axes:
        assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()
        assert ax.get_legend() is not None and ax.get_legend().get_texts()
    labels = [t.get_text() for t in axes[0].get_legend().get_texts()]
    assert any("all hands" in s for s in labels) and any("count" in s for s in labels)
    for name, magic in (("curves.png", b"\x89PNG"), ("curves.svg", b"<?xml")):
        path = tmp_path / name
        r = run_cli("report", str(dataset), "--plot", str(path), "--format", "json")
        assert r.exit_code == 0, r.output
        assert path.read_bytes().startswith(magic)
        json.loads(r.stdout)  # the plot notice goes to standard error


def test_the_legends_leave_the_curves_in_sight(dataset):
    # a game whose hands mostly make their bids (dixie40, bridge): curves along the top of
    # both panels, where legends pinned to the upper corners hid them
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    rep = build_report(dataset)
    high = rep.bid_success.copy()
    for k, b in enumerate(rep.bids):
        high[f"make_{b}"] = 1.0 - 0.2 * k / len(rep.bids) - 0.02 * np.arange(len(high))
    by_count = rep.make_by_count.copy()
    for b in rep.bids:
        by_count[f"make_{b}"] = 0.9 + 0.1 * np.linspace(0, 1, len(by_count))
    fig = plot_report(dataclasses.replace(rep, bid_success=high, make_by_count=by_count))
    FigureCanvasAgg(fig).draw()
    for ax in fig.get_axes():
        box = ax.get_legend().get_window_extent()
        for line in ax.get_lines():
            if line.get_label().startswith(("_", "even chance")):  # no data
                continue
            xy = line.get_transform().transform(line.get_xydata())
            hidden = [tuple(p) for p in line.get_xydata()[[box.contains(x, y) for x, y in xy]]]
            assert not hidden, (ax.get_title(), line.get_label(), hidden)


def test_incomplete_dataset_is_reported_as_such(tmp_path):
    out = tmp_path / "run"
    plan = make_plan(RULES, 80, seed=2, chunk_size=40)
    prepare_output(out, plan, resume=False)
    write_part(out, 1, simulate_chunk(plan, 1))
    rep = build_report(out)
    assert not rep.complete and rep.deals == 40 and rep.deals_planned == 80
    r = run_cli("report", str(out))
    assert r.exit_code == 0 and "INCOMPLETE" in r.stdout


def test_a_part_written_while_the_report_reads_does_not_make_it_complete(tmp_path, monkeypatch):
    # a report on a run in progress: the last part lands after the report has read the others
    import rook_analyze.analysis.report as report_module
    from rook_analyze.cli.report_cmd import render_table

    out = tmp_path / "run"
    plan = make_plan(RULES, 8, seed=2, chunk_size=4)
    prepare_output(out, plan, resume=False)
    write_part(out, 0, simulate_chunk(plan, 0))
    last = simulate_chunk(plan, 1)
    read = report_module.load_frame

    def read_then_the_run_writes(where):
        frame = read(where)
        write_part(out, 1, last)
        return frame

    monkeypatch.setattr(report_module, "load_frame", read_then_the_run_writes)
    rep = build_report(out)
    assert rep.deals == 4 and rep.rows == 16 and not rep.complete  # it was "complete" on half the deals
    assert "INCOMPLETE: 4 of 8 deals" in render_table(rep)
    assert build_report(out).complete  # read again: all of it


@pytest.mark.parametrize("name, magic", [(".svg", b"<?xml"), (".pdf", b"%PDF"), (".PNG", b"\x89PNG")])
def test_a_plot_named_by_its_suffix_alone_is_that_format_under_that_name(tmp_path, dataset, name, magic):
    # matplotlib takes the format from the suffix, and '.svg' (a hidden file) has none:
    # it wrote a PNG to '.svg.png' and said "plot saved to .svg"
    r = run_cli("report", str(dataset), "--plot", str(tmp_path / name))
    assert r.exit_code == 0 and r.stderr == f"plot saved to {tmp_path / name}\n"
    assert [p.name for p in tmp_path.iterdir()] == [name]
    assert (tmp_path / name).read_bytes().startswith(magic)


def test_cli_bad_input(tmp_path, dataset):
    r = run_cli("report", str(tmp_path / "missing"))
    assert r.exit_code == 2 and r.stderr.count("\n") == 1
    assert str(tmp_path / "missing") in r.stderr and "does not exist" in r.stderr  # names the bad input
    (tmp_path / "empty").mkdir()
    r = run_cli("report", str(tmp_path / "empty"))
    assert r.exit_code == 2 and "simulate.json" in r.stderr and r.stderr.count("\n") == 1
    r = run_cli("report", str(dataset), "--plot", str(tmp_path / "x.txt"))
    assert r.exit_code == 2 and "--plot" in r.stderr and r.stdout == ""
    # a plot that could not be saved is found before the report is printed
    r = run_cli("report", str(dataset), "--plot", str(tmp_path / "no" / "x.png"))
    assert r.exit_code == 2 and "folder" in r.stderr and "does not exist" in r.stderr and r.stdout == ""
    (tmp_path / "taken.png").mkdir()
    r = run_cli("report", str(dataset), "--plot", str(tmp_path / "taken.png"))
    assert r.exit_code == 2 and "is a directory" in r.stderr and r.stdout == ""
    # a name longer than the system takes (it was exit status 1, the option unnamed)
    r = run_cli("report", str(dataset), "--plot", str(tmp_path / ("x" * 300 + ".png")))
    assert r.exit_code == 2 and r.stderr.startswith("Error: --plot: plot file ") and r.stdout == ""
    assert r.stderr.endswith(".png': File name too long\n")


def test_a_plot_the_system_refuses_after_the_report_is_status_1(dataset, tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    def refused(self, *args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(Figure, "savefig", refused)
    r = run_cli("report", str(dataset), "--plot", str(tmp_path / "x.png"), "--format", "json")
    assert r.exit_code == 1 and r.stderr.strip().splitlines() == [
        f"Error: --plot {str(tmp_path / 'x.png')!r}: Permission denied"]
    assert json.loads(r.stdout)["count"]  # the report went out whole first



def test_a_reader_that_stops_early_costs_no_plot(dataset, tmp_path):
    # `report DIR --plot p.png | head -1`: the table met the closed pipe and
    # the plot was not saved, without a word; it is saved all the same, then
    # the command ends quietly as click ends on a closed pipe (status 1)
    read, write = os.pipe()
    os.close(read)  # the reader has gone before the first line
    try:
        proc = subprocess.run([sys.executable, "-m", "rook_analyze.cli", "report", str(dataset), "--plot",
                               str(tmp_path / "p.png")], stdout=write, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True, timeout=120)
    finally:
        os.close(write)
    assert proc.returncode == 1 and proc.stderr == f"plot saved to {tmp_path / 'p.png'}\n", proc.stderr
    assert (tmp_path / "p.png").read_bytes().startswith(b"\x89PNG")


SLOW_STDOUT = """
import io, os, sys, time

class Slow(io.RawIOBase):  # standard output on a busy machine: each write takes a while
    def writable(self):
        return True

    def fileno(self):
        return 1

    def write(self, data):
        n = os.write(1, data)
        time.sleep(0.5)
        return n

sys.stdout = io.TextIOWrapper(io.BufferedWriter(Slow(), 4096), encoding="utf-8")
sys.argv = ["rook-analyze", *sys.argv[1:]]
from rook_analyze.cli import run
run()
"""


def test_a_report_table_goes_out_whole_before_its_reader_stops(dataset):
    """The README: output the pipe's buffer takes in full, "as a hand, nest or
    report table does, is written before the reader stops, and the status is
    0" (| head -2). The table went out in flushed pieces of 2048 characters,
    and a report's is longer (3.6 KB for hasbro): a reader that took two lines
    could leave between two pieces, and the next met the closed pipe (status 1)."""
    from rook_analyze.cli.common import _PIECE

    table = run_cli("report", str(dataset)).stdout
    assert len(table) > _PIECE
    proc = subprocess.Popen([sys.executable, "-c", SLOW_STDOUT, "report", str(dataset)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    assert proc.stdout.readline().decode() + proc.stdout.readline().decode() == "".join(
        table.splitlines(keepends=True)[:2])
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert (proc.wait(timeout=120), err) == (0, "")


def _small_dataset(out, deals, rules=RULES, chunk_size=None, parts=None):
    plan = make_plan(rules, deals, seed=3, chunk_size=chunk_size)
    prepare_output(out, plan, resume=False)
    for i in range(plan.chunks) if parts is None else parts:
        write_part(out, i, simulate_chunk(plan, i))
    return out


def test_a_dataset_too_small_to_fit_a_count_is_reported_without_one(tmp_path):
    # one deal is 4 hands, fewer than the count's features + 2: every other
    # section is still there, the count is null and a note says what it needs
    out = _small_dataset(tmp_path / "tiny", 1)
    frame = load_frame(out)
    rep = build_report(out)
    assert rep.count is None and rep.deals == 1 and rep.rows == 4 and rep.complete
    note = rep.count_note
    assert "1 deal, 4 hands" in note and "at least 2 deals, and 4 to score" in note and "simulate more deals" in note
    every, = rep.bid_success.to_dict(orient="records")  # the all-hands row alone: no count to group by
    assert every["bucket"] == "all hands" and every["rows"] == 4 and math.isnan(every["mean_count"])
    for b in rep.bids:
        assert every[f"make_{b}"] == pytest.approx((frame["policy_points"] >= b).mean())
    assert rep.make_by_count.empty
    assert list(rep.positions["rows"]) == [1, 1, 1, 1] and rep.trump_length["rows"].sum() == 4
    stats = dict(zip(rep.trump_choice["statistic"], rep.trump_choice["value"]))
    assert stats["mean points, policy trump"] == pytest.approx(frame["policy_points"].mean())
    count = rep.to_dict()["count"]
    assert count["note"] == note and count["rows"] == 4 and count["weights"] == {}
    assert all(count[k] is None for k in ("formula", "intercept", "r2", "rmse", "mae", "r2_fit"))
    long = rep.to_long()
    assert long[(long["section"] == "count") & (long["column"] == "note")]["value"].tolist() == [note]
    fig = plot_report(rep)
    right = fig.get_axes()[1]
    assert any("no hand count" in t.get_text() and "at least 2 deals" in t.get_text() for t in right.texts)
    assert any("hand count: none" in t.get_text() for t in fig.texts)
    left = fig.get_axes()[0]
    assert [t.get_text() for t in left.get_legend().get_texts()] == ["all hands  (4 hands)", "shaded: 95% interval"]


def test_cli_reports_a_dataset_too_small_to_fit_a_count(tmp_path):
    out = _small_dataset(tmp_path / "tiny", 1)
    note = build_report(out).count_note
    r = run_cli("report", str(out))
    assert r.exit_code == 0 and r.stderr == "", r.output
    assert f"  none: {note}" in r.stdout and "points = " not in r.stdout
    assert "takes about" not in r.stdout  # no count, so no example of reading one
    assert "1 deal x 4 seats" in r.stdout and "(no hand count)" in r.stdout
    assert "Trump choice" in r.stdout and "By the declarer's seat" in r.stdout
    r = run_cli("report", str(out), "--format", "json")
    assert r.exit_code == 0
    doc = json.loads(r.stdout)
    assert doc["count"]["formula"] is None and doc["count"]["r2"] is None and doc["count"]["note"] == note
    assert [x["bucket"] for x in doc["bid_success"]] == ["all hands"] and doc["make_by_count"] == []
    assert len(doc["positions"]) == 4
    r = run_cli("report", str(out), "--format", "csv")
    assert r.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    count = {row["column"]: row["value"] for row in rows if row["section"] == "count"}
    assert count["note"] == note and count["formula"] == "" and count["r2"] == ""
    assert {"bid_success", "trump_choice", "positions"} <= {row["section"] for row in rows}
    path = tmp_path / "tiny.png"
    r = run_cli("report", str(out), "--plot", str(path))
    assert r.exit_code == 0 and path.read_bytes().startswith(b"\x89PNG")


def test_the_deals_a_count_needs_are_what_the_note_says(tmp_path):
    assert deals_needed("hasbro") == (2, 4) and deals_needed("hasbro,seats=3,teams=alone") == (3, 6)
    # 2 deals fit a count, held-out figures need 4: at those sizes they appear
    two = build_report(_small_dataset(tmp_path / "two", 2))
    assert two.count is not None and math.isnan(two.count.rmse)
    assert "the dataset has 2 deals; that needs at least 4" in two.count_note
    four = build_report(_small_dataset(tmp_path / "four", 4))
    assert math.isfinite(four.count.rmse) and four.count_note is None
    assert four.to_dict()["count"]["note"] is None
    # a run stopped short of what its plan would give: finishing it is enough
    part = build_report(_small_dataset(tmp_path / "part", 4, chunk_size=1, parts=[0]))
    assert part.count is None and "finish this run (4 deals planned)" in part.count_note
    r = run_cli("report", str(tmp_path / "part"))
    assert r.exit_code == 0 and "INCOMPLETE: 1 of 4 deals" in r.stdout and "finish this run" in r.stdout
    # a plan of exactly the deals the count needs is enough too: its run is the one to finish
    edge = build_report(_small_dataset(tmp_path / "edge", 2, chunk_size=1, parts=[0]))
    assert edge.count is None and "finish this run (2 deals planned)" in edge.count_note


def test_the_plot_of_an_unfinished_run_says_so(dataset, tmp_path):
    # the table says INCOMPLETE; a plot passed on alone must say it too
    part = build_report(_small_dataset(tmp_path / "part", 4, chunk_size=1, parts=[0, 2]))
    assert not part.complete
    assert "2 deals x 4 seats as declarer (run unfinished: 4 deals planned)" in plot_report(part)._suptitle.get_text()
    assert "unfinished" not in plot_report(build_report(dataset))._suptitle.get_text()


def test_one_bucket_is_the_total_row_alone(dataset):
    table = build_report(dataset, buckets=1).bid_success
    assert list(table["bucket"]) == ["all hands"] and table["rows"].iloc[0] == DEALS * 4
    r = run_cli("report", str(dataset), "--buckets", "1", "--format", "json")
    assert [x["bucket"] for x in json.loads(r.stdout)["bid_success"]] == ["all hands"]
    five = build_report(dataset).bid_success["bucket"].tolist()
    assert five[0].startswith("count < ") and five[-2].startswith("count >= ") and five[-1] == "all hands"
    assert all(" <= count < " in b for b in five[1:-2])


def test_feature_texts_name_the_rules_counters(dataset):
    assert "(5s, 10s, 14s, Rook)" in feature_text(Rules.from_spec("hasbro"))["counters"]
    assert "(5s, 10s, 13s)" in feature_text(Rules.from_spec("dixie40"))["counters"]
    assert "(1s, 5s, 10s, 14s, Rook)" in feature_text(Rules.from_spec("kentucky"))["counters"]
    rep = build_report(dataset)
    assert rep.count.texts["counters"] == feature_text(Rules.from_spec(RULES))["counters"]


def test_two_birds_are_named_as_two(tmp_path):
    # double_bird: the rook feature counts 0 to 2 birds, and the trumps held include both
    assert feature_text(Rules.from_spec("hasbro"))["rook"] == "the Rook held"
    assert feature_text(Rules.from_spec("hasbro,double_bird=true"))["rook"] == "the Rooks held (Rook, Rook2)"
    out = _small_dataset(tmp_path / "two", 8, rules="hasbro,hand_size=3,double_bird=true", chunk_size=8)
    r = run_cli("report", str(out))
    assert r.exit_code == 0, r.output
    assert "(the policy's trump color and the Rooks);" in r.stdout
    assert "the Rook held" not in r.stdout and "and the Rook)" not in r.stdout


def test_feature_texts_say_where_the_rules_top_cards_are():
    # kentucky's 1 ranks above the 14: a run of top cards starts at it, and it is a high card
    from rook_analyze.analysis.features import hand_features

    assert hand_features("kentucky", "B14 B13 R5")["tops"] == 0 and hand_features("kentucky", "B1 B14 R5")["tops"] == 2
    assert hand_features("kentucky", "B1 R5")["high"] == 1
    text = feature_text(Rules.from_spec("kentucky"))
    assert "(1, 14, ...)" in text["tops"] and "(14, 13" not in text["tops"]
    assert "1s" in text["high"]
    for spec in ("hasbro", "dixie40", "full"):  # the 14 on top, the 1 low or absent: as before
        text = feature_text(Rules.from_spec(spec))
        assert "(14, 13, ...)" in text["tops"] and text["high"] == "cards 12 or higher", spec


def test_a_count_on_a_group_edge_falls_in_the_group_it_adds_up_to():
    """48 + 0.6 x 4 + 2.3 x 3 + 0.6 x 4 + 0.3 x 1 is 60 at the table; in binary
    floating point the sum comes to 59.99999999999999, which put the hand in the
    55-59 group of make_by_count and under 'count < 60' in bid_success."""
    from rook_analyze.analysis.report import HandCount, bid_success, make_by_count

    count = HandCount(48.0, {"counters": 0.4, "rook": 13.0, "longest": 0.6, "tops": 2.3, "high": 0.6,
                             "voids": 0.3}, r2=0.0, rmse=0.0, mae=0.0, r2_fit=0.0, n=0, target="policy_points")
    edge = {"counters": 0, "rook": 0, "longest": 4, "tops": 3, "high": 4, "voids": 1}  # counts 60
    low = {"counters": 0, "rook": 0, "longest": 1, "tops": 0, "high": 0, "voids": 0}   # counts 48.6
    frame = pd.DataFrame([dict(edge, policy_points=80)] * 20 + [dict(low, policy_points=40)] * 20)
    pred = count.predict(frame)
    assert (pred.iloc[:20] == 60).all()
    table = make_by_count(frame, pred, [70], "policy_points")
    assert list(table["count"]) == [45, 60] and list(table["rows"]) == [20, 20]
    assert list(table["make_70"]) == [0.0, 1.0]
    buckets = bid_success(frame, pred, [70], "policy_points", buckets=3)  # edges 50 and 60
    assert list(buckets["bucket"]) == ["count < 50", "count >= 60", "all hands"]
    assert list(buckets["rows"]) == [20, 20, 40] and list(buckets["make_70"]) == [0.0, 1.0, 0.5]


def test_longest_color_counts_as_a_best_trump_when_it_ties():
    """Where the longest color ties for the most points it is a best trump, as the
    policy's trump is counted in a tie; the dataset's best_trump column gives ties
    to the policy's trump, so it cannot say whether the longest color was best."""
    from rook_analyze.analysis.report import trump_choice

    rules = Rules.from_spec(RULES)
    rows = [  # policy B; longest R ties with B for the best / is below it / is the one best
        dict(policy_trump="B", longest_color="R", points_B=80, points_R=80, points_Y=60, points_G=50),
        dict(policy_trump="B", longest_color="R", points_B=80, points_R=70, points_Y=60, points_G=50),
        dict(policy_trump="B", longest_color="R", points_B=70, points_R=80, points_Y=60, points_G=50),
        dict(policy_trump="R", longest_color="R", points_B=80, points_R=80, points_Y=60, points_G=50),
    ]
    frame = pd.DataFrame(rows)
    pts = frame[[f"points_{t}" for t in "BRYG"]]
    frame["best_points"] = pts.max(axis=1)
    frame["best_trump"] = ["B", "B", "R", "R"]  # ties to the policy's trump, as simulate writes it
    frame["policy_points"] = [r[f"points_{r['policy_trump']}"] for r in rows]
    stats = trump_choice(frame, rules, rules.min_bid).set_index("statistic")["value"]
    assert stats["policy trump is a best trump"] == 3 / 4
    assert stats["policy trump is the dealt hand's longest color (equal lengths: the higher top card)"] == 1 / 4
    assert stats["the dealt hand's longest color (equal lengths: the higher top card) is a best trump"] == 3 / 4
    assert stats["mean cost of the policy trump"] == 10 / 4
    assert stats["cost of 10 points or more"] == 1 / 4  # the third row's 10 counts


def test_positions_name_each_seat_by_where_it_sits_from_the_dealer(dataset):
    # W deals: N (left of W) bids first, E sits across from W as its partner (N-S against E-W),
    # S is right of the dealer and W the dealer itself
    seats = build_report(dataset).positions.set_index("position")["seat"]
    assert dict(seats) == {1: "left of dealer (bids first)", 2: "dealer's partner", 3: "right of dealer",
                           4: "dealer"}


def test_a_trick_below_the_best_is_no_best_trump_where_points_are_tricks():
    """bridge's points are tricks: a policy trump one trick below the best is a
    cost (not a best trump), and two tricks are the costly choice."""
    from rook_analyze.analysis.report import trump_choice

    frame = pd.DataFrame({"policy_trump": ["B", "R", "Y", "G"], "policy_points": [7, 6, 5, 7],
                          "best_points": [7, 7, 7, 8]})
    stats = trump_choice(frame, "bridge", None).set_index("statistic")["value"]
    assert stats["policy trump is a best trump"] == 1 / 4
    assert stats["mean cost of the policy trump"] == 1.0
    assert stats["cost of 2 points or more"] == 1 / 4


def test_trump_length_counts_the_policy_color_and_the_birds():
    """Points by trumps held: the dealt hand's cards of the policy's trump
    color plus its birds, each row in the group of its count."""
    rules = Rules.from_spec(RULES)
    frame = pd.DataFrame({
        "policy_trump": ["B", "R", "B", "G", "Y"],
        "len_B": [3, 1, 2, 0, 0], "len_R": [0, 2, 1, 1, 1], "len_Y": [1, 1, 1, 2, 4], "len_G": [1, 1, 0, 2, 0],
        "rook": [0, 1, 1, 0, 0],
        "policy_points": [60, 70, 80, 30, 100],
    })
    table = trump_length(frame, rules, "policy_points", [70, 75, 80]).set_index("trumps")
    # trumps held: 3, 2 + 1, 2 + 1, 2, 4
    assert list(table.index) == [2, 3, 4]
    assert list(table["rows"]) == [1, 3, 1] and list(table["share"]) == [0.2, 0.6, 0.2]
    assert table.loc[3, "mean_points"] == pytest.approx(70) and table.loc[2, "mean_points"] == 30
    assert table.loc[3, "make_70"] == pytest.approx(2 / 3) and table.loc[3, "make_80"] == pytest.approx(1 / 3)


def test_table_names_the_absolute_error(dataset):
    """The count's third error figure is the mean absolute error (the signed mean
    error of a least-squares fit is about 0): the table says which it is."""
    rep = build_report(dataset)
    res = run_cli("report", str(dataset))
    assert res.exit_code == 0, res.output
    assert f"mean absolute error {rep.count.mae:.1f} points" in res.output


def test_bridge_counts_are_grouped_by_one_trick(tmp_path):
    # bridge's points are tricks (0-13 at most): groups on multiples of 5 would be a single group
    out = tmp_path / "bridge"
    plan = make_plan("bridge,hand_size=6", 40, seed=3, chunk_size=40)
    prepare_output(out, plan, resume=False)
    write_part(out, 0, simulate_chunk(plan, 0))
    rep = build_report(out, buckets=4)
    assert rep.count_step == 1 and count_step("bridge") == 1 and count_step("hasbro") == 5
    groups = rep.bid_success[rep.bid_success["bucket"] != "all hands"]
    assert len(groups) >= 3 and groups["rows"].sum() == rep.rows
    assert len(rep.make_by_count) >= 3 and (rep.make_by_count["count"].diff().dropna() == 1).all()
    r = run_cli("report", str(out))
    assert r.exit_code == 0 and "one row a count" in r.stdout


def test_the_by_count_header_places_the_counts_that_are_not_whole(dataset):
    """The rows of make_by_count hold every count from theirs up to the next row's: counts are rarely
    whole (0.7 x longest), and a hand that counts 84.6 is in row 80. The table's header said
    'count 65 = 65 to 69', where 84.6 is in no row of its own reading."""
    rep = build_report(dataset)
    pred = rep.count.predict(load_frame(dataset))
    assert ((pred - 5 * np.floor(pred / 5)) > 4).any()  # counts past the old label's end: they are there
    text = run_cli("report", str(dataset)).stdout
    assert "(count 65 = 65 to under 70;" in text and "65 to 69" not in text


def test_table_functions_take_rules_as_text_and_check_the_target(dataset):
    frame, rules = load_frame(dataset), Rules.from_spec(RULES)
    assert trump_choice(frame, RULES, 70).equals(trump_choice(frame, rules, 70))
    assert by_position(frame, RULES, "policy_points", [70]).equals(by_position(frame, rules, "policy_points", [70]))
    assert feature_text(RULES) == feature_text(rules)
    count = pd.Series(0.0, index=frame.index)
    for call in (lambda: bid_success(frame, count, [70], "nosuch"), lambda: make_by_count(frame, count, [70], "nosuch"),
                 lambda: by_position(frame, rules, "nosuch", [70]), lambda: trump_length(frame, rules, "nosuch", [70])):
        with pytest.raises(SimulationError, match="'nosuch'"):
            call()


def test_table_wording_follows_the_rules(tmp_path, dataset):
    # the example count is on the dataset's own scale: its mean points over all hands
    mean = build_report(dataset).bid_success["mean_points"].iloc[-1]
    text = run_cli("report", str(dataset)).stdout
    assert f"so a hand that counts {round(mean)} takes about {round(mean)} on average" in text
    assert "the trump the nest policy names and the policy's discards" in text
    assert "cost of 10 points or more" in text
    # bridge (5 cards a hand, to be quick): no nest and no counters (its points are tricks)
    out = _small_dataset(tmp_path / "bridge", 8, rules="bridge,numbers=10-14", chunk_size=8)
    r = run_cli("report", str(out))
    assert r.exit_code == 0, r.output
    assert f"points with the trump the policy names (policy: {POLICY_REVISION})." in r.stdout
    assert "nest" not in r.stdout
    assert "cost of 2 points or more" in r.stdout
    mean = build_report(out).bid_success["mean_points"].iloc[-1]
    assert f"so a hand that counts {round(mean)} takes about" in r.stdout and round(mean) <= 5




@pytest.mark.parametrize("buckets", [1, 5, 10])
def test_plot_keeps_everything_inside_a_plain_savefig(dataset, buckets):
    """The library's Figure saved as the README shows (``savefig`` alone, no
    tight bounding box): the count's formula at the foot and the axis labels
    stay inside it, and the legends (below the panels) cover neither panel."""
    fig = plot_report(build_report(dataset, buckets=buckets))
    assert outside(fig) == []
    texts = [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text"))]
    assert any(t.startswith("hand count: ") for t in texts)  # the formula the legend's title points to
    left, right = fig.get_axes()
    for ax in (left, right):
        box = ax.get_legend().get_window_extent()
        assert not any(box.overlaps(other.get_window_extent()) for other in (left, right)), ax.get_title()


def test_plot_curves_carry_their_95_percent_bands(dataset):
    """Each curve has its band (the interval the table gives), and the legends say what the shading is."""
    from matplotlib.collections import PolyCollection

    rep = build_report(dataset)
    fig = plot_report(rep)
    for ax in fig.get_axes():
        curves = [line for line in ax.get_lines() if not line.get_label().startswith(("_", "even chance"))]
        bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
        assert len(bands) == len(curves) >= 2, ax.get_title()
        assert "shaded: 95% interval" in [t.get_text() for t in ax.get_legend().get_texts()]
    # the all-hands curve's band runs along its intervals (a deal's hands counted together)
    every = rep.bid_success[rep.bid_success["bucket"] == "all hands"].iloc[0]
    left = fig.get_axes()[0]
    (k,) = [i for i, line in enumerate(left.get_lines()) if line.get_label().startswith("all hands")]
    ys = set(np.round(left.collections[k].get_paths()[0].vertices[:, 1], 9))
    for b in rep.bids:
        assert round(100 * every[f"make_{b}_lo"], 9) in ys and round(100 * every[f"make_{b}_hi"], 9) in ys, b


def test_plot_bid_labels_never_run_into_each_other(dataset):
    # 60 bid levels (min_bid=5, max_bid=300): rotated labels on every level overlapped
    rep = build_report(dataset)
    frame = load_frame(dataset)
    count = rep.count.predict(frame)
    bids = list(range(5, 305, 5))
    many = dataclasses.replace(rep, bids=tuple(bids),
                               bid_success=bid_success(frame, count, bids, "policy_points"),
                               make_by_count=make_by_count(frame, count, bids, "policy_points"))
    fig = plot_report(many)
    fig.canvas.draw()
    left = fig.get_axes()[0]
    assert set(left.get_xticks()) <= set(bids) and 2 <= len(left.get_xticks()) <= 13
    boxes = [t.get_window_extent() for t in left.get_xticklabels() if t.get_visible() and t.get_text()]
    assert all(a.x1 < b.x0 for a, b in zip(boxes, boxes[1:]))
    assert list(plot_report(rep).get_axes()[0].get_xticks()) == list(rep.bids)  # hasbro's 11: every one


def test_plot_of_a_game_without_an_auction_speaks_of_tricks(dataset):
    rep = build_report(dataset)
    fig = plot_report(dataclasses.replace(rep, rules="bridge"))
    left, right = fig.get_axes()
    assert "tricks" in left.get_xlabel() and "points" not in left.get_xlabel()
    assert all(t.get_text().endswith(" tricks") for t in right.get_legend().get_texts()[:4])


def test_many_report_plots_leave_no_figure_open(dataset):
    rep = build_report(dataset)
    assert leaves_no_figure_open(lambda: plot_report(rep))


def test_a_hand_count_compares_by_value_and_says_it_is_unhashable():
    """Two counts with the same figures are equal; hash() names the type, as for
    a dict (its weights), rather than failing on a field inside."""
    from rook_analyze.analysis.report import HandCount

    def count(rook):
        return HandCount(30.0, {"counters": 0.5, "rook": rook}, r2=0.4, rmse=11.0, mae=9.0, r2_fit=0.45,
                         n=400, target="policy_points")

    assert count(12.0) == count(12.0) and count(12.0) != count(13.0)
    with pytest.raises(TypeError, match="unhashable type: 'HandCount'"):
        hash(count(12.0))


def test_a_hand_count_on_a_text_column_names_it():
    # numpy's "could not convert string to float: 'Rook B9 ...'" named no column
    frame = pd.DataFrame({"counters": [5, 10, 15, 20, 25, 30], "hand": ["B14 R5"] * 6,
                          "policy_points": [40, 45, 60, 70, 75, 90]})
    with pytest.raises(SimulationError, match=re.escape("column 'hand' does not hold numbers")):
        fit_count(frame, features=["counters", "hand"])
    with pytest.raises(SimulationError, match="column 'hand' does not hold numbers"):
        fit_count(frame, features=["counters"], target="hand")


@pytest.mark.parametrize("call, words", [
    (lambda f: bid_success(f, [1, 2], [70], "policy_points"), "count [1, 2]: expected a number for each row"),
    (lambda f: bid_success(f, None, "70", "policy_points"), "bids '70': expected a list of bid levels"),
    (lambda f: make_by_count(f, ["a"] * len(f), [70], "policy_points"), "count ['a', 'a', 'a', 'a']: expected"),
    (lambda f: trump_choice(None, "hasbro", 70), "frame NoneType: expected a pandas DataFrame"),
    (lambda f: trump_choice(f.drop(columns="best_points"), "hasbro", 70), "frame: no column 'best_points'"),
    (lambda f: trump_choice(f, "hasbro", "70"), "min_bid '70': expected a bid level"),
    (lambda f: trump_length(f, "hasbro", "policy_points", 70), "bids 70: expected a list of bid levels"),
    (lambda f: by_position(f.drop(columns="side_leads"), "hasbro", "policy_points", [70]),
     "frame: no column 'side_leads'"),
    # a count with NaN or inf: "cannot convert float NaN to integer" from the buckets
    (lambda f: bid_success(f, [np.nan] * len(f), [70], "policy_points"), "count [nan, nan, nan, nan]: expected a "
                                                                           "finite number"),
    (lambda f: make_by_count(f, [1.0, np.inf, 2.0, 3.0], [70], "policy_points"), "count [1.0, inf, 2.0, 3.0]"),
    # no rows: numpy's IndexError from the bucket edges, or tables of NaN
    (lambda f: bid_success(f.iloc[:0], [], [70], "policy_points"), "frame: no rows"),
    (lambda f: bid_success(f.iloc[:0], None, [70], "policy_points"), "frame: no rows"),
    (lambda f: trump_choice(f.iloc[:0], "hasbro", 70), "frame: no rows"),
    (lambda f: by_position(f.iloc[:0], "hasbro", "policy_points", [70]), "frame: no rows"),
])
def test_the_tables_name_a_wrong_argument(call, words):
    """The report's tables, called from Python with a wrong argument: one
    error that quotes it, where AttributeError, KeyError or numpy's own came."""
    frame = pd.DataFrame({"policy_points": [50, 60, 70, 80], "best_points": [60, 60, 70, 90],
                          "policy_trump": list("BRYG"), "position": [1, 2, 3, 4], "seat": list("NESW"),
                          "declarer_leads": [True, False, False, False], "side_leads": [True, False, True, False]})
    assert len(bid_success(frame, [1.0, 2.0, 3.0, 4.0], [70], "policy_points")) >= 1  # a plain list of counts
    with pytest.raises(SimulationError, match=re.escape(words)):
        call(frame)


def test_make_interval_takes_yes_or_no_a_hand():
    # points passed by mistake (made = [2, 0.5]) were taken as True, and gave an interval
    assert make_interval([1, 0, 1, 1], [0, 0, 1, 1]) == make_interval([True, False, True, True], [0, 0, 1, 1])
    with pytest.raises(SimulationError, match=re.escape("made [2, 0.5]: expected True/False (or 1/0) a hand")):
        make_interval([2, 0.5], [1, 2])


def test_the_report_document_is_strict_json(tmp_path):
    """A dataset too small for a hand count has a NaN mean count in
    ``bid_success``: ``to_dict`` says null, as json has no NaN (the CLI's
    json said so already; a library caller's ``json.dumps`` wrote NaN)."""
    out = tmp_path / "one"
    plan = make_plan(RULES, 1, seed=3, chunk_size=1)
    prepare_output(out, plan, resume=False)
    write_part(out, 0, simulate_chunk(plan, 0))
    rep = build_report(out)
    assert rep.count is None and np.isnan(rep.bid_success["mean_count"].iloc[0])
    doc = json.loads(json.dumps(rep.to_dict(), allow_nan=False))
    assert doc["bid_success"][0]["mean_count"] is None
    assert doc["bid_success"][0]["rows"] == 4


def test_a_small_negative_weight_is_written_as_zero_not_minus_zero():
    # a fitted weight of -0.034 rounds to one decimal as -0.0, which json and csv wrote as "-0.0"
    # (a dixie40 dataset's counters); the table already left it out of the formula
    from rook_analyze.analysis.report import _round_weights

    g = np.array([[10.0, 30.0], [30.0, 100.0]])  # 10 rows, the feature summing to 30
    b = np.array([500.0, 1500.0])
    intercept, weights = _round_weights(np.array([50.0, -0.034]), ["counters"], g, b)
    assert weights == {"counters": 0.0} and math.copysign(1.0, weights["counters"]) == 1.0
    assert json.dumps(weights) == '{"counters": 0.0}' and intercept == 50.0


def test_every_bid_column_of_the_table_view_says_it_is_a_chance_to_make(dataset):
    """The trump-length and seat sections show a few bids as bare column headings
    (70, 95, 120): their headers say those are chances to make the bid, in %, as
    the bid-success sections' headers do."""
    text = run_cli("report", str(dataset)).stdout
    trumps = next(ln for ln in text.splitlines() if ln.startswith("By trumps in the dealt hand"))
    seats = next(ln for ln in text.splitlines() if ln.startswith("By the declarer's seat"))
    assert "70, 95, 120: chance to make the bid (% of hands):" in trumps
    assert "70, 95: chance to make the bid (% of hands):" in seats


def test_the_policy_trump_counts_as_a_longest_color_where_lengths_tie():
    """A hand with two colors of the longest length: longest_color names one (the higher
    top card); the policy's trump of the other length-tied color is still a longest color,
    and the labels say which reading each statistic takes."""
    from rook_analyze.analysis.report import trump_choice

    rules = Rules.from_spec(RULES)
    frame = pd.DataFrame({  # B and R both 3 long, longest_color R; policy B / R / Y (2 long)
        "policy_trump": ["B", "R", "Y"], "longest_color": ["R", "R", "R"],
        "len_B": [3, 3, 3], "len_R": [3, 3, 3], "len_Y": [2, 2, 2], "len_G": [1, 1, 1],
        "points_B": [80, 80, 80], "points_R": [80, 80, 80], "points_Y": [80, 80, 80], "points_G": [80, 80, 80],
    })
    frame["best_points"] = 80
    frame["policy_points"] = 80
    stats = trump_choice(frame, rules, rules.min_bid).set_index("statistic")["value"]
    assert stats["policy trump is the dealt hand's longest color (equal lengths: the higher top card)"] == 1 / 3
    assert stats["policy trump is a longest color of the dealt hand (equal lengths count)"] == 2 / 3


def test_trump_length_counts_the_color_of_the_targets_trump():
    """Under best_points the trumps held are those of the best trump's color
    (the points are that trump's), under points_<trump> those of that color;
    the policy's trump color would group these hands otherwise."""
    rules = Rules.from_spec(RULES)
    frame = pd.DataFrame({
        "policy_trump": ["B", "R", "B", "G"],
        "best_trump": ["R", "R", "Y", "B"],
        "len_B": [3, 1, 2, 0], "len_R": [1, 2, 1, 1], "len_Y": [1, 1, 4, 2], "len_G": [1, 1, 0, 2],
        "rook": [0, 1, 1, 0],
        "policy_points": [60, 70, 80, 30], "best_points": [65, 70, 90, 40], "points_Y": [50, 55, 90, 20],
    })
    best = trump_length(frame, rules, "best_points", [70]).set_index("trumps")
    # best trump's color held: R 1, R 2 + 1, Y 4 + 1, B 0
    assert dict(best["rows"]) == {0: 1, 1: 1, 3: 1, 5: 1}
    assert best.loc[5, "mean_points"] == 90 and best.loc[0, "mean_points"] == 40
    policy = trump_length(frame, rules, "policy_points", [70]).set_index("trumps")
    # the policy's color: B 3, R 2 + 1, B 2 + 1, G 2
    assert dict(policy["rows"]) == {2: 1, 3: 3}
    fixed = trump_length(frame, rules, "points_Y", [70]).set_index("trumps")
    # Y held: 1, 1 + 1, 4 + 1, 2
    assert dict(fixed["rows"]) == {1: 1, 2: 2, 5: 1}
    with pytest.raises(SimulationError, match="best_trump"):
        trump_length(frame.drop(columns="best_trump"), rules, "best_points", [70])
