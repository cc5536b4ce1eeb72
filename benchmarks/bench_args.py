"""Argument types, and the per-spot seeds, that the benchmark scripts share."""

from __future__ import annotations

import argparse

import numpy as np


def positive(text: str) -> int:
    """An argparse type: a whole number 1 or more."""
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number 1 or more")
    return n


def non_negative(text: str) -> int:
    """An argparse type: a whole number 0 or more (a seed, a count that may be 0)."""
    n = int(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number 0 or more")
    return n


def seconds(text: str) -> float:
    """An argparse type: a number of seconds above 0 (finite)."""
    x = float(text)
    if not 0 < x < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: expected seconds, above 0")
    return x


def positive_number(text: str) -> float:
    """An argparse type: a number above 0 (finite), such as a precision in points."""
    x = float(text)
    if not 0 < x < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number above 0")
    return x


def rules_spec(text: str) -> str:
    """An argparse type: rules text (a preset and knobs) the library reads."""
    from rook_analyze.solver import RookError, Rules

    try:
        Rules.from_spec(text)
    except RookError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def tt_bits(text: str) -> int:
    """An argparse type: a solver table of 2**bits entries, as the library takes
    them (8 to 31): the kernel's buckets are 32 entries, so a smaller table
    made there overran its arrays."""
    from rook_analyze.solver.api import MAX_TT_BITS, MIN_TT_BITS

    n = int(text)
    if not MIN_TT_BITS <= n <= MAX_TT_BITS:
        raise argparse.ArgumentTypeError(f"{text!r}: expected {MIN_TT_BITS} to {MAX_TT_BITS}")
    return n


def counts(text: str) -> list[int]:
    """An argparse type: comma-separated whole numbers, each 1 or more ("1,2")."""
    try:
        out = [int(t) for t in text.split(",")]
    except ValueError:
        out = []
    if not out or min(out) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected whole numbers 1 or more, comma-separated (e.g. 1,2)")
    return out


def spot_seed(seed: int, spot: int, purpose: int) -> int:
    """Independent seeds per spot of the nest benchmarks (bench_nest, bench_policy):
    0 deals the spot, 1 the advisor's layouts, 2 the fresh layouts."""
    return int(np.random.SeedSequence(seed, spawn_key=(spot, purpose)).generate_state(1, np.uint64)[0] >> 1)
