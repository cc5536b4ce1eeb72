"""The bit helpers of the solver against plain Python."""

from __future__ import annotations

import random

import numpy as np

from rook_analyze.solver import bits, kernel


def _compress_lanes_py(x: int, rem: int) -> int:
    """Per 16-bit lane, the bits of x where rem has ones, packed to the lane's bottom."""
    out = 0
    for lane in range(4):
        k = 0
        for b in range(16):
            if rem >> (16 * lane + b) & 1:
                out |= (x >> (16 * lane + b) & 1) << (16 * lane + k)
                k += 1
    return out


def _masks(rng: random.Random, count: int):
    for _ in range(count):
        x = rng.getrandbits(64)
        rem = rng.getrandbits(64) & rng.getrandbits(64)  # sparse and dense lanes
        if rng.random() < 0.2:
            rem |= 0xFFFF << (16 * rng.randrange(4))     # a full lane
        yield x, rem


def test_popcount_lowest_highest():
    rng = random.Random(3)
    for x, _ in _masks(rng, 500):
        u = np.uint64(x)
        assert bits.popcount(u) == bin(x).count("1")
        assert bits.lowest_bit(u) == ((x & -x).bit_length() - 1 if x else 64)
        assert bits.highest_bit(u) == x.bit_length() - 1


def test_compress_lanes_equals_python():
    """The table key's per-color compression (ranks relative to the live cards)."""
    rng = random.Random(5)
    for x, rem in _masks(rng, 3000):
        assert int(kernel._compress_lanes(np.uint64(x), np.uint64(rem))) == _compress_lanes_py(x, rem)
