"""A random campaign: the solver against the plain-Python reference on
random rule sets with counters of their own.

The reference tests in CI use the presets and a list of knobs; a change to
the search can be right on all of them and wrong where counters lie on other
ranks or are worth other amounts (the thirty-eighth session's first one-way
sibling skip was: 25 for 30 on a ``dixie40`` variant with a 4 worth 20).
Each round draws a rule set (``tests/campaign.py``: a preset, random knobs,
2 to 6 counter ranks worth 1 to 20, the Rook worth 0 to 20) and checks a few
random endings of it. Two checks, each on by default:

- values: every legal card's value and both sides' values, solver against
  reference;
- stores (rule sets without most_tricks): every bound the search stored in
  its table on the way to those card values, re-solved by the reference
  where it was stored and where its entry matches. This one finds what the
  first misses: a stored bound too strong for a matching position rarely
  reaches a root value (the thirty-ninth session's fault, on one
  ``dixie40`` variant: the store check found it in 1 of about 1,200
  5-card endings, the values check in none of 6,500; on random rule sets
  it is rarer still, and a run of 7,588 5-card endings missed it).

The store check needs positions big enough for the search to store much:
5 cards a seat at a 4-seat table is where faults showed. Run it after any
change to the search or the table, for minutes:

    python benchmarks/fuzz_reference.py --seconds 600 --seed 7
    python benchmarks/fuzz_reference.py --seconds 300 --cards 5 --check stores

It prints a line every ``--every`` rule sets, each difference in full (the
rules with their counters, the deal in RDN, trump, declarer, leader and the
trick so far), and a summary. The exit status is 1 when any value differs.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from campaign import case_text, compare, random_position, random_rules, stored_bound_faults  # noqa: E402
from rook_analyze.solver import Rules, random_deal, solve  # noqa: E402

from bench_args import non_negative, positive, seconds


def card_range(text: str) -> tuple[int, int]:
    lo, _, hi = text.partition("-")
    try:
        a, b = int(lo), int(hi or lo)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected K or K-L, e.g. 3-5") from None
    if not 1 <= a <= b:
        raise argparse.ArgumentTypeError(f"{text!r}: expected 1 <= K <= L")
    return a, b


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=seconds, default=300.0, help="start no new rule set after this")
    ap.add_argument("--seed", type=non_negative, default=7)
    ap.add_argument("--cards", type=card_range, default=(3, 5), help="cards a seat, K or K-L (default 3-5)")
    ap.add_argument("--max-cards-in-play", type=positive, default=20,
                    help="fewer cards a seat where the seats would hold more (the reference's time grows fast)")
    ap.add_argument("--positions", type=positive, default=14, help="positions a rule set")
    ap.add_argument("--every", type=positive, default=100, help="a progress line every N rule sets")
    ap.add_argument("--check", choices=("both", "values", "stores"), default="both")
    ap.add_argument("--shuffles", type=positive, default=4,
                    help="matching positions tried for each stored bound (default 4)")
    ap.add_argument("--stop", action="store_true", help="stop at the first difference")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    rules0 = Rules.preset("hasbro")
    solve(random_deal(rules0, 0).ending(2), rules0.trumps[0], 0, leader=0)  # compiled outside the timing
    t0 = time.perf_counter()
    sets = positions = stores = matches = 0
    failures = []
    while time.perf_counter() - t0 < args.seconds:
        rules = random_rules(rng)
        sets += 1
        for _ in range(args.positions):
            cards = rng.randint(*args.cards)
            cards = max(1, min(cards, args.max_cards_in_play // rules.seats))
            case = random_position(rules, rng, cards)
            positions += 1
            found = []
            if args.check != "stores":
                diff = compare(*case)
                if diff is not None:
                    found.append(diff)
            if args.check != "values" and rules.most_tricks is None:
                s, m, faults = stored_bound_faults(*case, rng, shuffles=args.shuffles)
                stores += s
                matches += m
                found += faults[:3]
            if found:
                failures.append(case)
                print("DIFFERENT: " + "\n  ".join(found) + f"\n  {case_text(*case)}", flush=True)
                if args.stop:
                    break
        if failures and args.stop:
            break
        if sets % args.every == 0:
            print(f"{sets} rule sets, {positions} positions ({stores} stores, {matches} matches checked), "
                  f"{len(failures)} different, {time.perf_counter() - t0:.0f} s", flush=True)
    print(f"seed {args.seed}: {sets} rule sets, {positions} positions ({stores} stores, {matches} matches "
          f"checked), {len(failures)} different from the reference, {time.perf_counter() - t0:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
