"""The nest advisor (analysis.nest) and ``rook-analyze nest``."""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import pathlib
import re
import statistics

import numpy as np
import pandas as pd
import pytest

from clirunner import CliRunner
from rook_analyze.analysis.nest import (analyze_nest, switch_layouts, canonical_discards, check_nest, equivalence_classes,
                                        halving_schedule, nest_candidates, planned_solves, quick_scores)
from rook_analyze.analysis.hand import wilson
from rook_analyze.analysis.policy import DEFAULT_POLICY, take_nest
from rook_analyze.analysis.sampling import DealSampler
from rook_analyze.cli.main import main
from rook_analyze.solver import (ConstraintError, DealError, DuplicateCardError, Hand, InvalidCardError, RookError,
                                 Rules, solve)

# hasbro's deck and rules with 5 cards a seat keep every solve quick (16 cards out of play)
SMALL = Rules.from_spec("hasbro,hand_size=5,min_bid=40,max_bid=120")
HAND = "B14 R12 Y9 G6 G8"
NEST = "Rook B10 Y5 R5 G14"
SEED = 7


@pytest.fixture(scope="module")
def report():
    return analyze_nest(HAND, NEST, SMALL, seat="E", dealer="N", bid=60, samples=8, seed=SEED, top=4,
                        candidates=8)


def _points(rep, rank):
    return rep.detail.loc[rep.detail["option"] == rank, "points"].to_numpy()


def test_report_shape(report):
    rep = report
    opts = rep.options
    assert list(opts["rank"]) == list(range(1, len(opts) + 1))
    assert len(opts) == 8 and len(rep.top_options()) == 4
    assert rep.leader == "E" and rep.seat == "E"  # left of dealer N leads
    # successive halving: 8 on 2 layouts, 4 on 4, the 2 finalists on 8
    assert rep.schedule == ((8, 2), (4, 4), (2, 8))
    assert sorted(opts["samples"], reverse=True) == [8, 8, 4, 4, 2, 2, 2, 2]
    assert list(opts["samples"]) == sorted(opts["samples"], reverse=True)  # survivors rank first
    assert rep.solves == planned_solves(rep.schedule) == len(rep.detail) == 8 * 2 + 4 * 2 + 2 * 4
    assert opts["p_make"].between(0, 1).all()
    assert (opts["se"] >= 0).all() and np.isfinite(opts["se"]).all()
    assert opts.loc[0, "gap"] == 0 and math.isnan(opts.loc[0, "gap_se"])
    assert np.isfinite(opts.loc[1:, "gap_se"]).all() and (opts.loc[1:, "gap_se"] >= 0).all()
    # here the policy's choice measures best: it leads the runner-up on their common layouts
    assert rep.recommendation.policy and rep.recommendation.lead is None
    assert opts.loc[1, "gap"] >= 0
    assert opts["policy"].sum() == 1
    doc = rep.to_dict()
    json.dumps(doc)
    assert len(doc["options"]) == 4
    for opt in doc["options"]:
        assert set(opt) >= {"trump", "discard", "mean", "se", "p_make", "samples", "gap_se"}
        assert len(opt["discard"]) == SMALL.nest_size
    rec = doc["recommendation"]
    assert (rec["trump"], rec["discard"]) == (doc["options"][0]["trump"], doc["options"][0]["discard"])
    assert rec["gap"] == doc["options"][1]["gap"] and rec["gap_se"] == doc["options"][1]["gap_se"]


def test_figures_equal_direct_solver_calls(report):
    """Every option is solved on the same layouts (sample i of the seed, the
    nest known), with its discards as the nest."""
    rep = report
    sampler = DealSampler(SMALL, "E", Hand.from_rdn(HAND), known={"nest": Hand.from_rdn(NEST)})
    assert [d.rdn() for d in rep.layouts] == [sampler.deal(i, SEED).rdn() for i in range(8)]
    bid = rep.bid
    best = None
    for rank in range(1, len(rep.options) + 1):  # every option, each round's (the options of a layout share a table)
        row = rep.options.iloc[rank - 1]
        discard = Hand.from_rdn(row["discard"])
        pts = np.array([solve(take_nest(sampler.deal(i, SEED), 1, discard), row["trump"], "E",
                              dealer="N").declarer_points for i in range(row["samples"])])
        assert list(pts) == list(_points(rep, rank))
        # each solve's row names its option and its layout as dealt
        rows = rep.detail[rep.detail["option"] == rank]
        assert set(rows["trump"]) == {row["trump"]} and set(rows["discard"]) == {row["discard"]}
        assert list(rows["sample"]) == list(range(row["samples"]))
        assert list(rows["deal"]) == [sampler.deal(i, SEED).rdn() for i in range(row["samples"])]
        assert row["mean"] == pytest.approx(pts.mean())
        assert row["se"] == pytest.approx(pts.std(ddof=1) / math.sqrt(len(pts)))
        assert row["p_make"] == pytest.approx(np.mean(pts >= bid))
        made = np.mean(pts >= bid)
        assert row["p_make_se"] == pytest.approx(math.sqrt(made * (1 - made) / len(pts)), abs=1e-12)
        # the same 95% Wilson interval as hand's bids (tests/test_hand.py checks wilson itself)
        assert (row["p_make_lo"], row["p_make_hi"]) == pytest.approx(wilson(np.mean(pts >= bid), len(pts)))
        assert row["p_make_lo"] <= row["p_make"] <= row["p_make_hi"] and row["p_make_hi"] - row["p_make_lo"] > 0
        assert row["score"] == pytest.approx(np.mean(np.where(pts >= bid, pts, -bid)))
        if best is None:
            best = pts
        else:
            diff = best[:len(pts)] - pts
            assert row["gap"] == pytest.approx(diff.mean())
            assert row["gap_se"] == pytest.approx(diff.std(ddof=1) / math.sqrt(len(pts)))


def test_reproducible_whatever_the_threads(report):
    # the fixture ran on default_threads() (1 on a one-core machine): one and three here
    for threads in (1, 3):
        again = analyze_nest(HAND, NEST, SMALL, seat="E", dealer="N", bid=60, samples=8, seed=SEED, top=4,
                             candidates=8, threads=threads)
        assert again.options.equals(report.options), threads
        assert again.detail.equals(report.detail), threads
        assert again.recommendation == report.recommendation, threads
        assert again == report, threads   # the whole report, its DataFrames by DataFrame.equals
    with pytest.raises(TypeError, match="unhashable"):   # as DataFrames are
        hash(report)


def test_policy_choice_and_each_trump_are_candidates():
    cards = Hand.from_rdn(HAND) | Hand.from_rdn(NEST)
    choice = DEFAULT_POLICY.choose(cards, SMALL)
    cands = nest_candidates(HAND, NEST, SMALL, limit=9)
    assert len(cands) == 9
    assert sum(c.trump == choice.trump and c.discard == choice.discard for c in cands) == 1
    assert any("choice" in c.sources for c in cands)
    for trump in "BRYG":
        policy = DEFAULT_POLICY.discard(cards, trump, SMALL)
        assert any(c.trump == trump and c.discard == policy for c in cands)
    for c in cands:
        assert len(c.discard) == SMALL.nest_size and (c.discard | c.keep) == cards
        assert not c.discard.has_bird()
    # ranked by the quick estimate
    assert [c.quick for c in cands] == sorted((c.quick for c in cands), reverse=True)
    # even the smallest pool keeps the policy's choice
    (only,) = nest_candidates(HAND, NEST, SMALL, limit=1)
    assert (only.trump, only.discard) == (choice.trump, choice.discard)


