"""Quality and speed of the nest advisor (``rook-analyze nest``).

Quality (issue 5): on random (hand, nest) spots, does the advisor's choice
score at least as many double-dummy points as the heuristic policy that
``hand`` uses? Spot ``j`` is a random deal (seeded per spot); North declares
with North's hand and the nest, West deals. The advisor runs with its own
seed; then both choices are solved on ``--fresh`` *fresh* layouts of the
unseen cards (another seed, so neither choice was picked on them), the same
layouts for both. Per spot the gain is the mean of (advisor - heuristic)
over those layouts; the report gives the mean gain over the spots and its
standard error (the spread of the per-spot gains over the spots, which
holds both the spot and the layout noise), the mean points of each, and how
often the two disagree.

Speed: the wall and CPU time of ``analyze_nest`` with the settings given
(default: the advisor's defaults) on the same spots, warm (one small run
first loads the compiled solver): median and slowest. On a shared, busy
machine the wall time overstates; CPU time / threads is what idle cores
would take.

    python benchmarks/bench_nest.py --rules hasbro --spots 100 --fresh 16
    python benchmarks/bench_nest.py --rules hasbro --spots 5 --fresh 0        # timing only
    python benchmarks/bench_nest.py --rules hasbro --spots 100 --out spots.jsonl [--resume]

``--out`` writes one json line per spot (the hand, the nest, both choices,
their fresh means, the advisor's time) for a closer look at what the
advisor does differently.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time

import numpy as np

from rook_analyze.analysis.nest import (DEFAULT_CANDIDATES, DEFAULT_MARGIN, DEFAULT_SAMPLES, analyze_nest, nest_sampler,
                                        switch_earned)
from rook_analyze.analysis.policy import DEFAULT_POLICY, take_nest
from rook_analyze.solver import Rules, random_deal, solve_batch
from rook_analyze.solver.api import default_threads

from bench_args import non_negative, positive, rules_spec, spot_seed

TARGETS = {"full": 30.0, "hasbro": 10.0}  # seconds with the default settings, warm, 2 cores


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", type=rules_spec, default="hasbro")
    ap.add_argument("--spots", type=positive, default=100)
    ap.add_argument("--samples", type=positive, default=DEFAULT_SAMPLES, help="The advisor's --samples.")
    ap.add_argument("--candidates", type=positive, default=DEFAULT_CANDIDATES, help="The advisor's --candidates.")
    ap.add_argument("--fresh", type=non_negative, default=16,
                    help="Fresh layouts per spot for the comparison (0: timing only).")
    ap.add_argument("--threads", type=positive, default=None, help="Solver threads (default: all cores).")
    ap.add_argument("--seed", type=non_negative, default=1)
    ap.add_argument("--margin", type=float, default=DEFAULT_MARGIN, help="The advisor's margin.")
    ap.add_argument("--out", default=None, help="Write one json line per spot here.")
    ap.add_argument("--resume", action="store_true",
                    help="Keep the spots already in --out (same settings assumed) and run the rest.")
    args = ap.parse_args(argv)

    rules = Rules.from_spec(args.rules)
    threads = args.threads or default_threads()
    print(f"rules {rules.spec()}, spots {args.spots}, advisor samples {args.samples} candidates {args.candidates}, "
          f"fresh layouts {args.fresh}, seed {args.seed}")
    print(f"cores available {default_threads()}, threads {threads}, cpu_count {os.cpu_count()}")
    # warm-up: load the compiled solver
    warm = random_deal(rules, np.random.default_rng(spot_seed(args.seed, 10 ** 6, 0)))
    analyze_nest(warm.hands[0], warm.nest, rules, samples=2, candidates=2, seed=0, threads=threads)

    records: list[dict] = []
    if args.resume and args.out and os.path.exists(args.out):
        with open(args.out, encoding="utf-8") as f:
            records = [json.loads(line) for line in f if line.strip()]
        records = [r for r in records if r["spot"] < args.spots]
        print(f"resuming: {len(records)} spots already in {args.out}", file=sys.stderr)
    done = {r["spot"] for r in records}
    out = open(args.out, "a" if args.resume else "w", encoding="utf-8") if args.out else None
    t_start = time.perf_counter()
    for j in range(args.spots):
        if j in done:
            continue
        record = run_spot(j, rules, args, threads)
        records.append(record)
        if out:
            out.write(json.dumps(record) + "\n")
            out.flush()
        if len(records) % 10 == 0 or len(records) == args.spots:
            gains = [r["gain"] for r in records if "gain" in r]
            line = f"  {len(records):4d} spots, {time.perf_counter() - t_start:7.0f} s"
            if gains:
                line += f", gain so far {np.mean(gains):+.2f} +- {_se(gains):.2f}"
            print(line, file=sys.stderr, flush=True)
    if out:
        out.close()
    summarize(sorted(records, key=lambda r: r["spot"]), rules, args.margin)
    return 0


def run_spot(j: int, rules: Rules, args: argparse.Namespace, threads: int) -> dict:
    """Spot ``j``: the advisor's choice, the heuristic's, and (with ``--fresh``)
    both solved on fresh layouts."""
    declarer, dealer = 0, rules.seats - 1  # N declares, W deals (P1, the last seat at other tables)
    deal = random_deal(rules, np.random.default_rng(spot_seed(args.seed, j, 0)))
    hand, nest = deal.hands[declarer], deal.nest
    t0, c0 = time.perf_counter(), time.process_time()
    rep = analyze_nest(hand, nest, rules, seat=declarer, dealer=dealer, samples=args.samples,
                       candidates=args.candidates, seed=spot_seed(args.seed, j, 1), threads=threads,
                       margin=args.margin)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    rec = rep.recommendation
    heu = DEFAULT_POLICY.choose(hand | nest, rules)
    # the best-measured option: the recommendation unless the margin kept the policy's choice
    best_trump = rec.best_trump if rec.lead is not None else rec.trump
    best_discard = rec.best_discard if rec.lead is not None else rec.discard
    best_is_heu = best_trump == heu.trump and best_discard == heu.discard
    picked = not (rec.trump == heu.trump and rec.discard == heu.discard)
    record = {"spot": j, "hand": hand.rdn(), "nest": nest.rdn(),
              "advisor": {"trump": rec.trump, "discard": rec.discard.rdn(), "mean": rec.mean, "se": rec.se},
              "heuristic": {"trump": heu.trump, "discard": heu.discard.rdn()},
              "best": {"trump": best_trump, "discard": best_discard.rdn(), "lead": rec.lead,
                       "lead_se": rec.lead_se, "differs": rec.lead_differs},
              "picked": picked, "seconds": seconds, "cpu_seconds": cpu, "solves": rep.solves}
    if args.fresh:
        sampler = nest_sampler(hand, nest, rules, declarer)
        seed = spot_seed(args.seed, j, 2)
        layouts = [sampler.deal(i, seed) for i in range(args.fresh)]
        jobs = [take_nest(d, declarer, heu.discard) for d in layouts]
        trumps = [heu.trump] * len(jobs)
        if not best_is_heu:
            jobs += [take_nest(d, declarer, best_discard) for d in layouts]
            trumps += [best_trump] * len(layouts)
        # as the advisor does: both choices on one layout share a table (same values, less time)
        pts = solve_batch(jobs, trumps, declarer, None, dealer=dealer, threads=threads,
                          groups=[i % args.fresh for i in range(len(jobs))]).astype(float)
        h = pts[:args.fresh]
        b = pts[args.fresh:] if not best_is_heu else h
        a = b if picked else h
        record.update(fresh_advisor=float(a.mean()), fresh_heuristic=float(h.mean()), fresh_best=float(b.mean()),
                      gain=float((a - h).mean()))
    return record


def summarize(records: list[dict], rules: Rules, margin: float) -> None:
    n = len(records)
    times = [r["seconds"] for r in records]
    cpus = [r["cpu_seconds"] for r in records]
    solves = [r["solves"] for r in records]
    print()
    print(f"advisor time per spot: median {statistics.median(times):.2f} s, slowest {max(times):.2f} s wall; "
          f"CPU median {statistics.median(cpus):.2f} s, slowest {max(cpus):.2f} s (all threads; on idle cores "
          f"the wall time is about CPU / threads); solves per spot {statistics.median(solves):.0f}; "
          f"target {TARGETS.get(rules.name, float('nan')):.0f} s with the default settings "
          f"(samples {DEFAULT_SAMPLES}, candidates {DEFAULT_CANDIDATES})")
    differ = sum(r["picked"] for r in records)
    differ_trump = sum(r["advisor"]["trump"] != r["heuristic"]["trump"] for r in records)
    best_differs = sum(r["best"]["lead"] is not None for r in records)
    print(f"advisor differs from the heuristic on {differ}/{n} spots (trump on {differ_trump}); "
          f"the best-measured option differs on {best_differs}")
    if all("gain" in r for r in records):
        gains = [r["gain"] for r in records]
        adv = [r["fresh_advisor"] for r in records]
        heu = [r["fresh_heuristic"] for r in records]
        print(f"fresh layouts: advisor {np.mean(adv):.2f} +- {_se(adv):.2f}, heuristic {np.mean(heu):.2f} +- "
              f"{_se(heu):.2f} mean DD points")
        print(f"gain (advisor - heuristic): {np.mean(gains):+.2f} +- {_se(gains):.2f} points per spot "
              f"(se over {n} spots); spots better / worse / equal: "
              f"{sum(g > 0 for g in gains)} / {sum(g < 0 for g in gains)} / {sum(g == 0 for g in gains)}")
        # the best-measured option and its lead do not depend on the margin: every margin's gain from one run
        print(f"gain by margin (switch from the heuristic's choice when lead > 0, lead >= margin x lead_se "
              f"and the two differ on switch_layouts(margin) layouts; this run: {margin:g}):")
        for m in (0.0, 0.5, 1.0, 1.5, 2.0, 3.0):
            switch = [_switches(r, m) for r in records]
            g = [r["fresh_best"] - r["fresh_heuristic"] if s else 0.0 for r, s in zip(records, switch)]
            print(f"  margin {m:3.1f}: switches {sum(switch):3d}, gain {np.mean(g):+.2f} +- {_se(g):.2f}")


def _switches(record: dict, margin: float) -> bool:
    lead, se = record["best"]["lead"], record["best"]["lead_se"]
    if lead is None:
        return False
    se = se if se is not None and se == se else 0.0
    # analyze_nest's rule (records written before the count was kept have no "differs": judged by the
    # standard error alone, as then)
    differs = record["best"].get("differs")
    return switch_earned(lead, se, math.inf if differs is None else differs, margin)


def _se(x) -> float:
    x = np.asarray(x, float)
    return float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else math.nan


if __name__ == "__main__":
    sys.exit(main())
