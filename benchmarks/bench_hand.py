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
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

from rook_analyze.analysis.hand import analyze_hand, policy_plays
from rook_analyze.analysis.policy import DEFAULT_POLICY
from rook_analyze.analysis.sampling import DealSampler
from rook_analyze.solver import Rules, Solver
from rook_analyze.solver.api import default_threads

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


def hand_nodes(samples: int, seed: int = 5) -> dict:
    """Nodes and the value sum over ``hand``'s solves of two hasbro hands."""
    rules = Rules.preset("hasbro")
    solver = Solver()
    nodes = values = solves = 0
    t0 = time.perf_counter()
    for hand in (README_HAND, sample_hands()["hasbro"]):
        sampler = DealSampler(rules, 0, hand)
        for i in range(samples):
            for trump, (_, played) in policy_plays(sampler.deal(i, seed), 0, DEFAULT_POLICY, rules).items():
                res = solver.solve(played, trump, 0, dealer="W")
                nodes += res.nodes
                values += res.declarer_points
                solves += 1
    # seconds include compiling when the solver's cache is cold
    return {"solves": solves, "nodes": nodes, "value_sum": values, "seconds": round(time.perf_counter() - t0, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", choices=sorted(CASES), action="append",
                    help="Which case (repeatable; default all).")
    ap.add_argument("--samples", type=int, default=None, help="Override the case's sample count.")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None, help="Solver threads (default: all cores).")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--nodes", type=int, default=0, metavar="N",
                    help="Instead of timing: the solver's nodes on N samples of two hasbro hands (see above).")
    args = ap.parse_args(argv)
    if args.nodes:
        print(json.dumps(hand_nodes(args.nodes)))
        return 0

    hands = sample_hands()
    threads = args.threads or default_threads()
    print(f"cores available {default_threads()}, threads {threads}, cpu_count {os.cpu_count()}")
    print(f"{'case':8} {'samples':>7} {'median s':>9} {'min s':>7} {'ms/sample':>9} {'target s':>8}  ok")
    for case in args.case or list(CASES):
        samples, target = CASES[case]
        n = args.samples or samples
        hand = hands[case]
        analyze_hand(hand, case, samples=2, seed=args.seed, threads=threads)  # warm-up: load the solver
        times, reports = [], []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            rep = analyze_hand(hand, case, samples=n, seed=args.seed, threads=threads)
            times.append(time.perf_counter() - t0)
            reports.append(rep)
        same = all(r.detail.equals(reports[0].detail) for r in reports[1:])
        med = statistics.median(times)
        scaled = target * n / samples
        print(f"{case:8} {n:7d} {med:9.2f} {min(times):7.2f} {1000 * med / n:9.2f} {scaled:8.1f}  "
              f"{'yes' if med <= scaled else 'NO'}{'' if same else '  (REPEATS DIFFER)'}")
        print(f"         recommendation: {reports[0].recommendation.text()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
