"""Where a solve's nodes go among the bisection's probes.

``solve_exact`` finds a value by bisection over the points: each probe is
a null-window search that answers "does the declaring side take at least
t points?" with a fail-soft bound. Two probes are needed whatever the
order (one at the value, to prove it, and one a unit above, to refute
it); the others only narrow the interval. This script solves ``hand``'s
own work (the deals, trumps and discards of ``bench_hand.py --nodes``)
with the kernel's bisection loop mirrored in Python, so each probe's
nodes can be counted, and prints:

- probes per solve;
- the share of all nodes by the probe's threshold relative to the value
  (0: the probe that proves the value, +1: the one that refutes a unit
  more), which bounds what any choice of thresholds could save (a perfect
  first guess would still make the 0 and +1 probes);
- the share by a probe's place from the end and from the start;
- how the nodes spread over solves (the heavy tail).

The mirror makes the same probes in the same order on the same table as
``solve_exact``, so its node count and value sum equal
``bench_hand.py --nodes N``'s for the same N (the script prints both
figures to compare).

    python benchmarks/probe_costs.py --samples 10
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_hand import README_HAND, sample_hands  # noqa: E402

from rook_analyze.analysis.hand import policy_plays  # noqa: E402
from rook_analyze.analysis.policy import DEFAULT_POLICY  # noqa: E402
from rook_analyze.analysis.sampling import DealSampler  # noqa: E402
from rook_analyze.solver import Rules, Solver, kernel  # noqa: E402

from bench_args import non_negative, positive


def mirrored_solve_exact(log):
    """``kernel.solve_exact``'s loop in Python, logging each probe as
    (threshold, bound, nodes); appends (value, probes) to ``log``."""
    def solve_exact(hands, leader, trick, tlen0, dtr0, P, side, values, bird_mask, unit,
                    tt_tag, tt_work, tt_rec, tt_two, tt_ps, tt_psk, tt_hint, gen, ways, stats, stop):
        n = P[0]
        if not hands.any():  # the first call that loads the kernel (api._first_call_here): no search
            return 0
        hi = kernel.upper_bound(hands, n, trick, tlen0, dtr0, P, values)
        if unit <= 0:
            return 0
        hi -= hi % unit
        lo = 0
        space, classes = kernel.probe_space(hands, n, tlen0, values, bird_mask)
        probes = []
        while lo < hi:
            steps = (hi - lo) // unit
            mid = lo + ((steps + 1) // 2) * unit
            before = int(stats[0])
            bound = kernel.probe(hands, leader, trick, tlen0, dtr0, mid, P, side, values, bird_mask,
                                 tt_tag, tt_work, tt_rec, tt_two, tt_ps, tt_psk, tt_hint, gen, ways, stats, space,
                                 classes, stop)
            if stop[0] != 0:
                return -1
            probes.append((mid, int(bound), int(stats[0]) - before))
            if bound >= mid:
                lo = bound - bound % unit if bound < hi else hi
            else:
                hi = bound - bound % unit
        log.append((lo, unit, probes))
        return lo
    solve_exact.overloads = kernel.solve_exact.overloads  # solve_batch's "compiled yet?" check
    return solve_exact


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=positive, default=10, help="Samples of each of the two hands (as --nodes N).")
    ap.add_argument("--seed", type=non_negative, default=5, help="bench_hand.py --nodes uses 5.")
    args = ap.parse_args(argv)

    rules = Rules.preset("hasbro")
    solver = Solver()
    log: list = []
    real = kernel.solve_exact
    kernel.solve_exact = mirrored_solve_exact(log)
    try:
        for hand in (README_HAND, sample_hands()["hasbro"]):
            sampler = DealSampler(rules, 0, hand)
            for i in range(args.samples):
                for trump, (_, played) in policy_plays(sampler.deal(i, args.seed), 0, DEFAULT_POLICY,
                                                       rules).items():
                    solver.solve(played, trump, 0, dealer="W")
    finally:
        kernel.solve_exact = real

    total = sum(nodes for _, _, probes in log for _, _, nodes in probes)
    by_offset: collections.Counter = collections.Counter()
    from_end: collections.Counter = collections.Counter()
    from_start: collections.Counter = collections.Counter()
    per_solve = []
    for value, unit, probes in log:
        per_solve.append(sum(p[2] for p in probes))
        for k, (mid, _, nodes) in enumerate(probes):
            off = (mid - value) // unit
            by_offset[max(-4, min(4, off))] += nodes
            from_end[len(probes) - 1 - k] += nodes
            from_start[k] += nodes

    def shares(c: collections.Counter) -> dict:
        return {k: round(c[k] / total, 3) for k in sorted(c)}

    per_solve.sort()
    out = {
        "solves": len(log), "nodes": total, "value_sum": sum(v for v, _, _ in log),
        "probes_per_solve": round(float(np.mean([len(p) for _, _, p in log])), 2),
        "share_by_threshold_minus_value_in_units": shares(by_offset),
        "settling_probes_share": round((by_offset[0] + by_offset[1]) / total, 3),
        "share_by_place_from_end": shares(from_end),
        "share_by_place_from_start": shares(from_start),
        "nodes_per_solve": {"median": int(np.median(per_solve)), "p90": int(np.percentile(per_solve, 90)),
                            "max": per_solve[-1],
                            "top_tenth_share": round(sum(per_solve[-max(1, len(per_solve) // 10):]) / total, 3)},
    }
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
