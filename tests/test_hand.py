"""The Monte Carlo bid advisor (analysis.hand) and ``rook-analyze hand``."""

from __future__ import annotations

import csv
import errno
import io
import json
import math
import os
import stat
from pathlib import Path

import numpy as np
import pytest

from clirunner import CliRunner
from figures import leaves_no_figure_open, outside
from rook_analyze.analysis.hand import (DECISION_RULE, Recommendation, analyze_hand, bid_table, deciding_bids,
                                        recommend, settled, wilson)
from rook_analyze.analysis.policy import DEFAULT_POLICY, take_nest
from rook_analyze.analysis.sampling import DealSampler
from rook_analyze.cli.main import main
from rook_analyze.solver import COLORS, ConstraintError, Hand, Rules, RulesError, random_deal, solve

# A short game keeps the solver quick: hasbro's deck and rules, 5 cards a seat
# (the 16 cards left over are out of play, unseen).
SMALL = Rules.from_spec("hasbro,hand_size=5,min_bid=40,max_bid=120")
SMALL_HAND = "B14 R12 Y9 G6 G8"

# issue 4's hands: the Rook, seven cards of one color from the top and all the
# counters the rest can hold; and no counters, no Rook, no length. (95 points
# in counters is more than such a hand holds: 90 under full, 50 under hasbro.)
STRONG = "Rook B14 B13 B12 B11 B10 B9 B8 R14"
WEAK = "B8 B7 B6 R7 R6 Y7 G6"
WEAK_RULES = "hasbro,hand_size=7"


@pytest.fixture(scope="module")
def small_report():
    return analyze_hand(SMALL_HAND, SMALL, seat="E", dealer="N", samples=40, seed=3)


def test_report_shape(small_report):
    rep = small_report
    assert rep.samples == 40 and rep.seed == 3
    assert list(rep.trumps["trump"]) == list(COLORS)
    assert list(rep.bids["bid"]) == SMALL.bid_levels()
    assert math.isclose(rep.trumps["best_share"].sum(), 1.0)
    assert math.isclose(rep.trumps["policy_share"].sum(), 1.0)
    assert (rep.trumps["cost"] >= 0).all()
    assert rep.leader == "E"  # left of dealer N
    doc = rep.to_dict()
    for key in ("hand", "rules", "samples", "seed", "trumps", "bids", "recommendation"):
        assert key in doc
    assert set(doc["trumps"][0]) >= {"trump", "mean", "se", "best_share"}
    assert set(doc["bids"][0]) >= {"bid", "p_make", "ev"}
    # the recommendation follows DECISION_RULE on the bids table, and the trump with the best mean
    # (the first in B R Y G order among equals)
    qualify = [b["bid"] for b in doc["bids"] if b["p_make"] >= 0.5 and b["ev"] >= 0]
    assert doc["recommendation"]["bid"] == (max(qualify) if qualify else None)
    best_mean = max(t["mean"] for t in doc["trumps"])
    assert doc["recommendation"]["trump"] == next(t["trump"] for t in doc["trumps"] if t["mean"] == best_mean)
    json.dumps(doc)
    # the README lists the document's keys, in order
    import re
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    listed = readme.split("`--format json` gives `", 1)[1].split("`", 1)[0]
    listed = re.sub(r"\[[^\]]*\]|\{[^}]*\}", "", listed)
    assert [k.split(":")[0].strip() for k in listed.split(",")] == list(doc)


def test_p_make_never_rises_with_the_bid(small_report):
    p = small_report.bids["p_make"].to_numpy()
    assert np.all(np.diff(p) <= 0)
    ev = small_report.bids["ev"].to_numpy()
    assert np.all(np.diff(ev) <= 0)


def test_figures_equal_direct_solver_calls(small_report):
    """Every figure of the trumps and bids tables, worked out again here from
    direct solver calls on the same sampled deals (README: best_share shares a
    tied sample, cost is the mean loss against each sample's best trump)."""
    rep = small_report
    sampler = DealSampler(SMALL, "E", SMALL_HAND)
    own = []
    net_at = {b: [] for b in SMALL.bid_levels()}
    by_trump = []   # a row a sample: the declaring side's points under B, R, Y, G
    named = []      # the trump the policy names in each sample
    for i, row in rep.detail.iterrows():
        deal = sampler.deal(i, rep.seed)
        assert deal.rdn() == row["deal"]
        cards = deal.hands[1] | deal.nest
        assert DEFAULT_POLICY.trump(cards, SMALL) == row["trump"]
        named.append(row["trump"])
        pts = []
        for t in COLORS:
            played = take_nest(deal, 1, DEFAULT_POLICY.discard(cards, t, SMALL))
            r = solve(played, t, "E", dealer="N")
            assert r.declarer_points == row[f"points_{t}"]
            pts.append(r.declarer_points)
            if t == row["trump"]:
                assert r.defender_points == row["defender_points"]
                own.append(r.declarer_points)
                for b in net_at:
                    net_at[b].append((r.declarer_points if r.declarer_points >= b else -b) - r.defender_points)
        by_trump.append(pts)
    own = np.array(own)
    by_trump = np.array(by_trump, float)
    n = len(by_trump)
    best = by_trump.max(axis=1)
    for k, t in enumerate(COLORS):
        col = by_trump[:, k]
        row = rep.trumps.set_index("trump").loc[t]
        assert math.isclose(row["mean"], col.mean())
        assert math.isclose(row["se"], col.std(ddof=1) / math.sqrt(n))
        share = sum(1 / np.sum(by_trump[i] == best[i]) for i in range(n) if col[i] == best[i]) / n
        assert math.isclose(row["best_share"], share)
        assert math.isclose(row["policy_share"], named.count(t) / n)
        assert math.isclose(row["cost"], float(np.mean(best - col)), abs_tol=1e-12)
    assert len(set(named)) > 1 and (rep.trumps["cost"] > 0).any()  # the shares and costs say something here
    for _, row in rep.bids.iterrows():
        b = int(row["bid"])
        p = float(np.mean(own >= b))
        assert math.isclose(row["p_make"], p)
        assert math.isclose(row["p_make_se"], math.sqrt(p * (1 - p) / n), abs_tol=1e-12)
        net = np.array(net_at[b], float)
        assert math.isclose(row["ev"], float(net.mean()))
        assert math.isclose(row["ev_se"], float(net.std(ddof=1) / math.sqrt(n)))


def test_reproducible_whatever_the_threads(small_report):
    # the fixture ran on default_threads(); here one and three threads, each
    # saying its progress (issue 4: progress and results whatever the core count)
    said = {1: [], 3: []}
    runs = {k: analyze_hand(SMALL_HAND, SMALL, seat="E", dealer="N", samples=40, seed=3, threads=k,
                            progress=said[k].append) for k in said}
    for k, again in runs.items():
        assert again.detail.equals(small_report.detail), k
        assert again.bids.equals(small_report.bids), k
        assert again.trumps.equals(small_report.trumps), k
        assert again.recommendation == small_report.recommendation, k
        assert again == small_report, k   # the whole report, its DataFrames by DataFrame.equals
        assert sum(said[k]) == 40 * 4 and all(x > 0 for x in said[k]), k   # 4 solves a sample, as documented
    other = analyze_hand(SMALL_HAND, SMALL, seat="E", dealer="N", samples=40, seed=4, threads=2)
    assert not other.detail["deal"].equals(small_report.detail["deal"])
    assert other != small_report and small_report != "a report"
    with pytest.raises(TypeError, match="unhashable"):   # as DataFrames are
        hash(small_report)


def test_precision_stops_early_on_the_same_samples():
    full = analyze_hand(SMALL_HAND, SMALL, samples=300, seed=5)
    early = analyze_hand(SMALL_HAND, SMALL, samples=300, seed=5, precision=50.0)
    assert early.samples == 100  # the first round already meets a loose precision
    assert early.detail.equals(full.detail.iloc[:100])
    assert early.settled is True and full.settled is None
    capped = analyze_hand(SMALL_HAND, SMALL, samples=20, seed=5, precision=0.01)
    assert capped.samples == 20 and capped.settled is False  # the cap, not the precision, stopped it
    assert capped.to_dict()["settled"] is False