def test_each_round_keeps_the_options_that_measured_best_on_its_layouts():
    """Successive halving ranks the survivors of a round by their mean on
    that round's layouts (not by the quick estimate that ordered the pool):
    every option that went on measured at least as well as every option
    dropped then, the policy's choice (the yardstick) excepted."""
    rep = analyze_nest("B13 B10 R13 R12 Y13", "B11 B7 R5 G13 G12", SMALL, samples=8, seed=1, candidates=8)
    opts = rep.options
    assert sorted(set(opts["rounds"])) == [1, 2, 3]  # 8 -> 4 -> 2: dropped after round 1, after round 2, finalists
    for r, (_, layouts) in enumerate(rep.schedule[:-1], start=1):
        there = opts[opts["rounds"] >= r]
        mean = {rank: _points(rep, rank)[:layouts].mean() for rank in there["rank"]}
        went_on = [rank for rank, out, pol in zip(there["rank"], there["rounds"], there["policy"])
                   if out > r and not pol]
        dropped = [rank for rank, out in zip(there["rank"], there["rounds"]) if out == r]
        assert went_on and dropped
        assert min(mean[k] for k in went_on) >= max(mean[d] for d in dropped), (r, mean)
    # the quick estimate alone would have kept others: the test says something here
    quick = {rank: q for rank, q in zip(opts["rank"], opts["quick"])}
    assert set(sorted(quick, key=lambda rank: -quick[rank])[:4]) != set(opts.loc[opts["rounds"] > 1, "rank"])


def test_pool_never_buries_trumps_or_birds_while_side_cards_last():
    """Every discard in the pool, the quick estimate's whole enumeration
    included, buries side cards only when there are enough of them."""
    cards = Hand.from_rdn(HAND) | Hand.from_rdn(NEST)
    cands = nest_candidates(HAND, NEST, SMALL, limit=10_000, per_trump=10_000)
    for trump in "BRYG":
        mine = [c for c in cands if c.trump == trump]
        side = [c for c in cards if c.color not in (None, trump)]
        assert len(side) >= SMALL.nest_size and len(mine) > 1, trump
        for c in mine:
            assert c.discard.count(trump) == 0 and not c.discard.has_bird(), (trump, c.discard.rdn())


def test_pool_mixes_side_cards_and_trumps_when_side_cards_run_short():
    """With fewer side cards than the nest takes, the pool weighs every mix of
    side cards and trumps (birds still kept): burying one trump more to keep
    a side card is an option, as the module docstring says."""
    rules = Rules.from_spec("hasbro,hand_size=2")
    cands = nest_candidates("Rook B14", "B10 B9 B8 R5 G7", rules, limit=10_000, per_trump=10_000)
    under_b = {c.discard.rdn() for c in cands if c.trump == "B"}
    assert all("Rook" not in d for d in under_b)
    assert "B14 B10 B9 B8 G7" in under_b and "B14 B10 B9 B8 R5" in under_b  # R5 or G7 kept


def test_pool_voids_every_side_color_and_pair_that_fits():
    """The discards built by rule void each side color, and each pair of
    them, that fits in the nest (filled up with the lowest side cards)."""
    hand, nest = "B14 B13 R9 R8 R7", "Y12 Y11 Y10 G6 Rook"  # black 2 cards, red 3, yellow 3, green 1
    cards = Hand.from_rdn(hand) | Hand.from_rdn(nest)
    cands = nest_candidates(hand, nest, SMALL, limit=10_000)
    k = SMALL.nest_size
    for trump in "BRYG":
        voids = [c for c in cands if c.trump == trump and "void" in c.sources]
        colors = [c for c in "BRYG" if c != trump and cards.count(c)]
        fits = [combo for r in (1, 2) for combo in itertools.combinations(colors, r)
                if sum(cards.count(c) for c in combo) <= k]
        assert fits, trump
        for combo in fits:
            assert any(all(v.discard.count(c) == cards.count(c) for c in combo) for v in voids), (trump, combo)
    # a pair that fills the nest exactly is voided too: under R, black and yellow are five cards
    assert any(v.discard == Hand.from_rdn("B14 B13 Y12 Y11 Y10") for v in cands if v.trump == "R" and "void" in v.sources)


def test_quick_best_is_never_pruned():
    cards = Hand.from_rdn(HAND) | Hand.from_rdn(NEST)
    cands = nest_candidates(HAND, NEST, SMALL)
    for trump in "BRYG":
        groups = equivalence_classes(cards, trump, SMALL)
        side = [c for c in cards if c.color not in (None, trump)]
        every = np.array([sum(c.bit for c in combo) for combo in itertools.combinations(side, 5)], np.uint64)
        scores = quick_scores(cards, trump, SMALL, every)
        top = canonical_discards(every[np.argmax(scores):np.argmax(scores) + 1], groups)[0]
        mine = [canonical_discards(np.array([c.discard.mask], np.uint64), groups)[0]
                for c in cands if c.trump == trump]
        assert top in mine


def test_a_cut_pool_keeps_each_trumps_quick_best_after_the_policys_discards():
    """The module docstring's order when the pool is cut: the policy's choice,
    its discards for the other trumps, then each trump's top-ranked discard by
    the quick estimate, and only then the rest by it. Eight places hold the
    four policy discards and the four quick bests, whatever the rest score
    (here B's other discards score above Y's and G's best)."""
    hand, nest = "B13 B10 R13 R12 Y13", "B11 B7 R5 G13 G12"
    cards = Hand.from_rdn(hand) | Hand.from_rdn(nest)
    cands = nest_candidates(hand, nest, SMALL, limit=8)
    assert len(cands) == 8
    for trump in "BRYG":
        side = [c for c in cards if c.color not in (None, trump)]
        every = np.array([sum(c.bit for c in combo) for combo in itertools.combinations(side, 5)], np.uint64)
        best = quick_scores(cards, trump, SMALL, every).max()  # the top-ranked (of equals, any one)
        assert max(c.quick for c in cands if c.trump == trump) == pytest.approx(best), trump
        assert any(c.discard == DEFAULT_POLICY.discard(cards, trump, SMALL) for c in cands if c.trump == trump)


def test_equivalent_discards_play_alike():
    """Burying one card of a run the others cannot split, or another, gives the
    same double-dummy points: the reason equivalent discards are one option."""
    hand, nest = "B14 B13 B12 R9 R8", "Y14 Y13 G7 G6 Rook"
    cards = Hand.from_rdn(hand) | Hand.from_rdn(nest)
    groups = equivalence_classes(cards, "B", SMALL)
    named = [[Hand(1 << i).rdn() for i in g] for g in groups]
    # B14 is worth 10, B13 and B12 nothing; no unseen card splits R9 R8, nor G7 G6
    assert ["B12", "B13"] in named and ["R8", "R9"] in named and ["G6", "G7"] in named
    assert ["B14"] in named and ["Rook"] in named
    a, b = Hand.from_rdn("B13 R9 Y13 G7 G6"), Hand.from_rdn("B12 R8 Y13 G7 G6")
    canon = canonical_discards(np.array([a.mask, b.mask], np.uint64), groups)
    assert canon[0] == canon[1]
    sampler = DealSampler(SMALL, "N", Hand.from_rdn(hand), known={"nest": Hand.from_rdn(nest)})
    for i in range(4):
        deal = sampler.deal(i, 1)
        pa = solve(take_nest(deal, 0, a), "B", "N").declarer_points
        pb = solve(take_nest(deal, 0, b), "B", "N").declarer_points
        assert pa == pb


def test_schedule():
    assert halving_schedule(16, 32) == [(16, 4), (8, 8), (4, 16), (2, 32)]
    assert planned_solves(halving_schedule(16, 32)) == 16 * 4 + 8 * 4 + 4 * 8 + 2 * 16
    assert halving_schedule(12, 16) == [(12, 2), (6, 4), (3, 8), (2, 16)]
    assert halving_schedule(2, 10) == [(2, 10)]
    assert halving_schedule(1, 5) == [(1, 5)]
    assert halving_schedule(16, 3) == [(16, 2), (8, 2), (4, 2), (2, 3)]  # never fewer than 2 layouts, nor more than 3
    # an odd count keeps the larger half: 7 -> 4 -> 2, 5 -> 3 -> 2
    assert halving_schedule(7, 8) == [(7, 2), (4, 4), (2, 8)]
    assert halving_schedule(5, 8) == [(5, 2), (3, 4), (2, 8)]
    assert halving_schedule(3, 8) == [(3, 4), (2, 8)]
    with pytest.raises(ConstraintError):
        halving_schedule(0, 5)


