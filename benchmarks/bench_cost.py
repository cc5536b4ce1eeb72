"""Two solver kernels' cost on the same work, counted by valgrind's
cachegrind: a figure that does not move with the machine's load.

    git worktree add --detach /tmp/old HEAD~1
    python benchmarks/bench_cost.py --old /tmp/old --samples 10

Wall-time comparisons on this shared machine swing by 10 % between
processes (``bench_ab.py``'s A/A spread, 0.89 to 1.09), so a change worth
5 % cannot be told from noise there, and node counts miss what a node
costs. cachegrind runs the program on a simulated CPU and counts, exactly
and the same on every run: instructions, first-level and last-level
cache misses (a 48 KB data cache and a 32 MB last level, as this
machine's AMD EPYC has) and mispredicted branches. Those are what the
search's time is made of; the script weighs them into one estimate,

    cycles ~ instructions + 12 x L1 misses + 200 x last-level misses
             + 15 x mispredicted branches

(the weights are rough: a real CPU overlaps some of each, so read the
parts too, and confirm a change with ``bench_ab.py`` or the benchmarks).

The work is ``hand``'s own solves, as ``bench_ab.py`` makes them (samples
of the README's hand and of the ``hasbro`` sample hand, four trumps
each), on one thread with one table (the part of it the tool uses,
``api.used_bits``). Each kernel runs in two fresh processes under
cachegrind: one solves the work, the other does everything but the
solving (imports, sampling, the table, the first call that loads the
kernel from numba's cache); the difference is the
search's own cost. Every solve's value must agree between the kernels.
Before that each kernel runs once natively to fill numba's cache, so no
compiling is counted, and to count its nodes. Every run compiles for
LLVM's ``haswell`` CPU with its own features (``NUMBA_CPU_NAME``,
``NUMBA_CPU_FEATURES`` empty): valgrind's simulated CPU has no AVX-512,
and numba's cache keys on the CPU's name and features. With a CPU named, the
table key compresses ranks by byte tables instead of PEXT
(``config.FAST_PEXT``), on both sides alike.

(A cachegrind run that compiled the kernel stops the script: it would
count the compiling.)

Under cachegrind a program runs about 50 to 100 times slower: 10 samples
(80 solves, about 31 M nodes) take about 8 minutes a kernel, and the two
kernels run at once on two cores (``--jobs 1`` runs them in turn). ``--old`` is
a checkout of the project (its ``solver`` folder is loaded as
``bench_ab.py`` does), and so is ``--new`` where given (the default: this
checkout's kernel). ``--old`` the same commit as this checkout gives an
A/A run: its counts agree within 0.1 % (benchmarks/RESULTS.md, forty-first
session, with the check against a change whose time was known).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_args import non_negative, positive  # noqa: E402

# the simulated caches: this machine's per-core L1 data (48 KB, 12-way) and
# its shared L3 (32 MB, 16-way), 64-byte lines
CACHES = ["--I1=32768,8,64", "--D1=49152,12,64", "--LL=33554432,16,64"]
CPU = "haswell"
WEIGHTS = {"Ir": 1, "L1 misses": 12, "LL misses": 200, "mispredicts": 15}


def child(checkout: str | None, samples: int, seed: int, solve: bool) -> None:
    """Solve (or, with ``solve`` False, only prepare) the work with one
    kernel: that of ``checkout``, or this checkout's when None."""
    from bench_ab import hand_positions, load_kernel

    from rook_analyze.solver import kernel
    from rook_analyze.solver.api import _table_part, used_bits
    from rook_analyze.solver.config import TT_WAYS

    k = load_kernel(Path(checkout)) if checkout else kernel
    positions = hand_positions(samples, seed)
    table = k.tt_new(21)
    hist = np.zeros(8, np.int64)
    stop = np.zeros(1, np.int64)
    nodes = 0
    values = []
    for i, pos in enumerate(positions if solve else positions[:1]):
        stats = np.zeros(1, np.int64)
        values.append(int(k.solve_exact(pos.hands.copy(), pos.leader, hist, 0, 0, pos.P, pos.side, pos.enc.values,
                                        pos.enc.bird_mask, pos.unit, *_table_part(table, used_bits(21, pos.longest)),
                                        i + 1, TT_WAYS, stats, stop)))
        nodes += int(stats[0])
    # loaded from numba's cache, not compiled here (compiling would be counted)
    compiled = sum(k.solve_exact.stats.cache_misses.values())
    print(json.dumps({"nodes": nodes, "values": values, "compiled": compiled}), flush=True)


_SUMMARY = re.compile(r"^==\d+== (I\s+refs|D1\s+misses|LL\s+misses|I1\s+misses|LLi\s+misses|Mispred\s+rate|"
                      r"Branches|Mispredicts):\s+([\d,]+)", re.M)


