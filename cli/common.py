"""Building blocks every ``rook-analyze`` command shares.

Parameter types for rules, seats and trump; one ``--format`` option and the
printers behind it; deal input from an argument, a file or standard input;
one-line errors with exit status 2; the compile notice and progress bars.
Data goes to standard output, everything else to standard error."""

from __future__ import annotations

import csv
import errno
import io
import json
import math
import os
import re
import signal
import sys
import tempfile
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import click

from rook_analyze.analysis.inputs import json_ready, output_file
from rook_analyze.solver import PRESETS, Deal, RookError, Rules
from rook_analyze.solver.cards import ascii_lower, ascii_upper, shown
from rook_analyze.solver.api import ctrl_c_stops_searches, most_threads, signal_stops_searches
from rook_analyze.solver.deal import MAX_SEED

TRUMPS = ("B", "R", "Y", "G", "none")

# click >= 8.2 raises this for a bare group call; it prints the help, keep it
_NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())


# ------------------------------------------------------------------- errors
class BadInput(click.UsageError):
    """Bad input or usage: one line on standard error, exit status 2."""

    exit_code = 2

    def __init__(self, message: str, ctx: click.Context | None = None, hint: bool = False) -> None:
        # one line, whatever the library put in the message
        super().__init__(" ".join(str(message).split()), ctx)
        self.hint = hint

    def show(self, file: Any = None) -> None:
        msg = f"Error: {self.format_message()}"
        if self.hint and self.ctx is not None:
            msg += f" (see '{self.ctx.command_path} --help')"
        click.echo(msg, file=file if file is not None else sys.stderr)


def _one_line(e: click.ClickException) -> click.ClickException:
    if isinstance(e, BadInput) or (_NO_ARGS_IS_HELP and isinstance(e, _NO_ARGS_IS_HELP)):
        return e
    if isinstance(e, click.UsageError):
        return BadInput(e.format_message(), e.ctx, hint=True)
    if isinstance(e, click.FileError):  # a file that cannot be opened is bad input too
        return BadInput(e.format_message())
    return e


class RookGroup(click.Group):
    """A click group that turns every ``RookError`` and usage error into a
    one-line message and exit status 2, so commands need not repeat it."""

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.ClickException as e:
            raise _one_line(e) from None
        except RookError as e:
            raise BadInput(_cli_text(e)) from None
        except OSError as e:  # --version and --help write while the options are parsed
            raise _refused(e) from None

    def invoke(self, ctx: click.Context) -> Any:
        from rook_analyze.cli import ENVIRONMENT_ERROR

        if ENVIRONMENT_ERROR is not None:
            raise BadInput(ENVIRONMENT_ERROR)
        try:
            with ctrl_c_stops_searches(), termination_stops_the_run():  # a Ctrl-C that Python drops still stops the run
                return super().invoke(ctx)
        except click.ClickException as e:
            raise _one_line(e) from None
        except MemoryError as e:  # memory the system will not give: status 1, as a refused write
            # (before RookError: simulate's refusal of more workers than fit is both)
            text = _cli_text(e) if isinstance(e, RookError) else _memory_text(ctx.invoked_subcommand)
            raise click.ClickException(text) from None
        except RookError as e:
            raise BadInput(_cli_text(e)) from None
        except OSError as e:
            raise _refused(e) from None
        except KeyboardInterrupt as e:
            # Ctrl-C (or SIGTERM, SIGHUP): the searches have stopped (rook_analyze.solver.api);
            # one line and the shell's status for the signal, 128 + its number
            word, status = stopped_by(e)
            say_stopped(word)
            sys.exit(status)


class Terminated(KeyboardInterrupt):
    """SIGTERM (kill, timeout, a service manager), taken as a Ctrl-C is taken."""

    word, signum = "terminated", int(signal.SIGTERM)


class HungUp(Terminated):
    """SIGHUP (the terminal was closed, an ssh session dropped), taken as a Ctrl-C is taken."""

    word, signum = "hangup", 1  # SIGHUP's number on every system that has it (Windows has none)


