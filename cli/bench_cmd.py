"""``rook-analyze bench``: solver speed on random full deals."""

from __future__ import annotations

import time

import click
import numpy as np

from rook_analyze.cli.common import SEED, compile_notice, emit, output_format, progress, rules_option
from rook_analyze.solver import COLORS, PRESETS, Hand, Rules, random_deal, random_deals, solve


# the presets timed by default: their deals solve in a fraction of a second to seconds
DEFAULT_PRESETS = ("hasbro", "kentucky", "dixie40")


def longest_color(hand: Hand) -> str:
    """The declarer's trump: the longest color, ties to the first of B R Y G."""
    return max(COLORS, key=lambda c: (hand.count(c), -COLORS.index(c)))


def _warm_up(rules: Rules) -> None:
    # a two-card position compiles the solver without timing a full search
    small = random_deal(rules, 0).ending(2)
    solve(small, longest_color(small.hands[0]), 0, None, rules.seats - 1)


def bench_rules(rules: Rules, deals: int, seed: int, bar) -> dict:
    _warm_up(rules)
    declarer, dealer = 0, rules.seats - 1  # N declares, W deals
    ms, nodes = [], []
    wall = 0.0
    for d in random_deals(rules, deals, seed):
        trump = longest_color(d.hands[declarer])
        t0 = time.perf_counter()
        res = solve(d, trump, declarer, None, dealer)
        wall += time.perf_counter() - t0
        ms.append(float(res.ms))
        nodes.append(int(res.nodes))
        bar.update(1)
    a = np.array(ms)
    return {
        "rules": rules.spec(), "deals": deals, "deals_per_s": round(deals / wall, 3) if wall else None,
        "median_ms": round(float(np.median(a)), 2), "p90_ms": round(float(np.percentile(a, 90)), 2),
        "p99_ms": round(float(np.percentile(a, 99)), 2), "max_ms": round(float(a.max()), 2),
        "mean_nodes": round(float(np.mean(nodes))),
        "nodes_per_s": round(sum(nodes) / (a.sum() / 1000)) if a.sum() else None,
    }


@click.command()
@rules_option(required=False, multiple=True,
              help="Rules to time (preset and knobs); repeat for several. Default: hasbro, kentucky and "
                   "dixie40 (13-card deals are timed only when asked for: full takes seconds to minutes "
                   "a deal, bridge a tenth of a second to a few seconds).")
@click.option("--deals", type=click.IntRange(min=1), default=10, show_default=True,
              help="Random full deals per rules.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Random seed for the deals.")
@output_format(("table", "json", "csv"))
def bench(rules: tuple[Rules, ...], deals: int, seed: int, fmt: str) -> None:
    """Solver speed on random full deals.

    For each rules (every --rules given, or hasbro, kentucky, dixie40): DEALS random
    deals from SEED; N (P1 at other tables) declares with its longest
    color as trump (ties: B, R, Y, G), W (the last seat) deals, the leader
    is the rules' first lead; each deal is
    solved from the first lead on one thread. The solver is compiled (or
    loaded from the cache) on a tiny position first, outside the timing.
    Deals of 13 cards (full, bridge) take by far the longest.

    \b
    Columns: rules, deals, deals_per_s (wall clock), median_ms, p90_ms,
    p99_ms, max_ms (solver time per deal), mean_nodes, nodes_per_s.
    """
    targets = list(rules) or [PRESETS[name] for name in DEFAULT_PRESETS]
    compile_notice()
    rows = []
    with progress(deals * len(targets), "solving", unit="deal") as bar:
        for r in targets:
            rows.append(bench_rules(r, deals, seed, bar))
    emit(rows, fmt)
