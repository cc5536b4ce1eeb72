"""``rook-analyze nest``: trump and discards after taking the nest."""

from __future__ import annotations

import click

from rook_analyze.analysis.nest import (DEFAULT_CANDIDATES, DEFAULT_MARGIN, DEFAULT_SAMPLES, DEFAULT_TOP, FIRST_ROUND,
                                        MOST_SWITCH_LAYOUTS, OBJECTIVES, analyze_nest, check_nest, halving_schedule,
                                        nest_candidates, nest_sampler, planned_solves)
from rook_analyze.analysis.inputs import MAX_SAMPLES
from rook_analyze.cli.common import (BIDDER_DEFAULT, DEALER_DEFAULT, SEAT, SEED, TRUMP, BadInput, Number,
                                     check_detail_path, checked, compile_notice, constraint_option, detail_option,
                                     echo_data, emit_report, format_table, known_option, output_format, output_then,
                                     parse_conditions, rounded_records, rules_option, save_csv, seat_index,
                                     slow_hands_notice, solves_progress, workers_option)
from rook_analyze.solver import Hand, Rules
from rook_analyze.solver.errors import plural

_DIGITS = {"mean": 1, "se": 2, "p_make": 3, "p_make_se": 3, "p_make_lo": 3, "p_make_hi": 3, "score": 1, "gap": 1,
           "gap_se": 2, "quick": 1}
_TABLE = ["rank", "trump", "discard", "mean", "se", "p_make", "p_make_se", "score", "samples", "gap", "gap_se",
          "policy"]


@click.command()
@click.option("--hand", "hand_text", required=True, metavar="CARDS",
              help="The declarer's hand as dealt, in RDN, e.g. 'Rook B14 B12 ...' (hand_size cards).")
@click.option("--nest", "nest_text", required=True, metavar="CARDS",
              help="The nest the declarer takes, in RDN (nest_size cards).")
@rules_option()
@click.option("--bid", type=int, default=None,
              help="The bid won: adds P(make the bid) and the expected score to each option.")
@click.option("--seat", type=SEAT, default=None, help="The declarer's seat." + BIDDER_DEFAULT)
@click.option("--dealer", type=SEAT, default=None,
              help="The dealer: decides the first leader where the seat left of the dealer leads."
                   + DEALER_DEFAULT)
@click.option("--samples", "-n", type=click.IntRange(min=FIRST_ROUND, max=MAX_SAMPLES), default=DEFAULT_SAMPLES,
              show_default=True,
              help="Layouts of the unseen cards the two finalists are solved on (earlier rounds use fewer; "
                   "with 2 no switch from the heuristic's choice is earned at the default --margin).")
@click.option("--candidates", type=click.IntRange(min=1), default=DEFAULT_CANDIDATES, show_default=True,
              help="Options (trump and discards) that enter the first round: the policy's choice first, "
                   "its discards for each other trump next (fewer options than trumps leave a trump out), "
                   "then the best by the quick estimate.")
@click.option("--seed", type=SEED, default=None,
              help="Random seed: the same inputs and seed give the same report. Default: fresh, and reported.")
@click.option("--top", "-k", type=click.IntRange(min=1), default=DEFAULT_TOP, show_default=True,
              help="Options to show.")
@click.option("--trump", "trumps", type=TRUMP, multiple=True,
              help="Consider only this trump (repeatable). Default: every trump. With one trump, the policy's "
                   "discards for it are the choice --margin measures against.")
@click.option("--objective", type=click.Choice(OBJECTIVES, case_sensitive=False), default="mean", show_default=True,
              help="What the best option maximises: mean points, p_make (P(make the bid)) or score (points "
                   "if made, else minus the bid); the last two need --bid.")
@click.option("--margin", type=Number("a number of standard errors, 0 or more and finite", at_least=0),
              default=DEFAULT_MARGIN, show_default=True, metavar="SE",
              help="Recommend another option than the heuristic policy's own choice only when it leads that "
                   "choice by more than 0 and by at least SE standard errors of their paired difference (0: "
                   "always the best-measured option, the policy's choice among equals), and the two score "
                   "differently on at least as many layouts as a sign test asks at that confidence: 3 at SE 1, "
                   f"6 at 2, {MOST_SWITCH_LAYOUTS} from 2.42 up (a few layouts that differ can meet any margin).")
@click.option("--time-limit", "time_limit", type=Number("seconds, above 0", above=0, infinite=True), default=None,
              metavar="SECONDS",
              help="Stop the searches once SECONDS have passed and recommend from the rounds run: the options "
                   "of the last round are the finalists, on the layouts they reached (a layout left part done "
                   f"is dropped; a limit that comes before every option has {FIRST_ROUND} layouts leaves the "
                   "heuristic's choice, unmeasured, or where --trump leaves it out the best by the quick "
                   "estimate). The table's header and a line on standard error say "
                   "where it stopped.")
@known_option("Cards known to lie with another seat, e.g. 'E:B14 R5'; 'out:' for cards out of play where the deal leaves some (repeatable).")
@constraint_option("A condition on another hand, e.g. 'E:B>=3', 'W:counters<=10', 'S:rook=0'; FEATURE is "
                   "a color (its number cards; the Rook is in no color), counters (points) or rook "
                   "(repeatable, all must hold).")
@workers_option()
@output_format(help="table: the top options for a reader; json: one document (options: [{trump, discard, "
                    "mean, se, p_make, ...}], recommendation, ...); csv: the top options and the "
                    "recommendation, with a 'section' column.")
@detail_option("Save one row per solve as CSV: the option (its rank, trump and discards), the layout "
               "(its sample number and the deal as dealt, RDN) and the declaring side's points.")
