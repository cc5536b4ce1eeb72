"""The ``rook-analyze`` command (``rook_analyze.cli.main``).

numba reads ``NUMBA_NUM_THREADS`` when it is imported, which the commands
do on their way in: it refuses to import at all with a count of 0 or less
(a traceback), and takes text it cannot read for its default after a
warning of many lines. So the value is checked here, before numba is
imported; a bad one is taken out of the environment, and every command
then says what is wrong with it in one line (exit status 2) instead."""

from __future__ import annotations

import os
import re
import signal


def _numba_threads_error() -> str | None:
    text = os.environ.get("NUMBA_NUM_THREADS")
    if text is None or (re.fullmatch(r"\s*\+?[0-9]+\s*", text) and int(text) > 0):
        return None
    return (f"NUMBA_NUM_THREADS {text!r}: numba's thread count must be a whole number above 0, "
            f"or unset (the solver's threads are --workers)")


ENVIRONMENT_ERROR = _numba_threads_error()
if ENVIRONMENT_ERROR is not None:
    del os.environ["NUMBA_NUM_THREADS"]


def run() -> None:
    """The ``rook-analyze`` entry point: ``main`` once it is imported. Importing
    it loads numpy, numba and the solver, a few tenths of a second in which a
    Ctrl-C would otherwise end the command with a traceback; it gets the one
    line and exit status 130 that a Ctrl-C gets once the command runs."""
    import sys

    if sys.stdout is None:
        # started with standard output closed (>&-): click would drop every line
        # of data and exit 0, as if the work were done; a refused write is status 1
        if sys.stderr is not None:
            sys.stderr.write("rook-analyze: standard output is closed: the data would go nowhere "
                             "(redirect it to a file, or to /dev/null to drop it)\n")
        sys.exit(1)
    # A path that is not UTF-8 (a folder's name in other bytes) comes in from the
    # command line as surrogates, and report and simulate print it: where the
    # locale leaves standard output strict (en_US.UTF-8, not C.UTF-8) that was
    # a traceback. The bytes go back out as they came in.
    if getattr(sys.stdout, "errors", None) == "strict" and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="surrogateescape")
    early = _on_signals(_EarlyStop.raise_it)
    try:
        from rook_analyze.cli.main import main
    except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM / SIGHUP (_EarlyStop)
        _say_and_exit(getattr(e, "signum", signal.SIGINT))
    finally:
        _put_back(early)  # the command puts in its own (rook_analyze.cli.common)
    try:
        main(prog_name="rook-analyze")
    finally:
        # the command has ended and its status is set: a signal in the second
        # or so Python takes to exit (Dask's and numba's clean-up) killed the
        # process with no word (status -2); it now ends it at once, with its word
        _on_signals(lambda signum, frame: _say_and_exit(signum, at_once=True))


_WORDS = {"SIGINT": "interrupted", "SIGTERM": "terminated", "SIGHUP": "hangup"}


class _EarlyStop(KeyboardInterrupt):
    """SIGTERM or SIGHUP while the command is imported, taken as a Ctrl-C:
    the default action killed the process without a word."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @classmethod
    def raise_it(cls, signum: int, frame: object) -> None:
        raise cls(signum)


def _on_signals(handler) -> dict:
    """``handler`` for SIGINT, SIGTERM and SIGHUP where each has Python's own
    handling (a program's handler, or SIG_IGN as under nohup, is kept); the
    handlers replaced, to put back."""
    replaced = {}
    for name in _WORDS:
        num = getattr(signal, name, None)
        if num is None:
            continue
        plain = signal.default_int_handler if name == "SIGINT" else signal.SIG_DFL
        if signal.getsignal(num) is plain:
            replaced[num] = signal.signal(num, handler)
    return replaced


def _put_back(replaced: dict) -> None:
    for num, handler in replaced.items():
        signal.signal(num, handler)


def _say_and_exit(signum: int, at_once: bool = False) -> None:
    """The signal's word on standard error and the shell's status for it,
    128 + its number, as a command stopped by it gives them."""
    import sys

    word = next((w for name, w in _WORDS.items() if getattr(signal, name, None) == signum), "interrupted")
    try:
        sys.stderr.write(word + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed terminal (SIGHUP)
        pass
    if at_once:
        os._exit(128 + int(signum))
    sys.exit(128 + int(signum))
