"""Shared test setup: ``tests/`` on the path so test files can import the
plain-Python reference (``from naive import naive_value``)."""

import sys
from pathlib import Path

_HERE = str(Path(__file__).parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