@contextmanager
def termination_stops_the_run() -> Iterator[None]:
    """While the block runs, SIGTERM and SIGHUP stop the command as Ctrl-C
    does (its searches, simulate's cluster, a half-written file;
    ``Terminated`` or ``HungUp``, exit status 143 or 129), rather than end
    the process on the spot: simulate's workers were left to notice by
    themselves, with multiprocessing's "leaked semaphore objects" warning,
    its lock file left behind and no word of --resume. Off the main thread,
    or where a program has put in its own handler (``nohup`` ignores
    SIGHUP), the block leaves that signal alone."""
    with signal_stops_searches(signal.SIGTERM, Terminated):
        if not hasattr(signal, "SIGHUP"):
            yield
            return
        with signal_stops_searches(signal.SIGHUP, HungUp):
            yield


def stopped_by(e: KeyboardInterrupt) -> tuple[str, int]:
    """The word and exit status (128 + the signal's number) of a run stopped
    by a signal: Ctrl-C, SIGTERM or SIGHUP. The signal is ``e``'s own, or,
    where Python dropped the handler's exception and a stopped search
    raised in its place (``SearchInterrupted``), the one that stopped it."""
    signum = getattr(e, "signum", 0)
    for kind in (Terminated, HungUp):
        if signum == kind.signum:
            return kind.word, 128 + kind.signum
    return "interrupted", 128 + signal.SIGINT


def say_stopped(text: str) -> None:
    """Say on standard error why the run stopped, where it still can be
    said: after a hangup the terminal is gone and the write fails (EIO)."""
    try:
        click.echo(text, err=True)
    except OSError:
        pass


def _refused(e: OSError) -> OSError | click.ClickException:
    """The system refused a read or write (standard output on a full disk,
    say): one line and exit status 1, not a traceback. A reader that stopped
    early (``| head``) is passed on as it is: click ends quietly on EPIPE."""
    if e.errno == errno.EPIPE:
        return e
    _drop_pending_output()
    return click.ClickException(_os_error_text(e))


def _memory_text(command: str | None) -> str:
    """Out of memory; in a command that solves, what takes it is the solver's table, one a thread."""
    if command in ("deal", "report"):
        return "out of memory"
    from rook_analyze.solver.api import table_bits, table_bytes, tables_fixed

    try:
        bits = table_bits(None)
        most = "" if tables_fixed(None) else "up to "
        size = f" of {most}2^{bits} entries ({table_bytes(bits) / 1e6:,.0f} MB)"
    except RookError:  # a bad ROOK_ANALYZE_TT_BITS is reported before any table is made
        size = ""
    return (f"out of memory: each solver thread keeps a table{size}; use fewer --workers "
            "or a smaller ROOK_ANALYZE_TT_BITS")


def _cli_text(e: RookError) -> str:
    """A library error's message in the command line's words: its ``cli_message``
    where it has one (``--resume`` where the library says ``resume=True``)."""
    text = getattr(e, "cli_message", None)
    return text if isinstance(text, str) else str(e)


def _os_error_text(e: OSError) -> str:
    what = e.strerror or str(e)
    return f"{e.filename!r}: {what}" if e.filename else what