@pytest.mark.parametrize("hand, nest, error, words", [
    ("B14 R12 Y9 G6", NEST, DealError, "has 4 cards"),
    (HAND, "Rook B10 Y5 R5", DealError, "nest of 5"),
    (HAND, "Rook B10 Y5 G8 G14", DuplicateCardError, "'G8' is in both"),
    (HAND, "Rook B10 Y5 R5 G2", InvalidCardError, "G2"),
    ("B14 R12 Y9 G6 G6", NEST, DuplicateCardError, "G6"),
])
def test_bad_input_is_a_rook_error(hand, nest, error, words):
    with pytest.raises(error, match=words):
        check_nest(hand, nest, SMALL)


@pytest.mark.parametrize("kw, words", [
    (dict(bid=33), "bid 33: .* bids run from 40 to 120"),
    (dict(objective="p_make"), "objective 'p_make' needs a bid"),
    (dict(objective="nonsense"), "objective 'nonsense': choose one of"),
    (dict(samples=0), "samples=0"),
    (dict(samples=1), "samples=1: at least 2"),  # no standard error, so no honest way to weigh a switch
    (dict(samples=10 ** 11), "samples=100000000000: at most 1,000,000"),  # refused before a layout is dealt
    (dict(top=0), "top=0"),
    (dict(candidates=0), "candidates=0"),
    (dict(margin=-1), "margin=-1"),
    (dict(margin=float("inf")), "margin=inf"),
    (dict(known=["nest:B5"]), "known cards for the nest"),
], ids=lambda v: str(v) if isinstance(v, dict) else "")
def test_bad_options_are_errors(kw, words):
    # each refused for its own reason (a RookError alone would also pass on an unrelated failure)
    with pytest.raises(RookError, match=words):
        analyze_nest(HAND, NEST, SMALL, seed=1, **kw)


def test_objective_p_make_ranks_by_p_make():
    # (at bid 95 every option here makes it on no layout: p_make 0 everywhere, and "ranked by
    # p_make" held whatever the order; at 60 the finalists differ, 4 of 4 against 3 of 4)
    rep = analyze_nest(HAND, NEST, SMALL, bid=60, samples=4, seed=3, candidates=4, objective="p_make", margin=0)
    for rank in range(1, len(rep.options) + 1):  # p_make is the share of layouts where the points reach the bid
        assert rep.options.iloc[rank - 1]["p_make"] == pytest.approx(np.mean(_points(rep, rank) >= 60))
    finalists = rep.options[rep.options["samples"] == 4]
    assert len(finalists) == 2 and finalists["p_make"].nunique() == 2   # not a tie: the order says something
    assert finalists["p_make"].iloc[0] > finalists["p_make"].iloc[1]
    # the first round kept the options with the best p_make on the first two layouts (the
    # policy's own choice, the yardstick, is kept whatever it measures). Every option above
    # makes 60 on both of them, which any order passes: a spot where the first round differs,
    # and where the option kept has the lower mean points (62.5 against 65): ranked by p_make
    rep = analyze_nest("B13 R9 Y12 Y9 G12", "Rook B11 B10 G8 G6", SMALL, bid=60, samples=4, seed=3, candidates=4,
                       objective="p_make", margin=0)
    first = {rank: np.mean(_points(rep, rank)[:2] >= 60) for rank in range(1, len(rep.options) + 1)}
    kept = [r for r in first if rep.options.iloc[r - 1]["samples"] == 4 and not rep.options.iloc[r - 1]["policy"]]
    dropped = [r for r in first if rep.options.iloc[r - 1]["samples"] == 2]
    assert kept and dropped
    assert all(first[k] > first[d] for k in kept for d in dropped), first
    mean = {rank: _points(rep, rank)[:2].mean() for rank in first}
    assert max(mean[d] for d in dropped) > min(mean[k] for k in kept)  # by mean points it would go the other way


# a spot where the expected score and the mean points pick different options: on the first 4 layouts
# G with B9 B5 R8 R5 Y9 and G with B13 B9 B5 R8 R5 both take 56.25 points, but the first makes 55
# three times (a score of 33.75) and the second twice (5.0)
SCORE_SPOT = dict(hand="Y9 R5 B9 B13 Y13", nest="G12 G10 B5 G8 R8", rules=SMALL, bid=55, samples=8, seed=3,
                  candidates=8)


def _scores(points, bid):
    # the declaring side's own score per layout (README): its points if it makes the bid, else minus the bid
    return np.where(np.asarray(points) >= bid, points, -bid)


def test_objective_score_ranks_by_the_expected_score():
    rep = analyze_nest(**SCORE_SPOT, objective="score", margin=0)
    opts = rep.options
    for rank in range(1, len(opts) + 1):
        assert opts.iloc[rank - 1]["score"] == pytest.approx(_scores(_points(rep, rank), 55).mean()), rank
    # the recommendation is the finalist with the best score, by more than a tie
    finalists = opts[opts["samples"] == 8]
    assert len(finalists) == 2 and opts.iloc[0]["score"] == finalists["score"].max() > finalists["score"].min()
    rec = rep.recommendation
    assert not rec.policy and (rec.trump, rec.discard.rdn()) == ("G", "B9 B5 R8 R5 Y9")
    # the round of 4 layouts kept the option with the better score there (the policy's choice stays
    # as the yardstick), where by mean points an option it dropped measured as well
    in4 = [r for r in range(1, len(opts) + 1) if opts.iloc[r - 1]["samples"] >= 4]
    first4 = {r: _scores(_points(rep, r)[:4], 55).mean() for r in in4}
    kept = [r for r in in4 if opts.iloc[r - 1]["samples"] == 8 and not opts.iloc[r - 1]["policy"]]
    dropped = [r for r in in4 if opts.iloc[r - 1]["samples"] == 4]
    assert kept and dropped and all(first4[k] > first4[d] for k in kept for d in dropped), first4
    assert max(_points(rep, d)[:4].mean() for d in dropped) >= min(_points(rep, k)[:4].mean() for k in kept)
    # its lead over the policy's choice is in score: the mean of the paired score differences
    pol = int(opts[opts["policy"]].iloc[0]["rank"])
    diff = _scores(_points(rep, 1), 55) - _scores(_points(rep, pol), 55)
    assert rec.lead == pytest.approx(diff.mean()) and rec.lead_se == pytest.approx(diff.std(ddof=1) / math.sqrt(8))
    assert rec.lead != pytest.approx((_points(rep, 1) - _points(rep, pol)).mean())  # not the lead in points
    # by mean points the same layouts give another option
    by_mean = analyze_nest(**SCORE_SPOT, objective="mean", margin=0).recommendation
    assert (by_mean.trump, by_mean.discard) != (rec.trump, rec.discard)
    # at the default margin (1 se) that lead is too small: the policy's choice is kept, the best by score named
    kept = analyze_nest(**SCORE_SPOT, objective="score").recommendation
    assert kept.policy and (kept.best_trump, kept.best_discard) == (rec.trump, rec.discard)
    assert (kept.lead, kept.lead_se) == (rec.lead, rec.lead_se) and 0 < kept.lead < kept.lead_se
    # named a score: beside it the gap to the runner-up is in points
    assert f"measured score {rec.lead:.1f} +- {rec.lead_se:.1f} better, under 1 se" in kept.text()


def test_without_a_nest_only_trump_is_chosen():
    rules = Rules.from_spec("hasbro,hand_size=5,nest_size=0")
    rep = analyze_nest(HAND, "", rules, samples=2, seed=1)
    assert sorted(rep.options["trump"]) == ["B", "G", "R", "Y"]
    assert (rep.options["discard"] == "").all()
    assert "discard" not in rep.recommendation.text()  # nothing is buried: no empty 'discard ' in the advice


