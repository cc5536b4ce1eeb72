"""The ``rook-analyze`` command: a click group; each command lives in
``cli/<name>_cmd.py`` and is registered below with one import and one line."""

from __future__ import annotations

import click

from rook_analyze.cli.common import RookGroup


@click.group(cls=RookGroup, invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="rook-analyze", prog_name="rook-analyze")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Rook card game analysis: double-dummy solving, and Monte Carlo bid,
    trump and nest advice.

    Cards, hands and deals are written in Rook deal notation (RDN), e.g.
    'N: Rook B14 B10 ... / E: ... / S: ... / W: ... / nest: R5 G1 Y7 Y2 B3'.
    --rules takes a preset (full, hasbro, kentucky, dixie40, bridge) and
    knob overrides: --rules full,bird=low,nest_size=6.

    Data goes to standard output; progress and messages to standard error.
    Bad input: a one-line message and exit status 2.
    """
    if ctx.invoked_subcommand is None:
        # no command: this help, as --help gives it (not a usage error)
        click.echo(ctx.get_help())


# Commands: one import and one add_command line each.
from rook_analyze.cli.deal_cmd import deal  # noqa: E402
from rook_analyze.cli.solve_cmd import solve  # noqa: E402
from rook_analyze.cli.bench_cmd import bench  # noqa: E402
from rook_analyze.cli.simulate_cmd import simulate  # noqa: E402
from rook_analyze.cli.report_cmd import report  # noqa: E402
from rook_analyze.cli.hand_cmd import hand  # noqa: E402
from rook_analyze.cli.nest_cmd import nest  # noqa: E402

main.add_command(deal)
main.add_command(solve)
main.add_command(bench)
main.add_command(simulate)
main.add_command(report)
main.add_command(hand)
main.add_command(nest)
