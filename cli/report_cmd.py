"""``rook-analyze report``: summaries and bid-success curves of a simulate dataset."""

from __future__ import annotations

import json
import math

import click
import pandas as pd

from rook_analyze.analysis.plots import check_plot_path
from rook_analyze.cli.common import (checked, echo_data, format_table, output_format, output_then, plain, records_of,
                                     save_figure)
from rook_analyze.analysis.report import MIN_COUNT_ROWS, TARGETS, Report
from rook_analyze.solver import Rules
from rook_analyze.solver.errors import plural


@click.command()
@click.argument("directory", metavar="DIR", type=click.Path(exists=True, file_okay=False))
@output_format(("table", "json", "csv"),
               help="table: readable sections; json: one document; csv: every number as "
                    "section,row,column,value.")
@click.option("--plot", "plot", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Also save the bid-success curves to FILE (.png, .svg or .pdf).")
@click.option("--target", type=click.Choice(sorted(TARGETS), case_sensitive=False), default="policy",
              show_default=True,
              help="policy: points with the trump the nest policy names (what a declarer can get); "
                   "best: with the best trump in hindsight (an upper bound).")
@click.option("--buckets", type=click.IntRange(min=1, max=10), default=5, show_default=True,
              help="Hand-count groups of the bid-success curves: about equal in size, their edges on round "
                   "counts (edges that round to the same count merge, so there may be fewer groups).")
def report(directory: str, fmt: str, plot: str | None, target: str, buckets: int) -> None:
    """Summaries and bid-success curves from a simulate dataset at DIR.

    \b
    - A hand count fitted to the data (least squares of the declarer's
      double-dummy points on features of the dealt hand), printed as a
      formula to use at the table, with its R-squared and typical error on
      held-out deals.
    - Bid success: the chance that the declaring side takes at least each
      bid, by hand-count group and by hand count in steps of 5 (of 1
      under bridge, whose points are tricks), counts held by fewer than
      20 hands left out; json and csv add each chance's 95% interval
      (the seats of a deal share its cards, so the interval counts
      a deal's hands together), which the plot shades.
    - Trump choice: how often the policy's trump is a best trump in
      hindsight (ties count) and what it costs, and how often the longest
      color is; points by trumps held.
    - Results by the declarer's seat relative to the dealer.

    A dataset still being written (or stopped) is reported on its finished parts.

    \b
    Example:
      rook-analyze report runs/hasbro --plot curves.png
    """
    from rook_analyze.analysis.report import build_report, plot_report

    if plot is not None:
        checked(check_plot_path, plot, what="--plot")
    rep = build_report(directory, target=target, buckets=buckets)
    fmt = fmt.lower()

    def output() -> None:
        if fmt == "json":
            echo_data(json.dumps(plain(rep.to_dict()), indent=2))
        elif fmt == "csv":
            # pandas writes floats in full (the shared csv printer rounds to 6 digits)
            echo_data(rep.to_long().to_csv(index=False, lineterminator="\n"), nl=False)
        else:
            echo_data(render_table(rep))

    def files() -> None:
        if plot is not None:
            save_figure(plot_report(rep), plot, dpi=130, bbox_inches="tight")

    output_then(output, files)


def _count_groups(step: int) -> str:
    # counts are rarely whole (0.7 x longest): a row holds every count up to the next row's, 84.6 in row 80
    return f"count 65 = 65 to under {65 + step}" if step > 1 else "one row a count: 7 = 7 to under 8"


def _percent(table: pd.DataFrame) -> pd.DataFrame:
    """The ``make_<bid>`` columns as whole percents, headed by the bid alone (their
    intervals, ``make_<bid>_lo`` and ``_hi``, are left to json, csv and the plot:
    three figures a bid would not fit a line)."""
    table = table.drop(columns=[c for c in table.columns if c.startswith("make_") and c.endswith(("_lo", "_hi"))])
    out = table.copy()
    for col in table.columns:
        if col.startswith("make_"):
            out[col] = (100 * table[col]).round().astype(int)
            out = out.rename(columns={col: col[len("make_"):]})
    for col in ("mean_points", "mean_best_points", "mean_count"):
        if col in out.columns:
            out[col] = out[col].round(1)
    if "share" in out.columns:
        out["share"] = (100 * out["share"]).round(1)
        out = out.rename(columns={"share": "share_%"})
    return out


def render_table(rep: Report) -> str:
    c = rep.count
    seats = rep.rows // max(rep.deals, 1)
    state = "complete" if rep.complete else f"INCOMPLETE: {rep.deals} of {rep.deals_planned} deals so far"
    rules = Rules.from_spec(rep.rules)
    what = (f"the trump the {'nest ' if rules.nest_size else ''}policy names" if rep.target == "policy_points"
            else "the best trump in hindsight")
    discards = " and the policy's discards" if rules.nest_size else ""
    # an example on the dataset's own scale (points are tricks where there are no counters)
    typical = round(float(rep.bid_success["mean_points"].iloc[-1])) if len(rep.bid_success) else 0
    lines = [
        f"Dataset {rep.out}: rules {rep.rules}, seed {rep.seed}, {plural(rep.deals, 'deal')} x {seats} seats "
        f"as declarer = {rep.rows:,} hands ({state})",
        f"Points: the declaring side's double-dummy points with {what}{discards} (policy: {rep.policy}).",
        "",
        f"Hand count (least squares on the dealt hand{', before the nest' if rules.nest_size else ''}"
        + (f"; it estimates the points,\nso a hand that counts {typical} takes about {typical} on average):"
           if c is not None else "):"),
    ]
    if c is None:
        lines.append(f"  none: {rep.count_note}")
    else:
        lines.append(f"  {c.formula()}")
        for name in (n for n, w in c.weights.items() if w != 0):
            lines.append(f"    {name:<9} {c.texts.get(name, name)}")
        lines.append(
            f"  on held-out deals: R-squared {c.r2:.3f}, RMSE {c.rmse:.1f} points, "
            f"mean absolute error {c.mae:.1f} points (in-sample R-squared {c.r2_fit:.3f})" if math.isfinite(c.rmse)
            else f"  on held-out deals: none (in-sample R-squared {c.r2_fit:.3f}): {rep.count_note}")
    if c is None:
        by_count = "  (no hand count)"
    elif rep.make_by_count.empty:
        by_count = "  (too few hands)"
    else:
        by_count = format_table(records_of(_percent(rep.make_by_count)))
    lines += [
        "",
        "Chance to make each bid (% of hands), by hand-count group:" if c is not None else
        "Chance to make each bid (% of hands), all hands (no hand count to group them by):",
        format_table(records_of(_percent(rep.bid_success if c is not None
                                         else rep.bid_success.drop(columns="mean_count")))),
        "",
        f"Chance to make each bid (% of hands), by hand count ({_count_groups(rep.count_step)}; groups of "
        f"{MIN_COUNT_ROWS}+ hands):",
        by_count,
        "",
        "Trump choice:",
        format_table(records_of(_trump_rows(rep.trump_choice))),
        "",
        "By trumps in the dealt hand (the "
        + ("policy's trump color" if rep.target == "policy_points" else "best trump's color")
        + {0: ")", 1: " and the Rook)", 2: " and the Rooks)"}[rules.bird_count]
        + _bid_columns_note(rep.trump_length) + ":",
        format_table(records_of(_percent(rep.trump_length))),
        "",
        "By the declarer's seat (position 1 = left of the dealer)" + _bid_columns_note(rep.positions) + ":",
        format_table(records_of(_percent(rep.positions))),
    ]
    return "\n".join(lines)


def _bid_columns_note(table: pd.DataFrame) -> str:
    """What a section's bid columns hold, where the section's header does not say it
    already: ``; 70, 95: chance to make the bid (% of hands)``."""
    bids = [c[len("make_"):] for c in table.columns
            if c.startswith("make_") and not c.endswith(("_lo", "_hi"))]
    return f"; {', '.join(bids)}: chance to make the bid (% of hands)" if bids else ""


def _trump_rows(table: pd.DataFrame) -> pd.DataFrame:
    out = []
    for rec in table.to_dict(orient="records"):
        v = rec["value"]
        text = f"{100 * v:.1f}%" if rec["unit"] == "share of hands" else f"{v:.1f} {rec['unit']}"
        out.append({"statistic": rec["statistic"], "value": text})
    return pd.DataFrame(out)