def nest(hand_text: str, nest_text: str, rules: Rules, bid: int | None, seat: str | None, dealer: str | None,
         samples: int, candidates: int, seed: int | None, top: int, trumps: tuple[str, ...], objective: str, margin: float,
         time_limit: float | None, known: tuple[str, ...], constraints: tuple[str, ...], workers: int | None,
         fmt: str, detail: str | None) -> None:
    """Trump and discards for the declarer who takes the nest.

    The declarer holds --hand plus --nest and buries nest_size cards. The
    candidate options (per trump: the heuristic policy's discards, discards
    built by rule, and the best of every discard by a quick static
    estimate) are solved double-dummy on sampled layouts of the unseen
    cards, all on the same layouts; successive halving gives the layouts
    to the contenders, ending with two finalists on --samples layouts. The
    heuristic policy's own choice stays to the last round as the yardstick,
    and is replaced only by an option that leads it by --margin standard
    errors, and scores differently from it on enough layouts (3 at the
    default margin; layouts where the two tie do not count).

    Reported per option: mean points with standard error, P(make) and the
    expected score with --bid, the layouts solved, and the gap to the
    recommended option (points, on their common layouts) with the standard
    error of the paired differences. The recommendation
    ranks first; the others rank by the round they reached, then by their
    figure: one dropped early was solved on fewer layouts and has a larger
    standard error. The cost is the
    number of solves, shown in the table's header; each takes from a few
    milliseconds to seconds, more with 13-card hands (full).

    \b
    Example:
      rook-analyze nest --rules hasbro --bid 100 --seed 1 \\
          --hand 'B13 B9 B6 R7 Y12 Y11 Y10 Y5 G7' --nest 'Rook B5 R10 G8 G5'
    """
    seat_i = seat_index(rules, seat, "--seat", "first")
    dealer_i = seat_index(rules, dealer, "--dealer", "last")
    cards = checked(Hand.from_rdn, hand_text, rules.deck_mask, what="--hand")
    nest_cards = checked(Hand.from_rdn, nest_text, rules.deck_mask, what="--nest")
    checked(check_nest, cards, nest_cards, rules)
    if bid is not None:
        levels = checked(rules.bid_levels, what="--bid")
        if bid not in levels:
            raise BadInput(f"--bid {bid}: {rules.spec()!r} bids run from {levels[0]} to {levels[-1]} in steps of 5")
    elif objective != "mean":
        raise BadInput(f"--objective {objective}: needs --bid")
    parsed = parse_conditions(rules, known, constraints)
    check_detail_path(detail)
    # bad known cards and impossible constraints fail here, before any solve
    checked(lambda: nest_sampler(cards, nest_cards, rules, seat_i, list(known), parsed))
    pool = checked(lambda: nest_candidates(cards, nest_cards, rules, limit=candidates, trumps=trumps or None))
    planned = halving_schedule(len(pool), samples)
    total = planned_solves(planned)
    compile_notice()
    if time_limit is None:
        slow_hands_notice(rules, total, "try fewer --samples or --candidates first, or set --time-limit")
    with solves_progress(total, time_limit) as bar:
        report = checked(lambda: analyze_nest(cards, nest_cards, rules, seat=seat_i, dealer=dealer_i, bid=bid,
                                               samples=samples, seed=seed, top=top, candidates=candidates,
                                               trumps=trumps or None, objective=objective, margin=margin,
                                               known=list(known), constraints=parsed, threads=workers,
                                               progress=bar.update, time_limit=time_limit))
    def notes_and_files() -> None:
        if fmt != "table" and report.timed_out:
            click.echo(_stopped(report), err=True)  # the table's header says it; a csv has no place
        if detail is not None:
            save_csv(report.detail, detail, "--detail")

    output_then(lambda: emit_report(report, fmt, _print_table), notes_and_files)


def _stopped(report) -> str:
    """Where a time limit ended the rounds: part way through one, or after one."""
    k, planned = len(report.schedule), report.planned
    options, layouts = report.schedule[-1]
    where = "after" if layouts == planned[k - 1][1] else "in"
    said = f"time limit {report.time_limit:g} s reached {where} round {k} of {len(planned)}"
    if report.recommendation.layouts is not None:  # too few layouts to compare the options
        return f"{said}, before every option had {FIRST_ROUND} layouts: no option was compared"
    return (f"{said}: the recommendation rests on {plural(options, 'finalist')} solved on "
            f"{plural(layouts, 'layout')}")


def _print_table(report) -> None:
    d = report.to_dict()
    no_nest = not report.rules.nest_size  # nothing taken, nothing buried: trump is the only choice
    nest = "" if no_nest else f"nest {d['nest']}  |  "
    head = (f"hand {d['hand']}  |  {nest}rules {d['rules']}  |  {d['seat']} declares, "
            f"{d['dealer']} deals, {d['leader']} leads")
    if d["bid"] is not None:
        head += f"  |  bid {d['bid']}"
    rounds = ", ".join(f"{r['options']} on {r['layouts']}" for r in d["schedule"])
    line = (f"{plural(d['candidates'], 'option')}, {plural(d['solves'], 'solve')} (options on layouts: {rounds}), "
            f"seed {d['seed']}, best by {d['objective']}")
    if d["constraints"] or d["known"]:
        line += "  |  given " + ", ".join([f"{k}: {v}" for k, v in d["known"].items()] + d["constraints"])
    if report.timed_out:
        line += "  |  " + _stopped(report)
    columns = [c for c in _TABLE if not (no_nest and c == "discard")]
    # one text, as hand's table
    echo_data("\n".join([head, line, "", format_table(rounded_records(report.top_options(), _DIGITS, columns)), "",
                          f"recommendation: {report.recommendation.text()}"]))