def _drop_pending_output() -> None:
    """Point standard output at the null device, so that the output still
    buffered is not written again, and refused again, as Python exits."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (a test runner's)
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


def save_figure(fig: Any, path: str, **savefig: Any) -> None:
    """Save a matplotlib Figure for ``--plot``; a write the system refuses
    (no permission, a full disk) is one line and exit status 1, as for
    standard output: the path itself was checked before the work began.
    Says where it went on standard error, as every file a command writes."""
    from rook_analyze.analysis.plots import FORMATS

    # the format the name ends in, given: matplotlib reads it from the suffix, and a name that
    # is all suffix ('.svg', a hidden file) has none to it, so it wrote PNG to '.svg.png'
    fmt = next((ext[1:] for ext in FORMATS if path.lower().endswith(ext)), "png")
    _write_whole(path, "--plot", "wb", lambda f: fig.savefig(f, format=fmt, **savefig))
    click.echo(f"plot saved to {path}", err=True)


def output_then(output: Callable[[], None], after: Callable[[], None]) -> None:
    """``output()`` (a command's data on standard output), then ``after()``
    (its notes on standard error and the files its options named: --detail,
    --plot). The data goes first, so a file the system refuses loses no
    report. A reader that stopped early (``| head``) does not cost the files
    either, the work of the whole run: they are written all the same, and
    the closed pipe then ends the command as click ends it (quietly, status 1)."""
    try:
        output()
    except BrokenPipeError:
        after()
        raise
    after()


def save_csv(frame: Any, path: str, option: str) -> None:
    """Write a DataFrame as CSV for an option such as ``--detail``: to a
    temporary file in the same folder, then renamed over ``path``, so an
    interrupted write never leaves half a file; a write the system refuses
    is one line and exit status 1, as in ``save_figure``."""
    _write_whole(path, option, "w", lambda f: frame.to_csv(f, index=False))
    click.echo(f"{option.lstrip('-')} saved to {path}", err=True)


def _write_whole(path: str, option: str, mode: str, write: Callable[[Any], None]) -> None:
    """``write(f)`` into a temporary file in ``path``'s folder, then renamed
    over ``path``: an interrupted write (Ctrl-C, SIGTERM, a full disk) never
    leaves half a file, nor the temporary one. A write the system refuses is
    one line and exit status 1, naming ``option``."""
    folder = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        # newline="": the csv writer's own line ends, untranslated (a binary file takes None)
        with tempfile.NamedTemporaryFile(mode, dir=folder, suffix=".tmp", delete=False,
                                         newline=None if "b" in mode else "") as f:
            tmp = f.name
            write(f)
        # a temporary file is made private (0600); the file the user asked
        # for gets the mode a plain open would give it, under the umask
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException as e:
        # a Ctrl-C in the middle of a large file too: the half-written temporary file goes
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        if not isinstance(e, OSError):
            raise
        raise click.ClickException(f"{option} {path!r}: {e.strerror or e}") from None


def detail_option(help: str) -> Callable[[Any], Any]:
    """``--detail FILE.csv``, the raw rows of a Monte Carlo report, as ``hand`` and ``nest`` take it."""
    return click.option("--detail", "detail", type=click.Path(dir_okay=False), default=None, metavar="FILE.csv",
                        help=help)


def check_detail_path(path: str | None) -> None:
    """A ``--detail`` path checked before the long work (``output_file``)."""
    if path is not None:
        checked(output_file, path, "detail file", (".csv",), what="--detail")


def known_option(help: str) -> Callable[[Any], Any]:
    """``--known PLACE:CARDS`` (repeatable), as ``hand``, ``nest`` and ``deal`` read it."""
    return click.option("--known", "known", multiple=True, metavar="PLACE:CARDS", help=help)


def workers_option() -> Callable[[Any], Any]:
    """``--workers``, the solver threads of ``hand`` and ``nest``."""
    return click.option("--workers", type=click.IntRange(min=1, max=most_threads()), default=None,
                        help="Solver threads, each with a table of up to 253 MB (40 MB for 9-card deals; README: "
                             "Performance). Default: all cores. Results do not depend on it.")


def constraint_option(help: str, metavar: str = "SEAT:FEATURE OP N") -> Callable[[Any], Any]:
    """``--constraint`` / ``-c`` (repeatable), as ``hand``, ``nest`` and ``deal`` read it."""
    return click.option("--constraint", "-c", "constraints", multiple=True, metavar=metavar, help=help)


def parse_conditions(rules: Rules, known: Sequence[str], constraints: Sequence[str]) -> tuple:
    """``--constraint`` and ``--known`` read for ``rules``' table, each fault
    named with its option; the parsed constraints (the known cards are read
    again where the dealer is made, with the hand they must not meet)."""
    from rook_analyze.analysis.sampling import Constraint, parse_known

    parsed = tuple(checked(Constraint.parse, c, rules, what="--constraint") for c in constraints)
    checked(parse_known, list(known), rules, what="--known")
    return parsed


def checked(fn: Callable[..., Any], *args: Any, what: str | None = None) -> Any:
    """Call ``fn``; a ``RookError`` becomes ``BadInput`` prefixed with ``what``
    (the option or input it came from)."""
    try:
        return fn(*args)
    except RookError as e:
        raise BadInput(f"{what}: {_cli_text(e)}" if what else _cli_text(e)) from None


# ---------------------------------------------------------- parameter types
class RulesType(click.ParamType):
    """``--rules``: a preset and knob overrides, ``full,bird=low,nest_size=6``."""

    name = "rules"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Rules:
        if isinstance(value, Rules):
            return value
        try:
            return Rules.from_spec(value)
        except RookError as e:
            self.fail(str(e), param, ctx)

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "PRESET[,KNOB=VALUE...]"


class SeatType(click.ParamType):
    """A seat name, ``N E S W`` or ``P1``..``P6`` (case ignored), in canonical
    form. Whether the rules have that seat is checked with the rules
    (:func:`seat_index`), so every unknown seat gets the same message."""

    name = "seat"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        return ascii_upper(str(value).strip())

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "SEAT"


class TrumpType(click.ParamType):
    """A trump, ``B R Y G`` or ``none`` (case ignored). Whether ``none`` is
    allowed depends on the rules: check with :func:`check_trump`."""

    name = "trump"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        t = str(value).strip()
        t = "none" if ascii_lower(t) == "none" else ascii_upper(t)
        rules = ctx.params.get("rules") if ctx is not None else None
        if isinstance(rules, Rules):  # --rules came first: its trumps (no 'none' where the Rook is a trump)
            try:
                return rules.check_trump(str(value))  # the message quotes what was typed
            except RookError as e:
                self.fail(str(e), param, ctx)
        if t not in TRUMPS:
            self.fail(f"trump {shown(value)}: choose one of {', '.join(TRUMPS)}", param, ctx)
        return t

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "[B|R|Y|G|none]"


RULES = RulesType()
SEAT = SeatType()
TRUMP = TrumpType()


BIDDER_DEFAULT = (" Default: N (P1 at tables of other sizes). Seats run N E S W clockwise, N and S partners"
                  " unless teams= says otherwise: N's left-hand opponent is E, its right-hand opponent W (the"
                  " default dealer).")
DEALER_DEFAULT = " Default: W (the last seat at tables of other sizes)."


def seat_index(rules: Rules, seat: str | None, option: str, default: str) -> int:
    """The index of ``--seat``-like option's seat under ``rules``; ``None``
    takes the default, ``first`` (N, or P1) or ``last`` (W, or the last seat)."""
    if seat is None:
        seat = rules.first_seat if default == "first" else rules.last_seat
    return checked(rules.check_seat, seat, what=option)


class SeedRange(click.IntRange):
    """``--seed``: a whole number 0 to ``MAX_SEED`` (64 bits). click's own
    message quotes a number of thousands of digits in full; this one cuts
    it short."""

    def __init__(self) -> None:
        super().__init__(min=0, max=MAX_SEED)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, str) and len(value.strip()) > len(str(MAX_SEED)):
            self.fail(f"{shown(value)}: expected a whole number 0 to {MAX_SEED}", param, ctx)
        return super().convert(value, param, ctx)


SEED = SeedRange()


class Number(click.FloatRange):
    """A number option with a floor (``above`` it, or ``at_least`` it) and,
    unless ``infinite`` is allowed, finite; nan never passes. A refusal
    quotes what was typed: click's FloatRange quoted its reading, so
    '--precision 1e-400' said '0.0 is not in the range x>0'. ``what`` ends
    the message: '--OPTION TEXT: expected WHAT'."""

    def __init__(self, what: str, above: float | None = None, at_least: float | None = None,
                 infinite: bool = False) -> None:
        # a FloatRange for --help's range ('[x>0]'); convert is this class's own
        super().__init__(min=above if above is not None else at_least, min_open=above is not None)
        self.what, self.above, self.at_least, self.infinite = what, above, at_least, infinite

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, (int, float)):  # a default, or a caller's number: kept exact, shown short
            x, text = float(value), format(value, "g")
        else:
            text = str(value).strip()
            try:
                x = float(text)
            except ValueError:
                self.fail(f"{shown(value)} is not a valid number", param, ctx)
        low = (self.above is not None and x <= self.above) or (self.at_least is not None and x < self.at_least)
        if math.isnan(x) or (math.isinf(x) and not self.infinite) or low:
            option = param.opts[0] if param is not None and param.opts else "value"
            said = text if len(text) <= 40 and " " not in text else shown(text)
            # a number too small for a float reads as 0: say so, or '1e-400' looks wrongly refused
            tiny = " (it reads as 0)" if x == 0 and re.search(r"[1-9]", re.split(r"[eE]", text)[0]) else ""
            raise BadInput(f"{option} {said}: expected {self.what}{tiny}")
        return x


def rules_option(required: bool = True, **kw: Any) -> Callable:
    """The shared ``--rules`` option."""
    kw.setdefault("help", f"Rules preset ({', '.join(PRESETS)}) and knob overrides, "
                          "e.g. 'full,bird=low,nest_size=6'; another table: 'hasbro,seats=3,teams=alone' "
                          "(seats P1..P3).")
    return click.option("--rules", "rules", type=RULES, required=required, **kw)


def check_trump(rules: Rules, trump: str) -> str:
    """The ``--trump``, checked against the rules ('none' only where the preset allows it)."""
    return checked(rules.check_trump, trump, what="--trump")


# ------------------------------------------------------------------- output
def output_format(choices: Sequence[str] = ("table", "json", "csv"), default: str = "table",
                  help: str | None = None) -> Callable:
    """The one ``--format`` option every command uses (stored as ``fmt``)."""
    text = help or "Output format: " + ", ".join(choices) + "."
    return click.option("--format", "fmt", type=click.Choice(list(choices), case_sensitive=False),
                        default=default, show_default=True, help=text)


def plain(value: Any) -> Any:
    """A JSON-ready copy: numpy scalars and arrays to Python, NaN to None,
    cards, hands and deals to RDN."""
    if isinstance(value, Mapping):
        return {str(plain(k)): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v) for v in value]
    if hasattr(value, "rdn") and callable(value.rdn):
        return value.rdn()
    if isinstance(value, Rules):
        return value.spec()
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):  # numpy scalar or array
        return plain(value.tolist())
    return json_ready(value)  # NaN and the infinities: None


def records_of(data: Any) -> list[dict[str, Any]]:
    """A pandas DataFrame or an iterable of dicts as a list of plain dicts."""
    if hasattr(data, "to_dict") and hasattr(data, "columns"):
        return [plain(r) for r in data.to_dict(orient="records")]
    return [plain(dict(r)) for r in data]


def rounded_records(df: Any, digits: Mapping[str, int], columns: Sequence[str] | None = None) -> list[dict]:
    """The rows of a report DataFrame for a table: figures rounded to
    ``digits`` places, a missing figure (NaN: no standard error from one
    sample, say) blank, only ``columns`` when given."""
    out = []
    for row in df.to_dict(orient="records"):
        out.append({k: (None if isinstance(v, float) and v != v
                        else round(float(v), digits[k]) if k in digits else v)
                    for k, v in row.items() if columns is None or k in columns})
    return out


def emit_report(report: Any, fmt: str, print_table: Callable[[Any], None]) -> None:
    """An advisor's report: json from ``to_dict()``, csv from ``to_frame()``,
    else ``print_table(report)``."""
    if fmt == "json":
        emit(report.to_dict(), "json")
    elif fmt == "csv":
        emit(report.to_frame(), "csv")
    else:
        print_table(report)


def _cell(value: Any) -> str:
    """A table or csv cell: nested values as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    if isinstance(value, float):
        if abs(value) < 1e15 and round(value, 3) == value:
            # rounded to 3 places or fewer already (solve's ms to the microsecond, bench's figures,
            # README "Commands"): in full, where 6 significant digits cut a 1314.693 ms solve to 1314.69
            return f"{value:.3f}".rstrip("0").rstrip(".")
        return f"{value:.6g}" if abs(value) < 1e6 else f"{value:.0f}"
    return str(value)


def format_table(records: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None) -> str:
    """Aligned text: numbers right-aligned, text left-aligned."""
    if columns is None:
        columns = _columns(records)
    if not columns:
        return ""
    cells = [[_cell(r.get(c)) for c in columns] for r in records]
    numeric = [all(isinstance(r.get(c), (int, float)) or r.get(c) is None for r in records) for c in columns]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]

    def line(values: Sequence[str]) -> str:
        out = [v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)]
        return "  ".join(out).rstrip()

    return "\n".join([line(list(columns))] + [line(row) for row in cells])