def test_cli_table_without_a_nest_speaks_of_no_nest_or_discards():
    # hasbro,nest_size=0: the declarer takes nothing and buries nothing
    res = CliRunner().invoke(main, ["nest", "--rules", "hasbro,hand_size=5,nest_size=0", "--hand", HAND,
                                    "--nest", "", "--samples", "2", "--candidates", "4", "--seed", "1"])
    assert res.exit_code == 0, res.output
    head = res.stdout.splitlines()[0]
    assert head.startswith("hand B14 R12 Y9 G8 G6  |  rules hasbro,") and "|  nest" not in head, head
    assert "discard" not in res.stdout, res.stdout


# ------------------------------------------------------------------- CLI
def _cli(*args):
    return CliRunner().invoke(main, ["nest", "--rules", SMALL.spec(), *args])


def test_cli_json_csv_and_table():
    args = ["--hand", HAND, "--nest", NEST, "--seat", "E", "--dealer", "N", "--bid", "60", "--samples", "8",
            "--seed", str(SEED), "--candidates", "8", "--top", "4"]
    res = _cli(*args, "--format", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert len(doc["options"]) == 4
    assert set(doc["recommendation"]) >= {"trump", "discard"}
    assert set(doc["options"][0]) >= {"trump", "discard", "mean", "se", "p_make"}
    # the README's nest section names every field an option carries, and every source
    said = (pathlib.Path(__file__).resolve().parents[1] / "README.md").read_text().split("### nest:")[1].split("### ")[0]
    for field in doc["options"][0]:
        assert re.search(rf"[`{{, ]{field}[`:,}}]", said), field
    for source in ("choice", "policy", "bury", "protect", "void", "low", "quick"):
        assert f"`{source}`" in said, source
    lib = analyze_nest(HAND, NEST, SMALL, seat="E", dealer="N", bid=60, samples=8, seed=SEED, top=4, candidates=8)
    assert doc == json.loads(json.dumps(lib.to_dict()))
    res = _cli(*args, "--format", "csv")
    assert res.exit_code == 0, res.output
    lines = res.stdout.strip().splitlines()
    assert lines[0].startswith("section,rank,trump,discard")
    assert len(lines) == 1 + 4 + 1 and lines[-1].startswith("recommendation,")
    rows = pd.read_csv(io.StringIO(res.stdout))
    rec = rows[rows["section"] == "recommendation"].iloc[0]
    own = rows[(rows["section"] == "option") & (rows["trump"] == rec["trump"]) & (rows["discard"] == rec["discard"])]
    assert len(own) == 1  # its option row: the same figures, but gap is its lead over the runner-up
    for col in ("mean", "se", "p_make", "p_make_se", "p_make_lo", "p_make_hi", "score", "samples", "rounds",
                "rank", "quick", "policy", "sources"):  # the last four were left empty
        assert rec[col] == own.iloc[0][col], col
    assert rec["gap"] == pytest.approx(lib.recommendation.gap, abs=1e-4)
    res = _cli(*args)
    assert res.exit_code == 0, res.output
    assert "recommendation: trump " + doc["recommendation"]["trump"] in res.stdout


def test_cli_detail_saves_every_solve_as_csv(tmp_path):
    path = tmp_path / "solves.csv"
    args = ["--hand", HAND, "--nest", NEST, "--seat", "E", "--dealer", "N", "--bid", "60", "--samples", "8",
            "--seed", str(SEED), "--candidates", "8", "--format", "json"]
    res = _cli(*args, "--detail", str(path))
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    rows = pd.read_csv(path)
    assert list(rows.columns) == ["option", "trump", "discard", "sample", "deal", "points"]
    assert len(rows) == doc["solves"]
    lib = analyze_nest(HAND, NEST, SMALL, seat="E", dealer="N", bid=60, samples=8, seed=SEED, candidates=8)
    assert rows.astype(str).equals(lib.detail.astype(str))
    # the printed options are these rows' means
    for opt in doc["options"]:
        mine = rows[(rows["trump"] == opt["trump"]) & (rows["discard"] == " ".join(opt["discard"]))]
        assert mine["points"].mean() == pytest.approx(opt["mean"], abs=1e-3)
    bad = _cli(*args, "--detail", str(tmp_path / "solves.txt"))
    assert bad.exit_code == 2 and "must end in .csv" in bad.stderr and not (tmp_path / "solves.txt").exists()


def test_known_cards_and_constraints_shape_every_layout_and_are_reported():
    """--known and --constraint narrow the layouts as in hand (README): every
    layout the options are solved on has them, the library's and the command's
    alike, and the report names them."""
    known, rule = Hand.from_rdn("B13"), "W:R>=2"
    rep = analyze_nest(HAND, NEST, SMALL, samples=4, seed=SEED, candidates=2, known={"E": "B13"},
                       constraints=[rule])
    assert len(rep.layouts) == 4
    for deal in rep.layouts:
        assert deal.hands[1].mask & known.mask and deal.hands[3].count("R") >= 2, deal.rdn()
    doc = rep.to_dict()
    assert doc["known"] == {"E": "B13"} and doc["constraints"] == [rule]
    res = _cli("--hand", HAND, "--nest", NEST, "--samples", "4", "--seed", str(SEED), "--candidates", "2",
               "--known", "E:B13", "--constraint", rule, "--format", "json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == json.loads(json.dumps(doc))


def test_cli_passes_the_margin_and_the_trumps_to_the_advisor():
    """--margin and --trump reach analyze_nest: the report is the library's with them."""
    res = _cli("--hand", HAND, "--nest", NEST, "--samples", "4", "--seed", str(SEED), "--candidates", "4",
               "--trump", "R", "--trump", "G", "--margin", "0", "--format", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["recommendation"]["margin"] == 0 and {o["trump"] for o in doc["options"]} == {"R", "G"}
    lib = analyze_nest(HAND, NEST, SMALL, samples=4, seed=SEED, candidates=4, trumps=["R", "G"], margin=0)
    assert doc == json.loads(json.dumps(lib.to_dict()))


def test_cli_json_without_bid_keeps_p_make_as_null():
    """CONTRACT.md's json options are {trump, discard, mean, se, p_make}: with
    no --bid there is nothing to make, so p_make is null, never missing."""
    res = _cli("--hand", HAND, "--nest", NEST, "--samples", "2", "--candidates", "2", "--seed", "1",
               "--format", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["bid"] is None and doc["recommendation"]["p_make"] is None
    for opt in doc["options"]:
        assert set(opt) >= {"trump", "discard", "mean", "se", "p_make", "p_make_se", "score"}
        assert opt["p_make"] is None and opt["p_make_se"] is None and opt["score"] is None
        assert opt["p_make_lo"] is None and opt["p_make_hi"] is None
    with_bid = _cli("--hand", HAND, "--nest", NEST, "--samples", "2", "--candidates", "2", "--seed", "1",
                    "--bid", "60", "--format", "json")
    # the same fields in the same order, with or without a bid
    assert [list(o) for o in json.loads(with_bid.stdout)["options"]] == [list(o) for o in doc["options"]]


@pytest.mark.parametrize("hand, nest, extra, words", [
    ("B14 R12 Y9 G6", NEST, [], "has 4 cards"),
    (HAND, "Rook B10 Y5 R5", [], "nest of 5"),
    (HAND, "Rook B10 Y5 R5 G14 G13", [], "nest of 5"),
    ("B14 R12 Y9 G6 G6", NEST, [], "duplicate card 'G6'"),
    (HAND, "Rook B10 Y5 G8 G14", [], "'G8' is in both the hand and the nest"),
    (HAND, "Rook B10 Y5 R5 G2", [], "G2"),
    (HAND, NEST, ["--bid", "33"], "--bid 33"),
    (HAND, NEST, ["--objective", "score"], "needs --bid"),
    (HAND, NEST, ["--trump", "none"], "trump 'none'"),
    (HAND, NEST, ["--margin", "-1"], "--margin"),
    (HAND, NEST, ["--margin", "nan"], "--margin nan: expected a number of standard errors"),  # was margin=nan
    (HAND, NEST, ["--margin", "inf"], "--margin inf: expected a number of standard errors"),  # json said null
    (HAND, NEST, ["--samples", "1"], "--samples"),
    (HAND, NEST, ["--samples", "100000000000"], "not in the range 2<=x<=1000000"),
    (HAND, NEST, ["--known", "E:B10"], "known card 'B10' for E is in the nest ('Rook B10 R5 Y5 G14')"),
    (HAND, NEST, ["--known", "E:B14"], "known card 'B14' for E is already in the declarer's hand"),
    (HAND, NEST, ["--known", "N:B14"], "known cards for N ('B14'): that is the declarer's own hand"),
    ("B14 B12 B9 B7 R13 R6 Y11 Y5 G9 B2 B3 B4 B5", "", ["--rules", "bridge"], "'bridge' have no bidding"),
])
def test_cli_bad_input_is_one_line_exit_2(hand, nest, extra, words):
    res = _cli("--hand", hand, "--nest", nest, "--samples", "2", *extra)
    assert res.exit_code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:") and words in lines[0]
    assert "Traceback" not in res.output


def test_nest_to_declarer_buries_and_protects():
    """Under nest_to=declarer (full's rule) buried counters are banked: the
    pool holds the policy's burying discard and a protecting one, and the
    points of a buried counter count for the declaring side on every layout."""
    rules = Rules.from_spec("full,hand_size=5")
    hand, nest = "B14 B13 R5 Y10 G2", "Rook B12 R3 Y4 G14"
    cands = nest_candidates(hand, nest, rules)
    sources = {s for c in cands for s in c.sources}
    assert {"policy", "protect"} <= sources
    rep = analyze_nest(hand, nest, rules, samples=4, seed=2, candidates=6)
    sampler = DealSampler(rules, "N", Hand.from_rdn(hand), known={"nest": Hand.from_rdn(nest)})
    row = rep.options.iloc[0]
    discard = Hand.from_rdn(row["discard"])
    for i in range(4):
        played = take_nest(sampler.deal(i, 2), 0, discard)
        assert _points(rep, 1)[i] == solve(played, row["trump"], "N").declarer_points
        assert _points(rep, 1)[i] >= rules.points_of_mask(discard.mask)


def test_last_trick_pool_weighs_keeping_the_counters_too():
    """Under nest_to=last_trick (hasbro) the policy fills its discards with
    the losing counters; the pool still holds the discard that keeps them
    in hand, for the advisor to measure against it."""
    hand, nest = "Rook B14 B13 R10 Y6", "B12 R9 R8 R7 G6"
    cards = Hand.from_rdn(hand) | Hand.from_rdn(nest)
    choice = DEFAULT_POLICY.choose(cards, SMALL)
    assert (choice.trump, choice.discard) == ("B", Hand.from_rdn("R10 R8 R7 Y6 G6"))
    cands = nest_candidates(hand, nest, SMALL, limit=99)
    protect = [c for c in cands if "protect" in c.sources and c.trump == "B"]
    assert [c.discard for c in protect] == [Hand.from_rdn("R9 R8 R7 Y6 G6")]
    assert DEFAULT_POLICY.discard(cards, "B", SMALL, protect_counters=True) == protect[0].discard
    assert any("choice" in c.sources and c.discard == choice.discard for c in cands)
    # and the discard that buries the losing counters first, as under nest_to=declarer (`bury`)
    declarer = SMALL.with_knobs(nest_to="declarer", hand_size=SMALL.hand_size)
    for trump in "BRYG":
        bury = DEFAULT_POLICY.discard(cards, trump, declarer)
        assert any("bury" in c.sources and c.discard == bury for c in cands if c.trump == trump), trump


def test_the_policy_choice_is_the_yardstick(report):
    """The policy's own choice reaches the last round; another option is
    recommended only when it leads it by margin standard errors."""
    row = report.options[report.options["policy"]].iloc[0]
    assert row["samples"] == report.samples
    assert report.recommendation.policy == bool(report.options.iloc[0]["policy"])
    # a spot where another option measures better than the policy's choice
    hand, nest = "R13 R10 Y13 Y8 Y6", "B10 R14 R8 Y11 Y10"
    free = analyze_nest(hand, nest, SMALL, samples=8, seed=1, candidates=8, margin=0)
    rec = free.recommendation
    assert not rec.policy and not free.options.iloc[0]["policy"]
    finalists = free.options[free.options["samples"] == 8]
    assert free.options.iloc[0]["mean"] == finalists["mean"].max()
    pol = free.options[free.options["policy"]].iloc[0]
    diff = _points(free, 1) - _points(free, int(pol["rank"]))
    assert rec.lead == pytest.approx(diff.mean()) and rec.lead > 0
    assert rec.lead_se == pytest.approx(diff.std(ddof=1) / math.sqrt(len(diff)))
    assert (rec.best_trump, rec.best_discard) == (rec.trump, rec.discard)
    # the same measurements, a margin the lead does not reach: the policy's choice is kept and ranks first
    kept = analyze_nest(hand, nest, SMALL, samples=8, seed=1, candidates=8, margin=rec.lead / rec.lead_se + 0.01)
    assert kept.recommendation.policy and kept.options.iloc[0]["policy"]
    assert (kept.recommendation.best_trump, kept.recommendation.best_discard) == (rec.trump, rec.discard)
    assert kept.options.iloc[1]["gap"] == pytest.approx(-rec.lead)  # the runner-up measured better
    # the remark about the heuristic names the recommended option, not the runner-up
    k = kept.recommendation
    assert k.text().startswith(f"trump {k.trump}, discard {k.discard.rdn()} (the heuristic's choice, kept: ")
    assert "better than the heuristic's choice" in rec.text() and "(the heuristic's choice" not in rec.text()
    # the kept choice trails the runner-up: it says so, never "-5.0 +- 8.4 ahead of the runner-up"
    assert k.gap < 0 and f"{-k.gap:.1f} +- " in k.text() and "behind the runner-up" in k.text()
    assert "ahead of the runner-up" not in k.text() and "-" not in k.text().split("; ")[-1].split(" +- ")[0]
    assert kept.detail["points"].sum() == free.detail["points"].sum()  # the margin changes no solve


def test_a_lead_of_exactly_margin_standard_errors_switches():
    """The best-measured option replaces the policy's choice when it leads by
    at least ``margin`` standard errors: a lead of exactly that many switches,
    the next margin up keeps the policy's choice."""
    hand, nest = "R13 R10 Y13 Y8 Y6", "B10 R14 R8 Y11 Y10"
    free = analyze_nest(hand, nest, SMALL, samples=16, seed=4, candidates=8, margin=0).recommendation
    assert free.lead > 0 and free.lead_se > 0
    margin = free.lead / free.lead_se
    assert margin * free.lead_se == free.lead  # exactly on the line in floating point too
    # enough layouts differ at that margin and the next one up: the standard error decides
    assert free.lead_differs >= switch_layouts(math.nextafter(margin, math.inf))
    on = analyze_nest(hand, nest, SMALL, samples=16, seed=4, candidates=8, margin=margin).recommendation
    assert not on.policy and (on.trump, on.discard) == (free.trump, free.discard)
    above = analyze_nest(hand, nest, SMALL, samples=16, seed=4, candidates=8,
                         margin=math.nextafter(margin, math.inf)).recommendation
    assert above.policy


@pytest.mark.parametrize("margin, layouts", [(0, 1), (0.1, 2), (0.5, 2), (1, 3), (1.5, 4), (2, 6), (2.3, 7), (2.5, 8), (3, 8), (50, 8)])
def test_switch_layouts_are_a_sign_test_at_the_margin_confidence(margin, layouts):
    """A switch needs n differing layouts where n alike by chance (0.5 ** n)
    is no likelier than the margin's one-sided level, 8 at most."""
    assert switch_layouts(margin) == layouts
    tail = 1 - statistics.NormalDist().cdf(margin)
    if margin <= 2.5:  # below the cap
        assert 0.5 ** layouts <= tail < 0.5 ** (layouts - 1)


def test_a_switch_needs_the_layouts_a_sign_test_asks():
    """Two layouts that both show the same lead give a standard error of 0,
    which any margin would accept: the default margin keeps the policy's
    choice and says why; a margin whose level two layouts reach switches."""
    hand, nest = "R13 R10 Y13 Y8 Y6", "B10 R14 R8 Y11 Y10"
    free = analyze_nest(hand, nest, SMALL, samples=2, seed=1, candidates=8, margin=0).recommendation
    assert not free.policy and free.lead == 10 and free.lead_se == 0 and free.lead_layouts == free.lead_differs == 2
    half = analyze_nest(hand, nest, SMALL, samples=2, seed=1, candidates=8, margin=0.5).recommendation
    assert not half.policy and (half.trump, half.discard) == (free.trump, free.discard)
    kept = analyze_nest(hand, nest, SMALL, samples=2, seed=1, candidates=8)
    rec = kept.recommendation
    assert rec.policy and rec.lead == 10 and rec.switch_layouts == 3
    assert (rec.best_trump, rec.best_discard) == (free.trump, free.discard)
    assert "better, but the two differ on 2 of 2 layouts, fewer than the 3 a switch needs under 1 se)" in rec.text()
    doc = kept.to_dict()["recommendation"]
    assert doc["lead_over_policy_layouts"] == doc["lead_over_policy_differs"] == 2
    assert doc["switch_layouts"] == 3 and doc["policy"] is True


def test_layouts_where_the_two_tie_do_not_count_toward_a_switch():
    """One layout of 16 that differs, the rest tied: the lead is exactly one
    standard error, which the default margin accepts, but one layout is
    chance as likely as not; the policy's choice is kept."""
    hand, nest = "B14 B13 B11 G10 G5", "Rook R11 R10 R5 Y11"
    free = analyze_nest(hand, nest, SMALL, samples=16, seed=1, candidates=8, margin=0).recommendation
    assert not free.policy and (free.lead_layouts, free.lead_differs) == (16, 1)
    assert free.lead == free.lead_se > 0  # the margin of 1 se is met exactly
    rec = analyze_nest(hand, nest, SMALL, samples=16, seed=1, candidates=8).recommendation
    assert rec.policy and (rec.best_trump, rec.best_discard) == (free.trump, free.discard)
    assert "but the two differ on 1 of 16 layouts, fewer than the 3 a switch needs under 1 se)" in rec.text()


def test_a_lead_under_the_margin_on_too_few_differing_layouts_names_both_reasons():
    """A lead that fails both the standard-error test and the count of
    differing layouts says both: the count alone would read as the only
    thing that kept the policy's choice (at margin 1 the same lead, on
    enough layouts, is kept under 1 se)."""
    hand, nest = "R13 R10 Y13 Y8 Y6", "B10 R14 R8 Y11 Y10"
    rec = analyze_nest(hand, nest, SMALL, samples=16, seed=2, candidates=8, margin=2).recommendation
    assert rec.policy and rec.lead > 0 and rec.lead < 2 * rec.lead_se  # under 2 se
    assert (rec.lead_differs, rec.lead_layouts, rec.switch_layouts) == (4, 16, 6)  # and too few differ
    assert ("better, under 2 se, and the two differ on 4 of 16 layouts, fewer than the 6 a switch needs)"
            in rec.text())
    one = analyze_nest(hand, nest, SMALL, samples=16, seed=2, candidates=8).recommendation
    assert one.lead_differs >= one.switch_layouts and "better, under 1 se)" in one.text()


def test_long_hands_are_announced_before_the_wait(monkeypatch):
    from rook_analyze.cli import nest_cmd

    def stop(*args, **kwargs):
        raise ConstraintError("stopped before solving")

    monkeypatch.setattr(nest_cmd, "analyze_nest", stop)
    r = CliRunner().invoke(main, ["nest", "--rules", "full", "--hand", "Rook B14 B13 B12 B11 B10 B9 B8 R14 R10 Y14 Y10 G14",
                                  "--nest", "B1 R1 Y1 G1 G2"])
    assert r.exit_code == 2 and "stopped before solving" in r.stderr
    assert "note: 13-card hands with counters take seconds to many minutes a solve" in r.stderr


@pytest.mark.parametrize("hand, nest, seed, objective, bid", [
    ("R5 Y12 Y11 Y5 G6", "Y10 Y8 Y7 G11 G10", 0, "mean", None),
    ("B8 G7 R11 Y6 Y14", "R12 G12 G14 Rook R14", 15, "p_make", 40),
])
@pytest.mark.parametrize("margin", [1.0, 0.0])
def test_a_tie_does_not_replace_the_policy_choice(hand, nest, seed, objective, bid, margin):
    """An option that measures exactly as the policy's choice on every layout
    does not lead it (lead 0, standard error 0): the policy's choice is kept,
    whatever the margin, instead of the tie-break by the quick estimate."""
    rep = analyze_nest(hand, nest, SMALL, bid=bid, samples=8, seed=seed, candidates=8, objective=objective,
                       margin=margin)
    rec = rep.recommendation
    # the spot: another option ties the policy's choice on all of their common layouts
    assert rec.lead == 0 and rec.lead_se == 0
    pol = rep.options[rep.options["policy"]].iloc[0]
    assert (rec.best_trump, rec.best_discard.rdn()) != (pol["trump"], pol["discard"])
    assert rec.policy and rep.options.iloc[0]["policy"]
    assert (rec.trump, rec.discard.rdn()) == (pol["trump"], pol["discard"])
    assert "measured no better" in rec.text() and "better, under" not in rec.text()


def test_cli_help_says_the_switch_counts_the_layouts_where_the_two_differ():
    """The command's help names what switch_layouts counts: layouts where
    the two score differently, not the layouts measured."""
    r = CliRunner().invoke(main, ["nest", "--help"])
    assert r.exit_code == 0, r.output
    text = " ".join(r.stdout.split())
    assert "scores differently from it on enough layouts (3 at the default margin; layouts where the two tie " \
           "do not count)" in text
    assert "on enough layouts (3 at the default margin)." not in text


def test_cli_objective_is_read_in_any_case():
    res = _cli("--hand", HAND, "--nest", NEST, "--samples", "2", "--seed", "1", "--bid", "60",
               "--objective", "P_Make", "--format", "json")
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout)["objective"] == "p_make"


def test_cli_objective_score_ranks_by_the_expected_score(tmp_path):
    """--objective score with --bid: each option's score is the mean over its
    layouts of its points where they make the bid, else minus the bid (from
    --detail's rows), and the recommendation is the finalist that scores best."""
    path = tmp_path / "solves.csv"
    spot = SCORE_SPOT
    res = _cli("--hand", spot["hand"], "--nest", spot["nest"], "--bid", "55", "--samples", "8", "--seed", "3",
               "--candidates", "8", "--top", "8", "--objective", "score", "--margin", "0", "--format", "json",
               "--detail", str(path))
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["objective"] == "score" and doc["bid"] == 55
    rows = pd.read_csv(path)
    assert len(doc["options"]) == 8 and len(rows) == doc["solves"]
    for opt in doc["options"]:
        mine = rows[(rows["trump"] == opt["trump"]) & (rows["discard"] == " ".join(opt["discard"]))]
        assert len(mine) == opt["samples"]
        assert opt["score"] == pytest.approx(_scores(mine["points"], 55).mean()), opt
    finalists = [o for o in doc["options"] if o["samples"] == 8]
    best = max(o["score"] for o in finalists)
    assert doc["options"][0]["score"] == best > min(o["score"] for o in finalists)
    rec = doc["recommendation"]
    assert (rec["trump"], rec["discard"]) == (doc["options"][0]["trump"], doc["options"][0]["discard"])
    assert not rec["policy"] and rec["lead_over_policy"] == pytest.approx(
        best - next(o["score"] for o in doc["options"] if o["policy"]))
    lib = analyze_nest(**spot, objective="score", margin=0, top=8)
    assert doc == json.loads(json.dumps(lib.to_dict()))
    table = _cli("--hand", spot["hand"], "--nest", spot["nest"], "--bid", "55", "--samples", "8", "--seed", "3",
                 "--candidates", "8", "--objective", "score", "--margin", "0")
    assert table.exit_code == 0, table.output
    assert ", best by score" in table.stdout.splitlines()[1]


def test_cli_csv_has_the_same_columns_with_or_without_a_bid():
    args = ["--hand", HAND, "--nest", NEST, "--samples", "2", "--candidates", "2", "--seed", "1", "--format", "csv"]
    rows = {}
    for extra in ([], ["--bid", "60"]):
        res = _cli(*args, *extra)
        assert res.exit_code == 0, res.output
        rows[bool(extra)] = list(csv.DictReader(io.StringIO(res.stdout)))
    assert list(rows[False][0]) == list(rows[True][0])
    bid_fields = ("p_make", "p_make_se", "p_make_lo", "p_make_hi", "score")
    assert all(r[f] == "" for r in rows[False] for f in bid_fields)  # empty without a bid, as json's nulls
    assert all(r["p_make"] != "" for r in rows[True])


def test_a_lead_in_p_make_is_written_as_a_probability():
    """With --objective p_make the lead over the policy's choice is a
    difference of probabilities, written to three decimals (here 0.125 +-
    0.125: to one decimal it would read "0.1 +- 0.1", a lead that looks as
    large as the margin it failed); in points it keeps one decimal."""
    hand, nest = "R12 R7 G12 G8 G7", "B12 B10 Y10 Y7 G6"
    free = analyze_nest(hand, nest, SMALL, bid=40, samples=8, seed=1, candidates=8, objective="p_make", margin=0)
    rec = free.recommendation
    assert not rec.policy and 0 < rec.lead < 1 and rec.lead_se > 0  # the spot: another option switched in
    shown = f"P(make) {rec.lead:.3f} +- {rec.lead_se:.3f}"
    assert f"; {shown} better than the heuristic's choice" in rec.text()
    kept = analyze_nest(hand, nest, SMALL, bid=40, samples=8, seed=1, candidates=8, objective="p_make",
                        margin=rec.lead / rec.lead_se + 0.01).recommendation
    assert kept.policy and kept.lead == rec.lead
    assert f"measured {shown} better, " in kept.text()
    # in points (mean, score) the lead keeps one decimal, as the other figures
    points = analyze_nest(hand, nest, SMALL, bid=40, samples=8, seed=1, candidates=8, margin=0).recommendation
    assert f"; {points.lead:.1f} +- {points.lead_se:.1f} better than the heuristic's choice" in points.text()


def test_one_trump_given_keeps_the_policy_discards_for_it_as_the_yardstick():
    """With --trump naming one trump that is not the policy's, the policy's
    discards for that trump are the choice --margin measures against: an
    option that measures only as well as them (here a tie on every layout)
    or leads them by less than the margin does not replace them."""
    hand, nest = "R13 R10 Y13 Y8 Y6", "B10 R14 R8 Y11 Y10"
    cards = Hand.from_rdn(hand) | Hand.from_rdn(nest)
    assert DEFAULT_POLICY.choose(cards, SMALL).trump == "Y"
    for trump in ("B", "G"):
        rep = analyze_nest(hand, nest, SMALL, samples=8, seed=1, candidates=8, trumps=[trump], margin=100)
        rec = rep.recommendation
        assert rec.policy and rep.options.iloc[0]["policy"] and rep.options["policy"].sum() == 1
        assert rec.discard == DEFAULT_POLICY.discard(cards, trump, SMALL)
        assert rec.lead is not None and (rec.lead == 0 or rec.lead < 100 * rec.lead_se)


# ------------------------------------------------------------- time limit
class _Clock:
    """time.monotonic for analysis.nest, and solve_batch's deadline on it: a
    batch solves its layouts one after another, a second each; a layout
    that would end past the deadline is left unsolved, and the batch then
    ends at the deadline."""

    def __init__(self):
        self.now = 100.0
        self.batches = []  # the layouts of each solve_batch call

    def monotonic(self):
        return self.now


def _timed(monkeypatch):
    from rook_analyze.analysis import nest as nest_mod
    from rook_analyze.solver.api import UNSOLVED

    clock = _Clock()
    real = nest_mod.solve_batch

    def batch(jobs, *args, groups, deadline=None, **kw):
        out = real(jobs, *args, groups=groups, **kw)
        layouts = sorted(set(groups))
        clock.batches.append(layouts)
        ends = {k: clock.now + n + 1 for n, k in enumerate(layouts)}
        late = [k for k in layouts if deadline is not None and ends[k] > deadline]
        out[[g in late for g in groups]] = UNSOLVED
        clock.now = deadline if late else clock.now + len(layouts)
        return out

    monkeypatch.setattr(nest_mod, "time", clock)
    monkeypatch.setattr(nest_mod, "solve_batch", batch)
    return clock


def _by_layout(rep):
    """Each option's points by layout: {(trump, discard): {sample: points}}."""
    out = {}
    for row in rep.detail.itertuples():
        out.setdefault((row.trump, row.discard), {})[row.sample] = row.points
    return out


_LIMIT_ARGS = dict(seat="E", dealer="N", bid=60, samples=8, seed=SEED, top=4, candidates=8, threads=2)


@pytest.mark.parametrize("limit, ran, finalists", [
    # a second a layout, two layouts a batch (a thread each): rounds 8 on 2 (t=2), 4 on 4 (t=4), then the
    # finalists' layout 4 ends at t=5 and layout 5 would end past the limit: round 3 cut part way
    (5, ((8, 2), (4, 4), (2, 5)), 2),
    # layout 3 would end at t=4, past the limit: round 2 ends on 3 layouts
    (3, ((8, 2), (4, 3)), 4),
    # the limit passes between rounds 2 and 3: round 3 never starts, so none of round 2's 4 options drops out
    (4, ((8, 2), (4, 4)), 4),
    # round 3 starts (t=4) but its first layout would end past the limit: as if it never started
    (4.5, ((8, 2), (4, 4)), 4),
    # so too round 2 (t=2, its first layout ending at t=3): the first round's 8 options stay, none dropped
    (2.5, ((8, 2),), 8),
])
def test_time_limit_ends_the_rounds_and_keeps_every_solve_as_without_it(monkeypatch, report, limit, ran, finalists):
    clock = _timed(monkeypatch)
    rep = analyze_nest(HAND, NEST, SMALL, time_limit=limit, **_LIMIT_ARGS)
    assert rep.timed_out is True and rep.time_limit == limit
    assert rep.schedule == ran and rep.samples == ran[-1][1] == len(rep.layouts)
    assert rep.solves == planned_solves(rep.schedule) == len(rep.detail)
    assert all(len(b) <= 2 for b in clock.batches)  # solved a thread's layout at a time
    opts = rep.options
    # the options of the last round run rank first, all on its layouts, all in every round run
    assert list(opts["samples"][:finalists]) == [ran[-1][1]] * finalists
    assert list(opts["rounds"][:finalists]) == [len(ran)] * finalists
    assert (opts["samples"][finalists:] < ran[-1][1]).all()
    # every solve is the one the run without a limit made on that layout (the same layouts, an exact solver)
    full = _by_layout(report)
    for option, got in _by_layout(rep).items():
        assert all(full[option][i] == v for i, v in got.items() if i in full[option]), option
    assert [d.rdn() for d in rep.layouts] == [d.rdn() for d in report.layouts[:rep.samples]]
    # the finalists rank by their figure after the recommendation (the best, or the policy's choice
    # kept for want of a lead), and the policy's choice is among them
    assert opts["mean"][1:finalists].is_monotonic_decreasing
    assert opts["mean"][0] == opts["mean"][:finalists].max() or opts["policy"][0]
    assert opts["policy"][:finalists].any()
    doc = rep.to_dict()
    assert (doc["time_limit"], doc["timed_out"]) == (limit, True)
    assert doc["solves"] == rep.solves < planned_solves(rep.planned)  # the solves run, not those planned
    assert doc["schedule"] == [{"options": n, "layouts": m} for n, m in ran]
    # the rounds a run without the limit makes: the CLI's "round k of m" counts them
    assert rep.planned == report.schedule == report.planned == ((8, 2), (4, 4), (2, 8))
    assert doc["planned"] == [{"options": n, "layouts": m} for n, m in report.schedule]


def test_time_limit_not_reached_gives_the_report_without_it(monkeypatch, report):
    clock = _timed(monkeypatch)
    rep = analyze_nest(HAND, NEST, SMALL, time_limit=1e6, **_LIMIT_ARGS)
    # solved two layouts a batch: 0-1, 2-3, 4-5, 6-7
    assert clock.batches == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert rep.timed_out is False and rep.schedule == report.schedule
    assert rep.options.equals(report.options) and rep.detail.equals(report.detail)
    assert rep.recommendation == report.recommendation
    assert report.timed_out is None and report.to_dict()["time_limit"] is None


def test_cli_time_limit_says_where_it_stopped(monkeypatch):
    _timed(monkeypatch)
    args = ["--hand", HAND, "--nest", NEST, "--seat", "E", "--dealer", "N", "--bid", "60", "--samples", "8",
            "--seed", str(SEED), "--candidates", "8", "--workers", "2", "--time-limit", "5"]
    res = _cli(*args)
    assert res.exit_code == 0, res.output
    line = res.stdout.splitlines()[1]
    assert "(options on layouts: 8 on 2, 4 on 4, 2 on 5)" in line, line
    assert line.endswith("time limit 5 s reached in round 3 of 3: the recommendation rests on 2 finalists "
                         "solved on 5 layouts"), line
    res = _cli(*args[:-1], "4", "--format", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert (doc["time_limit"], doc["timed_out"], doc["samples"]) == (4.0, True, 4)
    # json and csv have no header: standard error says it
    assert res.stderr.strip().splitlines()[-1] == ("time limit 4 s reached after round 2 of 3: the "
                                                   "recommendation rests on 4 finalists solved on 4 layouts")
    res = _cli(*args[:-1], "1e9", "--format", "csv")
    assert res.exit_code == 0, res.output
    assert "time limit" not in res.stderr
    for bad in ("0", "-1", "nan", "x"):
        res = _cli(*args[:-1], bad)
        assert res.exit_code == 2 and "--time-limit" in res.stderr, (bad, res.output)


def test_time_limit_on_the_real_clock(report):
    # no fakes: a limit past before the first solve solves nothing, and the policy's choice stands
    rep = analyze_nest(HAND, NEST, SMALL, time_limit=1e-9, **_LIMIT_ARGS)
    assert rep.timed_out is True and rep.schedule == ((8, 0),) and rep.samples == 0 and rep.solves == 0
    assert rep.recommendation.policy and rep.recommendation.layouts == 0 and rep.detail.empty
    # one that lets the first round finish (this small game solves in milliseconds) gives the same solves
    rep = analyze_nest(HAND, NEST, SMALL, time_limit=60, **_LIMIT_ARGS)
    assert rep.schedule == report.schedule and rep.detail.equals(report.detail)


@pytest.mark.parametrize("threads, limit, solved", [(2, 0.5, 0), (2, 1.5, 1), (4, 1.5, 1), (4, 2.5, 2)])
def test_a_limit_before_every_option_has_two_layouts_leaves_the_policys_choice(monkeypatch, threads, limit,
                                                                               solved):
    # the first layouts stop at the limit too (a 13-card first round can take minutes): a batch of a layout a
    # thread, each layout a second; with fewer than 2 layouts nothing can be compared
    clock = _timed(monkeypatch)
    args = _LIMIT_ARGS | dict(samples=16, threads=threads)
    assert halving_schedule(8, 16)[0] == (8, 4)
    rep = analyze_nest(HAND, NEST, SMALL, time_limit=limit, **args)
    assert clock.batches == [list(range(threads))]
    assert rep.timed_out is True and rep.schedule == ((8, solved),) and rep.samples == solved == len(rep.layouts)
    assert rep.solves == 8 * solved == len(rep.detail)
    assert list(rep.options["samples"]) == [solved] * 8
    rec, doc = rep.recommendation, rep.to_dict()
    if solved >= 2:  # compared as usual
        assert rec.layouts is None and doc["recommendation"]["compared"] is True
        return
    assert rec.layouts == solved and rec.policy and rec.lead is None and rep.options["policy"][0]
    assert doc["recommendation"]["compared"] is False and doc["recommendation"]["se"] is None
    assert "so none was compared" in rec.text()
    if solved == 0:
        assert rep.options["mean"].isna().all() and doc["recommendation"]["mean"] is None
        assert all(o["p_make_lo"] is None and o["p_make_hi"] is None for o in doc["options"])
        assert rec.text().endswith("(no layout solved)")
    else:
        assert rec.mean == _points(rep, 1)[0] and rec.text().endswith("on the one layout solved)")


@pytest.mark.parametrize("seat, dealer, trumps", [("N", "W", ["B", "R"]), ("N", "W", None), ("S", "E", None)])
def test_one_layout_before_the_limit_ranks_by_the_quick_estimate(monkeypatch, seat, dealer, trumps):
    # one layout a second, one a batch: the limit leaves every option one layout, which compares nothing. The
    # options rank by the quick estimate (the policy's choice first where there is one), not by that one layout
    # (on which these seats' options differ), and with several trumps that leave out the policy's the
    # recommendation is the best by the quick estimate, as its text says; nothing was measured better than it
    _timed(monkeypatch)
    args = _LIMIT_ARGS | dict(seat=seat, dealer=dealer, threads=1, trumps=trumps)
    rep = analyze_nest(HAND, NEST, SMALL, time_limit=1.5, **args)
    rec, opts = rep.recommendation, rep.options
    assert rec.layouts == 1 and list(opts["samples"]) == [1] * len(opts)
    assert opts["mean"].nunique() > 1  # the one layout would rank them otherwise
    assert bool(opts["policy"][0]) == (trumps is None) == rec.policy
    assert list(opts["quick"][1:]) == sorted(opts["quick"][1:], reverse=True)
    if not rec.policy:
        assert opts["quick"][0] == opts["quick"].max()
        assert "(the best by the quick estimate)" in rec.text() and "heuristic" not in rec.text()
    # no option was measured better than the recommendation: it is the "best", with no lead
    assert (rec.best_trump, rec.best_discard) == (rec.trump, rec.discard) and rec.lead is None
    doc = rep.to_dict()["recommendation"]
    assert doc["best"]["trump"] == rec.trump
    # no lead measured: no count of layouts for a switch either (with no yardstick none is judged)
    assert doc["switch_layouts"] is doc["lead_over_policy_layouts"] is doc["lead_over_policy_differs"] is None


def test_cli_time_limit_before_any_comparison(monkeypatch):
    _timed(monkeypatch)
    res = _cli("--hand", HAND, "--nest", NEST, "--seat", "E", "--dealer", "N", "--bid", "60", "--seed", str(SEED),
               "--candidates", "8", "--workers", "2", "--time-limit", "0.5")
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[1].endswith("time limit 0.5 s reached in round 1 of 3, before every option had 2 layouts: "
                             "no option was compared"), lines[1]
    assert lines[-1].startswith("recommendation: trump ") and "(the heuristic's choice): the time limit" in lines[-1]
    res = _cli("--hand", HAND, "--nest", NEST, "--seed", str(SEED), "--candidates", "8", "--workers", "2",
               "--time-limit", "0.5", "--format", "csv")
    assert res.exit_code == 0, res.output
    assert "no option was compared" in res.stderr


def test_time_limit_help_says_the_searches_stop():
    res = _cli("--help")
    assert res.exit_code == 0
    text = " ".join(res.stdout.split())
    assert "in flight finish" not in text  # they stop at the limit, as solve_batch's deadline does
    assert "Stop the searches once SECONDS have passed" in text
