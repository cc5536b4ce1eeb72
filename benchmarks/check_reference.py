"""The solver against the plain-Python reference on deals too big for CI.

The tests compare the kernel with ``tests/naive.py`` (a minimax written from
RULES.md, sharing no search code with the kernel) on positions of up to a
few cards a seat, where the reference takes a second or less. A whole
``hasbro`` deal (9 cards a seat and the nest) takes the reference from a
minute to many, and on some deals more memory than the machine has (its
table of positions passed 13 GB on one), so that check lives here: random deals, a random
trump, declarer and first leader each, both sides' values from ``solve``
against the reference's, one line a deal and a summary.

    python benchmarks/check_reference.py --rules hasbro --deals 10 --budget 1800
    python benchmarks/check_reference.py --rules hasbro --cards 8 --deals 20

--cards K keeps K random cards of each seat (and the whole nest) for
quicker positions; the default is the whole deal. --budget S starts no new
deal after S seconds (a deal under way is finished). The exit status is 1
when any value differs.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from naive import naive_defender_value, naive_value, random_endgame  # noqa: E402
from rook_analyze.solver import Rules, random_deal, solve  # noqa: E402
from rook_analyze.solver.deal import most_tricks_always_awarded  # noqa: E402

from bench_args import non_negative, positive, rules_spec, seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", type=rules_spec, default="hasbro")
    ap.add_argument("--cards", type=positive, default=None, help="cards a seat (default: the whole hand)")
    ap.add_argument("--deals", type=positive, default=10)
    ap.add_argument("--budget", type=seconds, default=None, help="seconds after which no new deal starts")
    ap.add_argument("--seed", type=non_negative, default=1)
    args = ap.parse_args()
    try:
        rules = Rules.from_spec(args.rules)
    except ValueError as e:
        ap.error(f"--rules: {e}")
    if args.cards is not None and args.cards > rules.hand_size:
        ap.error(f"--cards {args.cards}: the hands of {rules.spec()} have {rules.hand_size} cards")
    cards = rules.hand_size if args.cards is None else args.cards
    rng = random.Random(args.seed)
    solve(random_deal(rules, 0).ending(2), rules.trumps[0], 0, leader=0)  # compiled outside the timing
    rows, t_start = [], time.perf_counter()
    for i in range(args.deals):
        if args.budget is not None and time.perf_counter() - t_start > args.budget:
            break
        deal = random_endgame(rules, cards, rng, nest_cards=rules.nest_size)  # the whole nest
        trump = rng.choice(rules.trumps)
        declarer, leader = rng.randrange(rules.seats), rng.randrange(rules.seats)
        t0 = time.perf_counter()
        got = solve(deal, trump, declarer, leader=leader)
        solver_ms = (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        want = naive_value(deal, trump, declarer, leader)
        if rules.most_tricks is None or most_tricks_always_awarded(rules.most_tricks[0], deal.cards_per_hand):
            want_def = deal.total_points() - want  # every point goes to one side or the other
        else:  # a bonus neither side may reach: the defenders' own search
            want_def = naive_defender_value(deal, trump, declarer, leader)
        naive_s = time.perf_counter() - t0
        same = (got.declarer_points, got.defender_points) == (want, want_def)
        rows.append({"deal": deal.rdn(), "trump": trump, "declarer": rules.seat_names[declarer],
                     "leader": rules.seat_names[leader], "solver": [got.declarer_points, got.defender_points],
                     "reference": [want, want_def], "same": same, "solver_ms": round(solver_ms, 1),
                     "reference_s": round(naive_s, 1)})
        print(f"{i + 1}: {'same' if same else 'DIFFERENT'} solver {got.declarer_points}/{got.defender_points} "
              f"reference {want}/{want_def} ({solver_ms:.0f} ms against {naive_s:.1f} s)  {deal.rdn()} "
              f"trump {trump} declarer {rules.seat_names[declarer]} leader {rules.seat_names[leader]}",
              flush=True)
    summary = {"rules": rules.spec(), "cards_a_seat": cards, "deals": len(rows),
               "same": sum(r["same"] for r in rows),
               "median_solver_ms": statistics.median(r["solver_ms"] for r in rows) if rows else None,
               "median_reference_s": statistics.median(r["reference_s"] for r in rows) if rows else None}
    print(json.dumps(summary))
    return 0 if summary["same"] == summary["deals"] else 1


if __name__ == "__main__":
    sys.exit(main())
