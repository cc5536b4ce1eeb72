"""``rook-analyze deal``: random deals in RDN."""

from __future__ import annotations

import click

from rook_analyze.cli.common import emit, output_format, rules_option
from rook_analyze.solver import Rules, random_deals


@click.command()
@rules_option()
@click.option("--count", "-n", type=click.IntRange(min=1), default=1, show_default=True,
              help="How many deals.")
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="Random seed: the same seed and rules give the same deals. Default: fresh randomness.")
@output_format(("rdn", "json", "jsonl", "csv"), default="rdn",
               help="rdn: one deal a line (N / E / S / W / nest), ready for 'solve --file'; "
                    "json, jsonl, csv: fields deal, rules and one per hand (N, E, S, W, nest).")
def deal(rules: Rules, count: int, seed: int | None, fmt: str) -> None:
    """Print --count random deals, one RDN line each (hands and nest).

    Each seat gets the preset's hand size, the nest its nest size, and any
    cards left over stay out of play. Reproducible per --seed and --rules.

    \b
    Example:
      rook-analyze deal --rules full --count 3 --seed 1
    """
    deals = random_deals(rules, count, seed)
    if fmt == "rdn":
        for d in deals:
            click.echo(d.rdn())
        return
    names = rules.seat_names
    records = []
    for d in deals:
        r = {"deal": d.rdn(), "rules": rules.spec()}
        r.update({n: h.rdn() for n, h in zip(names, d.hands)})
        r["nest"] = d.nest.rdn()
        records.append(r)
    emit(records, fmt)
