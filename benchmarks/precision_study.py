"""How `hand --precision` spends samples, and whether its early answers hold.

For random hands of a small rule set (5-card hands, so a sample solves in a
millisecond or two), each hand is advised three ways:

- a reference: ``--reference`` samples (default 4000) on a seed of its own;
- ``--precision`` with the stopping rule ``hand`` uses (``settled``: the bid
  and the trump each decided by their 95% intervals, or pinned to within
  the precision), capped at ``--cap`` samples;
- the same with the rule that waits for ev's standard error alone at the
  deciding bids (``se-only``), for comparison.

Printed per rule: the samples used (mean, median), how often the run ended
settled rather than at the cap, and how often its bid and trump equal the
reference's. A bid that differs by a step where the reference itself sits
on the line is a toss-up, not an error of the rule: the rows are printed
too, so such cases can be read.

    python benchmarks/precision_study.py --precision 2 --cap 1500 --hands 30
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from rook_analyze.analysis import hand as hand_module
from rook_analyze.analysis.hand import analyze_hand, deciding_bids
from rook_analyze.solver import Rules, random_deal

from bench_args import positive, positive_number

RULES = "hasbro,hand_size=5,min_bid=40,max_bid=120"


def se_only(rules, bids, rec, precision, points):
    """The alternative rule: ev's standard error at the deciding bids at most ``precision``."""
    rows = bids[bids["bid"].isin(deciding_bids(rules, rec))]
    se = rows["ev_se"].to_numpy()
    return bool(np.all(np.isfinite(se)) and np.all(se <= precision))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--precision", type=positive_number, default=2.0, help="hand's --precision (points)")
    ap.add_argument("--cap", type=positive, default=1500, help="hand's --samples with --precision")
    ap.add_argument("--hands", type=positive, default=30, help="random hands (seeds 1000, 1001, ...)")
    ap.add_argument("--reference", type=positive, default=4000, help="samples of the reference run")
    args = ap.parse_args()
    rules = Rules.from_spec(RULES)
    settled = hand_module.settled
    rules_by_name = {"settled": settled, "se-only": se_only}
    rows = {name: [] for name in rules_by_name}
    began = time.perf_counter()
    for h in range(args.hands):
        hand = random_deal(rules, seed=1000 + h).hands[0].rdn()
        ref = analyze_hand(hand, rules, samples=args.reference, seed=77).recommendation
        line = [f"{hand:22s} reference {ref.bid} in {ref.trump}"]
        for name, rule in rules_by_name.items():
            hand_module.settled = rule
            try:
                r = analyze_hand(hand, rules, samples=args.cap, seed=5, precision=args.precision)
            finally:
                hand_module.settled = settled
            rec = r.recommendation
            rows[name].append((r.samples, r.settled, rec.bid == ref.bid, rec.trump == ref.trump))
            line.append(f"{name}: {r.samples} samples, {rec.bid} in {rec.trump}")
        print("  |  ".join(line), flush=True)
    print(f"rules {RULES}, --precision {args.precision:g}, cap {args.cap}, {args.hands} hands, "
          f"reference {args.reference} samples; {time.perf_counter() - began:.0f} s")
    for name, got in rows.items():
        samples = np.array([g[0] for g in got])
        print(f"{name:8s} samples mean {samples.mean():.0f}, median {np.median(samples):.0f}; "
              f"settled {np.mean([g[1] for g in got]):.2f}; bid as the reference's "
              f"{np.mean([g[2] for g in got]):.2f}, trump {np.mean([g[3] for g in got]):.2f}")


if __name__ == "__main__":
    main()
