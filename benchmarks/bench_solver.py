"""Solver speed: medians and ratios from one run (the machines are shared and noisy).

    python benchmarks/bench_solver.py --deals 30 --presets hasbro dixie40 kentucky
    python benchmarks/bench_solver.py --deals 5 --presets full bridge --dds
    python benchmarks/bench_solver.py --startup --batch 200 --memory 2000
    python benchmarks/bench_solver.py --presets --dds-nodes 30

Parts:
- per preset: one thread, full random deals from the first trick (declarer N,
  P1 at other tables; trump: its longest color; leader per the preset):
  median / p90 / p99 / max ms, nodes/s; with --dds also endplay's DDS on
  the same bridge deals (same leader and trump), and the ratio of the medians;
- --startup: first-call compile time (empty numba cache) and the warm start of
  `rook-analyze solve` on one deal in a new process;
- --batch N: solve_batch on N hasbro deals with 1 and 2 threads (speed-up);
- --memory N: resident memory before, during and after solve_batch over N deals.
- --dds-nodes N: search nodes against DDS's own count (``SolveBoard``'s
  ``futureTricks.nodes``, one best card, the same target search) on N random
  bridge endings of 5 to 11 cards a hand: where, and how fast with the
  number of tricks, the gap to DDS grows (--dds-max-cards: the largest
  size, 13 for full deals). DDS counts trick starts only, so the ratio is
  on this solver's trick starts (its count of every node is given too).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

from rook_analyze.solver import COLORS, Deal, Hand, Rules, Solver, random_deal, solve_batch

from bench_args import non_negative, positive


def longest_color(hand) -> str:
    return max(COLORS, key=lambda c: (hand.count(c), -COLORS.index(c)))


def bench_preset(spec: str, deals: int, seed: int, dds: bool) -> dict:
    rules = Rules.from_spec(spec)
    rng = np.random.default_rng(seed)
    # one solver for the run, as solve() and solve_batch() keep one a thread:
    # its table is allocated once (each deal gets a new generation of entries)
    solver = Solver()
    # compile (or load) outside the timing, on a two-card ending: a whole deal
    # here was one more solve of the preset, minutes for ``full``
    solver.solve(random_deal(rules, 0).ending(2), "B", 0)
    times, nodes, dds_times = [], [], []
    for _ in range(deals):
        deal = random_deal(rules, rng)
        trump = longest_color(deal.hands[0])
        res = solver.solve(deal, trump, 0)  # N (P1 at other tables); the last seat deals
        times.append(res.ms)
        nodes.append(res.nodes)
        if dds and rules.name == "bridge":
            dds_times.append(_dds_ms(deal, trump, rules.first_leader(0, 3)))
    t = np.array(times)
    out = {
        "rules": spec, "deals": deals, "median_ms": float(np.median(t)), "p90_ms": float(np.percentile(t, 90)),
        "p99_ms": float(np.percentile(t, 99)), "max_ms": float(t.max()),
        "nodes_per_s": float(np.sum(nodes) / (t.sum() / 1000.0)), "median_nodes": float(np.median(nodes)),
    }
    if dds_times:
        out["dds_median_ms"] = float(np.median(dds_times))
        out["ratio_to_dds"] = out["median_ms"] / out["dds_median_ms"]
    return out


def _edeal(deal, trump: str, leader: int):
    """The deal as endplay's, the leader and trump set (B R Y G: spades hearts diamonds clubs)."""
    from endplay.types import Deal as EDeal, Denom, Player

    ranks = {14: "A", 13: "K", 12: "Q", 11: "J", 10: "T"}
    hands = []
    for hand in deal.hands:
        suits = []
        for color in COLORS:
            nums = sorted((c.number for c in hand if c.color == color), reverse=True)
            suits.append("".join(ranks.get(x, str(x)) for x in nums))
        hands.append(".".join(suits))
    e = EDeal.from_pbn("N:" + " ".join(hands))
    e.first = Player(leader)
    e.trump = {"B": Denom.spades, "R": Denom.hearts, "Y": Denom.diamonds, "G": Denom.clubs,
               "none": Denom.nt}[trump]
    return e


def _dds_ms(deal, trump: str, leader: int) -> float:
    """DDS's time for the position's value alone (target -1, one card), the
    work a solve here does: ``solve_board``'s default (every card's value)
    took up to 7 times as long on some deals."""
    from endplay import _dds as dds

    e = _edeal(deal, trump, leader)
    fut = dds.futureTricks()
    t0 = time.perf_counter()
    dds.SolveBoard(e._data, -1, 1, 1, fut, 0)
    return (time.perf_counter() - t0) * 1000.0


