"""``rook-analyze solve``: the double-dummy value of deals."""

from __future__ import annotations

import json
import re
from contextlib import closing, nullcontext

import click

from rook_analyze.cli.common import (DEALER_DEFAULT, SEAT, TRUMP, BadInput, check_trump, checked,
                                     compile_notice, deal_input, deal_source, echo_beside, emit, format_csv, joined,
                                     output_format, parse_deals, progress, read_deal_lines, rules_option, seat_index)
from rook_analyze.solver import Card, Deal, RookError, Rules, card_values, play_line
from rook_analyze.solver import solve as solve_deal
from rook_analyze.solver.api import _in_order_on_threads, _load_kernels, default_threads, most_threads, table_bits

COLUMNS = ("deal", "rules", "trump", "declarer", "leader", "dealer", "declarer_points",
           "defender_points", "nodes", "ms")


def line_text(line: list[dict]) -> str:
    """A line of play for the table: seat:card in order, '>' and the winner
    after each trick's last card, ' | ' between tricks."""
    out = []
    for p in line:
        out.append(f"{p['seat']}:{p['card']}")
        if p["winner"] is not None:
            out.append(f">{p['winner']} |")
    return " ".join(out).rstrip(" |")


def parse_trick(text: str | None) -> tuple[Card, ...]:
    if not text:
        return ()
    tokens = [t for t in re.split(r"[\s,]+", text.strip()) if t]
    return tuple(checked(Card.from_rdn, t, what="--trick") for t in tokens)


def several_deals(words: tuple[str, ...], rules: Rules) -> bool:
    """Do DEAL's words hold more than one deal? Two deals name every seat
    twice; one deal with a part given twice (a seat, the nest) or a stray /
    names at most that part twice, and its parse says what is wrong with it.
    So: the first seat named twice or more, and another seat too."""
    text = " ".join(words)

    def named(seat: str) -> int:
        return len(re.findall(rf"(?<![A-Za-z0-9]){re.escape(seat)}\s*:", text, re.I))

    first, *others = rules.seat_names
    return named(first) > 1 and any(named(seat) > 1 for seat in others)


@click.command()
@rules_option()
@click.option("--trump", type=TRUMP, required=True,
              help="Trump color: B R Y G, or none where the rules allow it (bridge).")
@click.option("--declarer", type=SEAT, required=True, help="The declarer's seat.")
@click.option("--leader", type=SEAT, default=None,
              help="Seat to lead. Default: what the rules' first_lead says "
                   "(the declarer, left of the declarer, or left of the dealer).")
@click.option("--dealer", type=SEAT, default=None,
              help="The dealer's seat (decides the default leader under first_lead=left_of_dealer)."
                   + DEALER_DEFAULT)
@click.option("--trick", default=None, metavar="CARDS",
              help="Cards already played to the current trick, in order from the leader; "
                   "they are still in the deal's hands.")
@click.option("--cards", "with_cards", is_flag=True,
              help="Also give the value of every legal card of the seat to play: "
                   "declarer_points after that card, perfect play after; best first for that "
                   "seat (the most points for the declaring side, the fewest for a defender).")
@click.option("--line", "with_line", is_flag=True,
              help="Also give a line of perfect play to the end of the hand: each seat in turn plays its best "
                   "card (the first in card order among equals), each trick's winner marked.")
@click.option("--workers", type=click.IntRange(min=1, max=most_threads()), default=None,
              help="Deals solved at once, one a thread (a deal's own search is on one thread), each thread with a "
                   "table of up to 253 MB (40 MB for 9-card deals). "
                   "Default: all cores. The values and the order of the output do not depend on it.")
