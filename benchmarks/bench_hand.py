"""Speed of the bid advisor (``rook-analyze hand``), warm.

Issue 4's targets on a 2-core machine: ``full`` 500 samples in at most 10 s,
``hasbro`` 1000 samples in at most 5 s. Each case runs the sample hand of
``data/sample_hands.txt`` once with a few samples to load the compiled solver
(warm-up, not timed), then ``--repeat`` times in full; it prints the median
and the fastest wall time, the time per sample and the target, and checks
that every repeat gave the same report.

    python benchmarks/bench_hand.py                    # both cases, 3 repeats
    python benchmarks/bench_hand.py --case hasbro --samples 200 --repeat 5
    python benchmarks/bench_hand.py --nodes 25

--nodes N measures the search on the work ``hand`` gives it rather than
timing: the solver's nodes over ``hand``'s own solves (N samples of the
README's hand and of the ``hasbro`` sample hand, each under all four
trumps with the policy's discards, one thread) and the sum of the values,
which a change to the search must leave as it was.

--scoring NAME (with --nodes, repeatable) solves those same deals, trumps
and leads again with the cards scored otherwise (the counters kept or
dropped, tricks worth a point, the nest to the declarer), one line each,
to show what the counters cost the search; ``--scoring all`` runs them all:

    python benchmarks/bench_hand.py --nodes 20 --scoring all
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time
from pathlib import Path

from rook_analyze.analysis.hand import analyze_hand, policy_plays
from rook_analyze.analysis.policy import DEFAULT_POLICY
from rook_analyze.analysis.sampling import DealSampler
from rook_analyze.solver import Deal, Rules, Solver
from rook_analyze.solver.api import default_threads, release_tables

from bench_args import non_negative, positive

CASES = {"full": (500, 10.0), "hasbro": (1000, 5.0)}  # samples, target seconds
HANDS = Path(__file__).resolve().parent.parent / "data" / "sample_hands.txt"


def sample_hands(path: Path = HANDS) -> dict[str, str]:
    hands = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            preset, cards = line.split(":", 1)
            hands[preset.strip()] = cards.strip()
    return hands


README_HAND = "Rook B14 B12 B10 B7 R13 R10 Y14 G11"  # the README's first command


def _rescored(**changes):
    # counters and bird_points are not knobs (``with_knobs``), so the fields
    # are replaced; the deck, and so every deal, stays hasbro's. The bids go
    # (as in bridge): the search does not read them, and hasbro's min_bid of
    # 70 is more than a game of fewer points (tricks_only: 9) lets the rules hold
    return lambda r: dataclasses.replace(r, min_bid=None, bid_step=None, max_bid=None, **changes)


# hasbro's deals scored otherwise: which of its points make the search big
SCORINGS = {
    "hasbro": lambda r: r,
    "nest_to_declarer": _rescored(nest_to="declarer"),
    "bird_in_trump_suit": _rescored(bird_play="trump_suit"),
    "counters_no_rook": _rescored(bird_points=0, nest_to="declarer"),
    "counters_all_5": _rescored(counters=((5, 5), (10, 5), (14, 5)), bird_points=0, nest_to="declarer"),
    "fives_and_tens": _rescored(counters=((5, 5), (10, 10)), bird_points=0, nest_to="declarer"),
    "tens_and_14s": _rescored(counters=((10, 10), (14, 10)), bird_points=0, nest_to="declarer"),
    "tens_only": _rescored(counters=((10, 10),), bird_points=0, nest_to="declarer"),
    "14s_only": _rescored(counters=((14, 10),), bird_points=0, nest_to="declarer"),
    "fives_only": _rescored(counters=((5, 5),), bird_points=0, nest_to="declarer"),
    # every card worth 5: a trick is worth 20, the trick game scaled
    "every_card_5": _rescored(counters=tuple((k, 5) for k in range(5, 15)), bird_points=5, nest_to="declarer"),
    "tricks_only": _rescored(counters=(), bird_points=0, trick_points=1, nest_to="declarer"),
    # the same game on a grid of 5 and of 20 points (the bisection's unit)
    "tricks_20_last_5": _rescored(counters=(), bird_points=0, trick_points=20, last_trick_bonus=5,
                                  nest_to="declarer"),
    "tricks_20_last_20": _rescored(counters=(), bird_points=0, trick_points=20, last_trick_bonus=20,
                                   nest_to="declarer"),
}


def hand_nodes(samples: int, seed: int = 5, scoring: str = "hasbro") -> dict:
    """Nodes and the value sum over ``hand``'s solves of two hasbro hands,
    the deals scored as ``SCORINGS[scoring]`` says (the deals, trumps and
    discards are always hasbro's, from hasbro's policy)."""
    rules = Rules.preset("hasbro")
    scored = SCORINGS[scoring](rules)
    # a table (and its move hints) of its own, whatever ran before in the
    # process: a kept one gave other counts (--scoring tricks_only first: +1,453)
    release_tables()
    solver = Solver()
    nodes = values = solves = 0
    t0 = time.perf_counter()
    for hand in (README_HAND, sample_hands()["hasbro"]):
        sampler = DealSampler(rules, 0, hand)
        for i in range(samples):
            for trump, (_, played) in policy_plays(sampler.deal(i, seed), 0, DEFAULT_POLICY, rules).items():
                if scored is not rules:
                    played = Deal(scored, played.hands, played.nest)
                res = solver.solve(played, trump, 0, dealer="W")
                nodes += res.nodes
                values += res.declarer_points
                solves += 1
    # seconds include compiling when the solver's cache is cold
    out = {"solves": solves, "nodes": nodes, "value_sum": values, "seconds": round(time.perf_counter() - t0, 1)}
    return out if scoring == "hasbro" else {"scoring": scoring, **out}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", choices=sorted(CASES), action="append",
                    help="Which case (repeatable; default all).")
    ap.add_argument("--samples", type=positive, default=None, help="Override the case's sample count.")
    ap.add_argument("--repeat", type=positive, default=3)
    ap.add_argument("--threads", type=positive, default=None, help="Solver threads (default: all cores).")
    ap.add_argument("--seed", type=non_negative, default=None,
                    help="The samples' seed (default 1; with --nodes 5, the figures RESULTS.md quotes).")
    ap.add_argument("--nodes", type=positive, default=0, metavar="N",
                    help="Instead of timing: the solver's nodes on N samples of two hasbro hands (see above).")
    ap.add_argument("--scoring", action="append", choices=["all", *SCORINGS],
                    help="With --nodes: score the same deals this way instead (repeatable; 'all': every way).")
    args = ap.parse_args(argv)
    if args.scoring and not args.nodes:
        ap.error("--scoring goes with --nodes")
    if args.nodes:
        scorings = args.scoring or ["hasbro"]
        if "all" in scorings:
            scorings = list(SCORINGS)
        for scoring in scorings:
            print(json.dumps(hand_nodes(args.nodes, 5 if args.seed is None else args.seed, scoring)), flush=True)
        return 0

    hands = sample_hands()
    seed = 1 if args.seed is None else args.seed
    threads = args.threads or default_threads()
    print(f"cores available {default_threads()}, threads {threads}, cpu_count {os.cpu_count()}")
    print(f"{'case':8} {'samples':>7} {'median s':>9} {'min s':>7} {'ms/sample':>9} {'target s':>8}  ok")
    for case in args.case or list(CASES):
        samples, target = CASES[case]
        n = args.samples or samples
        hand = hands[case]
        analyze_hand(hand, case, samples=2, seed=seed, threads=threads)  # warm-up: load the solver
        times, reports = [], []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            rep = analyze_hand(hand, case, samples=n, seed=seed, threads=threads)
            times.append(time.perf_counter() - t0)
            reports.append(rep)
        same = all(r.detail.equals(reports[0].detail) for r in reports[1:])
        med = statistics.median(times)
        scaled = target * n / samples
        print(f"{case:8} {n:7d} {med:9.2f} {min(times):7.2f} {1000 * med / n:9.2f} {scaled:8.3g}  "
              f"{'yes' if med <= scaled else 'NO'}{'' if same else '  (REPEATS DIFFER)'}")
        print(f"         recommendation: {reports[0].recommendation.text()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