def counts(stderr: str) -> dict:
    """Instructions, L1 misses (instruction and data, and the instruction
    cache's alone: a bigger probe can overflow it), last-level misses and
    mispredicted branches from cachegrind's summary."""
    raw = {}
    for name, value in _SUMMARY.findall(stderr):
        raw[" ".join(name.split())] = int(value.replace(",", ""))
    need = ("I refs", "I1 misses", "D1 misses", "LL misses", "Mispredicts")
    missing = [n for n in need if n not in raw]
    if missing:
        raise SystemExit(f"cachegrind's summary lacks {missing}:\n{stderr[-2000:]}")
    return {"Ir": raw["I refs"], "L1 misses": raw["I1 misses"] + raw["D1 misses"], "I1 misses": raw["I1 misses"],
            "LL misses": raw["LL misses"], "mispredicts": raw["Mispredicts"]}


def run_child(args, side: str, solve: bool, valgrind: bool) -> tuple[dict, dict | None]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "--samples", str(args.samples),
           "--seed", str(args.seed)]
    checkout = args.old if side == "old" else args.new
    if checkout:
        cmd += ["--checkout", str(checkout)]
    if not solve:
        cmd.append("--idle")
    # valgrind's CPU lacks AVX-512 and reports other features than the host,
    # so every run compiles for one CPU it has, its features named too
    # (numba's cache keys on the CPU's name and features: with the features
    # left to the host's, the cachegrind run would compile the kernel anew
    # and count the compiling)
    env = dict(os.environ, PYTHONHASHSEED="0", NUMBA_CPU_NAME=CPU, NUMBA_CPU_FEATURES="")
    if valgrind:
        # the counts come from the summary on standard error: no output file
        # (one a run under a temporary folder of its own was left behind)
        cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes", *CACHES,
               "--cachegrind-out-file=/dev/null", *cmd]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-4000:])
        raise SystemExit(f"{' '.join(cmd)}: exit {proc.returncode}")
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    if valgrind and res["compiled"]:
        raise SystemExit(f"{' '.join(cmd)}: compiled the kernel under cachegrind (numba's cache missed)")
    return res, (counts(proc.stderr) if valgrind else None)


def estimate(c: dict) -> int:
    return sum(WEIGHTS[k] * c[k] for k in WEIGHTS)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", type=Path, help="a checkout of the project with the old kernel")
    ap.add_argument("--samples", type=positive, default=10, help="samples of each of the two hands (hand's work)")
    ap.add_argument("--seed", type=non_negative, default=5)
    ap.add_argument("--new", type=Path, help="a checkout whose kernel to compare instead of this one's")
    ap.add_argument("--jobs", type=positive, default=2,
                    help="sides counted at once (default 2: the counts do not depend on the load, only the wall time)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--checkout", help=argparse.SUPPRESS)
    ap.add_argument("--idle", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.checkout, args.samples, args.seed, not args.idle)
        return 0
    if args.old is None:
        ap.error("--old is required")
    if shutil.which("valgrind") is None:
        ap.error("valgrind is not on PATH (this script counts with its cachegrind tool)")
    for name in ("old", "new"):
        path = getattr(args, name)
        if path is not None:
            setattr(args, name, path.resolve())
            if not (path / "solver" / "kernel.py").is_file():
                ap.error(f"--{name} {str(path)!r}: no solver/kernel.py there (a checkout of the project?)")
    result = {}
    values = {}

    def count_side(side: str) -> dict:
        native, _ = run_child(args, side, True, False)  # fills numba's cache; the nodes
        work_res, work = run_child(args, side, True, True)
        _, idle = run_child(args, side, False, True)
        if work_res["values"] != native["values"]:
            raise SystemExit(f"{side}: the values under cachegrind differ from the native run's")
        values[side] = native["values"]
        search = {k: work[k] - idle[k] for k in work}
        search["estimate"] = estimate(search)
        search["nodes"] = native["nodes"]
        return search

    # cachegrind's counts do not depend on what else runs, so the two sides
    # may run at once (each in its own processes and numba cache)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {side: pool.submit(count_side, side) for side in ("old", "new")}
        for side, future in futures.items():
            result[side] = future.result()
            print(json.dumps({"side": side, **result[side]}), flush=True)
    if values["old"] != values["new"]:
        bad = next(i for i, (a, b) in enumerate(zip(values["old"], values["new"])) if a != b)
        raise SystemExit(f"solve {bad}: the old kernel gives {values['old'][bad]}, this one {values['new'][bad]}")
    ratios = {k: round(result["new"][k] / result["old"][k], 4) if result["old"][k] else None for k in result["new"]}
    print(json.dumps({"solves": len(values["new"]), "value_sum": sum(values["new"]), "values_equal": True,
                      "ratio_new_old": ratios}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
