"""Shared test setup: ``tests/`` on the path so test files can import the
plain-Python reference (``from naive import naive_value``) and shared
checks (``figures``); and Ctrl-C delivered as in a terminal, however the
suite was started."""

import signal
import sys
from pathlib import Path

_HERE = str(Path(__file__).parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


def pytest_configure(config):
    # A shell starts a background job without job control (`cmd &` in a
    # script, nohup) with SIGINT ignored, and Python then leaves it ignored:
    # the tests that send Ctrl-C to this process or to a command they start
    # would wait on searches that never stop. A handler of Python's own
    # is reset to the default in every child at exec, so the commands the
    # tests start receive it too.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
