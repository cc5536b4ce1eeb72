"""Summaries of a ``simulate`` dataset: bid-success curves, a fitted hand
count, trump choice and seat position.

The target is the declarer's double-dummy points with the trump the nest
policy names after seeing hand + nest (``policy_points``): what a declarer
who cannot see the other hands would score with perfect play. ``best``
switches to the best trump in hindsight (``best_points``), an upper bound.

The hand count is a least-squares fit of the target on a few features of
the dealt hand that a player can count at the table (counters, the Rook,
the longest color, top cards, high cards, voids), its weights rounded for
the table and its intercept fitted to the rounded weights (so the count's
mean stays the points' mean). Its R-squared and error
are measured on held-out deals (two folds split by deal), so they say how
well the count predicts a hand it has not seen. A dataset too small for the
fit (a deal or so) is still reported: without the count, and with a note
saying how many deals it needs (``deals_needed``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from rook_analyze.analysis.features import color_ranks
from rook_analyze.analysis.policy import POLICY_REVISION
from rook_analyze.analysis.simulate import SimulationError, load_plan, read_dataset
from rook_analyze.solver.cards import COLORS, shown
from rook_analyze.solver.errors import plural
from rook_analyze.solver.rules import Rules

from .inputs import folder, is_whole, json_ready, reports_equal, whole

# The features of the fitted count and how a player reads them.
COUNT_FEATURES: tuple[str, ...] = ("counters", "rook", "longest", "tops", "high", "voids")
FEATURE_TEXT = {
    "counters": "points in counters held (5s, 10s, 14s, Rook)",
    "rook": "the Rook held",
    "longest": "cards in the longest color",
    "tops": "top cards: unbroken runs from the top of each color (14, 13, ...)",
    "high": "cards 12 or higher",
    "voids": "colors with no card",
}
TARGETS = {"policy": "policy_points", "best": "best_points"}
COUNT_STEP = 5  # hand counts are grouped 65-69, 70-74, ... in make_by_count
MIN_COUNT_ROWS = 20  # hands a point of the by-count table needs
MAX_BUCKETS = 100  # bid-success groups: each wants hundreds of hands (the CLI takes 1 to 10)
LONGEST_TIES = "equal lengths: the higher top card"  # the longest_color column's choice among equals
POSITION_TEXT = {1: "left of dealer (bids first)", 2: "dealer's partner", 3: "right of dealer"}


def count_step(rules: Rules | str) -> int:
    """How finely hand counts are grouped: by 5 where counters make the
    points (every preset but bridge), by 1 where tricks do (bridge: 0-13)."""
    return COUNT_STEP if Rules.from_spec(rules).total_points >= 10 * COUNT_STEP else 1


def feature_text(rules: Rules | str) -> dict[str, str]:
    """``FEATURE_TEXT`` with the counters of ``rules`` named (``dixie40``'s are 5s, 10s and 13s), and
    the top cards and high cards where they are under ``one_high`` (the 1 above the 14)."""
    rules = Rules.from_spec(rules)
    names = [f"{number}s" for number, _ in sorted(rules.counters)]
    if rules.bird_count:
        names.append("Rook" if rules.bird_count == 1 else "Rooks")
    text = dict(FEATURE_TEXT)
    text["counters"] = f"points in counters held ({', '.join(names)})" if names else "points in counters held"
    if rules.bird_count == 2:  # double_bird: the feature counts both birds, 0 to 2
        text["rook"] = "the Rooks held (Rook, Rook2)"
    # a color's top where the rules have it: kentucky's runs start at the 1, which ranks above the 14
    first, second = color_ranks(rules)[:2]
    text["tops"] = f"top cards: unbroken runs from the top of each color ({first}, {second}, ...)"
    if rules.one_high and 1 in rules.numbers:
        text["high"] = "cards 12 or higher, and the 1s (they rank above the 14s)"
    return text


@dataclass(frozen=True)
class HandCount:
    """A hand count: ``intercept + sum(weight * feature)`` estimates the target points.

    ``r2`` and ``rmse`` are for the rounded weights on held-out deals;
    ``r2_fit`` is the in-sample R-squared of the exact fit."""

    intercept: float
    weights: dict[str, float]
    r2: float
    rmse: float
    mae: float
    r2_fit: float
    n: int
    target: str
    texts: Mapping[str, str] = field(default_factory=lambda: dict(FEATURE_TEXT))  # what each feature is

    __hash__ = None  # its weights are a dict: unhashable, as a dict is, instead of failing inside hash()

    def predict(self, frame: pd.DataFrame) -> pd.Series:
        """The count of each row, as the formula adds up at the table."""
        value = pd.Series(self.intercept, index=frame.index, dtype=float)
        for name, w in self.weights.items():
            value = value + w * frame[name].astype(float)
        # decimal weights do not add up exactly in binary (48 + 2.4 + 6.9 + 2.4 + 0.3 gives
        # 59.99999999999999): drop the noise, so a count on a group edge (60) is in the group
        # it adds up to. The rounded weights have one decimal at most, so nothing real is lost.
        return value.round(9)

    def formula(self) -> str:
        """The count as a player writes it: ``points = 31 + 0.9 x counters + 12 x rook ...``."""
        parts = [_num(self.intercept)]
        for name, w in self.weights.items():
            if w == 0:
                continue
            sign = "-" if w < 0 else "+"
            parts.append(f"{sign} {_num(abs(w))} x {name}")
        return "points = " + " ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {"formula": self.formula(), "target": self.target, "intercept": self.intercept,
                "weights": dict(self.weights), "features": {k: self.texts.get(k, k) for k in self.weights},
                "r2": self.r2, "rmse": self.rmse, "mae": self.mae, "r2_fit": self.r2_fit, "rows": self.n}


class TooFewRows(SimulationError):
    """Too few rows to fit the hand count."""


def deals_needed(rules: Rules | str) -> tuple[int, int]:
    """Deals a complete dataset needs for the hand count: to fit it at all, and
    to score it on held-out deals as well. The fit needs a hand more than the
    features and the intercept (``len(COUNT_FEATURES) + 2`` hands, ``rules.seats``
    a deal); held-out figures need that many in each fold of deals (even and
    odd deal ids), so twice the deals."""
    seats = Rules.from_spec(rules).seats
    fit = -(-(len(COUNT_FEATURES) + 2) // seats)
    return fit, 2 * fit


def count_to_dict(count: HandCount | None, target: str, rows: int, note: str | None) -> dict[str, Any]:
    """The ``count`` section of a report (json, csv): ``count.to_dict()`` and the
    ``note``; without a count, the same keys with the figures null."""
    if count is not None:
        return {**count.to_dict(), "note": note}
    return {"formula": None, "target": target, "intercept": None, "weights": {}, "features": {}, "r2": None,
            "rmse": None, "mae": None, "r2_fit": None, "rows": rows, "note": note}


def _num(x: float) -> str:
    return f"{x:.0f}" if abs(x - round(x)) < 1e-9 else f"{x:.1f}"


def _round_weights(coef: np.ndarray, names: Sequence[str], g: np.ndarray,
                   b: np.ndarray) -> tuple[float, dict[str, float]]:
    """The count as the table prints it: the weights rounded (whole numbers
    where they are big, one decimal where they are small: easy to add up at
    the table), then the intercept fitted to those rounded weights and
    rounded to a whole number. Least squares with an intercept leaves no mean
    error; rounding the weights alone would bring one back (0.149 x counters
    printed as 0.1 x counters loses 0.049 a counter point, about 3 points on
    a hand of 60), so the intercept is the points' mean less the rounded
    weights times the features' means (from the sums ``g``, ``b`` of
    ``_sums``), and the count's mean is the points' mean within half a
    point."""
    weights = {}
    for name, w in zip(names, coef[1:]):
        # + 0.0: a small negative weight rounds to -0.0, which json and csv would print as such
        weights[name] = float(round(w)) if abs(w) >= 5 else float(round(w, 1)) + 0.0
    rows = g[0, 0]
    intercept = (b[0] - g[0, 1:] @ np.array([weights[n] for n in names], dtype=float)) / rows if rows else coef[0]
    return float(round(intercept)), weights


def _sums(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """D'D and D'y for the design D = [1, x]: all least squares needs, in
    memory the size of the features rather than a copy of the data (a
    million deals are 4,000,000 rows). The dataset's features and points
    are small whole numbers, so for them these float sums are exact."""
    p = x.shape[1]
    s = x.sum(axis=0)
    g = np.empty((p + 1, p + 1))
    g[0, 0] = len(x)
    g[0, 1:] = g[1:, 0] = s
    g[1:, 1:] = x.T @ x
    b = np.empty(p + 1)
    b[0] = y.sum()
    b[1:] = x.T @ y
    return g, b


def _solve(g: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Least squares from the normal equations: intercept, then weights.
    Scaled to a unit diagonal first (counters run to 120, the Rook is 0 or
    1). Where a feature is a combination of others the weights are not
    unique; this gives the smallest in the scaled terms, with the same
    fitted values as any other."""
    d = np.sqrt(np.diag(g))
    d[d == 0] = 1.0
    coef, *_ = np.linalg.lstsq(g / np.outer(d, d), b / d, rcond=1e-10)
    return coef / d


