"""Two solver kernels on the same work, in turn, in one process: the way to
time a change to the search on this noisy machine.

    git worktree add /tmp/old HEAD~1
    python benchmarks/bench_ab.py --old /tmp/old --samples 100

The work is ``hand``'s own solves (as ``bench_hand.py --nodes``): samples of
the README's hand and of the ``hasbro`` sample hand, each under all four
trumps with the policy's discards; ``--rules bridge`` (or another preset)
solves full random deals instead, N (P1 at other tables) declaring its
longest color. Each position is solved by the old kernel and by this
checkout's, one after the other (the order alternating), each with its
own table, so a slow spell of the machine falls on both. Prints the total
time of each, their ratio, the median ratio per solve, the nodes, and
checks that every value is the same.

``--old`` is a checkout of the project: its ``solver`` folder is copied to
``OLD/.bench_ab/ab_old`` and loaded as a package of its own (compiled the
first time, then from numba's cache there).

``--threads T`` solves on T threads as ``hand`` does (each thread its own
table): the positions go in chunks of 8 T, each chunk solved by one kernel
on all T threads and then by the other (the order alternating), so the
threads compete for memory as they do in the tool; the ratio then comes
from the chunks' times (there is no time per solve). ``--old-tt-bits``
gives the old side a table of another size: with ``--old`` a checkout of
this same code, it times the table size alone. Each solve uses the part
of its table that the tool's searches use (``api.used_bits``: 2^18
entries for 9-card hands), so sizes above that change nothing there.

One process is not enough: two copies of the same compiled kernel, loaded
side by side, run at different speeds in one process and alike in the
next (an A/A run, ``--old`` a checkout of this very commit, gave ratios
from 0.89 to 1.09 in separate processes, each steady within its
process). ``--processes K`` runs the comparison in K fresh processes in
turn and reports every ratio with their median; run it as A/A as well to
see the spread a change has to beat.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

from rook_analyze.solver import Rules, kernel, random_deal
from rook_analyze.solver.api import _position, _table_part, used_bits
from rook_analyze.solver.config import TT_WAYS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_hand import README_HAND, sample_hands  # noqa: E402
from bench_solver import longest_color  # noqa: E402
from bench_args import non_negative, positive, rules_spec, tt_bits  # noqa: E402


def load_kernel(checkout: Path):
    """The kernel module of another checkout, imported as package ``ab_old``."""
    workdir = checkout / ".bench_ab"
    dst = workdir / "ab_old"
    if not (checkout / "solver" / "kernel.py").is_file():
        raise SystemExit(f"--old {str(checkout)!r}: no solver/kernel.py there (a checkout of the project?)")
    for src in (checkout / "solver").glob("*.py"):
        dst.mkdir(parents=True, exist_ok=True)
        if not (dst / src.name).exists() or (dst / src.name).read_bytes() != src.read_bytes():
            shutil.copy2(src, dst / src.name)
    sys.path.insert(0, str(workdir))
    return importlib.import_module("ab_old.kernel")


def hand_positions(samples: int, seed: int) -> list:
    from rook_analyze.analysis.hand import policy_plays
    from rook_analyze.analysis.policy import DEFAULT_POLICY
    from rook_analyze.analysis.sampling import DealSampler

    rules = Rules.preset("hasbro")
    out = []
    for hand in (README_HAND, sample_hands()["hasbro"]):
        sampler = DealSampler(rules, 0, hand)
        for i in range(samples):
            for trump, (_, played) in policy_plays(sampler.deal(i, seed), 0, DEFAULT_POLICY, rules).items():
                out.append(_position(played, trump, 0, None, "W", ()))
    return out


def deal_positions(spec: str, deals: int, seed: int) -> list:
    rules = Rules.from_spec(spec)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(deals):
        deal = random_deal(rules, rng)
        out.append(_position(deal, longest_color(deal.hands[0]), 0, None, rules.last_seat, ()))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", type=Path, required=True, help="a checkout of the project with the old kernel")
    ap.add_argument("--samples", type=positive, default=100, help="samples of each of the two hands (hand's work)")
    ap.add_argument("--rules", type=rules_spec, default=None,
                    help="full random deals of this preset instead of hand's work")
    ap.add_argument("--deals", type=positive, default=20, help="how many deals with --rules")
    ap.add_argument("--seed", type=non_negative, default=5)
    ap.add_argument("--tt-bits", type=tt_bits, default=21, help="the solver table's size, 2^N entries (8 to 31)")
    ap.add_argument("--old-tt-bits", type=tt_bits, default=None, help="the old side's table size (default --tt-bits)")
    ap.add_argument("--threads", type=int, default=1, help="solve on this many threads, chunks in turn")
    ap.add_argument("--processes", type=int, default=1,
                    help="run the comparison in this many fresh processes in turn and report each ratio")
    args = ap.parse_args(argv)
    if args.threads < 1:
        raise SystemExit(f"--threads {args.threads}: need at least 1")
    if args.processes < 1:
        raise SystemExit(f"--processes {args.processes}: need at least 1")
    if args.processes > 1:
        return in_processes(args.processes, list(sys.argv[1:] if argv is None else argv))
    old = load_kernel(args.old.resolve())
    kernels = (old, kernel)
    positions = (deal_positions(args.rules, args.deals, args.seed) if args.rules
                 else hand_positions(args.samples, args.seed))
    bits = (args.old_tt_bits or args.tt_bits, args.tt_bits)
    T = args.threads
    tables = [[kernels[j].tt_new(bits[j]) for _ in range(T)] for j in (0, 1)]
    gens = [[0] * T, [0] * T]
    hist = np.zeros(8, np.int64)
    m = len(positions)
    seconds = np.zeros((2, m))
    nodes = np.zeros((2, m), np.int64)
    values = np.zeros((2, m), np.int64)

    # kernels since the twenty-fifth session take a stop flag after the stats
    stop_arg = [("stop" in inspect.signature(k.solve_exact.py_func).parameters) for k in kernels]
    stop = np.zeros(1, np.int64)

    def run(j: int, t: int, i: int) -> None:
        pos = positions[i]
        gens[j][t] += 1
        stats = np.zeros(1, np.int64)
        extra = (stop,) if stop_arg[j] else ()
        t0 = time.perf_counter()
        values[j, i] = kernels[j].solve_exact(pos.hands.copy(), pos.leader, hist, 0, 0, pos.P, pos.side,
                                              pos.enc.values, pos.enc.bird_mask, pos.unit,
                                              *_table_part(tables[j][t], used_bits(bits[j], pos.longest)),
                                              gens[j][t], TT_WAYS, stats, *extra)
        seconds[j, i] = time.perf_counter() - t0
        nodes[j, i] = stats[0]

    for j in (0, 1):
        run(j, 0, 0)  # compile or load from the cache, not timed
    chunk_s = []  # (old, new) wall seconds of each chunk on T threads
    if T == 1:
        for i in range(m):
            for j in ((0, 1) if i % 2 == 0 else (1, 0)):
                run(j, 0, i)
    else:
        for k, c0 in enumerate(range(0, m, 8 * T)):
            idx = list(range(c0, min(m, c0 + 8 * T)))
            wall = [0.0, 0.0]
            for j in ((0, 1) if k % 2 == 0 else (1, 0)):
                def work(t: int, j: int = j) -> None:
                    for i in idx[t::T]:
                        run(j, t, i)
                threads = [threading.Thread(target=work, args=(t,)) for t in range(T)]
                t0 = time.perf_counter()
                for th in threads:
                    th.start()
                for th in threads:
                    th.join()
                wall[j] = time.perf_counter() - t0
            chunk_s.append(wall)
    if not (values[0] == values[1]).all():
        bad = int(np.flatnonzero(values[0] != values[1])[0])
        raise SystemExit(f"solve {bad}: the old kernel gives {values[0, bad]}, this one {values[1, bad]}")
    if T == 1:
        old_s, new_s = float(seconds[0].sum()), float(seconds[1].sum())
        median = float(np.median(seconds[1] / seconds[0]))
    else:
        w = np.array(chunk_s)
        old_s, new_s = float(w[:, 0].sum()), float(w[:, 1].sum())
        median = float(np.median(w[:, 1] / w[:, 0]))
    print(json.dumps({
        "solves": m, "threads": T, "tt_bits": list(bits), "old_s": round(old_s, 2), "new_s": round(new_s, 2),
        "time_ratio": round(new_s / old_s, 3),
        ("median_ratio_per_solve" if T == 1 else "median_ratio_per_chunk"): round(median, 3),
        "old_nodes": int(nodes[0].sum()), "new_nodes": int(nodes[1].sum()),
        "value_sum": int(values[1].sum()), "values_equal": True}))
    return 0


def in_processes(k: int, argv: list[str]) -> int:
    """The comparison in ``k`` fresh processes, one after the other: each
    one's result, then the time ratios' median and range."""
    ratios = []
    for i in range(k):
        # the same arguments; the last --processes wins, so each child runs once
        proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), *argv, "--processes", "1"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            sys.stderr.write(proc.stderr)
            raise SystemExit(f"process {i + 1} of {k} failed (exit {proc.returncode})")
        res = json.loads(proc.stdout.strip().splitlines()[-1])
        print(json.dumps({"process": i + 1, **res}), flush=True)
        ratios.append(res["time_ratio"])
    print(json.dumps({"processes": k, "time_ratios": ratios, "median_time_ratio": round(statistics.median(ratios), 3),
                      "lowest": min(ratios), "highest": max(ratios)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
