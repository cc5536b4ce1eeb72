"""The Monte Carlo bid advisor: how high to bid on a dealt hand, and in what
color.

For each sample (``analysis.sampling``) the unseen cards are dealt at random
to the other seats and the nest, consistent with what the bidder knows. The
bidder then declares: takes the nest and, by a policy that sees only hand +
nest (``analysis.policy``), names trump and discards. The double-dummy
solver gives the declaring side's points. Every sample is solved for each
trump the rules allow (the four colors; with ``bridge``'s no trump, five, as
``nest`` and ``simulate`` weigh them), each with the policy's discards for
that trump, so the
report can say which trump is best and what a wrong one costs; the bid
figures use the trump the policy names in that sample, as a real declarer
would only choose after seeing the nest.

Per bid level b (``min_bid`` .. ``max_bid``):

- ``p_make``: the share of samples where the declaring side takes at least b;
- ``ev``: the expected net score ``E[own score - opponents' score]`` with
  own score = points if points >= b else -b, and the opponents' score = the
  points they capture.

Decision rule (``DECISION_RULE``): bid the highest b with P(make) >= 0.5
and ev(b) >= 0, passing being worth 0; pass (``bid = None``) when no level
qualifies. Both P(make) and ev fall as b rises, so the qualifying levels run
from ``min_bid`` up to the recommendation. The recommended trump is the
color with the highest mean points.

The figures carry standard errors (binomial for P(make), with a 95% Wilson
interval; the sample standard error for ev, with a 95% normal interval held
within the net scores a hand can give, -b - total .. total, where
``total`` is ``rules.total_points``).
Results depend only on the inputs and the seed: sample ``i`` is dealt from
its own generator and the solver is exact, so neither the number of threads
nor ``precision``'s rounds change a figure. A ``time_limit`` decides only
how many samples are solved (that depends on the machine); the report says
how many, and the same seed with that many ``samples`` gives the same
figures again.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from rook_analyze.solver import solve, solve_batch
from rook_analyze.solver.api import UNSOLVED, default_threads, run_on_threads
from rook_analyze.solver.cards import COLORS, Hand
from rook_analyze.solver.deal import Deal, most_tricks_always_awarded
from rook_analyze.solver.errors import RulesError
from rook_analyze.solver.rules import Rules

from .policy import DEFAULT_POLICY, check_policy, policy_label, NestPolicy, take_nest
from .inputs import MAX_SAMPLES, callable_or_none, json_records, number, reports_equal, threads_count, whole
from .sampling import Constraint, DealSampler, resolve_seed

DECISION_RULE = ("bid the highest level b with P(make b) >= 0.5 and ev(b) >= 0 (passing is worth 0); "
                 "pass when no level qualifies")
Z95 = 1.959963984540054
ROUND = 100  # samples per round when --precision may stop early
# samples dealt and solved at once otherwise: a million were dealt in one round before the
# first solve (minutes with the progress bar at 0, their after-nest deals all held: 200,000
# samples peaked at 933 MB, in rounds at 752 MB; the rest is the report's own per-sample data)
MAX_ROUND = 10_000
# with a time limit, a round is sized to about this share of the time left
# at the rate so far: rounds shrink as the limit nears, so the last one
# overruns it by little (one sample a thread at least)
TIME_SHARE = 1 / 3


@dataclass(frozen=True)
class Recommendation:
    """The advice: ``bid`` (None = pass) and the trump to expect to name."""

    bid: int | None
    trump: str

    def text(self) -> str:
        """The advice in words: ``bid 85 in B``, ``bid 9 at no trump``, ``pass (best trump B)``."""
        if self.bid is None:
            return f"pass (best trump {self.trump})"
        if self.trump == "none":
            return f"bid {self.bid} at no trump"
        return f"bid {self.bid} in {self.trump}"


@dataclass(frozen=True, repr=False, eq=False)
class HandReport:
    """What ``analyze_hand`` found. ``trumps`` and ``bids`` are the two
    summary tables, ``detail`` has one row per sample (the deal as dealt, the
    policy's trump and discards, the points with every trump)."""

    hand: Hand
    rules: Rules
    seat: str
    dealer: str
    leader: str
    samples: int
    seed: int
    policy: str
    known: Mapping[str, Hand]
    constraints: tuple[Constraint, ...]
    precision: float | None
    trumps: pd.DataFrame
    bids: pd.DataFrame
    recommendation: Recommendation
    detail: pd.DataFrame = field(repr=False)
    settled: bool | None = None  # with precision: is the recommendation settled (``settled``; else the samples ran out)
    time_limit: float | None = None
    timed_out: bool | None = None  # with time_limit: did it stop the sampling before ``samples`` (and precision)

    __eq__ = reports_equal  # its tables are DataFrames, which == cannot compare
    __hash__ = None

    def __repr__(self) -> str:
        # the tables are in .trumps, .bids and .detail; a repr of them all is pages long
        return (f"HandReport(hand={self.hand.rdn(self.rules.one_high)!r}, rules={self.rules.spec()!r}, "
                f"seat={self.seat!r}, samples={self.samples}, seed={self.seed}, "
                f"recommendation={self.recommendation.text()!r})")

    def to_dict(self) -> dict[str, Any]:
        """The json document of CONTRACT.md, plus the extra fields."""
        return {
            "hand": self.hand.rdn(self.rules.one_high),
            "rules": self.rules.spec(),
            "seat": self.seat,
            "dealer": self.dealer,
            "leader": self.leader,
            "samples": self.samples,
            "seed": self.seed,
            "policy": self.policy,
            "known": {k: v.rdn(self.rules.one_high) for k, v in self.known.items()},
            "constraints": [c.text() for c in self.constraints],
            "precision": self.precision,
            "settled": self.settled,
            "time_limit": self.time_limit,
            "timed_out": self.timed_out,
            "trumps": json_records(self.trumps),
            "bids": json_records(self.bids),
            "recommendation": {"bid": self.recommendation.bid, "trump": self.recommendation.trump,
                               "rule": DECISION_RULE},
        }

    def to_frame(self) -> pd.DataFrame:
        """Everything in one long table (for csv): a ``section`` column says
        whether a row is a trump, a bid level or the recommendation."""
        trumps = self.trumps.assign(section="trump")
        bids = self.bids.assign(section="bid")
        row = {"section": "recommendation", "trump": self.recommendation.trump, "rule": DECISION_RULE}
        if self.recommendation.bid is not None:  # a pass leaves it empty: an all-NA entry warns in pandas 2's concat
            row["bid"] = self.recommendation.bid
        rec = pd.DataFrame([row])
        frame = pd.concat([trumps, bids, rec], ignore_index=True)
        cols = ["section"] + [c for c in frame.columns if c != "section"]
        frame = frame[cols]
        frame["bid"] = frame["bid"].astype("Int64")
        return frame


# ------------------------------------------------------------------ sampling
@dataclass
class _Results:
    """Per-sample results, appended round by round."""

    trumps: tuple[str, ...] = COLORS  # the rules' trumps, the columns of ``points``
    deals: list[Deal] = field(default_factory=list)
    policy_trump: list[str] = field(default_factory=list)
    discards: list[dict[str, Hand]] = field(default_factory=list)
    points: list[np.ndarray] = field(default_factory=list)     # (k, trumps) per round
    defenders: list[np.ndarray] = field(default_factory=list)  # (k,) per round, policy trump

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        points = (np.concatenate(self.points) if self.points
                  else np.zeros((0, len(self.trumps)), np.int64))
        defenders = np.concatenate(self.defenders) if self.defenders else np.zeros(0, np.int64)
        chosen = np.array([self.trumps.index(t) for t in self.policy_trump], np.int64)
        return points, defenders, chosen


def zero_sum(rules: Rules) -> bool:
    """Whether both sides' points always add up to the deal's total (then the
    defenders' points follow from the declarer's without a second solve)."""
    return rules.most_tricks is None or most_tricks_always_awarded(rules.most_tricks[0], rules.hand_size)


def policy_plays(deal: Deal, seat: int, policy: NestPolicy, rules: Rules) -> dict[str, tuple[Hand, Deal]]:
    """For each trump the rules allow (``rules.trumps``: no trump too where
    the rules have it, as ``nest`` and ``simulate`` weigh it), the policy's
    discards from ``seat``'s hand + nest and the deal played after it takes
    the nest: what a sample gives the solver."""
    cards = deal.hands[seat] | deal.nest
    plays = {}
    for t in rules.trumps:
        discard = policy.discard(cards, t, rules)
        plays[t] = discard, take_nest(deal, seat, discard)
    return plays


def _run_round(sampler: DealSampler, seed: int, start: int, count: int, policy: NestPolicy, dealer: int,
               threads: int | None, progress: Callable[[int], None] | None, out: _Results,
               deadline: float | None = None) -> None:
    """Samples ``start`` .. ``start + count - 1`` into ``out``; with a
    ``deadline`` (``solve_batch``'s) only those before the first it left
    unsolved under some trump."""
    rules = sampler.rules
    seat = sampler.seat
    played: list[Deal] = []
    trumps: list[str] = []
    for i in range(start, start + count):
        deal = sampler.deal(i, seed)
        cards = deal.hands[seat] | deal.nest
        out.deals.append(deal)
        out.policy_trump.append(policy.trump(cards, rules))
        plays = policy_plays(deal, seat, policy, rules)
        for t, (_, after) in plays.items():
            played.append(after)
            trumps.append(t)
        out.discards.append({t: discard for t, (discard, _) in plays.items()})
    pts = solve_batch(played, trumps, seat, None, dealer=dealer, threads=threads, progress=progress,
                      deadline=deadline)
    each = len(out.trumps)
    pts = np.asarray(pts, np.int64).reshape(count, each)
    cut = np.flatnonzero((pts == UNSOLVED).any(axis=1))
    if len(cut):
        # a sample counts with every trump solved, and every sample before it: the report stays a prefix of the seed's
        count = int(cut[0])
        pts = pts[:count]
        del out.deals[start + count:], out.policy_trump[start + count:], out.discards[start + count:]
    out.points.append(pts)
    chosen = [out.trumps.index(t) for t in out.policy_trump[start:start + count]]
    own = pts[np.arange(count), chosen]
    if zero_sum(rules):
        totals = np.array([played[k * each].total_points() for k in range(count)], np.int64)
        out.defenders.append(totals - own)
    else:
        # the defenders' own double-dummy value needs a solve of its own
        jobs = [(played[k * each + chosen[k]], out.trumps[chosen[k]]) for k in range(count)]
        res = run_on_threads([lambda d=d, t=t: solve(d, t, seat, dealer=dealer).defender_points for d, t in jobs],
                             threads or default_threads())
        out.defenders.append(np.array(res, np.int64))


# --------------------------------------------------------------- statistics
def trump_table(points: np.ndarray, chosen: np.ndarray, trumps: Sequence[str] = COLORS) -> pd.DataFrame:
    """Per trump (``trumps``, the columns of ``points``: the rules' trumps):
    mean points, standard error, share of samples where it is best (ties
    share the sample), share the policy names it, and the mean cost of
    naming it instead of the best trump."""
    n = len(points)
    best = points.max(axis=1, keepdims=True)
    is_best = points == best
    share = (is_best / is_best.sum(axis=1, keepdims=True)).sum(axis=0) / n
    rows = []
    for k, t in enumerate(trumps):
        col = points[:, k].astype(float)
        rows.append({
            "trump": t,
            "mean": col.mean(),
            "se": col.std(ddof=1) / math.sqrt(n) if n > 1 else math.nan,
            "best_share": float(share[k]),
            "policy_share": float(np.mean(chosen == k)),
            "cost": float(np.mean(best[:, 0] - points[:, k])),
        })
    return pd.DataFrame(rows)


def bid_table(rules: Rules, points: np.ndarray, defenders: np.ndarray) -> pd.DataFrame:
    """Per bid level: P(make) with standard error and 95% Wilson interval,
    ev(b) = E[own - opponents' score] with standard error and 95% interval."""
    n = len(points)
    total = rules.total_points
    rows = []
    for b in rules.bid_levels():
        made = points >= b
        p = float(made.mean())
        p_se = math.sqrt(p * (1 - p) / n)
        lo, hi = wilson(p, n)
        net = np.where(made, points, -b) - defenders
        ev = float(net.mean())
        ev_se = float(net.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
        # a skewed net score (nearly every sample made, one set) can put mean +- 1.96 se past any
        # score a hand gives: a set with the opponents taking everything, or every point taken
        ev_lo, ev_hi = ev - Z95 * ev_se, ev + Z95 * ev_se
        if not math.isnan(ev_se):
            ev_lo, ev_hi = max(ev_lo, -b - total), min(ev_hi, total)
        rows.append({"bid": b, "p_make": p, "p_make_se": p_se, "p_make_lo": lo, "p_make_hi": hi,
                     "ev": ev, "ev_se": ev_se, "ev_lo": ev_lo, "ev_hi": ev_hi})
    return pd.DataFrame(rows)


def wilson(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``p`` out of ``n`` (an
    effective number of draws may be fractional: ``report.make_interval``)."""
    if n == 0:
        return (0.0, 1.0)
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # at p = 0 or 1 one end is exactly 0 or 1; say so rather than trust rounding
    lo = 0.0 if p <= 0 else max(0.0, centre - half)
    hi = 1.0 if p >= 1 else min(1.0, centre + half)
    return (lo, hi)


def recommend(bids: pd.DataFrame, trumps: pd.DataFrame) -> Recommendation:
    """Apply ``DECISION_RULE``; the trump is the one with the highest mean (a color, or
    ``none`` where the rules allow no trump)."""
    ok = bids[(bids["p_make"] >= 0.5) & (bids["ev"] >= 0)]
    bid = int(ok["bid"].max()) if len(ok) else None
    trump = str(trumps.loc[trumps["mean"].idxmax(), "trump"])  # idxmax: first of equals, B R Y G order
    return Recommendation(bid, trump)


def deciding_bids(rules: Rules, rec: Recommendation) -> list[int]:
    """The levels whose figures decide the recommendation: the recommended
    bid and the next one up (min_bid when passing)."""
    levels = rules.bid_levels()
    if rec.bid is None:
        return [levels[0]]
    k = levels.index(rec.bid)
    return levels[k:k + 2]


def settled(rules: Rules, bids: pd.DataFrame, rec: Recommendation, precision: float,
            points: np.ndarray) -> bool:
    """True once each part of the recommendation is settled: decided (its 95%
    intervals on one side of the line) or pinned to within ``precision``
    points of standard error, where the line is too close to call and either
    side costs little.

    The bid: at each deciding bid, the decision rule's test (P(make) >= 0.5
    and ev >= 0) passes with both intervals clear of the line, or fails with
    one of them wholly below it; else ev's standard error there is at most
    ``precision``. The trump: the recommended trump's lead over each other
    trump (paired, sample by sample) is above zero by its 95% interval, or
    its standard error is at most ``precision``.
    """
    rows = bids[bids["bid"].isin(deciding_bids(rules, rec))]
    for r in rows.itertuples():
        passes = r.p_make_lo >= 0.5 and r.ev_lo >= 0
        fails = r.p_make_hi < 0.5 or r.ev_hi < 0
        if not (passes or fails or (math.isfinite(r.ev_se) and r.ev_se <= precision)):
            return False
    n = len(points)
    if n < 2:
        return False
    best = rules.trumps.index(rec.trump)  # points' columns: the rules' trumps
    for k in range(len(rules.trumps)):
        if k != best:
            lead = (points[:, best] - points[:, k]).astype(float)
            se = lead.std(ddof=1) / math.sqrt(n)
            if not (lead.mean() - Z95 * se > 0 or se <= precision):
                return False
    return True


def _summary(res: _Results, rules: Rules) -> tuple[np.ndarray, np.ndarray, np.ndarray, pd.DataFrame, pd.DataFrame,
                                                  Recommendation]:
    """The samples so far: the points with every trump, the defenders', the
    declaring side's with the policy's trump, the trump and bid tables and
    the recommendation."""
    points, defenders, chosen = res.arrays()
    own = points[np.arange(len(points)), chosen]
    trumps = trump_table(points, chosen, rules.trumps)
    bids = bid_table(rules, own, defenders)
    return points, defenders, own, trumps, bids, recommend(bids, trumps)


# ------------------------------------------------------------------ advisor
def analyze_hand(hand: Hand | str, rules: Rules | str, seat: str | int | None = None,
                 dealer: str | int | None = None,
                 samples: int = 500, seed: int | None = None,
                 known: Mapping[str, str | Hand] | Sequence[str] | None = None,
                 constraints: Sequence[Constraint | str] = (), precision: float | None = None,
                 threads: int | None = None, policy: NestPolicy = DEFAULT_POLICY,
                 progress: Callable[[int], None] | None = None,
                 time_limit: float | None = None) -> HandReport:
    """Bid advice for ``hand`` held at ``seat`` (default N) with ``dealer``
    dealing (default W; P1 and the last seat at other tables; see the module
    docstring).

    ``samples`` deals are sampled (fewer when ``precision`` is given and the
    recommendation settles first: sampling runs in rounds of 100 and stops once
    each part of the recommendation is decided at 95% or pinned to within
    ``precision`` points of standard error (``settled``), judged after each
    hundred; or when ``time_limit`` seconds have passed:
    then the searches stop and no new round starts, and a sample counts
    only with every trump solved (and every sample before it); with a limit
    a round is sized to a third of the time left at the rate so far, one
    sample a thread at least, but the first round is one sample and runs
    whole, since a report needs one: the limit is overrun by that sample's
    solves at most).
    Without either, the samples are dealt and solved in rounds of 10,000 at most, so a large run starts solving at once and holds one
    round's after-nest deals; no round changes a figure.
    ``seed`` None draws a fresh seed, reported in the result. ``known`` places
    cards the bidder knows (``{"E": "B14"}``, ``["E:B14", "nest:G1"]`` or one
    such text); ``constraints`` narrow the other hands (``"E:B>=3"``, or a
    list). Numbers must be whole numbers where counts are meant (``samples``,
    ``seed``, ``threads``): 2.9 or True is an error, not 2 or 1. ``threads``:
    solver threads (None: every core; at most ``most_threads()``). ``policy``:
    the declarer's nest policy (``trump``, ``discard`` and ``choose``;
    ``HeuristicPolicy`` by default; another's answers are checked as they
    come, ``CheckedPolicy``).
    ``progress(k)`` is called as solves finish: one per trump the rules allow
    (``rules.trumps``: 4, or 5 with no trump) per sample."""
    rules = Rules.from_spec(rules)
    if not rules.has_auction:
        raise RulesError(f"rules {rules.spec()!r} have no bidding: bid advice needs min_bid and max_bid")
    samples = whole("samples", samples, 1, most=MAX_SAMPLES)
    if precision is not None:
        # finite: inf would be met by any standard error and nan by none; kept
        # as a float, so the report's json takes it (numpy's float32 it does not)
        precision = number("precision", precision, above=0, what="a standard error in points", finite=True)
    if time_limit is not None:
        time_limit = number("time_limit", time_limit, above=0, what="seconds")  # a float: an int beyond floats is inf
    threads = threads_count(threads)
    policy = check_policy(policy)
    progress = callable_or_none("progress", progress)
    # N bids and W deals by default (the first and the last seat at other tables)
    seat = rules.first_seat if seat is None else seat
    sampler = DealSampler(rules, seat, hand, known=known, constraints=constraints)
    declarer = sampler.seat
    dealer_i = rules.seat_index(rules.last_seat if dealer is None else dealer, "dealer")
    seed = resolve_seed(seed)

    res = _Results(trumps=rules.trumps)
    done = 0
    step = min(samples, MAX_ROUND) if precision is None else min(ROUND, samples)
    timed_out = None if time_limit is None else False
    least = threads or default_threads()
    began = time.monotonic()
    while done < samples:
        k = min(step, samples - done)
        if time_limit is not None:
            elapsed = time.monotonic() - began
            if done > 0 and elapsed >= time_limit:
                timed_out = True
                break
            rate = done / elapsed if done > 0 and elapsed > 0 else 0.0
            # capped before int(): a limit no run reaches (inf, 1e308 s) fits the whole round
            fits = rate * (time_limit - elapsed) * TIME_SHARE if rate > 0 else 0.0
            # the first round is one sample, run whole: a report needs one, and
            # a sample a thread (with 13-card hands, minutes) would overrun more
            k = min(k, max(least, int(min(fits, k)))) if done else 1
            if precision is not None:
                k = min(k, ROUND - done % ROUND)  # precision is judged every ROUND samples, as without a limit
        # the first round (one sample) runs whatever the limit; later ones stop at it
        deadline = None if time_limit is None or done == 0 else began + time_limit
        _run_round(sampler, seed, done, k, policy, dealer_i, threads, progress, res, deadline=deadline)
        if len(res.deals) < done + k:  # the limit stopped the round's searches
            done = len(res.deals)
            timed_out = True
            break
        done += k
        # judged on whole rounds of 100 only: a handful of samples can show a
        # small standard error by chance
        if precision is not None and done < samples and done % ROUND == 0:
            points, _, _, _, bids, rec = _summary(res, rules)
            if settled(rules, bids, rec, precision, points):
                break

    points, defenders, own, trumps, bids, rec = _summary(res, rules)
    names = rules.seat_names
    detail = pd.DataFrame({
        "sample": np.arange(done),
        "deal": [d.rdn() for d in res.deals],
        "trump": res.policy_trump,
        "discard": [res.discards[i][t].rdn(rules.one_high) for i, t in enumerate(res.policy_trump)],
        "points": own,
        "defender_points": defenders,
        **{f"points_{t}": points[:, k] for k, t in enumerate(rules.trumps)},
        **{f"discard_{t}": [d[t].rdn(rules.one_high) for d in res.discards] for t in rules.trumps},
    })
    return HandReport(
        hand=sampler.hand, rules=rules, seat=names[declarer], dealer=names[dealer_i],
        leader=names[rules.first_leader(declarer, dealer_i)], samples=done, seed=seed,
        policy=policy_label(policy), known=dict(sampler.known),
        constraints=sampler.constraints, precision=precision, trumps=trumps, bids=bids,
        recommendation=rec, detail=detail,
        settled=None if precision is None else settled(rules, bids, rec, precision, points),
        time_limit=time_limit, timed_out=timed_out,
    )