def fit_count(frame: pd.DataFrame, target: str = "policy_points",
              features: Sequence[str] | None = None) -> HandCount:
    """Least squares of ``target`` on ``features`` (with an intercept); by
    default the ``COUNT_FEATURES`` the frame has. A feature with one value
    in every row has no weight.

    The weights come from all rows; R-squared, RMSE and MAE are those of the
    rounded count on held-out deals: fit on even deal ids, score the odd
    ones, and the other way round (the seats of one deal share its cards, so
    the folds split by deal). When a fold is too small to fit (fewer rows
    than the features + 2) or empty, they are NaN: an in-sample figure
    would pass for a held-out one."""
    if not isinstance(frame, pd.DataFrame):
        raise SimulationError(f"frame {type(frame).__name__}: expected a pandas DataFrame of a dataset's rows")
    if features is None:
        features = [f for f in COUNT_FEATURES if f in frame.columns]
    elif isinstance(features, str) or not all(isinstance(f, str) for f in features):
        raise SimulationError(f"features {shown(features)}: expected a list of column names, e.g. "
                              f"{list(COUNT_FEATURES[:2])}")
    missing = [f for f in features if f not in frame.columns]
    if missing:
        raise SimulationError(f"features {shown(missing)}: not columns of the frame")
    if not isinstance(target, str) or target not in frame.columns:
        raise SimulationError(f"target {shown(target)}: not a column of the frame (e.g. 'policy_points')")
    text = [f for f in list(features) + [target] if not pd.api.types.is_numeric_dtype(frame[f])]
    if text:
        raise SimulationError(f"column {shown(text[0])} does not hold numbers: a hand count fits numbers "
                              f"(e.g. 'counters', 'policy_points')")
    features = [f for f in features if frame[f].nunique() > 1]
    if len(frame) < len(features) + 2:
        raise TooFewRows(f"{len(frame)} rows are too few to fit a hand count on {len(features)} features")
    x = frame[list(features)].to_numpy(dtype=float)
    y = frame[target].to_numpy(dtype=float)
    g_all, b_all = _sums(x, y)
    coef = _solve(g_all, b_all)
    intercept, weights = _round_weights(coef, features, g_all, b_all)
    exact = coef[0] + x @ coef[1:]
    ss_tot = float(((y - y.mean()) ** 2).sum())
    r2_fit = 1 - float(((y - exact) ** 2).sum()) / ss_tot if ss_tot > 0 else float("nan")

    fold = (frame["deal_id"].to_numpy() % 2) if "deal_id" in frame.columns else np.arange(len(frame)) % 2
    pred = np.empty(len(y))
    for k in (0, 1):
        train, test = fold != k, fold == k
        if train.sum() < len(features) + 2 or test.sum() == 0:
            nan = float("nan")  # no held-out figure; never the in-sample one in its place
            return HandCount(intercept, weights, nan, nan, nan, r2_fit, len(frame), target)
        x_test = x[test]
        g_test, b_test = _sums(x_test, y[test])
        g_train, b_train = g_all - g_test, b_all - b_test  # the training fold's sums, without copying it
        b0, w = _round_weights(_solve(g_train, b_train), features, g_train, b_train)
        pred[test] = b0 + x_test @ np.array([w[f] for f in features])
    resid = y - pred
    r2 = 1 - float((resid ** 2).sum()) / ss_tot if ss_tot > 0 else float("nan")
    return HandCount(intercept, weights, r2, float(np.sqrt((resid ** 2).mean())), float(np.abs(resid).mean()),
                     r2_fit, len(frame), target)


