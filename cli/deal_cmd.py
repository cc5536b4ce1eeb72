"""``rook-analyze deal``: random deals in RDN."""

from __future__ import annotations

import itertools
import json

import click

from rook_analyze.cli.common import (SEED, checked, constraint_option, echo_lines, emit, format_csv, known_option,
                                     output_format, parse_conditions, rules_option)
from rook_analyze.solver import Rules, random_deals


@click.command()
@rules_option()
@click.option("--count", "-n", type=click.IntRange(min=1), default=1, show_default=True,
              help="How many deals.")
@click.option("--seed", type=SEED, default=None,
              help="Random seed: the same seed and rules (and --known and --constraint) give the same deals. "
                   "Default: fresh randomness (with --known or --constraint, a fresh seed, said on standard "
                   "error).")
@known_option("Cards a place must hold, e.g. 'N:Rook B14' or 'nest:G1'; 'out:' for cards out of play where the deal leaves some (repeatable).")
@constraint_option("A condition on a hand or the nest, e.g. 'N:B>=5', 'nest:counters>=20', 'E:rook=1'; "
                   "FEATURE is a color (its number cards; the Rook is in no color), counters (points) or rook; "
                   "OP is >= <= = > < (repeatable, all must hold).",
                   metavar="PLACE:FEATURE OP N")
@output_format(("rdn", "json", "jsonl", "csv"), default="rdn",
               help="rdn: one deal a line (N / E / S / W / nest; P1 / ... / Pn / nest at tables of other "
                    "sizes), ready for 'solve --file'; json, jsonl, csv: fields deal, rules and one per hand "
                    "(N, E, S, W, nest; P1 .. Pn, nest at tables of other sizes).")
def deal(rules: Rules, count: int, seed: int | None, known: tuple[str, ...], constraints: tuple[str, ...],
         fmt: str) -> None:
    """Print --count random deals, one RDN line each (hands and nest).

    Each seat gets the preset's hand size, the nest its nest size, and any
    cards left over stay out of play. Reproducible per --seed and --rules.
    With --known and --constraint only deals that meet them all, uniform
    among those (as 'hand' samples; rare ones are dealt exactly, and an
    impossible set is an error, not a hang).

    \b
    Examples:
      rook-analyze deal --rules full --count 3 --seed 1
      rook-analyze deal --rules hasbro --count 20 --seed 1 --known 'N:Rook' -c 'N:B>=5' -c 'nest:counters>=20'
    """
    if known or constraints:
        from rook_analyze.analysis.sampling import DealSampler, resolve_seed

        parsed = parse_conditions(rules, known, constraints)
        sampler = checked(lambda: DealSampler(rules, known=list(known), constraints=parsed))
        fresh = seed is None
        seed = resolve_seed(seed)
        first = checked(sampler.deal, 0, seed)
        if fresh:  # after the first deal: constraints it could not meet say so without a seed first
            click.echo(f"seed {seed}", err=True)
        # the rest one at a time, printed as dealt (as random_deals gives them), not held in memory
        deals = itertools.chain([first], (checked(sampler.deal, i, seed) for i in range(1, count)))
    else:
        deals = random_deals(rules, count, seed)
    if fmt == "rdn":
        echo_lines(d.rdn() for d in deals)
        return
    spec, names = rules.spec(), rules.seat_names
    columns = ["deal", "rules", *names, "nest"]

    def record(d) -> dict:
        return {"deal": d.rdn(), "rules": spec, **{n: h.rdn(rules.one_high) for n, h in zip(names, d.hands)},
                "nest": d.nest.rdn(rules.one_high)}

    if fmt == "json":  # one document, printed once every deal is dealt
        emit([record(d) for d in deals], "json")
        return
    # jsonl and csv print the deals as they are dealt, as rdn does: a huge --count is
    # not held in memory first, and a Ctrl-C keeps the deals printed so far
    if fmt == "jsonl":
        echo_lines(json.dumps(record(d)) for d in deals)
    else:  # the header with the first row, as solve writes it
        echo_lines(format_csv([record(d)], columns, header=i == 0).rstrip("\n") for i, d in enumerate(deals))
