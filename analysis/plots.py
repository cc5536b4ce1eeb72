"""Figures of the Monte Carlo reports, as matplotlib ``Figure`` objects.

The figures are built without pyplot, on the Agg canvas: no global backend
change, no display needed. ``fig.savefig(path)`` writes PNG, SVG or PDF by
the path's extension. matplotlib is imported only when a figure is drawn, so the
command line starts quickly."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rook_analyze.solver.errors import RookError, plural
from rook_analyze.solver.cards import shown

from .inputs import output_file

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from .hand import HandReport

FORMATS = (".png", ".svg", ".pdf")
TITLE_WIDTH = 80  # characters a line of the bid curve's title holds inside its 8-inch figure


def bid_curve(report: "HandReport") -> Figure:
    """The bid-success curve of a hand, in two panels that share the bid axis:
    P(make) against the bid with its 95% interval (top), and the expected net
    score ev(b) with its 95% interval (bottom); each panel marks the decision
    rule's threshold (P(make) 0.5, ev 0) and both the recommended bid.

    Two panels, not two y axes on one: the bands of two axes overlap in a
    colour neither has, one curve hides the other where they cross, and the
    two thresholds (0.5 and 0) would be two dotted lines at heights that
    mean nothing to each other."""
    from .hand import HandReport

    check_report(report, HandReport, "bid_curve", "analyze_hand")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    bids = report.bids
    x = bids["bid"].to_numpy()
    fig = Figure(figsize=(8, 7.5), layout="constrained")
    FigureCanvasAgg(fig)  # files only, never a window
    ax, ev_ax = fig.subplots(2, 1, sharex=True)
    p_color, ev_color, rec_color = "tab:blue", "tab:orange", "tab:green"
    rec = report.recommendation

    ax.fill_between(x, bids["p_make_lo"], bids["p_make_hi"], color=p_color, alpha=0.2, linewidth=0,
                    label="P(make), 95% interval (Wilson)")
    ax.plot(x, bids["p_make"], "o-", color=p_color, label="P(make)", zorder=3)
    ax.axhline(0.5, color="dimgrey", linestyle=":", linewidth=1.2,
               label="P(make) = 0.5, the rule's floor")
    ax.set_ylim(-0.02, 1.02)
    ax.set_ylabel("P(make): share of sampled deals\nthat make the bid")
    ax.grid(True, alpha=0.3)

    # one sample has no standard error, so no band to draw: the legend says so rather than
    # list a band the panel lacks, which read as an ev known exactly
    ev_band = ("ev, 95% interval (mean \u00b1 1.96 se, within the possible scores)" if bids["ev_lo"].notna().any() else
               "ev, 95% interval: none (one sample has no standard error)")
    ev_ax.fill_between(x, bids["ev_lo"], bids["ev_hi"], color=ev_color, alpha=0.25, linewidth=0, label=ev_band)
    ev_ax.plot(x, bids["ev"], "s-", color=ev_color, label="ev = E[own score \u2212 opponents' score]", zorder=3)
    ev_ax.axhline(0, color="dimgrey", linestyle="--", linewidth=1.2, label="ev = 0: what passing is worth")
    ev_ax.set_ylabel("ev: expected net score\n(points)")
    ev_ax.set_xlabel("bid (points)")
    ev_ax.grid(True, alpha=0.3)
    ev_ax.set_xticks(bid_ticks(x))

    if rec.bid is not None:
        mark = f"recommended: {rec.bid} in {rec.trump}\n(highest bid with P(make) \u2265 0.5 and ev \u2265 0)"
        for axis in (ax, ev_ax):
            axis.axvline(rec.bid, color=rec_color, linewidth=1.5, zorder=2, label=mark)
    else:
        mark = f"recommended: pass (best trump {rec.trump})\n(no bid has P(make) \u2265 0.5 and ev \u2265 0)"
        ax.plot([], [], " ", label=mark)

    # one legend for both panels, below them (inside, any corner hides the curve of some hand); its two
    # columns fill top to bottom: P(make), its band, its threshold and the recommendation; ev, its
    # band and its threshold
    (p_band, p_line, p_rule, rec_mark), (ev_band, ev_line, ev_rule) = (
        ax.get_legend_handles_labels()[0], ev_ax.get_legend_handles_labels()[0][:3])
    order = [p_line, p_band, p_rule, rec_mark, ev_line, ev_band, ev_rule]
    fig.legend(order, [h.get_label() for h in order], loc="outside lower center", ncols=2, fontsize="small")

    # what the bidder was given (--known, --constraint), as the table's header says it: without it
    # the curve of a hand read against an opponent's strong bid looks like the hand's unconditioned one
    given = ([f"{place}: {cards.rdn(report.rules.one_high)}" for place, cards in report.known.items()]
             + [c.text() for c in report.constraints])
    ax.set_title(
        f"Bid-success curve: {report.hand.rdn(report.rules.one_high)}\n"
        f"rules {_broken_at_commas(report.rules.spec())}\n"
        + (f"given {_broken_at_commas(', '.join(given))}\n" if given else "")
        + f"{report.seat} declares, {report.dealer} deals, {report.leader} leads; "
        f"{plural(report.samples, 'sample')}, seed {report.seed}",
        fontsize="medium",
    )
    return fig


MAX_TICKS = 20  # bid labels the 8-inch axis of the bid curve holds side by side (three-digit bids)


def bid_ticks(bids, most: int = MAX_TICKS) -> list[int]:
    """The bids to label: every level where they fit; else the levels on a
    round multiple of the bid step (10, 20, 25, 50 ... points for a step of 5),
    the finest that fits, so the labels do not run into each other."""
    bids = [int(b) for b in bids]
    if len(bids) <= most:
        return bids
    step = bids[1] - bids[0]
    for k in (2, 4, 5, 10, 20, 40, 50, 100):
        ticks = [b for b in bids if b % (k * step) == 0]
        if 2 <= len(ticks) <= most:
            return ticks
    return bids[::-(-len(bids) // most)]  # every n-th level from the lowest (ceil)


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
        given = shown(report)  # repr, or what stands for one that fails (an int of 5,000 digits)
        given = given if len(given) <= 100 else given[:97] + "..."
        raise PlotError(f"{function}() takes a {kind.__name__} (what {maker}() returns), not {given}")


def check_plot_path(path: str) -> str:
    """The file format of a plot path (``png``, ``svg`` or ``pdf``), or raise
    ``PlotError``; also when its folder does not exist or cannot be written
    to, or the path is a folder (checked before a long run, not after it)."""
    return output_file(path, "plot file", FORMATS, PlotError)