def _deciding_rows(report):
    bids = report.bids.set_index("bid")
    levels = list(bids.index)
    k = levels.index(report.recommendation.bid)
    return bids.loc[levels[k]], bids.loc[levels[k + 1]]


def _trump_leads(report):
    """The recommended trump's lead over each other trump: (mean, standard error) from the samples."""
    best = report.detail[f"points_{report.recommendation.trump}"].to_numpy(float)
    out = {}
    for t in "BRYG":
        if t != report.recommendation.trump:
            lead = best - report.detail[f"points_{t}"].to_numpy(float)
            out[t] = (lead.mean(), lead.std(ddof=1) / math.sqrt(len(lead)))
    return out


def test_precision_stops_once_the_bid_and_trump_are_decided():
    # a clear hand stops as soon as its intervals decide the bid and the trump, long before
    # ev's standard error comes down to a tiny precision
    r = analyze_hand("Rook B14 B13 B12 B10", SMALL, samples=500, seed=5, precision=0.01)
    assert r.samples == 200 and r.settled is True
    at, above = _deciding_rows(r)
    assert at.p_make_lo >= 0.5 and at.ev_lo >= 0          # the recommended bid passes the rule clearly
    assert above.p_make_hi < 0.5 or above.ev_hi < 0       # the next one up fails it clearly
    assert at.ev_se > 0.01 and above.ev_se > 0.01         # not by the precision: by the decision
    assert all(mean - 1.96 * se > 0 for mean, se in _trump_leads(r).values())
    # the same samples as a run without the precision
    whole = analyze_hand("Rook B14 B13 B12 B10", SMALL, samples=200, seed=5)
    assert r.detail.equals(whole.detail) and r.recommendation == whole.recommendation


def test_precision_keeps_sampling_while_the_trump_is_open():
    # four 14s and the Rook: the bid is decided at 200 samples, the trump is a toss-up
    loose = analyze_hand("Rook B14 R14 Y14 G14", SMALL, samples=500, seed=5, precision=2.0)
    assert loose.samples == 200 and loose.settled is True
    at, above = _deciding_rows(loose)
    assert at.p_make_lo >= 0.5 and at.ev_lo >= 0 and (above.p_make_hi < 0.5 or above.ev_hi < 0)
    leads = _trump_leads(loose)
    assert any(mean - 1.96 * se <= 0 for mean, se in leads.values())  # not decided...
    assert all(se <= 2.0 for _, se in leads.values())                  # ...but pinned within 2 points
    tight = analyze_hand("Rook B14 R14 Y14 G14", SMALL, samples=500, seed=5, precision=0.01)
    assert tight.samples == 500 and tight.settled is False


def test_precision_keeps_sampling_while_the_bid_is_close():
    # ev at the recommended bid straddles 0 with a standard error above the precision
    r = analyze_hand("B6 R7 Y8 G6 G7", SMALL, samples=300, seed=1, precision=2.0)
    assert r.samples == 300 and r.settled is False
    at = r.bids.set_index("bid").loc[r.recommendation.bid]
    assert at.ev_lo < 0 <= at.ev and at.ev_se > 2.0


class _FakeClock:
    """time.monotonic for analysis.hand: every sample solved takes half a second."""

    def __init__(self):
        self.now = 100.0

    def monotonic(self):
        return self.now


def test_a_large_run_is_dealt_and_solved_in_bounded_rounds_with_the_same_figures(monkeypatch):
    # every sample was dealt (with its four after-nest deals) before the first solve: a million
    # samples took minutes of dealing with the progress bar at 0
    from rook_analyze.analysis import hand as hand_mod

    whole = analyze_hand(SMALL_HAND, SMALL, samples=7, seed=5)
    rounds = []
    real_round = hand_mod._run_round

    def counted_round(sampler, seed, start, count, *args, **kw):
        rounds.append((start, count))
        real_round(sampler, seed, start, count, *args, **kw)

    monkeypatch.setattr(hand_mod, "_run_round", counted_round)
    monkeypatch.setattr(hand_mod, "MAX_ROUND", 3)
    parts = analyze_hand(SMALL_HAND, SMALL, samples=7, seed=5)
    assert rounds == [(0, 3), (3, 3), (6, 1)]
    assert parts.detail.equals(whole.detail) and parts.bids.equals(whole.bids)
    assert parts.trumps.equals(whole.trumps) and parts.recommendation == whole.recommendation


def test_time_limit_sizes_rounds_to_the_time_left_and_keeps_the_same_samples(monkeypatch):
    from rook_analyze.analysis import hand as hand_mod

    clock = _FakeClock()
    rounds = []
    real_round = hand_mod._run_round

    def timed_round(sampler, seed, start, count, *args, deadline=None):
        # the fake clock's deadline means nothing to solve_batch's timer: the round runs whole
        rounds.append(count)
        real_round(sampler, seed, start, count, *args)
        clock.now += 0.5 * count

    monkeypatch.setattr(hand_mod, "time", clock)
    monkeypatch.setattr(hand_mod, "_run_round", timed_round)
    timed = analyze_hand(SMALL_HAND, SMALL, samples=10_000, seed=5, threads=2, time_limit=10)
    # a round is a third of the time left at the rate so far (2 samples a
    # second), one sample a thread at least: at 0 s (no rate yet) one sample,
    # at 0.5 s 2 * 9.5 / 3 -> 6, at 3.5 s 2 * 6.5 / 3 -> 4, at 5.5 s 3, at 7 s
    # 2, then 2 (at 8 and 9 s); at 10 s the limit has passed and no round starts
    assert rounds == [1, 6, 4, 3, 2, 2, 2]
    assert timed.samples == 20 and timed.timed_out is True and timed.time_limit == 10
    doc = timed.to_dict()
    assert (doc["time_limit"], doc["timed_out"]) == (10, True)
    # what the report says repeats it: the same seed, that many samples
    monkeypatch.setattr(hand_mod, "_run_round", real_round)
    again = analyze_hand(SMALL_HAND, SMALL, samples=20, seed=5)
    assert again.detail.equals(timed.detail) and again.bids.equals(timed.bids)
    assert again.timed_out is None and again.to_dict()["time_limit"] is None
    # the cap comes first: every sample solved, not timed out
    monkeypatch.setattr(hand_mod, "_run_round", timed_round)
    rounds.clear()
    capped = analyze_hand(SMALL_HAND, SMALL, samples=7, seed=5, threads=2, time_limit=1e6)
    assert capped.samples == 7 and capped.timed_out is False and sum(rounds) == 7
    assert capped.detail.equals(again.detail.iloc[:7])
    # a precision met first stops it where it would without the limit: it is
    # judged on whole hundreds (not after the first round's one sample)
    rounds.clear()
    early = analyze_hand(SMALL_HAND, SMALL, samples=300, seed=5, precision=50.0, time_limit=1e6)
    assert early.samples == 100 and early.settled is True and early.timed_out is False
    assert rounds == [1, 99]
    # and rounds the limit shrinks (1, 6, 4, ...) are no hundred: a precision that 7 samples
    # would meet does not stop the run there, the limit does (at 20 samples)
    rounds.clear()
    clock.now = 100.0
    loose = analyze_hand(SMALL_HAND, SMALL, samples=300, seed=5, threads=2, precision=50.0, time_limit=10)
    assert rounds == [1, 6, 4, 3, 2, 2, 2]
    assert loose.samples == 20 and loose.timed_out is True


