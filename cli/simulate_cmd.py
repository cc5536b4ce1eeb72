"""``rook-analyze simulate``: batch double-dummy simulation into a Parquet dataset."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from rook_analyze.cli.common import (SEED, BadInput, Number, compile_notice, emit, output_format, rules_option,
                                     say_stopped, stopped_by)
from rook_analyze.analysis.simulate import (CONNECT_TIMEOUT, DEFAULT_CHUNK_SIZE, META_FILE, SMALL_RUN_CHUNKS,
                                            ClusterLost, finished_chunks, is_ours, load_plan)
from rook_analyze.solver import Rules


@click.command()
@rules_option()
@click.option("--deals", type=click.IntRange(min=1), required=True, help="How many random deals.")
@click.option("--out", "out", type=click.Path(file_okay=False), required=True, metavar="DIR",
              help="Dataset folder: new or empty, or the folder of an earlier run with --resume.")
@click.option("--seed", type=SEED, default=None,
              help="Random seed: the same seed, rules, deals and chunk size give the same dataset, whatever the "
                   "workers (another --chunk-size deals other deals). "
                   "Default: a fresh seed, stored in the dataset (--resume reuses it).")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Worker processes of the embedded Dask cluster. Default: one per core this process may "
                   "run on.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run on a running Dask cluster instead, e.g. tcp://10.0.0.5:8786 "
                   "(started with 'dask scheduler' and 'dask worker ADDRESS'; each worker "
                   "needs rook-analyze installed).")
@click.option("--connect-timeout", type=Number("seconds, above 0 and finite", above=0), default=CONNECT_TIMEOUT,
              show_default=True, metavar="SECONDS",
              help="With --scheduler: how long to wait for it to answer before giving up.")
@click.option("--resume", is_flag=True,
              help="Finish an interrupted run: keep the parts already in --out and compute the rest. "
                   "--rules and --deals must match the dataset, and --seed and --chunk-size if given. "
                   "On a new or empty folder it starts the run, and says so.")
@click.option("--chunk-size", type=click.IntRange(min=1), default=None,
              help=f"Deals per task and per part file (what a lost worker or a killed run costs). "
                   f"Default: {DEFAULT_CHUNK_SIZE}, or --deals/{SMALL_RUN_CHUNKS} rounded up when that is "
                   f"less, so a small run still gives every worker a share; with --resume, the dataset's.")
@output_format(("table", "json"), help="Summary of the run on standard output: table or json.")
def simulate(rules: Rules, deals: int, out: str, seed: int | None, workers: int | None,
             scheduler: str | None, connect_timeout: float, resume: bool, chunk_size: int | None,
             fmt: str) -> None:
    """Batch double-dummy simulation into a Parquet dataset at DIR (--out).

    For every random deal and every seat as would-be declarer: the declarer
    takes the nest, the nest policy (as in 'hand') names its trump and, for
    each trump, picks the discards; the solver gives the declaring side's
    double-dummy points for each trump. Each row is one (deal, seat) with
    those points and the features of the seat's dealt hand; the README
    documents the columns. 'rook-analyze report DIR' summarises it.

    The deals are cut into chunks (--chunk-size); each chunk is one Dask task
    and one file part-NNNNNN.parquet, dealt from (seed, chunk) alone and
    written under a temporary name, then renamed. A worker lost mid-run
    costs only its chunk, which runs again. A run that is stopped keeps its
    finished parts: run the same command with --resume to finish it; the
    result equals an uninterrupted run.

    \b
    Examples:
      rook-analyze simulate --rules hasbro --deals 100000 --out runs/hasbro --seed 1
      rook-analyze simulate --rules hasbro --deals 100000 --out runs/hasbro --seed 1 --resume
      rook-analyze simulate --rules hasbro --deals 1000000 --out runs/big --scheduler tcp://10.0.0.5:8786
    """
    from rook_analyze.analysis.simulate import simulate as run

    if not out.strip():
        raise BadInput(f"--out {out!r}: give a folder name")
    if workers is not None and scheduler is not None:
        raise BadInput(f"--workers {workers} and --scheduler {scheduler!r}: give one, not both (--workers sizes "
                       f"the embedded cluster)")
    if resume and _nothing_to_resume(out):
        # scripts may always pass --resume; a mistyped folder should still be seen
        click.echo(f"--resume: nothing to resume in {out!r} (no {META_FILE}): starting a new run", err=True)
    try:
        # the notice once the run is sure to start: a refused one compiles nothing
        summary = run(rules, deals, out, seed, workers=workers, scheduler=scheduler, resume=resume,
                      chunk_size=chunk_size, progress=True, connect_timeout=connect_timeout,
                      on_start=compile_notice)
    except KeyboardInterrupt as e:  # Ctrl-C, SIGTERM or SIGHUP: the cluster is closed
        word, status = stopped_by(e)
        _interrupted(out, word)
        sys.exit(status)
    except ClusterLost as e:  # not bad input: status 1, with how to finish the run
        raise click.ClickException(e.cli_message) from None
    except OSError as e:
        # a read or write the system refused during the run (a full disk, say): status 1;
        # a folder that cannot be made at all was refused before the run, as bad input
        raise click.ClickException(f"--out {out!r}: {e.strerror or e}") from None
    doc = summary.to_dict()
    doc.pop("by_worker", None)
    emit(doc if fmt == "json" else [{"field": k, "value": v} for k, v in doc.items()], fmt)


def _nothing_to_resume(out: str) -> bool:
    """A new or empty folder: --resume there starts the run."""
    path = Path(out)
    try:
        # (a run killed while it wrote its plan left only the plan's temporary file)
        return not path.exists() or (path.is_dir() and all(is_ours(p.name) for p in path.iterdir()))
    except OSError:  # the run itself says what is wrong with the folder
        return False


def _interrupted(out: str, word: str) -> None:
    try:
        plan = load_plan(out)
    except Exception:
        say_stopped(f"{word}; nothing written to {out!r}")
        return
    done = sum(plan.chunk_span(i)[1] for i in finished_chunks(out) if i < plan.chunks)
    if done == plan.deals:  # stopped as the cluster closed: nothing is left to resume
        say_stopped(f"{word} as the run closed: all {plan.deals} deals are in {out!r} (no summary printed)")
        return
    say_stopped(f"{word}: {done} of {plan.deals} deals are in {out!r} ({META_FILE} keeps the plan); "
                f"run the same command with --resume to finish")