def _columns(records: Sequence[Mapping[str, Any]]) -> list[str]:
    cols: list[str] = []
    for r in records:
        for k in r:
            if k not in cols:
                cols.append(k)
    return cols


# characters of standard output's data a write: at most 8 KiB once encoded (4 bytes a
# character at most), so each goes through Python's buffer, never around it (``echo_data``)
_PIECE = 2048
# bytes a pipe's buffer takes at once (Linux): a text no longer than this, written whole
# into the empty pipe, is all in it before the reader can leave (``echo_data``)
_PIPE_TAKES = 65536


def echo_data(text: str, nl: bool = True) -> None:
    """Write ``text`` (a command's data) to standard output in pieces of up
    to 8 KiB, flushed as click does. One larger write goes straight to the
    pipe; where the reader leaves partway (``| head -1``) the system takes
    part of it, and Python's buffered writer dropped the rest without an
    error: the command exited 0 with its json cut short. Through the buffer
    the next piece meets the closed pipe, and the command ends as it does on
    one (quietly, status 1). Text smaller than a pipe's buffer (64 KiB on
    Linux), as a ``hand`` or ``report`` table, still goes out whole before
    the reader can stop."""
    if nl:
        text += "\n"
    if len(text.encode("utf-8", "surrogateescape")) <= _PIPE_TAKES:
        # one write: in pieces, each flushed, a reader that took two lines (| head -2)
        # could leave between two of them, and a report table (3.6 KB) was status 1
        click.echo(text, nl=False)
        return
    _echo_pieces(text)