def test_time_limit_stops_a_round_part_way_and_keeps_its_whole_samples(monkeypatch):
    # the limit passes while the second round solves: its searches stop, and the samples before the
    # first one some trump left unsolved are kept, so the report is the seed's first samples
    from rook_analyze.analysis import hand as hand_mod
    from rook_analyze.solver.api import UNSOLVED

    clock = _FakeClock()
    real_batch = hand_mod.solve_batch
    deadlines = []
    sizes = []

    def batch(played, trumps, *args, deadline=None, **kw):
        out = real_batch(played, trumps, *args, **kw)
        deadlines.append(deadline)
        sizes.append(len(played) // len(SMALL.trumps))
        if deadline is not None:
            out[3 * len(SMALL.trumps) + 2] = UNSOLVED  # the fourth sample's third trump: past the limit
            out[5 * len(SMALL.trumps)] = UNSOLVED
        clock.now += 0.5 * len(played) / len(SMALL.trumps)
        return out

    monkeypatch.setattr(hand_mod, "time", clock)
    monkeypatch.setattr(hand_mod, "solve_batch", batch)
    timed = analyze_hand(SMALL_HAND, SMALL, samples=10_000, seed=5, threads=2, time_limit=10)
    # the first round (one sample, no rate yet) runs whatever the limit; the second (6) is cut after 3
    assert deadlines == [None, 110.0] and sizes == [1, 6]
    assert timed.samples == 4 and timed.timed_out is True and len(timed.detail) == 4
    monkeypatch.setattr(hand_mod, "solve_batch", real_batch)
    again = analyze_hand(SMALL_HAND, SMALL, samples=4, seed=5)
    assert again.detail.equals(timed.detail) and again.bids.equals(timed.bids) and again.trumps.equals(timed.trumps)


def test_a_time_limit_passed_before_the_first_sample_still_solves_one():
    # README: the first round is one sample and runs whole, since a report needs one; a limit
    # that has passed by the time sampling starts ends the run after it, never before it
    r = analyze_hand(SMALL_HAND, SMALL, samples=50, seed=5, time_limit=1e-9)
    assert r.samples == 1 and r.timed_out is True and len(r.detail) == 1
    assert r.detail.equals(analyze_hand(SMALL_HAND, SMALL, samples=1, seed=5).detail)


def test_cli_time_limit(monkeypatch):
    from rook_analyze.analysis import hand as hand_mod

    clock = _FakeClock()
    real_round = hand_mod._run_round

    def timed_round(sampler, seed, start, count, *args, deadline=None):
        real_round(sampler, seed, start, count, *args)  # the round whole, as above
        clock.now += 60.0  # the first round alone outlasts the limit

    monkeypatch.setattr(hand_mod, "time", clock)
    monkeypatch.setattr(hand_mod, "_run_round", timed_round)
    r = run("hand", SMALL_HAND, "--rules", SMALL.spec(), "--samples", "1000", "--seed", "4", "--workers", "1",
            "--time-limit", "30")
    assert r.exit_code == 0, r.output
    head = r.stdout.splitlines()[0]
    assert "1 sample, seed 4" in head and "time limit 30 s reached: --samples 1 --seed 4 repeats this report" in head
    r = run("hand", SMALL_HAND, "--rules", SMALL.spec(), "--samples", "1000", "--seed", "4", "--workers", "2",
            "--time-limit", "30", "--precision", "0.01", "--format", "json")
    doc = json.loads(r.stdout)
    # one sample whatever the threads: a sample a thread would overrun the limit more
    assert (doc["samples"], doc["time_limit"], doc["timed_out"], doc["settled"]) == (1, 30.0, True, False)
    r = run("hand", SMALL_HAND, "--rules", SMALL.spec(), "--samples", "1000", "--seed", "4", "--workers", "2",
            "--time-limit", "30", "--precision", "0.01")
    assert "precision 0.01: NOT settled (the --time-limit stopped it)" in r.stdout.splitlines()[0]
    # a csv has no place for the count: standard error says it
    r = run("hand", SMALL_HAND, "--rules", SMALL.spec(), "--samples", "1000", "--seed", "4", "--workers", "1",
            "--time-limit", "30", "--format", "csv")
    assert r.exit_code == 0, r.output
    assert r.stderr.strip().splitlines()[-1] == ("time limit 30 s reached after 1 sample: --samples 1 --seed 4 "
                                                 "repeats this report")


@pytest.mark.parametrize("limit", ["inf", "1e308"])
def test_cli_time_limit_past_any_run_solves_every_sample(monkeypatch, limit):
    # a round's size from the rate: 0 x inf (no rate yet) is NaN, and 100 samples a
    # second x 1e308 s overflows; neither may escape as a traceback: the --samples
    # cap stops the run, as under any limit the run does not reach
    from rook_analyze.analysis import hand as hand_mod

    clock = _FakeClock()
    real_round = hand_mod._run_round

    def timed_round(sampler, seed, start, count, *args, deadline=None):
        real_round(sampler, seed, start, count, *args)  # the round whole, as above
        clock.now += 0.01 * count

    monkeypatch.setattr(hand_mod, "time", clock)
    monkeypatch.setattr(hand_mod, "_run_round", timed_round)
    r = run("hand", SMALL_HAND, "--rules", SMALL.spec(), "--samples", "3", "--seed", "4", "--workers", "1",
            "--time-limit", limit, "--format", "json")
    assert r.exit_code == 0, (r.output, r.exception)
    doc = json.loads(r.stdout)
    assert (doc["samples"], doc["timed_out"]) == (3, False)


def test_decision_rule_and_wilson():
    assert "P(make b) >= 0.5" in DECISION_RULE and "ev(b) >= 0" in DECISION_RULE
    # issue 4: the rule is stated in --help and in the README
    shown = " ".join(run("hand", "--help").stdout.split())
    assert f"Decision rule: {DECISION_RULE}" in shown
    readme = " ".join((Path(__file__).resolve().parents[1] / "README.md").read_text().split())
    assert "**decision rule**: bid the highest level b with P(make b) >= 0.5 and ev(b) >= 0" in readme
    lo, hi = wilson(0.5, 100)
    assert lo < 0.5 < hi and math.isclose(lo + hi, 1.0)
    assert wilson(1.0, 10)[1] == 1.0 and wilson(0.0, 10)[0] == 0.0
    # the 95% Wilson interval's published values: 50 of 100 -> 0.4038 to 0.5962;
    # 0 of 10 -> 0 to z^2 / (n + z^2) = 3.8415 / 13.8415 = 0.2775
    assert wilson(0.5, 100) == pytest.approx((0.4038, 0.5962), abs=1e-4)
    assert wilson(0.0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(1.0, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    # in general its ends are the roots of the score equation (p - x)^2 = z^2 x (1 - x) / n,
    # a quadratic in x, solved here directly
    z = 1.959963984540054  # the 97.5% point of the standard normal
    for p, n in ((0.2, 50), (0.73, 11), (0.5, 7), (0.05, 400)):
        a, b, c = 1 + z * z / n, -(2 * p + z * z / n), p * p
        root = math.sqrt(b * b - 4 * a * c)
        assert wilson(p, n) == pytest.approx(((-b - root) / (2 * a), (-b + root) / (2 * a)), abs=1e-12), (p, n)


def test_help_says_how_best_share_counts_ties():
    """A trump that is never beaten can show a best_share well under 1 (a
    hand that makes 120 in every trump shares each sample four ways):
    --help says so, as the README does ("ties share the sample")."""
    shown = " ".join(run("hand", "--help").stdout.split())
    assert "where it is best (a sample where several trumps tie for best is shared among them)" in shown
    readme = " ".join((Path(__file__).resolve().parents[1] / "README.md").read_text().split())
    assert "the share of samples where this trump gives the most points; ties share the sample" in readme


def test_wilson_ends_are_exact_at_none_and_all():
    """At p = 0 (p = 1) the interval's lower (upper) end is exactly 0 (1):
    worked out, it comes to a few 1e-17 off at some n (0 of 3: 5.6e-17)."""
    for n in range(1, 200):
        assert wilson(0.0, n)[0] == 0.0 and wilson(1.0, n)[1] == 1.0, n
        assert 0.0 < wilson(0.0, n)[1] < 1.0 and 0.0 < wilson(1.0, n)[0] < 1.0, n


def _bids(rows):
    """A bids table of SMALL's levels from {bid: (p_make, ev)} and defaults for the rest:
    the columns recommend and settled read."""
    import pandas as pd

    out = []
    for b in SMALL.bid_levels():
        p, ev, p_lo, p_hi, ev_lo, ev_hi, ev_se = rows.get(b, (0.0, -50.0, 0.0, 0.1, -60.0, -40.0, 5.0))
        out.append({"bid": b, "p_make": p, "p_make_lo": p_lo, "p_make_hi": p_hi, "ev": ev, "ev_lo": ev_lo,
                    "ev_hi": ev_hi, "ev_se": ev_se})
    return pd.DataFrame(out)


def _trumps(means):
    import pandas as pd

    return pd.DataFrame({"trump": list(COLORS), "mean": means})


def test_ev_interval_stays_within_the_scores_a_hand_can_give():
    # nine samples take all 120 points and one is set with none: the net scores are 120 and -240, and
    # mean +- 1.96 se at 120 runs from 13.4 to 154.6, past the 120 no hand gives; nine sets and one
    # make run it below -240 the same way. Each end is held at what a hand can give; the rest stand
    rules = Rules.from_spec("hasbro")
    assert rules.total_points == 120
    for points, end in ((np.array([120] * 9 + [0]), "ev_hi"), (np.array([0] * 9 + [120]), "ev_lo")):
        bids = bid_table(rules, points, rules.total_points - points).set_index("bid")
        at = bids.loc[120]
        net = np.where(points >= 120, points, -120) - (120 - points)
        se = net.std(ddof=1) / math.sqrt(10)
        assert at.ev == pytest.approx(net.mean()) and at.ev_se == pytest.approx(se)
        raw = {"ev_lo": net.mean() - 1.959964 * se, "ev_hi": net.mean() + 1.959964 * se}
        assert raw[end] > 120 or raw[end] < -240, raw           # the unheld interval leaves the range
        assert at[end] == (120 if end == "ev_hi" else -240)
        other = "ev_lo" if end == "ev_hi" else "ev_hi"
        assert at[other] == pytest.approx(raw[other], abs=1e-3)
        assert ((bids.ev_hi <= 120) & (bids.ev_lo >= -bids.index.to_series() - 120)).all()
    one = bid_table(rules, np.array([120]), np.array([0]))    # one sample: no interval at all
    assert one.ev_lo.isna().all() and one.ev_hi.isna().all()


def test_recommend_takes_levels_exactly_on_the_line():
    """DECISION_RULE's bounds are inclusive: P(make) of exactly 0.5 and ev of
    exactly 0 qualify; the highest qualifying level is the bid, and the
    trump is the best mean, the first in B R Y G order among equals."""
    figures = {40: (0.9, 12.0), 45: (0.5, 0.0), 50: (0.5, -0.5), 55: (0.45, 3.0)}
    bids = _bids({b: (p, ev, 0, 1, -1, 1, 1) for b, (p, ev) in figures.items()})
    assert recommend(bids, _trumps([50.0, 61.0, 61.0, 40.0])) == Recommendation(45, "R")
    # nothing qualifies: a pass, with the best trump all the same
    bids = _bids({40: (0.49, 5.0, 0, 1, -1, 1, 1), 45: (0.8, -0.01, 0, 1, -1, 1, 1)})
    assert recommend(bids, _trumps([50.0, 40.0, 45.0, 70.0])) == Recommendation(None, "G")


def test_deciding_bids_are_the_bid_and_the_next_one_up():
    assert deciding_bids(SMALL, Recommendation(45, "B")) == [45, 50]
    assert deciding_bids(SMALL, Recommendation(None, "B")) == [40]
    assert deciding_bids(SMALL, Recommendation(120, "B")) == [120]


def test_settled_judges_each_deciding_bid_by_both_tests():
    """settled on hand-made tables: at the recommended bid the rule must pass
    with both intervals clear of the line; at the next one up it must fail
    on either test wholly below it; a row neither passes nor fails only
    within ``precision``; the bids outside the two deciding ones never count."""
    rng = np.random.default_rng(0)
    clear_b = np.column_stack([80 + rng.integers(0, 5, 30)] + [50 + rng.integers(0, 5, 30) for _ in range(3)])
    rec = Recommendation(45, "B")
    clear_pass = (0.8, 10.0, 0.6, 0.9, 2.0, 18.0, 4.0)
    p_below = (0.3, 1.0, 0.2, 0.45, -7.0, 9.0, 4.0)   # fails by P(make) alone: ev's interval straddles 0
    ev_below = (0.6, -8.0, 0.52, 0.7, -15.0, -1.0, 4.0)  # fails by ev alone
    unclear = (0.55, 1.0, 0.4, 0.7, -7.0, 9.0, 4.0)
    assert settled(SMALL, _bids({45: clear_pass, 50: p_below}), rec, 1.0, clear_b)
    assert settled(SMALL, _bids({45: clear_pass, 50: ev_below}), rec, 1.0, clear_b)
    # P(make) clear but ev's interval reaching below 0 at the bid: not decided
    half = (0.8, 1.0, 0.6, 0.9, -7.0, 9.0, 4.0)
    assert not settled(SMALL, _bids({45: half, 50: p_below}), rec, 1.0, clear_b)
    assert settled(SMALL, _bids({45: half, 50: p_below}), rec, 4.0, clear_b)  # but pinned within 4
    # P(make) at the bid above 0.5 but its interval reaching below it: not decided by the point
    # estimate (ev clear above 0 does not make up for it), only within the precision
    p_open = (0.6, 10.0, 0.4, 0.75, 2.0, 18.0, 4.0)
    assert not settled(SMALL, _bids({45: p_open, 50: p_below}), rec, 1.0, clear_b)
    assert settled(SMALL, _bids({45: p_open, 50: p_below}), rec, 4.0, clear_b)
    # one sample has no standard error: the trump cannot be judged, however clear the bid
    assert not settled(SMALL, _bids({45: clear_pass, 50: p_below}), rec, 1e9, clear_b[:1])
    # the next level up open: not settled, whatever the bid's own row says
    assert not settled(SMALL, _bids({45: clear_pass, 50: unclear}), rec, 1.0, clear_b)
    # an open level further up does not count
    assert settled(SMALL, _bids({45: clear_pass, 50: p_below, 55: unclear}), rec, 1.0, clear_b)
    # a pass is judged at min_bid alone
    assert settled(SMALL, _bids({40: p_below, 45: unclear}), Recommendation(None, "B"), 1.0, clear_b)
    assert not settled(SMALL, _bids({40: unclear}), Recommendation(None, "B"), 1.0, clear_b)
    # the trump: B leads every other color by far here, but not R in this one
    tied = clear_b.copy()
    tied[:, 1] = clear_b[:, 0] + rng.integers(-3, 4, 30)
    assert not settled(SMALL, _bids({45: clear_pass, 50: p_below}), rec, 0.1, tied)
    # a lead of 0 on average, pinned by its standard error: settled at exactly --precision ("at most")
    even = np.column_stack([np.full(100, 80), 80 + np.tile([1, -1], 50), np.full(100, 50), np.full(100, 50)])
    se = (even[:, 0] - even[:, 1]).astype(float).std(ddof=1) / math.sqrt(100)
    assert settled(SMALL, _bids({45: clear_pass, 50: p_below}), rec, se, even)
    assert not settled(SMALL, _bids({45: clear_pass, 50: p_below}), rec, se * 0.999, even)


def test_no_bidding_or_no_samples_is_an_error():
    with pytest.raises(RulesError, match="no bidding"):
        analyze_hand("B14 B13 B12 B11 B10 B9 B8 B7 B6 B5 B4 B3 B2", "bridge", samples=1)
    with pytest.raises(ConstraintError, match="samples=0"):
        analyze_hand(SMALL_HAND, SMALL, samples=0)
    # refused before a deal is drawn: every sample is kept for the report's detail
    with pytest.raises(ConstraintError, match="samples=1000001: at most 1,000,000"):
        analyze_hand(SMALL_HAND, SMALL, samples=1_000_001)


def test_strong_hand_bids_at_least_100_in_its_color():
    # the Rook, seven black cards from the top and R14: 50 points in counters,
    # the most such a 9-card hand can hold
    rep = analyze_hand(STRONG, "hasbro", samples=8, seed=1)
    assert rep.recommendation.trump == "B"
    assert rep.recommendation.bid is not None and rep.recommendation.bid >= 100
    assert rep.trumps.set_index("trump").loc["B", "policy_share"] == 1.0


def test_weak_hand_passes():
    # no counters, no Rook, no length; a 7-card game keeps the solves quick
    rep = analyze_hand(WEAK, WEAK_RULES, samples=120, seed=1)
    assert rep.recommendation.bid is None
    first = rep.bids.iloc[0]
    assert first["ev"] + 2 * first["ev_se"] < 0  # not a close call


# ----------------------------------------------------------------------- CLI
def run(*args):
    return CliRunner().invoke(main, list(args))


def test_cli_json_and_csv():
    r = run("hand", SMALL_HAND, "--rules", SMALL.spec(), "--samples", "8", "--seed", "2", "--format", "json",
            "--workers", "2")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["samples"] == 8 and doc["seed"] == 2 and doc["rules"] == SMALL.spec()
    assert [b["bid"] for b in doc["bids"]] == SMALL.bid_levels()
    r2 = run("hand", SMALL_HAND, "--rules", SMALL.spec(), "--samples", "8", "--seed", "2", "--format", "csv",
             "--workers", "1")
    assert r2.exit_code == 0
    lines = r2.stdout.splitlines()
    assert lines[0].startswith("section,")
    assert sum(line.startswith("bid,") for line in lines) == len(SMALL.bid_levels())
    assert lines[-1].startswith("recommendation,")
    # the same figures on one worker as on two (issue 4: whatever the number of workers)
    rows = list(csv.DictReader(io.StringIO(r2.stdout)))
    by_bid = {int(x["bid"]): x for x in rows if x["section"] == "bid"}
    for b in doc["bids"]:
        assert float(by_bid[b["bid"]]["p_make"]) == pytest.approx(b["p_make"], abs=1e-5)
        assert float(by_bid[b["bid"]]["ev"]) == pytest.approx(b["ev"], abs=1e-3)
    by_trump = {x["trump"]: x for x in rows if x["section"] == "trump"}
    for t in doc["trumps"]:
        assert float(by_trump[t["trump"]]["mean"]) == pytest.approx(t["mean"], abs=1e-3)
    # the hand on standard input, as solve reads deals
    r3 = CliRunner().invoke(main, ["hand", "-", "--rules", SMALL.spec(), "--samples", "8", "--seed", "2",
                                   "--format", "json"], input=f"# my hand\n\n{SMALL_HAND}\n")
    assert r3.exit_code == 0, r3.output
    assert json.loads(r3.stdout) == doc


@pytest.mark.parametrize("rules, options, seat, dealer, leader", [
    (SMALL, ["--seat", "s"], "S", "W", "N"),  # W deals by default: N, left of it, leads (the declarer's partner)
    (SMALL, ["--dealer", "n"], "N", "N", "E"),  # N declares by default: E, an opponent left of dealer N, leads
    (SMALL, ["--seat", "E", "--dealer", "N"], "E", "N", "E"),  # the declarer sits left of the dealer: it leads
    # full's rule (first_lead=declarer): the declarer leads wherever the dealer sits
    (Rules.from_spec(SMALL.spec() + ",first_lead=declarer"), ["--seat", "S", "--dealer", "N"], "S", "N", "S"),
], ids=["seat", "dealer", "both", "declarer_leads"])
def test_cli_seat_and_dealer_reach_the_analysis(rules, options, seat, dealer, leader):
    args = ["hand", SMALL_HAND, "--rules", rules.spec(), "--samples", "8", "--seed", "2", *options]
    r = run(*args, "--format", "json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert (doc["seat"], doc["dealer"], doc["leader"]) == (seat, dealer, leader)
    # the figures are the library's for that seat, dealer and seed, not those of the default seats (N, W)
    lib = analyze_hand(SMALL_HAND, rules, seat=seat, dealer=dealer, samples=8, seed=2)
    assert doc == json.loads(json.dumps(lib.to_dict()))
    default = analyze_hand(SMALL_HAND, rules, samples=8, seed=2)
    assert (default.seat, default.dealer) == ("N", "W")
    assert list(lib.trumps["mean"]) != list(default.trumps["mean"])
    # the table's header says who declares, deals and leads
    table = run(*args)
    assert table.exit_code == 0, table.output
    assert f"  |  {seat} declares, {dealer} deals, {leader} leads  |  " in table.stdout.splitlines()[0]


def test_the_csv_recommendation_row_carries_the_bid_and_trump():
    # the csv's recommendation row is the json's recommendation: its bid (empty for a pass) and trump
    import pandas as pd

    strong = analyze_hand("Rook B14 B13 B12 B10", SMALL, samples=20, seed=5)
    assert strong.recommendation.bid is not None
    for rep in (strong, analyze_hand(WEAK, WEAK_RULES, samples=10, seed=1)):
        row = rep.to_frame().iloc[-1]
        assert row["section"] == "recommendation" and row["trump"] == rep.recommendation.trump
        assert (pd.isna(row["bid"]) if rep.recommendation.bid is None else row["bid"] == rep.recommendation.bid)
    r = run("hand", "Rook B14 B13 B12 B10", "--rules", SMALL.spec(), "--samples", "20", "--seed", "5",
            "--format", "csv")
    assert r.exit_code == 0, r.output
    last = list(csv.DictReader(io.StringIO(r.stdout)))[-1]
    assert last["section"] == "recommendation" and int(last["bid"]) == strong.recommendation.bid


def test_cli_table_and_plot(tmp_path):
    png, svg = tmp_path / "curve.png", tmp_path / "curve.svg"
    r = run("hand", *SMALL_HAND.split(), "--rules", SMALL.spec(), "--samples", "6", "--seed", "1",
            "--plot", str(png))
    assert r.exit_code == 0, r.output
    assert "recommendation:" in r.stdout and "rule:" in r.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert r.stderr.strip().splitlines()[-1] == f"plot saved to {png}"  # where the file went, as report says
    r = run("hand", SMALL_HAND, "--rules", SMALL.spec(), "--samples", "6", "--seed", "1", "--plot", str(svg),
            "--format", "json")
    assert r.exit_code == 0
    assert b"<svg" in svg.read_bytes()[:400]


def test_bid_curve_draws_the_reports_figures_with_bands_and_labels(small_report):
    """--plot's figure (issue 4): P(make) and ev against the bid, each with its
    95% band, the axes labelled, a legend and the recommended bid marked; the
    curves are the report's own figures, not merely some image."""
    from matplotlib.collections import PolyCollection

    from rook_analyze.analysis.plots import bid_curve

    rep = small_report
    fig = bid_curve(rep)
    ax, ev_ax = fig.get_axes()
    bids = rep.bids["bid"].to_numpy()
    for axis, column in ((ax, "p_make"), (ev_ax, "ev")):
        assert axis.get_ylabel()
        curves = [line for line in axis.get_lines() if len(line.get_xdata()) == len(bids)]
        assert len(curves) == 1, column
        assert np.array_equal(curves[0].get_xdata(), bids)
        assert np.allclose(curves[0].get_ydata(), rep.bids[column].to_numpy())
        bands = [c for c in axis.collections if isinstance(c, PolyCollection)]
        assert len(bands) == 1, column  # the 95% band
        lo, hi = rep.bids[f"{column}_lo"].to_numpy(), rep.bids[f"{column}_hi"].to_numpy()
        ys = bands[0].get_paths()[0].vertices[:, 1]
        assert np.isclose(ys.min(), lo.min()) and np.isclose(ys.max(), hi.max()), column
    assert ev_ax.get_xlabel() and ax.get_title()  # the panels share the bid axis, labelled below
    labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert any("95%" in x for x in labels) and any("P(make)" in x for x in labels)
    assert rep.recommendation.bid is not None
    assert any(f"recommended: {rep.recommendation.bid} in {rep.recommendation.trump}" in x for x in labels)
    assert any(np.all(np.asarray(line.get_xdata()) == rep.recommendation.bid) for line in ax.get_lines())


def test_bid_curve_title_counts_the_samples():
    from rook_analyze.analysis.plots import bid_curve

    for n, said in ((1, "1 sample, seed 3"), (2, "2 samples, seed 3")):
        title = bid_curve(analyze_hand(SMALL_HAND, SMALL, samples=n, seed=3)).get_axes()[0].get_title()
        assert said in title, title


def test_bid_curve_title_says_what_the_bidder_was_given():
    # the table's header names --known and --constraint; the plot of the same run must too, or a
    # curve read against an opponent's bid looks like the hand's unconditioned one
    from rook_analyze.analysis.plots import bid_curve

    plain = bid_curve(analyze_hand(SMALL_HAND, SMALL, samples=2, seed=3)).get_axes()[0].get_title()
    assert "given" not in plain, plain
    rep = analyze_hand(SMALL_HAND, SMALL, samples=2, seed=3, known=["E:B13"], constraints=["W:R>=1"])
    title = bid_curve(rep).get_axes()[0].get_title()
    assert "given E: B13, W:R>=1" in title, title


def test_bid_curve_of_one_sample_says_it_has_no_ev_band():
    """One sample has no standard error: the ev panel has no band, and its
    legend listed "ev, 95% interval (mean \u00b1 1.96 se)" all the same, so the
    ev read as known exactly."""
    from rook_analyze.analysis.plots import bid_curve

    for n, band in ((1, "ev, 95% interval: none (one sample has no standard error)"),
                    (2, "ev, 95% interval (mean \u00b1 1.96 se, within the possible scores)")):
        rep = analyze_hand(SMALL_HAND, SMALL, samples=n, seed=3)
        assert rep.bids["ev_se"].isna().all() == (n == 1)
        labels = [t.get_text() for legend in bid_curve(rep).legends for t in legend.get_texts()]
        assert labels[5] == band, labels


def test_cli_a_plot_the_system_refuses_keeps_the_report(tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    def full_disk(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", full_disk)
    args = ("hand", SMALL_HAND, "--rules", SMALL.spec(), "--samples", "4", "--seed", "1", "--format", "json")
    r = run(*args, "--plot", str(tmp_path / "curve.png"))
    # the report is printed, whole, before the plot is tried; the refusal is status 1, one line
    assert r.exit_code == 1, r.output
    assert r.stderr.strip().splitlines() == [f"Error: --plot {str(tmp_path / 'curve.png')!r}: No space left on device"]
    assert json.loads(r.stdout) == json.loads(run(*args).stdout)


def test_cli_detail_saves_every_sample_as_csv(tmp_path, monkeypatch):
    import pandas as pd

    path = tmp_path / "samples.csv"
    args = ("hand", SMALL_HAND, "--rules", SMALL.spec(), "--samples", "12", "--seed", "6", "--format", "json")
    r = run(*args, "--detail", str(path))
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    rows = pd.read_csv(path)
    assert list(rows["sample"]) == list(range(12))
    lib = analyze_hand(SMALL_HAND, SMALL, samples=12, seed=6)
    assert rows.astype(str).equals(lib.detail.astype(str))  # the library's detail, cell for cell
    # and the printed figures come from those rows
    for t in doc["trumps"]:
        assert rows[f"points_{t['trump']}"].mean() == pytest.approx(t["mean"], abs=1e-3)
    made = {b["bid"]: b["p_make"] for b in doc["bids"]}
    assert (rows["points"] >= SMALL.min_bid).mean() == pytest.approx(made[SMALL.min_bid], abs=1e-3)
    assert not list(tmp_path.glob("*.tmp"))  # the temporary file was renamed into place
    assert r.stderr.strip().splitlines()[-1] == f"detail saved to {path}"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask  # as a plain open makes it, not 0600
    # a write the system refuses comes after the report: status 1, one line, nothing half-written
    import pandas.core.generic as generic

    def full_disk(self, *a, **kw):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(generic.NDFrame, "to_csv", full_disk)
    again = tmp_path / "again.csv"
    r = run(*args, "--detail", str(again))
    assert r.exit_code == 1, r.output
    assert r.stderr.strip().splitlines() == [f"Error: --detail {str(again)!r}: No space left on device"]
    assert json.loads(r.stdout) == doc
    assert list(tmp_path.iterdir()) == [path]


@pytest.mark.parametrize("args, message", [
    (["Rook B14 B10 R12", "--rules", SMALL.spec()], "has 4 cards"),
    (["Rook B14 B14 R12 G6", "--rules", SMALL.spec()], "duplicate card 'B14'"),
    (["Rook B14 B10 R12 G1", "--rules", SMALL.spec()], "'G1' is not in this deck"),
    ([SMALL_HAND, "--rules", SMALL.spec(), "-c", "E:B>=3", "-c", "E:B<2"], "contradictory constraints"),
    ([SMALL_HAND, "--rules", SMALL.spec(), "-c", "E:rook=2"], "impossible constraint"),
    ([SMALL_HAND, "--rules", SMALL.spec(), "-c", "E:hcp>2"], "--constraint"),
    ([SMALL_HAND, "--rules", SMALL.spec(), "--known", "W:B14"], "already in the bidder's hand"),
    # a place the table lacks is named with the option it came from, as other faults of those options are
    ([SMALL_HAND, "--rules", SMALL.spec(), "--known", "P9:B14"], "--known: place 'P9': choose a seat (N E S W)"),
    ([SMALL_HAND, "--rules", SMALL.spec(), "-c", "P9:B>=1"],
     "--constraint: constraint 'P9:B>=1': place 'P9' must be a seat (N E S W) or nest"),
    ([SMALL_HAND, "--rules", SMALL.spec(), "-c", "out:B>=1"], "--constraint: constraint 'out:B>=1': out-of-play"),
    ([SMALL_HAND, "--rules", SMALL.spec(), "--plot", "x.jpg"], "must end in .png, .svg or .pdf"),
    ([SMALL_HAND, "--rules", SMALL.spec(), "--plot", "no/such/folder/x.png"], "the folder 'no/such/folder' does not exist"),
    ([SMALL_HAND, "--rules", SMALL.spec(), "--plot", __file__ + "/x.png"], f"the folder {__file__!r} is a file, not a folder"),
    ([SMALL_HAND, "--rules", SMALL.spec(), "--plot", "/proc/curve.png"], "cannot write in the folder '/proc' (it takes no new files)"),
    ([SMALL_HAND, "--rules", SMALL.spec(), "--plot", "/"], "is a directory"),
    ([SMALL_HAND, "--rules", SMALL.spec(), "--detail", "x.txt"], "--detail: detail file 'x.txt': the name must end in .csv"),
    ([SMALL_HAND, "--rules", SMALL.spec(), "--detail", "no/such/folder/x.csv"], "the folder 'no/such/folder' does not exist"),
    ([SMALL_HAND, "--rules", SMALL.spec(), "--detail", "/proc/x.csv"], "cannot write in the folder '/proc'"),
    # a name longer than the system takes was looked up unguarded: exit status 1, no option named
    ([SMALL_HAND, "--rules", SMALL.spec(), "--plot", "x" * 300 + ".png"], "--plot: plot file 'xxx"),
    ([SMALL_HAND, "--rules", SMALL.spec(), "--detail", "x" * 300 + ".csv"], ".csv': File name too long"),
    ([SMALL_HAND, "--rules", SMALL.spec(), "--detail", "x" * 300 + "/y.csv"], "--detail: detail file 'xxx"),
    ([SMALL_HAND, "--rules", "bridge"], "have no bidding"),
    ([SMALL_HAND, "--rules", SMALL.spec(), "--time-limit", "0"], "--time-limit"),
    ([SMALL_HAND, "--rules", SMALL.spec(), "--seat", "Q"], "Error: --seat: seat 'Q': choose one of N E S W"),
    ([SMALL_HAND, "--rules", SMALL.spec(), "--dealer", "P1"], "Error: --dealer: seat 'P1': choose one of N E S W"),
    (["--rules", SMALL.spec()], "no HAND"),
    (["--rules", "hasbro,bird=none"], "e.g. 'B14 B13 ...'"),   # no Rook in the example where the deck has none
])
def test_cli_bad_input_is_one_line_exit_2(args, message):
    r = run("hand", *args, "--samples", "2")
    assert r.exit_code == 2, r.output
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1
    assert message in err
    assert "Traceback" not in r.output


def test_cli_too_many_samples_is_one_line_exit_2():
    r = run("hand", SMALL_HAND, "--rules", SMALL.spec(), "--samples", "100000000000")
    assert r.exit_code == 2, r.output
    assert r.stderr.strip().splitlines() == [
        "Error: Invalid value for '--samples' / '-n': 100000000000 is not in the range 1<=x<=1000000. "
        "(see 'main hand --help')"]  # CliRunner names the group after its function


def test_defenders_solved_apart_when_the_game_is_not_zero_sum():
    # most_tricks=4:20 over 5 tricks: a 3-2 split gives the bonus to nobody
    rules = Rules.from_spec(SMALL.spec() + ",most_tricks=4:20")
    rep = analyze_hand(SMALL_HAND, rules, samples=12, seed=8)
    sampler = DealSampler(rules, "N", SMALL_HAND)
    totals = []
    for i, row in rep.detail.iterrows():
        deal = sampler.deal(i, rep.seed)
        cards = deal.hands[0] | deal.nest
        played = take_nest(deal, 0, DEFAULT_POLICY.discard(cards, row["trump"], rules))
        r = solve(played, row["trump"], "N")
        assert (r.declarer_points, r.defender_points) == (row["points"], row["defender_points"])
        totals.append(row["points"] + row["defender_points"] - played.total_points())
    # the two sides' values do not add up to a constant: the bonus goes to one side or to nobody
    assert set(totals) == {0, 20}


def test_recommendation_text_reads_for_a_player():
    assert Recommendation(100, "B").text() == "bid 100 in B"
    assert Recommendation(5, "none").text() == "bid 5 at no trump"
    assert Recommendation(None, "G").text() == "pass (best trump G)"


def test_no_trump_is_weighed_where_the_rules_allow_it():
    # bridge given an auction may name no trump: hand weighs it as nest and simulate do (their trumps
    # are the rules'), so its best trump and cost agree with a simulate dataset's best_trump
    from rook_analyze.analysis.nest import allowed_trumps
    from rook_analyze.analysis.simulate import declarer_choice

    rules = Rules.from_spec("bridge,hand_size=5,nest_size=2,min_bid=5,bid_step=5,max_bid=5")
    rep = analyze_hand("B8 R12 Y13 Y9 Y5", rules, samples=6, seed=1)
    assert list(rep.trumps["trump"]) == list(allowed_trumps(rules)) == ["B", "R", "Y", "G", "none"]
    assert math.isclose(rep.trumps["best_share"].sum(), 1.0)
    sampler = DealSampler(rules, "N", "B8 R12 Y13 Y9 Y5")
    best = []
    for i, row in rep.detail.iterrows():
        deal = sampler.deal(i, rep.seed)
        trump, discards = declarer_choice(rules, deal.hands[0], deal.nest)
        assert row["trump"] == trump
        points = {}
        for t in rules.trumps:
            assert row[f"discard_{t}"] == Hand(discards[t]).rdn()
            points[t] = solve(take_nest(deal, 0, Hand(discards[t])), t, "N").declarer_points
            assert row[f"points_{t}"] == points[t]
        best.append(max(points.values()))
    cost = {t: np.mean(best - rep.detail[f"points_{t}"].to_numpy()) for t in rules.trumps}
    assert dict(zip(rep.trumps["trump"], rep.trumps["cost"])) == pytest.approx(cost)


def test_long_hands_are_announced_before_the_wait(monkeypatch):
    # stop where the solving would start: what was said by then is the point
    from rook_analyze.cli import hand_cmd

    def stop(*args, **kwargs):
        raise ConstraintError("stopped before solving")

    monkeypatch.setattr(hand_cmd, "analyze_hand", stop)
    full = CliRunner().invoke(main, ["hand", "Rook B14 B13 B12 B11 B10 B9 B8 R14 R10 Y14 Y10 G14",
                                     "--rules", "full", "--samples", "3"])
    assert full.exit_code == 2 and "stopped before solving" in full.stderr
    assert "note: 13-card hands with counters take seconds to many minutes a solve" in full.stderr and "12 solves" in full.stderr
    assert "or set --time-limit" in full.stderr
    limited = CliRunner().invoke(main, ["hand", "Rook B14 B13 B12 B11 B10 B9 B8 R14 R10 Y14 Y10 G14",
                                        "--rules", "full", "--samples", "3", "--time-limit", "60"])
    assert limited.exit_code == 2 and "note:" not in limited.stderr  # the limit already bounds the wait
    # three seats of 12 cards solve in about a second, not minutes (benchmarks/RESULTS.md)
    three = Rules.from_spec("hasbro,seats=3,teams=alone")  # 12 cards a seat
    cards = random_deal(three, seed=1).hands[0].rdn()
    smaller = CliRunner().invoke(main, ["hand", cards, "--rules", three.spec(), "--samples", "3"])
    assert smaller.exit_code == 2 and "stopped before solving" in smaller.stderr
    assert "note: 12-card hands with counters can take up to about a minute a solve" in smaller.stderr
    short = CliRunner().invoke(main, ["hand", STRONG, "--rules", "hasbro", "--samples", "3"])
    assert short.exit_code == 2 and "stopped before solving" in short.stderr and "note:" not in short.stderr


def test_cli_passes_the_dealer_known_cards_and_constraints_to_the_advisor():
    # --dealer, --known and --constraint reach analyze_hand: the report is the library's with them
    r = run("hand", SMALL_HAND, "--rules", SMALL.spec(), "--seat", "E", "--dealer", "N", "--known", "W:B13",
            "--constraint", "S:R>=1", "--samples", "6", "--seed", "4", "--format", "json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert (doc["dealer"], doc["leader"]) == ("N", "E")
    assert doc["known"] == {"W": "B13"} and doc["constraints"] == ["S:R>=1"]
    lib = analyze_hand(SMALL_HAND, SMALL, seat="E", dealer="N", known=["W:B13"], constraints=["S:R>=1"],
                       samples=6, seed=4)
    assert doc == json.loads(json.dumps(lib.to_dict()))
    assert all("B13" in deal.split("/")[3] for deal in lib.detail["deal"])  # W's hand, as dealt


@pytest.mark.parametrize("fmt", ["csv", "json"])
@pytest.mark.parametrize("samples, seed, precision, said", [
    ("300", "5", "50", "recommendation settled (--precision 50) after 100 samples: --samples 100 --seed 5 "
                       "repeats this report"),
    ("30", "3", "0.5", "recommendation not settled at --precision 0.5: the --samples cap stopped the run after "
                       "30 samples"),
])
def test_cli_csv_and_json_say_on_standard_error_how_the_precision_ended(samples, seed, precision, said, fmt):
    # a csv has no settled field: a precision that stopped the run early, or one the
    # --samples cap kept from being reached, is said on standard error (README: with json too)
    r = run("hand", SMALL_HAND, "--rules", SMALL.spec(), "--samples", samples, "--seed", seed,
            "--precision", precision, "--format", fmt)
    assert r.exit_code == 0, r.output
    assert r.stderr.strip().splitlines()[-1] == said
    plain = run("hand", SMALL_HAND, "--rules", SMALL.spec(), "--samples", samples, "--seed", seed, "--format", "csv")
    assert "settled" not in plain.stderr
    met = run("hand", SMALL_HAND, "--rules", SMALL.spec(), "--samples", "30", "--seed", "3", "--precision", "1e6",
              "--format", "csv")
    assert "settled" not in met.stderr  # met at the cap: nothing to say


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_precision_must_be_a_finite_number(value):
    # nan is met by no standard error, inf by any (json then shows it as null, as if not given)
    r = run("hand", SMALL_HAND, "--rules", SMALL.spec(), "--samples", "3", "--seed", "3", "--precision", value)
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.strip() == f"Error: --precision {value}: expected a standard error in points, above 0 and finite"
    with pytest.raises(ConstraintError, match=f"precision={value}: expected a standard error in points, "
                                              f"above 0 and finite"):
        analyze_hand(SMALL_HAND, SMALL, samples=3, seed=3, precision=float(value))


@pytest.mark.parametrize("typed, said", [("1e-400", "1e-400: expected a standard error in points, above 0 and "
                                                     "finite (it reads as 0)"),
                                          ("0", "0: expected a standard error in points, above 0 and finite"),
                                          ("-2.5", "-2.5: expected a standard error in points, above 0 and finite")])
def test_precision_refused_quotes_what_was_typed(typed, said):
    # click's FloatRange quoted its reading: '1e-400' was refused as '0.0 is not in the range x>0'
    r = run("hand", SMALL_HAND, "--rules", SMALL.spec(), "--samples", "3", "--seed", "3", "--precision", typed)
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.strip() == f"Error: --precision {said}"
    assert "[x>0]" in run("hand", "--help").stdout  # the range is still in the help


def test_table_shows_the_bid_figures_to_their_places():
    """The table's bid rows are the json's figures rounded: probabilities to
    3 places (0.857, not 0.86), ev to 1 and its standard error to 2."""
    args = ("hand", SMALL_HAND, "--rules", SMALL.spec(), "--samples", "7", "--seed", "1")
    doc = json.loads(run(*args, "--format", "json").stdout)
    lines = run(*args).stdout.splitlines()
    head = lines.index(next(ln for ln in lines if ln.split()[:2] == ["bid", "p_make"]))
    cols = lines[head].split()
    places = {"p_make": 3, "p_make_se": 3, "p_make_lo": 3, "p_make_hi": 3, "ev": 1, "ev_se": 2, "ev_lo": 1,
              "ev_hi": 1}
    for line, row in zip(lines[head + 1:], doc["bids"]):
        cells = dict(zip(cols, line.split()))
        assert int(cells["bid"]) == row["bid"]
        for col, k in places.items():
            assert float(cells[col]) == round(row[col], k), (row["bid"], col, cells[col], row[col])


def test_time_limit_nan_is_named_as_the_option():
    r = run("hand", SMALL_HAND, "--rules", SMALL.spec(), "--samples", "3", "--seed", "3", "--time-limit", "nan")
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.strip() == "Error: --time-limit nan: expected seconds, above 0"


@pytest.mark.parametrize("rules, passes", [(SMALL.spec(), False), ("hasbro,hand_size=5,min_bid=90", True)])
def test_bid_curve_legend_keeps_each_curve_with_its_band(rules, passes):
    """The legend's two columns (filled top to bottom): P(make), its band, its
    threshold and the recommendation (a bid or a pass); ev, its band and its
    threshold. Each band says what interval it is."""
    from rook_analyze.analysis.plots import bid_curve

    rep = analyze_hand(SMALL_HAND, rules, samples=20, seed=3)
    fig = bid_curve(rep)
    (legend,) = fig.legends
    labels = [t.get_text() for t in legend.get_texts()]
    assert len(labels) == 7 and legend._ncols == 2
    assert labels[0] == "P(make)" and labels[1] == "P(make), 95% interval (Wilson)"
    assert labels[2].startswith("P(make) = 0.5") and labels[3].startswith("recommended: ")
    assert labels[4].startswith("ev = E[") and labels[5] == "ev, 95% interval (mean \u00b1 1.96 se, within the possible scores)"
    assert labels[6].startswith("ev = 0: ")
    assert (rep.recommendation.bid is None) == passes  # a pass is drawn the same way




def test_bid_curve_panels_share_the_bid_axis_and_mark_each_threshold(small_report):
    """P(make) above, ev below, on one bid axis: not two y axes over one
    panel, where the ev band covered the P(make) curve and the two dotted
    thresholds stood at heights that meant nothing to each other."""
    from rook_analyze.analysis.plots import bid_curve

    fig = bid_curve(small_report)
    ax, ev_ax = fig.get_axes()
    fig.canvas.draw()
    assert ax.get_shared_x_axes().joined(ax, ev_ax) and not ax.get_shared_y_axes().joined(ax, ev_ax)
    assert ev_ax.get_position().y1 <= ax.get_position().y0  # one below the other, not on top
    assert "P(make)" in ax.get_ylabel() and "ev" in ev_ax.get_ylabel() and "points" in ev_ax.get_ylabel()
    assert ev_ax.get_xlabel() == "bid (points)"

    def level(axis, y):
        return [line.get_label() for line in axis.get_lines() if list(line.get_ydata()) == [y, y]]

    assert level(ax, 0.5) == ["P(make) = 0.5, the rule's floor"]
    assert level(ev_ax, 0) == ["ev = 0: what passing is worth"]
    for axis in (ax, ev_ax):  # the recommended bid, on both panels
        assert [line for line in axis.get_lines() if list(line.get_xdata()) == [small_report.recommendation.bid] * 2]


def test_bid_curve_keeps_its_text_inside_and_its_legend_off_the_panels(small_report):
    from rook_analyze.analysis.plots import bid_curve

    fig = bid_curve(small_report)
    assert outside(fig) == []
    (legend,) = fig.legends
    box = legend.get_window_extent()
    for axis in fig.get_axes():
        assert not box.overlaps(axis.get_window_extent()), axis.get_ylabel()


@pytest.mark.parametrize("levels, labelled", [(list(range(70, 125, 5)), list(range(70, 125, 5))),
                                              (list(range(5, 305, 5)), list(range(20, 305, 20)))])
def test_bid_curve_bid_labels_never_run_into_each_other(small_report, levels, labelled):
    """Every bid level is labelled where the labels fit; a long range (5 to 300
    by 5) is labelled on round multiples of the step, the finest that fits."""
    import dataclasses

    import pandas as pd

    from rook_analyze.analysis.plots import bid_curve

    n = len(levels)
    p = np.linspace(1, 0, n)
    bids = pd.DataFrame({"bid": levels, "p_make": p, "p_make_lo": p * 0.8, "p_make_hi": np.minimum(1, p * 1.2),
                         "ev": np.linspace(100, -100, n), "ev_lo": np.linspace(60, -160, n),
                         "ev_hi": np.linspace(140, -40, n)})
    rep = dataclasses.replace(small_report, bids=bids, recommendation=Recommendation(levels[n // 2], "B"))
    fig = bid_curve(rep)
    fig.canvas.draw()
    ev_ax = fig.get_axes()[1]
    assert list(ev_ax.get_xticks()) == labelled
    boxes = [t.get_window_extent() for t in ev_ax.get_xticklabels() if t.get_visible() and t.get_text()]
    assert len(boxes) == len(labelled)
    assert all(a.x1 < b.x0 for a, b in zip(boxes, boxes[1:]))  # left to right, apart
    assert outside(fig) == []


def test_many_curves_leave_no_figure_open(small_report):
    """The library draws on its own canvas, never pyplot's: a loop making
    figures keeps none open (no "More than 20 figures" warning)."""
    from rook_analyze.analysis.plots import bid_curve

    assert leaves_no_figure_open(lambda: bid_curve(small_report))


def test_the_report_names_the_policy_by_its_revision(small_report):
    """As a simulate dataset names it ('heuristic 3'), so the two can be told
    to come from the same declarer; another policy goes by its name."""
    from rook_analyze.analysis.policy import POLICY_REVISION, HeuristicPolicy, policy_label

    assert small_report.policy == POLICY_REVISION == policy_label(DEFAULT_POLICY)
    assert policy_label(HeuristicPolicy(name="mine", length_weight=3)) == "mine"