def bench_dds_nodes(n: int, seed: int, max_cards: int) -> list[dict]:
    """Nodes against DDS's count on bridge endings of 5..max_cards cards a
    hand (13: full deals); every value checked against DDS's.

    DDS's ``futureTricks.nodes`` counts trick starts only (its ``trickNodes``:
    a node after the fourth card of a trick, whether the table or a quick
    bound then settles it or not), so the ratio is taken on this solver's
    trick starts; its count of every node (a card played) is given beside."""
    import endplay._dds as dds

    from rook_analyze.solver import kernel
    from rook_analyze.solver.api import _position
    from rook_analyze.solver.config import TT_WAYS

    rules = Rules.preset("bridge")
    tt = kernel.tt_new(21)
    gen = 0
    rng = np.random.default_rng(seed)
    out = []
    for k in range(5, max_cards + 1):
        every, starts, theirs, equal = [], [], [], 0
        for _ in range(n):
            full = random_deal(rules, rng)
            hands = tuple(Hand.from_cards(list(rng.permutation(h.cards()))[:k]) for h in full.hands)
            deal = Deal(rules, hands, Hand.from_cards([]))
            trump = str(rng.choice(list(COLORS)))
            leader = int(rng.integers(4))
            fut = dds.futureTricks()
            dds.SolveBoard(_edeal(deal, trump, leader)._data, -1, 1, 1, fut, 0)
            theirs.append(fut.nodes)
            pos = _position(deal, trump, leader, leader, "W", ())
            stats = np.zeros(5, np.int64)
            gen += 1
            value = kernel.solve_exact(pos.hands.copy(), pos.leader, pos.trick, 0, 0, pos.P, pos.side,
                                       pos.enc.values, pos.enc.bird_mask, pos.unit, *tt, gen, TT_WAYS, stats,
                                       np.zeros(1, np.int64))
            every.append(stats[0])
            starts.append(stats[4])
            equal += value == fut.score[0]  # both: the leader's side's tricks
        e, o, t = np.array(every), np.array(starts), np.array(theirs)
        out.append({"cards_a_hand": k, "endings": n, "median_nodes": float(np.median(e)),
                    "median_trick_starts": float(np.median(o)), "dds_median_trick_nodes": float(np.median(t)),
                    "ratio_of_medians": float(np.median(o) / np.median(t)),
                    "median_ratio": float(np.median(o / np.maximum(t, 1))), "values_equal_dds": equal})
    return out


def bench_startup() -> dict:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        code = ("import time; t=time.perf_counter(); from rook_analyze.solver import solve, random_deal; "
                "solve(random_deal('hasbro', 1), 'B', 'N'); print(time.perf_counter()-t)")
        cold = float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                    check=True).stdout.strip())
        deal = subprocess.run([sys.executable, "-m", "rook_analyze.cli", "deal", "--rules", "hasbro",
                               "--seed", "3"], env=env, capture_output=True, text=True, check=True).stdout.strip()
        walls = []
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "rook_analyze.cli", "solve", "--rules", "hasbro", "--trump", "B",
                            "--declarer", "N", deal], env=env, capture_output=True, text=True, check=True)
            walls.append(time.perf_counter() - t0)
    return {"first_call_compile_s": cold, "warm_start_solve_s_median": float(np.median(walls))}


def bench_batch(n: int, seed: int) -> dict:
    rules = Rules.preset("hasbro")
    rng = np.random.default_rng(seed)
    deals = [random_deal(rules, rng) for _ in range(n)]
    trumps = [longest_color(d.hands[0]) for d in deals]
    # compile, and make both threads' tables (kept between calls; making one
    # zeroes it, a fifth of a second), so neither timing pays for a table
    solve_batch(deals[:2], trumps[:2], "N", threads=2)
    out = {}
    for threads in (1, 2):
        t0 = time.perf_counter()
        values = solve_batch(deals, trumps, "N", threads=threads)
        out[f"threads_{threads}_s"] = time.perf_counter() - t0
        out[f"checksum_{threads}"] = int(values.sum())
    out["speedup_2_threads"] = out["threads_1_s"] / out["threads_2_s"]
    return out


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def bench_memory(n: int, seed: int) -> dict:
    rules = Rules.preset("hasbro")
    rng = np.random.default_rng(seed)
    deals = [random_deal(rules, rng) for _ in range(n)]
    samples, seconds = [], []
    step = max(1, n // 5)
    solve_batch(deals[:2], "B", "N", threads=2)  # compiled, both threads' tables made
    before = round(_rss_mb(), 1)
    for a in range(0, n, step):
        t0 = time.perf_counter()
        solve_batch(deals[a:a + step], "B", "N", threads=2)
        seconds.append(round(time.perf_counter() - t0, 1))
        samples.append(round(_rss_mb(), 1))
        print(f"memory: {a + step} of {n} deals, {samples[-1]} MB", file=sys.stderr, flush=True)
    return {"deals": n, "rss_mb_before": before, "rss_mb_after_each_fifth": samples,
            "seconds_each_fifth": seconds}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--presets", nargs="*", default=["hasbro", "dixie40", "kentucky"],
                    help="rules specs, space-separated (each may carry knobs: full,bird=low); "
                         "--presets alone (no spec) to skip this part")
    ap.add_argument("--deals", type=positive, default=20)
    ap.add_argument("--seed", type=non_negative, default=1)
    ap.add_argument("--dds", action="store_true")
    ap.add_argument("--startup", action="store_true")
    ap.add_argument("--batch", type=non_negative, default=0)
    ap.add_argument("--memory", type=non_negative, default=0)
    ap.add_argument("--dds-nodes", type=non_negative, default=0, metavar="N",
                    help="N bridge endings a size (5 to --dds-max-cards cards a hand): nodes against DDS's")
    ap.add_argument("--dds-max-cards", type=int, default=11, choices=range(5, 14), metavar="K",
                    help="largest ending for --dds-nodes, 5..13 cards a hand (13: full deals; slow)")
    args = ap.parse_args()
    results = []
    for spec in args.presets:
        results.append(bench_preset(spec, args.deals, args.seed, args.dds))
        print(json.dumps(results[-1]), flush=True)
    if args.startup:
        print(json.dumps(bench_startup()), flush=True)
    if args.batch:
        print(json.dumps(bench_batch(args.batch, args.seed)), flush=True)
    if args.memory:
        print(json.dumps(bench_memory(args.memory, args.seed)), flush=True)
    if args.dds_nodes:
        for row in bench_dds_nodes(args.dds_nodes, args.seed, args.dds_max_cards):
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
