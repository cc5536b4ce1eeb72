"""The nest policy against a variant of itself, on fresh layouts: the way to
check that a change to ``analysis.policy`` scores at least as well.

Spot ``j`` is a random deal (seeded per spot); North declares with North's
hand and the nest, West deals. Both policies name their trump and
discards from hand + nest; where they differ, both choices are solved on
``--fresh`` layouts of the unseen cards (the same layouts for both, the
nest known to the declarer, as ``nest`` samples them). Per spot the gain is
the mean of (policy - variant) over those layouts, 0 where they agree; the
report gives the mean gain over the spots with its standard error (the
spread of the per-spot gains), and how often the two differ.

The variants (``--variant``):

- ``protect``, the heuristic with ``protect_counters=True``: no losing
  counters buried for their own sake, non-counters filled first (the
  policy's rule under ``nest_to = last_trick`` until it filled with the
  losing counters first);
- ``strip``, ``HeuristicPolicy(guard_winners=False)``: its last fill
  takes the small cards under a winner as readily as other losers (the
  policy's rule until it kept them as the winner's guards);
- ``short``, trump length weighing 3 in the trump's strength, not 5;
- ``revision2``, both: the policy as it was in revision 2.

    python benchmarks/bench_policy.py --rules hasbro --spots 400 --fresh 16 --seed 202
    python benchmarks/bench_policy.py --rules kentucky --spots 150 --seed 303 --out spots.jsonl
    python benchmarks/bench_policy.py --rules hasbro --spots 400 --seed 606 --variant strip

Filling the discards with the losing counters under ``nest_to = last_trick``
against keeping them (``protect``; measured before the guards, policy
revision 2), 2 cores: ``hasbro`` 400 spots, seed 202: differ on 216,
gain +0.852 +- 0.091 (166 better, 35 worse), 238 s; ``dixie40`` 200 spots,
seed 404: differ on 144, +0.889 +- 0.208 (89 / 48), 121 s; ``kentucky``
150 spots, seed 303: differ on 93, +0.338 +- 0.190 (48 / 40), about 45
minutes; seed 505: differ on 100, +0.644 +- 0.236 (64 / 34), 54 minutes
(sharing the 2 cores with other runs).

Keeping the guards (revision 3) against stripping them (``strip``;
measured while trump length still weighed 3, so a rerun now differs a
little: ``dixie40`` seed 707 gives differ on 28, +0.116 +- 0.071), the
rule read from the nest advisor's choices on the spots of
``bench_nest.py --seed 4242`` (where the heuristic differs from ``strip``
there: 120 spots, differ on 25, +0.271 +- 0.098) and measured on other
seeds: ``hasbro`` 400 spots, seed 606: differ on 77, +0.341 +- 0.063 (59 /
13); ``dixie40`` 200 spots, seed 707: differ on 30, +0.113 +- 0.071 (17 /
10); ``kentucky`` 150 spots, seed 909: differ on 31, +0.621 +- 0.166 (25 /
5). Under every trump (``--all-trumps``, the discards ``hand``'s trump
table solves; a spot's gain the mean over the trumps whose discards
differ): ``hasbro`` 200 spots, seed 3030: differ on 89, +0.705 +- 0.092
(75 / 11), 238 s.

Trump length weighing 5 (revision 3) against 3 (``short``), with the
guards kept on both sides; the weight chosen on ``hasbro`` seed 4242 (200
spots: 4, 5, 6 and 8 all better than 3 there, 5 and 6 most) and measured on
other seeds: ``hasbro`` 800 spots, seed 1111: differ on 42, +0.234 +-
0.059 (32 / 8); ``dixie40`` 400 spots, seed 1212: differ on 15, +0.111 +-
0.101 (8 / 6); ``kentucky`` 200 spots, seed 1313: differ on 17, +0.317 +-
0.178 (10 / 7).

Revision 3 against revision 2 (``revision2``), both changes at once, on
seeds neither was tuned on: ``hasbro`` 400 spots, seed 2024: differ on
80, +0.398 +- 0.072 (63 / 15), 160 s; ``dixie40`` 200 spots, seed 2025:
differ on 52, +0.605 +- 0.172 (35 / 13), 73 s; ``kentucky`` 150 spots,
seed 2026: differ on 41, +0.592 +- 0.238 (23 / 14), 637 s.

``--all-trumps`` compares the discards under every trump (what ``hand``'s
trump table solves), each differing trump its own pair of solves, rather
than the policy's own choice alone.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import numpy as np

from rook_analyze.analysis.nest import nest_sampler
from rook_analyze.analysis.policy import DEFAULT_POLICY, HeuristicPolicy, take_nest
from rook_analyze.solver import Rules, random_deal, solve_batch

from bench_args import non_negative, positive, rules_spec, spot_seed


class Protect(HeuristicPolicy):
    """The heuristic, keeping its losing counters (``protect_counters=True``)."""

    def discard(self, cards, trump, rules, *, protect_counters: bool = True):
        return super().discard(cards, trump, rules, protect_counters=protect_counters)


VARIANTS = {"protect": Protect(name="protect"), "strip": HeuristicPolicy(name="strip", guard_winners=False),
            "short": HeuristicPolicy(name="short", length_weight=3),
            # revision 2: trump length weighing 3, the guards stripped
            "revision2": HeuristicPolicy(name="revision2", length_weight=3, guard_winners=False)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", type=rules_spec, default="hasbro")
    ap.add_argument("--spots", type=positive, default=200)
    ap.add_argument("--fresh", type=positive, default=16, help="Fresh layouts per differing spot.")
    ap.add_argument("--seed", type=non_negative, default=1)
    ap.add_argument("--variant", choices=sorted(VARIANTS), default="protect")
    ap.add_argument("--all-trumps", action="store_true", help="Compare the discards under every trump.")
    ap.add_argument("--threads", type=positive, default=None, help="Solver threads (default: all cores).")
    ap.add_argument("--out", default=None, help="Write one json line per differing spot here.")
    args = ap.parse_args(argv)

    rules = Rules.from_spec(args.rules)
    policy, variant = DEFAULT_POLICY, VARIANTS[args.variant]
    declarer, dealer = 0, rules.seats - 1
    print(f"rules {rules.spec()}, spots {args.spots}, fresh layouts {args.fresh}, seed {args.seed}, "
          f"policy {policy.name} against {variant.name}" + (", every trump" if args.all_trumps else ""))
    out = open(args.out, "w", encoding="utf-8") if args.out else None
    gains: list[float] = []
    differ = 0
    t0 = time.perf_counter()
    for j in range(args.spots):
        deal = random_deal(rules, np.random.default_rng(spot_seed(args.seed, j, 0)))
        hand, nest = deal.hands[declarer], deal.nest
        cards = hand | nest
        if args.all_trumps:
            pairs = [(t, t, policy.discard(cards, t, rules), variant.discard(cards, t, rules)) for t in rules.trumps]
        else:
            a, b = policy.choose(cards, rules), variant.choose(cards, rules)
            pairs = [(a.trump, b.trump, a.discard, b.discard)]
        pairs = [p for p in pairs if (p[0], p[2]) != (p[1], p[3])]
        if not pairs:
            gains.append(0.0)
            continue
        differ += 1
        sampler = nest_sampler(hand, nest, rules, declarer)
        layouts = [sampler.deal(i, spot_seed(args.seed, j, 2)) for i in range(args.fresh)]
        jobs, trumps, groups = [], [], []
        for ta, tb, da, db in pairs:
            for i, d in enumerate(layouts):
                jobs += [take_nest(d, declarer, da), take_nest(d, declarer, db)]
                trumps += [ta, tb]
                groups += [i, i]
        pts = np.asarray(solve_batch(jobs, trumps, declarer, None, dealer=dealer, threads=args.threads,
                                     groups=groups), float).reshape(len(pairs), args.fresh, 2)
        gain = float((pts[:, :, 0] - pts[:, :, 1]).mean())
        gains.append(gain)
        if out:
            out.write(json.dumps({"spot": j, "hand": hand.rdn(), "nest": nest.rdn(), "gain": gain,
                                  "pairs": [{"trump": ta, "discard": da.rdn(), "variant_trump": tb,
                                             "variant_discard": db.rdn()} for ta, tb, da, db in pairs]}) + "\n")
            out.flush()
        if differ % 20 == 0:
            print(f"  {j + 1} spots, {differ} differ, {time.perf_counter() - t0:.0f} s, gain so far "
                  f"{np.mean(gains):+.3f} +- {_se(gains):.3f}", file=sys.stderr, flush=True)
    if out:
        out.close()
    g = np.array(gains)
    print(f"differ on {differ}/{len(g)} spots; gain ({policy.name} - {variant.name}): {g.mean():+.3f} +- "
          f"{_se(g):.3f} DD points a spot (se over spots); better / worse / equal {int((g > 0).sum())} / "
          f"{int((g < 0).sum())} / {int((g == 0).sum())}; {time.perf_counter() - t0:.0f} s")
    return 0


def _se(x) -> float:
    x = np.asarray(x, float)
    return float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else math.nan


if __name__ == "__main__":
    raise SystemExit(main())
