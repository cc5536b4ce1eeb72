"""``rook-analyze hand``: Monte Carlo bid advice for a dealt hand."""

from __future__ import annotations

import click

from rook_analyze.analysis.hand import DECISION_RULE, analyze_hand, zero_sum
from rook_analyze.analysis.inputs import MAX_SAMPLES
from rook_analyze.analysis.plots import check_plot_path
from rook_analyze.analysis.sampling import DealSampler
from rook_analyze.cli.common import (BIDDER_DEFAULT, DEALER_DEFAULT, SEAT, SEED, BadInput, Number, check_detail_path,
                                     checked, compile_notice, constraint_option, detail_option, echo_data, emit_report,
                                     format_table, joined, known_option, output_format, output_then,
                                     parse_conditions, read_deal_lines, rounded_records, rules_option,
                                     save_csv, save_figure, seat_index, slow_hands_notice, solves_progress,
                                     workers_option)
from rook_analyze.solver import Hand, Rules
from rook_analyze.solver.errors import plural

_DIGITS = {"mean": 1, "se": 2, "best_share": 3, "policy_share": 3, "cost": 1, "p_make": 3, "p_make_se": 3,
           "p_make_lo": 3, "p_make_hi": 3, "ev": 1, "ev_se": 2, "ev_lo": 1, "ev_hi": 1}


@click.command(epilog=f"Decision rule: {DECISION_RULE}. ev(b) = E[own score - opponents' score], own score = "
                      "points if made, else -b; opponents score what they capture.")
@click.argument("hand", nargs=-1)
@rules_option()
@click.option("--seat", type=SEAT, default=None, help="The bidder's seat (the declarer)." + BIDDER_DEFAULT)
@click.option("--dealer", type=SEAT, default=None,
              help="The dealer: decides the first leader where the seat left of the dealer leads."
                   + DEALER_DEFAULT)
@click.option("--samples", "-n", type=click.IntRange(min=1, max=MAX_SAMPLES), default=500, show_default=True,
              help="Sampled deals (the most, with --precision).")
@click.option("--seed", type=SEED, default=None,
              help="Random seed: the same inputs and seed give the same report. Default: fresh, and reported.")
@known_option("Cards known to lie elsewhere, e.g. 'E:B14 R5' or 'nest:G1'; 'out:' for cards out of play where the deal leaves some (repeatable).")
@constraint_option("A condition on another hand, e.g. 'E:B>=3', 'W:counters<=10', 'S:rook=0'; FEATURE is a "
                   "color (its number cards; the Rook is in no color), counters (points) or rook; OP is >= <= = > < (repeatable, all must hold).")
@click.option("--precision", type=Number("a standard error in points, above 0 and finite", above=0), default=None,
              metavar="SE",
              help="Sample in rounds of 100 and stop once the recommendation is settled: the bid and the "
                   "trump each decided by their 95% intervals, or, too close to call, pinned to within SE "
                   "points of standard error (ev at the recommended bid and the next one up; the best "
                   "trump's lead over each other trump).")
@click.option("--time-limit", "time_limit", type=Number("seconds, above 0", above=0, infinite=True), default=None,
              metavar="SECONDS",
              help="Stop the searches once SECONDS have passed and report the samples solved with every "
                   "trump (the first sample runs whole: a report needs one). How many depends on the machine: "
                   "the report says, and --samples that many with the same --seed gives the same figures.")
@workers_option()
@output_format(help="table: summaries for a reader; json: one document (hand, rules, samples, seed, trumps, "
                    "bids, recommendation, ...); csv: one table with a 'section' column (trump, bid, "
                    "recommendation).")
@click.option("--plot", "plot", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Save the bid-success curve (P(make) and ev against the bid, 95% bands); PNG, SVG or PDF "
                   "by FILE's extension.")
@detail_option("Save one row per sample as CSV: the deal as dealt (RDN), the policy's trump and discards, "
               "the declaring side's points and the defenders', and the points and discards with every "
               "trump.")