def _echo_pieces(text: str) -> None:
    """``text`` in writes of at most ``_PIECE`` characters, each flushed:
    where the reader has left, the next piece meets the closed pipe."""
    for i in range(0, len(text), _PIECE):
        click.echo(text[i:i + _PIECE], nl=False)


def _echo_line_pieces(lines: Sequence[str]) -> None:
    """``lines`` (each ending in a newline) in writes of whole lines, each
    write at most ``_PIECE`` characters where the lines allow (a longer line
    goes alone, in ``_echo_pieces``), each flushed: where the reader has
    left, the next piece meets the closed pipe, and a stop between two
    pieces leaves only whole lines written."""
    piece: list[str] = []
    size = 0
    for line in lines:
        if piece and size + len(line) > _PIECE:
            click.echo("".join(piece), nl=False)
            piece, size = [], 0
        if len(line) > _PIECE:
            _echo_pieces(line)
            continue
        piece.append(line)
        size += len(line)
    if piece:
        click.echo("".join(piece), nl=False)


def _stdout_is_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):  # no standard output, or a closed one: not a terminal
        return False


# seconds a line of streamed data may wait for its block (``echo_lines``): a slow producer's
# lines (rare constraints) still reach a pipe's reader soon
_LINE_WAIT_S = 1.0