# ------------------------------------------------------------------ tables
def _check_target(frame: pd.DataFrame, target: str) -> None:
    """The points column a table is made of: a column of the frame."""
    _check_columns(frame, ())
    if not isinstance(target, str) or target not in frame.columns:
        raise SimulationError(f"target {shown(target)}: not a column of the frame (e.g. 'policy_points')")


def _check_columns(frame: pd.DataFrame, names: Sequence[str]) -> None:
    """The columns a table reads: a dataset's rows (``read_dataset``) have
    them, and at least one row."""
    if not isinstance(frame, pd.DataFrame):
        raise SimulationError(f"frame {type(frame).__name__}: expected a pandas DataFrame of a dataset's rows")
    if frame.empty:  # no mean, no quantile for the buckets: numpy's errors and warnings
        raise SimulationError("frame: no rows (a table needs a dataset's rows, read_dataset)")
    missing = [c for c in names if c not in frame.columns]
    if missing:
        raise SimulationError(f"frame: no column {shown(missing[0])} (the rows of a dataset, read_dataset, have it)")


def _checked_bids(bids: Any) -> list[int]:
    """Bid levels: whole numbers, in a list or tuple."""
    if isinstance(bids, (str, bytes)) or not isinstance(bids, (Sequence, np.ndarray)) \
            or not all(is_whole(b) for b in bids):
        raise SimulationError(f"bids {shown(bids)}: expected a list of bid levels, e.g. [70, 75, 80]")
    return [int(b) for b in bids]


def _checked_count(count: Any, frame: pd.DataFrame) -> pd.Series | None:
    """A hand count for each row of ``frame`` (``HandCount.predict``), as a
    Series on the frame's index; None stays None."""
    if count is None:
        return None
    if isinstance(count, pd.Series) and count.index.equals(frame.index):
        values = count
    else:
        try:
            values = pd.Series(np.asarray(count, dtype=float), index=frame.index)
        except (TypeError, ValueError):
            raise SimulationError(f"count {shown(count)}: expected a number for each row of the frame "
                                  f"(HandCount.predict(frame)), or None") from None
    if not pd.api.types.is_numeric_dtype(values) or not np.isfinite(values.to_numpy(dtype=float)).all():
        raise SimulationError(f"count {shown(count)}: expected a finite number for each row "
                              f"(HandCount.predict(frame)), or None")
    return values


def _bid_columns(bids: Sequence[int]) -> list[str]:
    return [f"make_{b}" for b in bids]


