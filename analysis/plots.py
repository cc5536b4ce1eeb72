"""Figures of the Monte Carlo reports, as matplotlib ``Figure`` objects.

The figures are built without pyplot, on the Agg canvas: no global backend
change, no display needed. ``fig.savefig(path)`` writes PNG, SVG or PDF by
the path's extension. matplotlib is imported only when a figure is drawn, so the
command line starts quickly."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rook_analyze.solver.errors import RookError, plural

from .inputs import output_file

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from .hand import HandReport

FORMATS = (".png", ".svg", ".pdf")
TITLE_WIDTH = 80  # characters a line of the bid curve's title holds inside its 8-inch figure


def bid_curve(report: "HandReport") -> Figure:
    """The bid-success curve of a hand: P(make) against the bid with its 95%
    interval (left axis), the expected net score ev(b) with its 95% interval
    (right axis), and the recommended bid marked."""
    from .hand import HandReport

    check_report(report, HandReport, "bid_curve", "analyze_hand")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    bids = report.bids
    x = bids["bid"].to_numpy()
    fig = Figure(figsize=(8, 6), layout="constrained")
    FigureCanvasAgg(fig)  # files only, never a window
    ax = fig.add_subplot()
    p_color, ev_color = "tab:blue", "tab:orange"

    ax.fill_between(x, bids["p_make_lo"], bids["p_make_hi"], color=p_color, alpha=0.2,
                    label="P(make), 95% interval")
    ax.plot(x, bids["p_make"], "o-", color=p_color, label="P(make)")
    ax.axhline(0.5, color=p_color, linestyle=":", linewidth=1)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("bid (points)")
    ax.set_ylabel("P(make): share of deals that make the bid", color=p_color)
    ax.tick_params(axis="y", labelcolor=p_color)
    ax.set_xticks(x if len(x) <= 20 else x[::2])
    ax.grid(True, alpha=0.3)

    ev_ax = ax.twinx()
    ev_ax.fill_between(x, bids["ev_lo"], bids["ev_hi"], color=ev_color, alpha=0.2, label="ev, 95% interval")
    ev_ax.plot(x, bids["ev"], "s-", color=ev_color, label="ev = E[own score - opponents' score]")
    ev_ax.axhline(0, color=ev_color, linestyle=":", linewidth=1)
    ev_ax.set_ylabel("ev: expected net score (points)", color=ev_color)
    ev_ax.tick_params(axis="y", labelcolor=ev_color)

    rec = report.recommendation
    if rec.bid is not None:
        ax.axvline(rec.bid, color="tab:green", linewidth=1.5, label=f"recommended: {rec.bid} in {rec.trump}\n(highest bid with P(make) \u2265 0.5 and ev \u2265 0)")
    else:
        ax.plot([], [], " ", label=f"recommended: pass (best trump {rec.trump})\n(no bid has P(make) \u2265 0.5 and ev \u2265 0)")

    handles, labels = ax.get_legend_handles_labels()
    h2, l2 = ev_ax.get_legend_handles_labels()
    # drawn band first, then curve (the curve on top); listed curve first, then its band: the columns
    # fill top to bottom, so P(make) and its band, ev and its band, the recommendation
    (p_band, p_line, mark), (ev_band, ev_line) = handles, h2
    (p_band_l, p_line_l, mark_l), (ev_band_l, ev_line_l) = labels, l2
    # below the axes: inside, any corner hides the curve of some hand
    fig.legend([p_line, p_band, ev_line, ev_band, mark], [p_line_l, p_band_l, ev_line_l, ev_band_l, mark_l],
               loc="outside lower center", ncols=3, fontsize="small")

    ax.set_title(
        f"Bid-success curve: {report.hand.rdn()}\n"
        f"rules {_broken_at_commas(report.rules.spec())}\n"
        f"{report.seat} declares, {report.dealer} deals, {report.leader} leads; "
        f"{plural(report.samples, 'sample')}, seed {report.seed}",
        fontsize="medium",
    )
    return fig


def _broken_at_commas(text: str, width: int = TITLE_WIDTH) -> str:
    """``text`` in lines of at most ``width`` characters where it can be,
    broken after its commas: a rules text with many knobs (another table's
    seats and teams, hand and nest sizes, bids) would run past the figure's
    edges on one line."""
    lines: list[str] = []
    for part in text.split(","):
        if lines and len(lines[-1]) + 1 + len(part) <= width:
            lines[-1] += "," + part
        else:
            lines.append(part)
    return ",\n".join(lines)


class PlotError(RookError):
    """A plot file name the figures cannot be saved to, or an input they cannot draw."""


def check_report(report: object, kind: type, function: str, maker: str) -> None:
    """``report`` must be a ``kind`` (what ``maker`` returns), or raise ``PlotError``."""
    if not isinstance(report, kind):
        shown = repr(report)
        shown = shown if len(shown) <= 100 else shown[:97] + "..."
        raise PlotError(f"{function}() takes a {kind.__name__} (what {maker}() returns), not {shown}")


def check_plot_path(path: str) -> str:
    """The file format of a plot path (``png``, ``svg`` or ``pdf``), or raise
    ``PlotError``; also when its folder does not exist or cannot be written
    to, or the path is a folder (checked before a long run, not after it)."""
    return output_file(path, "plot file", FORMATS, PlotError)