def echo_lines(lines: Iterable[str]) -> None:
    """Write data lines (``deal``'s deals) to standard output as they come,
    without holding them all. A line a write let a reader that takes one
    line (``| head -1``) leave before the second, and even two deals ended
    with status 1. So to a pipe or file the lines go in blocks of at most a
    pipe's buffer: output that fits one goes out whole, in one write, as a
    table does (status 0), and a larger one cut short meets the closed pipe
    (status 1). A block is also written once its first line has waited
    ``_LINE_WAIT_S``; to a terminal each line is written at once. A Ctrl-C
    (or SIGTERM) writes the lines made so far before it stops the command."""
    live = _stdout_is_terminal()
    block: list[str] = []
    size = 0
    since = 0.0
    first = True

    def put() -> None:
        nonlocal block, size, first
        if not block:
            return
        lines_, block, size = block, [], 0
        if first:  # at most a pipe's buffer: one write, all in the pipe before its reader can leave
            first = False
            echo_data("".join(lines_), nl=False)
        else:  # the pipe may hold an earlier block: in pieces, as a larger text goes, but each
            # piece whole lines, so a Ctrl-C between two pieces (or while one waits on a slow
            # reader, the piece then flushed whole on exit) never leaves half a deal printed
            _echo_line_pieces(lines_)

    try:
        for line in lines:
            line += "\n"
            n = len(line.encode("utf-8", "surrogateescape"))
            if size + n > _PIPE_TAKES:
                put()
            if not block:
                since = time.monotonic()
            block.append(line)
            size += n
            if live or time.monotonic() - since >= _LINE_WAIT_S:
                put()
    except BaseException:
        # the lines made before a stop (or a deal that failed) stay printed; where put
        # itself failed it had cleared its block, so nothing is written twice
        put()
        raise
    put()