def _bids(rules: Rules, frame: pd.DataFrame, target: str) -> list[int]:
    if rules.has_auction:
        return rules.bid_levels()
    # no auction (bridge): thresholds over the range of the points
    hi = int(frame[target].max())
    step = max(1, hi // 10)
    return list(range(step, hi + 1, step))


def _make_rates(group: pd.DataFrame, target: str, bids: Sequence[int]) -> dict[str, float]:
    pts = group[target].to_numpy()
    return {f"make_{b}": float((pts >= b).mean()) for b in bids}


def _group_row(group: pd.DataFrame, target: str, bids: Sequence[int], **head: Any) -> dict[str, Any]:
    """A table's row for a group of hands: ``head``, then each bid's rate and its interval."""
    return {**head, **_make_rates(group, target, bids), **_make_intervals(group, target, bids)}


def _interval_columns(bids: Sequence[int]) -> list[str]:
    return [f"make_{b}_{end}" for b in bids for end in ("lo", "hi")]


def _make_intervals(group: pd.DataFrame, target: str, bids: Sequence[int]) -> dict[str, float]:
    """Each bid's ``make_interval``, as ``make_<bid>_lo`` and ``make_<bid>_hi``."""
    pts = group[target].to_numpy()
    # rows without their deal (a frame of the caller's own) count as deals of their own
    deals = group["deal_id"].to_numpy() if "deal_id" in group.columns else np.arange(len(group))
    which, g = _deal_codes(deals)  # once a group: a million deals' sort is a tenth of a second
    out = {}
    for b in bids:
        out[f"make_{b}_lo"], out[f"make_{b}_hi"] = _interval(pts >= b, which, g)
    return out


def _deal_codes(deals: Sequence[int] | np.ndarray) -> tuple[np.ndarray, int]:
    """Each hand's deal as 0 .. g - 1, and g, the number of deals."""
    _, which = np.unique(np.asarray(deals), return_inverse=True)
    return which, int(which.max()) + 1 if len(which) else 0


def make_interval(made: Sequence[bool] | np.ndarray, deals: Sequence[int] | np.ndarray) -> tuple[float, float]:
    """The 95% interval of the share of hands that make a bid (``made``, one a
    hand), the hands of one deal (``deals``: each hand's deal) counted together.

    The seats of a deal share its cards, so its hands are not independent
    draws: a design effect (the variance of the share with the deals as
    clusters, over what independent hands would give) shrinks the hands to
    an effective number, and the interval is the Wilson interval of the
    share out of that many: the deals where each deal's hands all make it
    or all fail, the hands where each hand is a deal of its own. It is
    never above the hands themselves (where a deal's hands pull apart, as a
    strong seat leaves its opponents weak, the interval stays that of
    independent hands, on the safe side); it is the hands where all or
    none make it (no spread to measure), and one where every hand comes
    from a single deal."""
    raw = np.asarray(made)
    # yes or no a hand: True/False or 1/0; a 2 or a 0.5 taken as True hid a column of points passed by mistake
    if raw.dtype != bool and not (raw.dtype.kind in "iuf" and np.isin(raw, (0, 1)).all()):
        raise SimulationError(f"made {shown(made)}: expected True/False (or 1/0) a hand: did it make the bid")
    made = raw.astype(bool)
    deals = np.asarray(deals)
    if made.ndim != 1 or made.shape != deals.shape:
        raise SimulationError(f"made and deals: shapes {made.shape} and {deals.shape}, expected one deal a hand "
                              f"(two lists of the same length)")
    return _interval(made, *_deal_codes(deals))


def _interval(made: np.ndarray, which: np.ndarray, g: int) -> tuple[float, float]:
    from rook_analyze.analysis.hand import wilson

    made = np.asarray(made, dtype=float)
    n = len(made)
    if n == 0:
        return (0.0, 1.0)
    p = float(made.mean())
    eff = float(n)
    if 0 < p < 1:
        if g < 2:
            eff = 1.0
        else:
            spread = np.bincount(which, weights=made - p)
            # no small-sample factor, as the Wilson interval's own p(1 - p) / n: hands of
            # deals of their own then give the hands, one answer a deal the deals
            var = float((spread ** 2).sum()) / (n * n)
            if var > 0:
                eff = min(eff, p * (1 - p) / var)
    return wilson(p, eff)


def _bucket_edges(count: pd.Series, buckets: int, step: int = COUNT_STEP) -> list[float]:
    """Bucket edges on multiples of ``step`` near the count's quantiles (groups of about equal size, round
    numbers; edges that round together merge, so there may be fewer groups)."""
    qs = np.quantile(count, np.linspace(0, 1, buckets + 1)[1:-1])
    return sorted({float(step * round(q / step)) for q in qs})


def _bucket_labels(edges: Sequence[float]) -> list[str]:
    """Half-open groups, written so: ``count < 80``, ``80 <= count < 90``, ``count >= 90``;
    none without edges (one group: the total row alone)."""
    if not edges:
        return []
    labels = [f"count < {edges[0]:.0f}"]
    labels += [f"{a:.0f} <= count < {b:.0f}" for a, b in zip(edges[:-1], edges[1:])]
    labels.append(f"count >= {edges[-1]:.0f}")
    return labels


def bid_success(frame: pd.DataFrame, count: pd.Series | None, bids: Sequence[int], target: str,
                buckets: int = 5, step: int = COUNT_STEP) -> pd.DataFrame:
    """P(points >= bid) for each bid (``make_<bid>``, with its 95% interval
    ``make_<bid>_lo`` .. ``make_<bid>_hi``: ``make_interval``), by hand-count
    bucket (one row a bucket; bucket edges on multiples of ``step``), then all
    hands. ``count`` None (no hand count): the all-hands row alone, its
    ``mean_count`` NaN."""
    buckets = whole("buckets", buckets, 1, error=SimulationError, most=MAX_BUCKETS)
    step = whole("step", step, 1, error=SimulationError)
    _check_target(frame, target)
    bids = _checked_bids(bids)
    count = _checked_count(count, frame)
    if count is None:
        return pd.DataFrame([_group_row(frame, target, bids, bucket="all hands", rows=len(frame),
                                        mean_count=float("nan"), mean_points=float(frame[target].mean()))])
    edges = _bucket_edges(count, buckets, step)
    labels = _bucket_labels(edges)
    which = np.searchsorted(np.asarray(edges), count.to_numpy(), side="right")
    rows = []
    for k, label in enumerate(labels):
        group = frame[which == k]
        if group.empty:
            continue
        rows.append(_group_row(group, target, bids, bucket=label, rows=len(group),
                               mean_count=float(count[which == k].mean()), mean_points=float(group[target].mean())))
    rows.append(_group_row(frame, target, bids, bucket="all hands", rows=len(frame), mean_count=float(count.mean()),
                           mean_points=float(frame[target].mean())))
    return pd.DataFrame(rows)


def make_by_count(frame: pd.DataFrame, count: pd.Series | None, bids: Sequence[int], target: str,
                  width: int = 5, min_rows: int = MIN_COUNT_ROWS) -> pd.DataFrame:
    """P(points >= bid) by hand count in steps of ``width``: the table to read at the table
    (with 95% intervals, as ``bid_success``).

    Counts with fewer than ``min_rows`` hands are left out (too noisy);
    ``count`` None (no hand count) leaves out every row."""
    width = whole("width", width, 1, error=SimulationError)
    min_rows = whole("min_rows", min_rows, 1, error=SimulationError)
    _check_target(frame, target)
    bids = _checked_bids(bids)
    count = _checked_count(count, frame)
    if count is None:
        return pd.DataFrame(columns=["count", "rows", "mean_points", *_bid_columns(bids), *_interval_columns(bids)])
    lo = width * np.floor(count.to_numpy() / width)
    rows = []
    for value in np.unique(lo):
        mask = lo == value
        if mask.sum() < min_rows:
            continue
        group = frame[mask]
        rows.append(_group_row(group, target, bids, count=int(value), rows=int(mask.sum()),
                               mean_points=float(group[target].mean())))
    return pd.DataFrame(rows)


def trump_choice(frame: pd.DataFrame, rules: Rules | str, min_bid: int | None) -> pd.DataFrame:
    """How the policy's trump compares with the best trump in hindsight."""
    rules = Rules.from_spec(rules)
    _check_columns(frame, ("best_points", "policy_points", "policy_trump"))
    if min_bid is not None and not is_whole(min_bid):
        raise SimulationError(f"min_bid {shown(min_bid)}: expected a bid level (a whole number) or None")
    cost = frame["best_points"] - frame["policy_points"]
    big = 10 if rules.counters else 2  # a costly choice: two 5s, or (points = tricks) two tricks
    stats = [
        ("policy trump is a best trump", float((cost == 0).mean()), "share of hands"),
        ("mean cost of the policy trump", float(cost.mean()), "points below the best trump"),
        (f"cost of {big} points or more", float((cost >= big).mean()), "share of hands"),
        ("mean points, policy trump", float(frame["policy_points"].mean()), "points"),
        ("mean points, best trump", float(frame["best_points"].mean()), "points"),
    ]
    if "longest_color" in frame.columns:
        # a third of hasbro's hands have two colors or more of the longest length: longest_color is one
        # of them (the higher top card, then B R Y G), which the labels say; the policy's trump is also
        # scored against every color of that length, as a player who "names a longest color" reads it
        stats.append((f"policy trump is the dealt hand's longest color ({LONGEST_TIES})",
                      float((frame["policy_trump"] == frame["longest_color"]).mean()), "share of hands"))
        lengths = [f"len_{c}" for c in COLORS]
        if all(c in frame.columns for c in lengths):
            longest_length = frame[lengths].to_numpy().max(axis=1)
            policy_length = _trump_color_length(frame, "policy_points")
            stats.append(("policy trump is a longest color of the dealt hand (equal lengths count)",
                          float(np.mean(policy_length == longest_length)), "share of hands"))
        # a best trump, ties included, as for the policy's trump above: the best_trump column gives
        # ties to the policy's trump, which would count a longest color tied for the best as a miss
        longest = frame["longest_color"].to_numpy()
        points = np.full(len(frame), np.nan)
        for t in rules.trumps:
            if f"points_{t}" in frame.columns:
                points = np.where(longest == t, frame[f"points_{t}"].to_numpy(dtype=float), points)
        stats.append((f"the dealt hand's longest color ({LONGEST_TIES}) is a best trump",
                      float(np.mean(points == frame["best_points"].to_numpy(dtype=float))), "share of hands"))
    if min_bid is not None:
        stats.append((f"makes {min_bid} with the policy trump", float((frame["policy_points"] >= min_bid).mean()),
                      "share of hands"))
        stats.append((f"makes {min_bid} with the best trump", float((frame["best_points"] >= min_bid).mean()),
                      "share of hands"))
    return pd.DataFrame(stats, columns=["statistic", "value", "unit"])


def _trump_column(target: str) -> str | None:
    """The column naming the trump whose points ``target`` holds: the best
    trump's for ``best_points``, none for ``points_<trump>`` (a fixed trump),
    else the policy's."""
    if target == "best_points":
        return "best_trump"
    return None if target.startswith("points_") else "policy_trump"


def _trump_color_length(frame: pd.DataFrame, target: str) -> np.ndarray:
    """Per hand, the length in the dealt hand of the color of the trump whose
    points ``target`` holds (0 where that trump is no color, or the color's
    length is not in the frame)."""
    length = np.zeros(len(frame), dtype=int)
    column = _trump_column(target)
    trump = (frame[column].to_numpy() if column is not None
             else np.full(len(frame), target[len("points_"):], dtype=object))
    for c in COLORS:
        col = f"len_{c}"
        if col in frame.columns:
            length = np.where(trump == c, frame[col].to_numpy(), length)
    return length


def trump_length(frame: pd.DataFrame, rules: Rules | str, target: str, bids: Sequence[int]) -> pd.DataFrame:
    """Points by the number of trumps in the dealt hand: the cards of the trump
    color that ``target``'s points were played with (the policy's trump for
    ``policy_points``, the best trump for ``best_points``, the color itself for
    ``points_<trump>``) plus the birds."""
    rules = Rules.from_spec(rules)
    _check_target(frame, target)
    column = _trump_column(target)
    if column is not None:
        _check_columns(frame, (column,))
    bids = _checked_bids(bids)
    length = _trump_color_length(frame, target)
    if "rook" in frame.columns:
        length = length + frame["rook"].to_numpy()
    show = [b for b in bids if b in (bids[0], bids[len(bids) // 2], bids[-1])] if bids else []
    rows = []
    for n in np.unique(length):
        group = frame[length == n]
        row = {"trumps": int(n), "rows": len(group), "share": len(group) / len(frame),
               "mean_points": float(group[target].mean())}
        row.update(_make_rates(group, target, show))
        rows.append(row)
    return pd.DataFrame(rows)


def by_position(frame: pd.DataFrame, rules: Rules | str, target: str, bids: Sequence[int]) -> pd.DataFrame:
    """Results by the declarer's seat relative to the dealer, with who leads first."""
    rules = Rules.from_spec(rules)
    _check_target(frame, target)
    _check_columns(frame, ("position", "seat", "declarer_leads", "side_leads", "best_points"))
    bids = _checked_bids(bids)
    show = [bids[0], bids[len(bids) // 2]] if bids else []
    rows = []
    n = rules.seats
    for pos, group in frame.groupby("position", sort=True):
        pos = int(pos)
        text = "dealer" if pos == n else POSITION_TEXT.get(pos, f"{pos} left of dealer") if n == 4 else \
            POSITION_TEXT[1] if pos == 1 else f"{pos} left of dealer"  # the first bidder at any table
        if pos == 1 and not rules.has_auction:
            text = "left of dealer"  # no auction (bridge): nobody bids first
        if n == 4 and pos == 2:
            # across the table is the dealer's partner only when the sides alternate (teams=0101)
            across = rules.check_seat(str(group["seat"].iloc[0]))
            if rules.side_of(across, (across + 2) % n) != 1:
                text = "across from dealer"
        row = {"position": pos, "seat": text, "declarer_leads": bool(group["declarer_leads"].iloc[0]),
               "side_leads": bool(group["side_leads"].iloc[0]), "rows": len(group),
               "mean_points": float(group[target].mean()),
               "mean_best_points": float(group["best_points"].mean())}
        row.update(_make_rates(group, target, show))
        rows.append(row)
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ report
@dataclass(frozen=True, eq=False)
class Report:
    """Everything ``rook-analyze report`` prints; tables are DataFrames."""

    out: str
    rules: str
    seed: int
    deals_planned: int
    deals: int
    rows: int
    complete: bool
    target: str
    bids: tuple[int, ...]
    count: HandCount | None  # None: too few deals to fit one (count_note says how many it needs)
    bid_success: pd.DataFrame
    make_by_count: pd.DataFrame
    trump_choice: pd.DataFrame
    trump_length: pd.DataFrame
    positions: pd.DataFrame
    count_step: int = COUNT_STEP  # make_by_count's groups: counts count .. count + count_step - 1
    # why the count, or its held-out figures, are missing, and how many deals they need; None if neither
    count_note: str | None = None
    policy: str = POLICY_REVISION  # the declarer policy's revision that made the dataset (its plan's)

    __eq__ = reports_equal  # its tables are DataFrames, which == cannot compare
    __hash__ = None

    def dataset(self) -> dict[str, Any]:
        return {"out": self.out, "rules": self.rules, "seed": self.seed, "deals_planned": self.deals_planned,
                "deals": self.deals, "rows": self.rows, "complete": self.complete, "target": self.target,
                "policy": self.policy}

    def count_dict(self) -> dict[str, Any]:
        """The count section: the formula, weights and figures (null without a count) and ``note``."""
        return count_to_dict(self.count, self.target, self.rows, self.count_note)

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"bid_success": self.bid_success, "make_by_count": self.make_by_count,
                "trump_choice": self.trump_choice, "trump_length": self.trump_length,
                "positions": self.positions}

    def to_dict(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"dataset": self.dataset(), "bids": list(self.bids), "count": self.count_dict()}
        for name, table in self.tables().items():
            doc[name] = table.to_dict(orient="records")
        return json_ready(doc)  # a bucket with no count has a NaN mean: None, as json has no NaN

    def to_long(self) -> pd.DataFrame:
        """Every number of the report as rows ``section, row, column, value`` (the csv form)."""
        recs = []
        for k, v in self.dataset().items():
            recs.append(("dataset", "", k, v))
        for k, v in self.count_dict().items():
            if isinstance(v, dict):
                for kk, vv in v.items():
                    recs.append(("count", k, kk, vv))
            else:
                recs.append(("count", "", k, v))
        for name, table in self.tables().items():
            key = table.columns[0] if len(table.columns) else None
            for rec in table.to_dict(orient="records"):
                for col, v in rec.items():
                    if col != key:
                        recs.append((name, rec[key], col, v))
        return pd.DataFrame(recs, columns=["section", "row", "column", "value"])


def load_frame(out: str | Path) -> pd.DataFrame:
    """The numeric columns the report needs (the hand and discard texts stay on disk)."""
    plan = load_plan(out)
    rules = Rules.from_spec(plan.rules)
    cols = ["deal_id", "seat", "position", "declarer_leads", "side_leads", "policy_trump",
            "policy_points", "best_trump", "best_points", "longest_color", *(f"points_{t}" for t in rules.trumps),
            "counters", "rook", *(f"len_{c}" for c in COLORS), "longest", "tops", "high", "voids", "singletons"]
    return read_dataset(out, columns=cols)


def build_report(out: str | Path, target: str = "policy", buckets: int = 5) -> Report:
    """The report of the dataset at ``out``. ``target``: ``policy`` (the policy's
    trump) or ``best`` (the best trump in hindsight); ``buckets``: hand-count
    groups of the bid-success table, 1 or more."""
    out = folder("out", out, error=SimulationError)
    if not isinstance(target, str) or target not in TARGETS:
        raise SimulationError(f"target {shown(target)}: choose one of {', '.join(TARGETS)}")
    buckets = whole("buckets", buckets, 1, error=SimulationError, most=MAX_BUCKETS)
    plan = load_plan(out)  # its errors: no plan there (not a dataset), a path the system refuses
    rules = Rules.from_spec(plan.rules)
    frame = load_frame(out)
    col = TARGETS[target]
    try:
        count: HandCount | None = replace(fit_count(frame, col), texts=feature_text(rules))
    except TooFewRows:  # a dataset of a deal or so: every other section still stands
        count = None
    predicted = count.predict(frame) if count is not None else None
    bids = _bids(rules, frame, col)
    deals = int(frame["deal_id"].nunique())
    # the deals read, not the parts there now: a run in progress may have written more since
    complete = deals == plan.deals
    min_bid = rules.min_bid if rules.has_auction else None
    step = count_step(rules)
    return Report(
        out=str(out), rules=plan.rules, seed=plan.seed, deals_planned=plan.deals, deals=deals, rows=len(frame),
        complete=complete, target=col, bids=tuple(bids), count=count,
        bid_success=bid_success(frame, predicted, bids, col, buckets, step),
        make_by_count=make_by_count(frame, predicted, bids, col, width=step),
        trump_choice=trump_choice(frame, rules, min_bid),
        trump_length=trump_length(frame, rules, col, bids),
        positions=by_position(frame, rules, col, bids),
        count_step=step,
        count_note=_count_note(count, deals, len(frame), rules, plan.deals, complete),
        policy=plan.policy,
    )


def _count_note(count: HandCount | None, deals: int, rows: int, rules: Rules, planned: int,
                complete: bool) -> str | None:
    """Why the report has no count, or no held-out figures for it, and how many deals would give them."""
    fit, held = deals_needed(rules)
    if count is None:
        text = (f"too few deals to fit a hand count (the dataset has {plural(deals, 'deal')}, "
                f"{plural(rows, 'hand')}; it needs at least {plural(fit, 'deal')}, and {held} to score "
                f"the count on held-out deals)")
        wanted = fit
    elif not math.isfinite(count.rmse):  # fit_count leaves them all NaN together
        text = (f"too few deals to score the hand count on held-out deals (the dataset has "
                f"{plural(deals, 'deal')}; that needs at least {held})")
        wanted = held
    else:
        return None
    if not complete and planned >= wanted:
        return f"{text}: finish this run ({planned:,} deals planned)"
    return f"{text}: simulate more deals (into a new folder: a dataset's number of deals is fixed when it starts)"


PANEL_TICKS = 13  # bid labels a panel holds side by side (three-digit bids)
MARKERS = "osD^vPX*hp"  # one a hand-count group: neighbouring groups' colours are close


def plot_report(report: Report):
    """A two-panel matplotlib Figure: the chance to make each bid by hand-count
    bucket, and the chance to make a few bids against the hand count; each
    curve with its 95% band (``make_interval``). Everything is inside the figure, so a plain
    ``savefig`` keeps it all (titles, legends below the panels, the count's
    formula at the foot)."""
    from rook_analyze.analysis.plots import bid_ticks, check_report

    check_report(report, Report, "plot_report", "build_report")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    fig = Figure(figsize=(12, 6.5), layout="constrained")
    FigureCanvasAgg(fig)  # files only, never a window
    left, right = fig.subplots(1, 2)
    bids = list(report.bids)
    table = report.bid_success
    buckets = table[table["bucket"] != "all hands"]
    cmap = _colormap(len(buckets))
    band = Patch(color="grey", alpha=0.25, label="shaded: 95% interval")
    for k, (_, row) in enumerate(buckets.iterrows()):
        _curve(left, bids, *_shares(row, bids), color=cmap[k],
               marker=MARKERS[k % len(MARKERS)], label=f"{row['bucket']}  ({row['rows']:,} hands)")
    every = table[table["bucket"] == "all hands"]
    if not every.empty:
        row = every.iloc[0]
        _curve(left, bids, *_shares(row, bids), color="black", lw=2, ls="--",
               label=f"all hands  ({row['rows']:,} hands)")
    rules = Rules.from_spec(report.rules)
    left.set_xlabel("bid (points the declaring side must take)" if rules.has_auction else
                    "tricks the declaring side must take (no auction: each a threshold)")
    left.set_ylabel("chance to make the bid (%)")
    left.set_title("Chance to make each bid, by hand-count group" if len(buckets) else
                   "Chance to make each bid, all hands")
    left.set_ylim(-2, 102)
    left.set_xticks(bid_ticks(bids, most=PANEL_TICKS))
    left.grid(alpha=0.3)
    handles, _ = left.get_legend_handles_labels()
    # below the panel: inside, a corner would hide the curves of some dataset (ten groups, weak hands)
    left.legend(handles + [band], [h.get_label() for h in handles + [band]],
                title="hand count (formula at the foot)" if len(buckets) and report.count is not None else None,
                fontsize=8, title_fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14),
                ncols=2 if len(buckets) > 3 else 1)

    by_count = report.make_by_count
    width = report.count_step
    picks = _pick_bids(bids)
    if not by_count.empty:
        cmap2 = _colormap(len(picks))
        for k, b in enumerate(picks):
            # a point stands for the counts from ``count`` up to the next step: plot it mid-way
            _curve(right, by_count["count"] + width / 2, by_count[f"make_{b}"], by_count[f"make_{b}_lo"],
                   by_count[f"make_{b}_hi"],
                   color=cmap2[k], marker=MARKERS[k], label=f"bid {b}" if rules.has_auction else f"{b} tricks")
        # named in the legend, not written on the line, where a point near 50% covered the words
        right.axhline(50, color="grey", lw=1, ls=":", label="even chance (50%)")
        where = (f"\n(a point: the {width} counts around it, each with at least {MIN_COUNT_ROWS} hands)"
                 if width > 1 else "")
    else:
        # an empty panel would look like a fault: say why it is empty
        fit, _ = deals_needed(report.rules)
        why = (f"too few hands at any one count\n(a point needs {MIN_COUNT_ROWS} hands: simulate more deals)"
               if report.count is not None else
               f"no hand count: too few deals to fit one\n(it needs at least {plural(fit, 'deal')})")
        right.text(0.5, 0.6, why, transform=right.transAxes, ha="center", va="center", fontsize=10,
                   color="dimgrey")
        right.set_xticks([])  # no counts to show: no axis to read
        where = ""  # nor a 50% line or a note on what a point is
    nest = rules.nest_size > 0  # no nest, no discards (bridge): as the table says
    right.set_xlabel(f"hand count of the dealt hand{', before the nest' if nest else ''}{where}")
    right.set_ylabel("chance to make the bid (%)")
    right.set_title("Chance to make a few bids, against the hand count")
    right.set_ylim(-2, 102)
    right.grid(alpha=0.3)
    if not by_count.empty:
        handles, _ = right.get_legend_handles_labels()
        right.legend(handles + [band], [h.get_label() for h in handles + [band]], fontsize=8,
                     loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=2)

    c = report.count
    target = "the policy's trump" if report.target == "policy_points" else "the best trump in hindsight"
    unfinished = "" if report.complete else f" (run unfinished: {report.deals_planned:,} deals planned)"
    fig.suptitle(f"{report.rules}: {plural(report.deals, 'deal')} x {report.rows // max(report.deals, 1)} seats as "
                 f"declarer{unfinished}; double-dummy play, {target}{', policy discards' if nest else ''}",
                 fontsize=11)
    if c is None:
        fit, _ = deals_needed(report.rules)
        footer = (f"hand count: none (too few deals to fit one: {report.deals:,} here, "
                  f"at least {fit:,} needed)")
    else:
        held = (f"held-out R\u00b2 {c.r2:.2f}, typical error \u00b1{c.rmse:.0f} points" if math.isfinite(c.rmse)
                else f"too few deals to score it on held-out deals; in-sample R\u00b2 {c.r2_fit:.2f}")
        footer = f"hand count: {c.formula().split(' = ', 1)[1]}    ({held})"
    # a figure label, not free text below the axes: the layout keeps it inside the figure
    fig.supxlabel(footer, fontsize=9)
    return fig


def _shares(row: pd.Series, bids: Sequence[int]) -> tuple[list[float], list[float], list[float]]:
    """A table row's chances to make each bid, and their intervals' ends."""
    return ([row[f"make_{b}"] for b in bids], [row[f"make_{b}_lo"] for b in bids],
            [row[f"make_{b}_hi"] for b in bids])


def _curve(ax, x, shares, lo, hi, **style) -> None:
    """A curve of chances (shares, drawn in %) with its 95% band from ``lo`` to ``hi``."""
    ax.fill_between(x, 100 * np.asarray(lo, dtype=float), 100 * np.asarray(hi, dtype=float), color=style["color"],
                    alpha=0.12, linewidth=0)
    ax.plot(x, 100 * np.asarray(shares, dtype=float), ms=4.5, **style)


def _pick_bids(bids: Sequence[int]) -> list[int]:
    """Four bids from the lowest, evenly spaced on multiples of the bids' own step (70 85 100 115 for
    hasbro, 65 80 95 110 for dixie40, 1 5 9 13 tricks for bridge): the spacing rounds down, so the
    fourth is never past the highest bid."""
    if len(bids) <= 4:
        return list(bids)
    unit = bids[1] - bids[0]  # bids step evenly: 5 points, or the thresholds of a game without bidding
    step = unit * max(1, (bids[-1] - bids[0]) // (3 * unit))
    return [b for b in range(bids[0], bids[-1] + 1, step) if b in bids][:4]


def _colormap(n: int) -> list:
    from matplotlib import colormaps

    cm = colormaps["viridis"]
    return [cm(x) for x in np.linspace(0.05, 0.85, max(n, 1))]
