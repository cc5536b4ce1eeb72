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


def spot_seed(seed: int, spot: int, purpose: int) -> int:
    """Independent seeds per spot of the nest benchmarks (bench_nest, bench_policy):
    0 deals the spot, 1 the advisor's layouts, 2 the fresh layouts."""
    return int(np.random.SeedSequence(seed, spawn_key=(spot, purpose)).generate_state(1, np.uint64)[0] >> 1)