def emit(data: Any, fmt: str, columns: Sequence[str] | None = None) -> None:
    """Print a DataFrame, a list of dicts or one dict (json: that object; the
    other formats: one row) to standard output as ``table``, ``json`` (one
    document), ``jsonl`` (one object a line) or ``csv``."""
    fmt = fmt.lower()
    if fmt == "json":
        doc = plain(data) if isinstance(data, Mapping) else records_of(data)
        echo_data(json.dumps(doc, indent=2))
        return
    if isinstance(data, Mapping):
        data = [data]
    records = records_of(data)
    if columns is not None:
        records = [{c: r.get(c) for c in columns} for r in records]
    if fmt == "jsonl":
        for r in records:
            click.echo(json.dumps(r))
    elif fmt == "csv":
        echo_data(format_csv(records, columns), nl=False)
    elif fmt == "table":
        text = format_table(records, columns)
        if text:
            echo_data(text)
    else:
        raise BadInput(f"unknown output format {fmt!r}")


def format_csv(records: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None,
               header: bool = True) -> str:
    cols = list(columns) if columns is not None else _columns(records)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    if header:
        w.writerow(cols)
    for r in records:
        w.writerow([_cell(r.get(c)) for c in cols])
    return buf.getvalue()


# -------------------------------------------------------------- deal input
def deal_source(deal: str | None, file: Any = None) -> str:
    """How messages name where a command's deals come from: the ``--file``
    path, ``<stdin>``, or ``DEAL`` (the argument)."""
    if file is not None:
        name = getattr(file, "name", "--file")
        return "<stdin>" if name in ("-", "<stdin>") else str(name)
    return "DEAL" if deal is not None and deal.strip() not in ("", "-") else "<stdin>"


def read_deal_lines(deal: str | None, file: Any = None) -> Iterator[tuple[str, str]]:
    """The deals of a command: ``deal`` (text, or ``-`` for standard input) or
    an open ``file``; one deal a line, blank and ``#`` lines skipped. With
    neither, standard input when it is not a terminal.
    Yields ``(where, text)`` with ``where`` naming the source and line."""
    if deal is not None and file is not None:
        path = getattr(file, "name", "?")
        path = "-" if path in ("-", "<stdin>") else path  # standard input, as the option was given
        raise BadInput(f"DEAL {shown(deal)} and --file {path!r}: give a DEAL or --file PATH, not both")
    if file is None and (deal is None or not deal.strip()):
        if sys.stdin is None or sys.stdin.isatty():
            raise BadInput("no deal: give a DEAL argument, --file PATH, or - to read standard input",
                           click.get_current_context(silent=True), hint=True)
        deal = "-"  # deals piped in (rook-analyze deal ... | rook-analyze solve ...)
    if file is None and deal.strip() != "-":
        yield "DEAL", deal
        return
    if file is None:
        if sys.stdin is None:
            raise BadInput("DEAL -: there is no standard input to read")
        # as --file - reads it: UTF-8 whatever the locale, and any line ending (CR alone too);
        # sys.stdin itself splits on LF only and decodes by PYTHONIOENCODING
        stream, name = click.open_file("-", "r", encoding="utf-8"), "<stdin>"
    else:
        stream, name = file, deal_source(None, file)
    try:
        for n, line in enumerate(stream, start=1):
            if n == 1:
                line = line.removeprefix("\ufeff")  # the byte-order mark some editors write
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            yield f"{name} line {n}", text
    except UnicodeDecodeError as e:  # both streams decode strictly, in blocks: no trustworthy line number
        raise BadInput(f"{name}: not UTF-8 text (byte {e.object[e.start:e.start + 1]!r})") from None


def parse_deals(lines: Iterable[tuple[str, str]], rules: Rules, complete: bool = False,
                source: str | None = None) -> list[tuple[str, Deal]]:
    """Parse every deal first, so bad input fails before any long solve.
    ``source`` names the input in the message when it holds no deal."""
    out = []
    for where, text in lines:
        try:
            out.append((where, Deal.from_rdn(text, rules, complete=complete)))
        except RookError as e:
            raise BadInput(f"{where}: {e}") from None
    if not out:
        # named: a script running solve over many files can tell which one was empty
        where = f"{source}: " if source else ""
        raise BadInput(f"{where}no deals in the input (blank lines and # lines are skipped)")
    return out


def deal_input(f: Callable) -> Callable:
    """``DEAL`` (words joined, so quoting is optional; ``-`` = standard input)
    and ``--file PATH`` (``-`` = standard input)."""
    f = click.option("--file", "file", type=click.File("r", encoding="utf-8"), default=None, metavar="PATH",
                     help="Read deals from PATH, one a line (blank lines and # lines skipped); - for standard input.")(f)
    f = click.argument("deal", nargs=-1)(f)
    return f