def hand(hand: tuple[str, ...], rules: Rules, seat: str | None, dealer: str | None, samples: int,
         seed: int | None, known: tuple[str, ...], constraints: tuple[str, ...], precision: float | None,
         time_limit: float | None, workers: int | None, fmt: str, plot: str | None, detail: str | None) -> None:
    """Bid advice for a dealt HAND: how high to bid, and in what color.

    HAND is the bidder's cards in RDN (quotes optional), e.g.
    'Rook B14 B13 B12 B11 B10 B9 B8 R14 R10 Y14 Y10 G14' under full, or -
    to read them from standard input (the first line not blank or #).

    Each sample deals the unseen cards at random to the other seats and
    the nest (consistent with --known and --constraint). The bidder takes
    the nest and names trump and discards by a fixed policy that sees only
    hand + nest; the double-dummy solver gives the declaring side's
    points, for the policy's trump and for each of the four trumps (and no
    trump, where the rules allow it: bridge).

    Reported per trump: mean points, standard error, the share of samples
    where it is best (a sample where several trumps tie for best is shared
    among them), how often the policy names it and what naming it costs
    against the best; per bid from min_bid to max_bid: P(make) and
    ev(b) with standard errors and 95% intervals; the recommendation.

    \b
    Example:
      rook-analyze hand 'B14 B12 B9 B7 R13 R6 Y11 Y5 G9' \\
          --rules hasbro --samples 200 --seed 1

    Four solves a sample: with 9- and 10-card hands (hasbro, dixie40,
    kentucky) a sample takes a fraction of a second to seconds; with
    13-card hands (full) seconds to minutes.
    """
    text = joined(hand)
    if text is not None and text.strip() == "-":
        # the hand on standard input, as solve reads deals: its first line that is not blank or #
        text = next((t for _, t in read_deal_lines("-")), None)
        if not text:
            raise BadInput("HAND -: standard input holds no hand (only blank or # lines)")
    if not text:
        example = "Rook B14 B13 ..." if rules.bird_count else "B14 B13 ..."  # no Rook in a deck without one
        raise BadInput(f"no HAND: give the bidder's cards, e.g. '{example}' (or - to read them from "
                       "standard input)", hint=True)
    checked(rules.bid_levels, what="--rules")  # bid advice needs an auction
    seat_i = seat_index(rules, seat, "--seat", "first")
    dealer_i = seat_index(rules, dealer, "--dealer", "last")
    cards = checked(Hand.from_rdn, text, rules.deck_mask, what="HAND")
    parsed = parse_conditions(rules, known, constraints)
    if plot is not None:
        checked(check_plot_path, plot, what="--plot")
    check_detail_path(detail)
    # bad hands, known cards and impossible constraints fail here, before any solve
    checked(lambda: DealSampler(rules, seat_i, cards, known=list(known), constraints=parsed))
    compile_notice(("batch",) if zero_sum(rules) else ("batch", "solve"))  # defenders' own solves
    if time_limit is None:
        slow_hands_notice(rules, samples * len(rules.trumps), "try a few samples first, or set --time-limit")
    with solves_progress(samples * len(rules.trumps), time_limit) as bar:
        report = checked(lambda: analyze_hand(cards, rules, seat=seat_i, dealer=dealer_i, samples=samples,
                                               seed=seed, known=list(known), constraints=parsed,
                                               precision=precision, threads=workers, progress=bar.update,
                                               time_limit=time_limit))
    def notes_and_files() -> None:
        if fmt != "table" and report.samples < samples:
            # the table's header says so; a csv has no place for it
            why = (f"time limit {time_limit:g} s reached" if report.timed_out else
                   f"recommendation settled (--precision {precision:g})")
            click.echo(f"{why} after {plural(report.samples, 'sample')}: --samples {report.samples} "
                       f"--seed {report.seed} repeats this report", err=True)
        elif fmt != "table" and report.settled is False:
            # json has settled; a csv has no place for it, and the table's header says it
            click.echo(f"recommendation not settled at --precision {precision:g}: the --samples cap stopped the "
                       f"run after {plural(report.samples, 'sample')}", err=True)
        if detail is not None:
            save_csv(report.detail, detail, "--detail")
        if plot is not None:
            from rook_analyze.analysis.plots import bid_curve  # matplotlib only when drawing

            save_figure(bid_curve(report), plot)

    output_then(lambda: emit_report(report, fmt, _print_table), notes_and_files)


def _print_table(report) -> None:
    d = report.to_dict()
    head = (f"hand {d['hand']}  |  rules {d['rules']}  |  {d['seat']} declares, {d['dealer']} deals, "
            f"{d['leader']} leads  |  {plural(d['samples'], 'sample')}, seed {d['seed']}")
    if d["constraints"] or d["known"]:
        extra = [f"{k}: {v}" for k, v in d["known"].items()] + d["constraints"]
        head += "  |  given " + ", ".join(extra)
    if d["precision"] is not None:
        head += (f"  |  precision {d['precision']:g}: " +
                 ("settled" if d["settled"] else
                  "NOT settled (the --time-limit stopped it)" if d["timed_out"] else
                  "NOT settled (the --samples cap stopped it)"))
    if d["timed_out"]:
        head += (f"  |  time limit {d['time_limit']:g} s reached: --samples {d['samples']} --seed {d['seed']} "
                 f"repeats this report")
    # one text, so a reader that takes two lines (| head -2) still gets it whole
    echo_data("\n".join([head, "", format_table(rounded_records(report.trumps, _DIGITS)), "",
                          format_table(rounded_records(report.bids, _DIGITS)), "",
                          f"recommendation: {report.recommendation.text()}", f"rule: {DECISION_RULE}"]))
