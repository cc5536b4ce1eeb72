"""Argument types the benchmark scripts share."""

from __future__ import annotations

import argparse


def positive(text: str) -> int:
    """An argparse type: a whole number 1 or more."""
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number 1 or more")
    return n