def joined(words: Sequence[str]) -> str | None:
    return " ".join(words) if words else None


# -------------------------------------------------------- notice, progress
_NOTICE_SHOWN = False


def compile_notice(uses: tuple[str, ...] = ("batch",)) -> None:
    """Say once on standard error when the solver kernels this command runs
    (``uses``, as for ``needs_compile``) must be compiled (a cold numba
    cache), so the first run's wait is not a mystery."""
    global _NOTICE_SHOWN
    if _NOTICE_SHOWN:
        return
    _NOTICE_SHOWN = True
    from rook_analyze import solver

    if solver.needs_compile(uses):
        if not solver.config.DISK_CACHE:
            click.echo("compiling the solver (numba has no folder it may write its cache to, so every run "
                       "compiles: set NUMBA_CACHE_DIR to a folder you can write to)...", err=True)
            return
        main = [u for u in uses if u in ("solve", "batch")]
        extra = [_EXTRA_KERNEL_TEXT[u] for u in uses if u in _EXTRA_KERNEL_TEXT and solver.needs_compile((u,))]
        if not extra or (main and solver.needs_compile(main)):
            click.echo("compiling the solver (first run only)...", err=True)
        else:  # the search itself is cached: only a smaller kernel of one option is not
            click.echo(f"compiling the solver's {' and '.join(extra)} (first run only)...", err=True)


# the kernels of solve's options, named for the compile notice
_EXTRA_KERNEL_TEXT = {"card_values": "card values for --cards", "line": "line of play for --line"}


def slow_hands_notice(rules: Rules, solves: int, advice: str = "try a few samples first") -> None:
    """Warn on standard error, before a long wait, when the hands are long
    enough (12 cards or more, with counters: ``full``) that a solve takes
    seconds to many minutes at the solver's present speed at four seats
    (``hand``'s 13-card solves about 2 s on average, the slowest 13 s; some
    of ``nest``'s over ten minutes), and up to about a minute at two or
    three (3 seats of 16 cards up to 15 s, 2 seats of 18 cards up to 40 s
    on the deals measured: benchmarks/RESULTS.md)."""
    if rules.hand_size >= 12 and rules.counters:
        # 12 cards a hand leave no room for a fifth seat in the 57-card deck
        takes = "take seconds to many minutes" if rules.seats >= 4 else "can take up to about a minute"
        click.echo(f"note: {rules.hand_size}-card hands with counters {takes} a solve at the solver's "
                   f"present speed, and this run makes {solves:,} solves; {advice}", err=True)


def progress(total: int | None, desc: str, **kw: Any):
    """A tqdm bar on standard error, shown only when it is a terminal and
    the run has taken more than about a second (``delay``): a short run
    draws nothing."""
    from tqdm import tqdm

    err = sys.stderr
    disable = not (hasattr(err, "isatty") and err.isatty())
    kw.setdefault("delay", 1.0)
    kw.setdefault("dynamic_ncols", True)  # a terminal narrowed mid-run: the bar follows, never wraps
    return tqdm(total=total, desc=desc, file=err, disable=disable, leave=False, **kw)


def solves_progress(planned: int, time_limit: float | None):
    """``hand``'s and ``nest``'s bar of solves: toward the ``planned`` solves,
    or, with a time limit, which may stop the run before them, a count and
    a rate with no end to aim at."""
    if time_limit is None:
        return progress(planned, "solving", unit="solve")
    return progress(None, "solving", unit=" solves")


def echo_beside(bar: Any, text: str, nl: bool = True) -> None:
    """Data for standard output while ``bar`` (``progress``) runs. Where
    standard output is a terminal too, as the bar's standard error is, a
    record written as it stands would start on the bar's line, after its
    text: the bar, once drawn, is wiped first, and drawn again below the
    record."""
    live = _stdout_is_terminal()
    # drawn: tqdm's own test (``close``) of a bar that its ``delay`` has not yet shown
    drawn = not bar.disable and bar.last_print_t >= bar.start_t + bar.delay
    if not (live and drawn):
        click.echo(text, nl=nl)
        return
    with bar.get_lock():
        bar.clear(nolock=True)
        click.echo(text, nl=nl)
        bar.refresh(nolock=True)
