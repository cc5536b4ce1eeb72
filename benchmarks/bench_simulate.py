"""Throughput, scaling and worker memory of ``rook-analyze simulate``.

For each worker count K (default 1 and 2) this starts the same embedded Dask
cluster that ``simulate`` starts (K single-threaded worker processes on
127.0.0.1), loads the solver in every worker (outside the timing: a real
run pays it once), then runs ``simulate`` on that cluster into a fresh
folder and measures:

- deals/s over the run (wall clock) and extrapolated deals a day;
- deals per worker CPU-second (what a dedicated core would give: the
  machines here are shared, so wall-clock rates undersell);
- every worker's resident memory (RSS) at the start, at the end and at its
  peak, sampled every second; the growth from start to end;
- the CPU time of this process over the run (the scheduler, the client
  and the writing of the parts run here), against the workers': on two
  cores, what it takes is taken from the workers.

The scaling figure is deals/s with 2 workers over deals/s with 1.

Usage::

    python benchmarks/bench_simulate.py --rules hasbro --deals 60 --chunk-size 5 --workers 1,2

A single pair of runs swings by a tenth or more on a shared machine (the
same code gave 1.67 and 1.86 x in two pairs of 240 deals): ``--repeat N``
runs the pair N times in alternating order and prints the medians.

Quote medians and ratios, not single absolute times (DEVELOPERS.md)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_args import counts, non_negative, positive, rules_spec, seconds


def _rss_and_cpu() -> tuple[int, float]:
    import psutil

    p = psutil.Process()
    t = p.cpu_times()
    return p.memory_info().rss, t.user + t.system


def _own_cpu() -> float:
    # every thread of this process: Dask's scheduler and the client run on threads of their own
    t = os.times()
    return t.user + t.system


def _warm(rules: str) -> bool:
    from rook_analyze.analysis.simulate import warm_solver

    # a table of the default size, as a worker's first chunk makes: the memory at the start then holds it
    warm_solver(rules, tt_bits=None)
    return True


def run_once(rules: str, deals: int, chunk_size: int, workers: int, seed: int, sample_s: float) -> dict:
    from distributed import Client, LocalCluster

    from rook_analyze.analysis.simulate import simulate, warm_solver

    warm_solver(rules)  # compile once here so the workers load from the disk cache
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=":0", silence_logs=logging.ERROR)
    client = Client(cluster)
    samples: dict[str, list[tuple[float, int]]] = {}
    stop = threading.Event()
    try:
        client.run(_warm, rules)
        start = client.run(_rss_and_cpu)
        parent0 = _own_cpu()
        t0 = time.perf_counter()

        def sampler() -> None:
            while not stop.wait(sample_s):
                try:
                    now = client.run(_rss_and_cpu)
                except Exception:
                    continue
                for w, (rss, _) in now.items():
                    samples.setdefault(w, []).append((time.perf_counter() - t0, rss))

        thread = threading.Thread(target=sampler, daemon=True)
        thread.start()
        with tempfile.TemporaryDirectory(prefix="bench-simulate-") as tmp:
            summary = simulate(rules, deals, Path(tmp) / "run", seed, client=client, chunk_size=chunk_size,
                               progress=False)
        wall = time.perf_counter() - t0
        parent_cpu = _own_cpu() - parent0
        stop.set()
        thread.join()
        end = client.run(_rss_and_cpu)
    finally:
        stop.set()
        client.close()
        cluster.close()
    cpu = sum(end[w][1] - start[w][1] for w in end if w in start)
    mb = 1024 * 1024
    per_worker = []
    for w in sorted(start):
        series = [r for _, r in samples.get(w, [])] or [start[w][0]]
        per_worker.append({"start_mb": start[w][0] / mb, "end_mb": end.get(w, start[w])[0] / mb,
                           "peak_mb": max(series + [start[w][0], end.get(w, start[w])[0]]) / mb})
    rate = summary.deals_computed / wall
    return {
        "rules": rules, "workers": workers, "deals": deals, "chunk_size": chunk_size, "seconds": wall,
        "deals_per_s": rate, "deals_per_day": rate * 86400,
        "deals_per_cpu_s": summary.deals_computed / cpu if cpu > 0 else float("nan"),
        "worker_cpu_s": cpu, "parent_cpu_s": parent_cpu,
        "worker_memory": per_worker,
        "max_worker_peak_mb": max(p["peak_mb"] for p in per_worker),
        "max_worker_growth_mb": max(p["end_mb"] - p["start_mb"] for p in per_worker),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", type=rules_spec, default="hasbro")
    ap.add_argument("--deals", type=positive, default=60)
    ap.add_argument("--chunk-size", type=positive, default=5)
    ap.add_argument("--workers", type=counts, default=[1, 2], help="comma-separated worker counts (default 1,2)")
    ap.add_argument("--seed", type=non_negative, default=1)
    ap.add_argument("--sample", type=seconds, default=1.0, help="seconds between memory samples")
    ap.add_argument("--repeat", type=positive, default=1,
                    help="runs of every worker count, the order reversed each time (default 1); with more "
                         "than one, the medians of the runs are printed too")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    results = []
    rounds = []
    for r in range(args.repeat):
        # the order alternates, so a machine that slows down or speeds up over the runs
        # weighs on every worker count alike
        order = args.workers if r % 2 == 0 else args.workers[::-1]
        done = {}
        for k in order:
            print(f"running {args.rules}: {args.deals} deals on {k} worker(s)"
                  f"{f' (run {r + 1} of {args.repeat})' if args.repeat > 1 else ''}...", file=sys.stderr, flush=True)
            done[k] = run_once(args.rules, args.deals, args.chunk_size, k, args.seed, args.sample)
            results.append(done[k])
        rounds.append(done)
    scalings = [d[2]["deals_per_s"] / d[1]["deals_per_s"] for d in rounds if 1 in d and 2 in d]
    scaling = statistics.median(scalings) if scalings else None
    if args.json:
        print(json.dumps({"machine": _machine(), "results": results, "scaling_1_to_2": scaling,
                          "scaling_each_run": scalings}, indent=2))
        return 0
    print(f"machine: {_machine()}")
    print("| workers | deals | seconds | deals/s | deals/day | deals per worker CPU-s | worker / parent CPU-s | "
          "worker RSS start / end / peak (MB) |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        mem = "; ".join(f"{p['start_mb']:.0f} / {p['end_mb']:.0f} / {p['peak_mb']:.0f}" for p in r["worker_memory"])
        print(f"| {r['workers']} | {r['deals']} | {r['seconds']:.1f} | {r['deals_per_s']:.3f} | "
              f"{r['deals_per_day']:,.0f} | {r['deals_per_cpu_s']:.3f} | "
              f"{r['worker_cpu_s']:.1f} / {r['parent_cpu_s']:.1f} | {mem} |")
    if scaling is not None:
        each = f" (median of {len(scalings)} runs: {', '.join(f'{x:.2f}' for x in scalings)})" if len(scalings) > 1 else ""
        print(f"\nscaling 1 -> 2 workers: {scaling:.2f}x{each}")
    for k in args.workers:
        runs = [d[k] for d in rounds]
        day = statistics.median(r["deals_per_day"] for r in runs)
        cpu_day = statistics.median(r["deals_per_cpu_s"] for r in runs) * 2 * 86400
        how = f"median of {len(runs)} runs: " if len(runs) > 1 else ""
        print(f"{k} worker(s): {how}{day:,.0f} deals a day; at the measured deals per CPU-second, two dedicated "
              f"cores give {cpu_day:,.0f} deals a day")
    return 0


def _machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, load {os.getloadavg()}"


if __name__ == "__main__":
    raise SystemExit(main())