@output_format(("table", "json", "jsonl", "csv"))
@deal_input
def solve(rules: Rules, trump: str, declarer: str, leader: str | None, dealer: str | None, trick: str | None,
          with_cards: bool, with_line: bool, workers: int | None, fmt: str, deal: tuple[str, ...], file) -> None:
    """The double-dummy value of each deal: from a trick boundary, or from
    inside a trick with --trick.

    DEAL is one deal in RDN (quoting optional), or - to read deals from
    standard input (also read when piped in and no DEAL is given); --file
    PATH reads a file. Files hold one deal a line;
    blank lines and lines starting with # are skipped. A deal may be a full
    deal or a later position (every hand the same number of cards).

    declarer_points is the DD value: the points the declaring side ends the
    hand with under perfect play by both sides (counters, trick points,
    bonuses and the nest per the rules); defender_points the defenders'.

    \b
    Formats (one record per deal):
      table  aligned text, one row a deal (# = its number in the input)
      json   one JSON list of objects
      jsonl  one JSON object a line, printed as each deal is solved
             (in the input's order: with several deals on the cores, a
             deal's record waits for those before it)
      csv    header and one row a deal; with --cards, the cards column
             holds a JSON object {card: declarer_points}; with --line,
             the line column a JSON list like json's
    Fields: deal (canonical RDN), rules, trump, declarer, leader, dealer,
    declarer_points, defender_points, nodes, ms (solver time for this deal,
    milliseconds); trick when --trick is given; cards with --cards; line
    with --line: one object a card, {trick, seat, card, declarer_points,
    winner}, declarer_points staying the deal's value and winner the seat
    that takes the trick, on its last card (else null). The table writes
    the line trick by trick: 'N:B9 E:B14 S:Y10 W:B13 >E | ...'.

    \b
    Example:
      rook-analyze deal --rules hasbro --seed 1 |
        rook-analyze solve --rules hasbro --trump B --declarer N -
    """
    trump = check_trump(rules, trump)
    declarer_i = seat_index(rules, declarer, "--declarer", "first")
    dealer_i = seat_index(rules, dealer, "--dealer", "last")
    leader_i = (rules.first_leader(declarer_i, dealer_i) if leader is None
                else seat_index(rules, leader, "--leader", "first"))
    played = parse_trick(trick)
    if several_deals(deal, rules):
        # several quoted deals, or one argument holding several ("$(rook-analyze deal --count 2)"): the
        # words are joined into one deal, which would fail confusingly ("unknown card 'N:' (in nest)")
        held = f"the {len(deal)} arguments hold" if len(deal) > 1 else "the argument holds"
        raise BadInput(f"DEAL: {held} more than one deal; give one, or several in a file "
                       "(--file PATH) or on standard input (-), one a line")
    text = joined(deal)
    deals = parse_deals(read_deal_lines(text, file), rules, source=deal_source(text, file))
    names = rules.seat_names

    columns = (list(COLUMNS) + (["trick"] if played else []) + (["cards"] if with_cards else [])
               + (["line"] if with_line else []))
    streaming = fmt in ("jsonl", "csv")
    csv_header_due = True
    checked(table_bits, None)  # a bad ROOK_ANALYZE_TT_BITS is no fault of the first deal
    uses = ("solve",) + (("card_values",) if with_cards else ()) + (("line",) if with_line else ())
    compile_notice(uses)

    def record(where: str, d: Deal) -> dict:
        # on a solver thread of its own (each thread keeps its own table)
        res = checked(solve_deal, d, trump, declarer_i, leader_i, dealer_i, played,
                      what=f"--trick in {where}" if played else where)
        rec = {
            "deal": d.rdn(), "rules": rules.spec(), "trump": trump, "declarer": names[declarer_i],
            "leader": names[leader_i], "dealer": names[dealer_i],
            "declarer_points": int(res.declarer_points), "defender_points": int(res.defender_points),
            "nodes": int(res.nodes), "ms": round(float(res.ms), 3),
        }
        if played:
            rec["trick"] = [c.rdn() for c in played]
        if with_cards:
            values = checked(card_values, d, trump, declarer_i, leader_i, dealer_i, played, what=where)
            rec["cards"] = {c.rdn(): int(v) for c, v in values.items()}  # best first, as card_values gives
        if with_line:
            line = checked(play_line, d, trump, declarer_i, leader_i, dealer_i, played, what=where)
            rec["line"] = [p.to_dict() for p in line]
        return rec

    threads = min(len(deals), workers or default_threads())
    if threads > 1:
        # the kernels' compile or load here, where Ctrl-C stops it (a bad deal is left for its turn)
        for _, d in deals:
            try:
                _load_kernels(d, trump, declarer_i, leader_i, dealer_i, played, uses)
                break
            except RookError:
                continue
        # printed in the input's order as each deal and those before it are done; an error
        # stops the deals still being solved and is raised in its deal's place, as one at a time
        solved = closing(_in_order_on_threads((lambda w=w, d=d: record(w, d) for w, d in deals), threads))
    else:
        solved = nullcontext(record(w, d) for w, d in deals)
    records = []
    with progress(len(deals), "solving", unit="deal") as bar, solved as recs:
        for rec in recs:
            bar.update(1)
            if fmt == "jsonl":
                echo_beside(bar, json.dumps(rec))
            elif fmt == "csv":
                # the header with the first row: a first deal that fails leaves standard output empty
                echo_beside(bar, format_csv([rec], columns, header=csv_header_due), nl=False)
                csv_header_due = False
            else:
                records.append(rec)
    if streaming:
        if fmt == "csv" and csv_header_due:
            click.echo(format_csv([], columns), nl=False)  # no deal: the header alone
        return
    if fmt == "json":
        emit(records, "json")
        return
    rows = []
    for i, rec in enumerate(records, start=1):
        row = {"#": i, **{k: rec[k] for k in ("trump", "declarer", "leader", "declarer_points",
                                               "defender_points", "nodes", "ms")}}
        if played:
            row["trick"] = " ".join(rec["trick"])
        if with_cards:
            row["cards"] = " ".join(f"{c}={v}" for c, v in rec["cards"].items())
        if with_line:
            row["line"] = line_text(rec["line"])
        rows.append(row)
    emit(rows, "table")
