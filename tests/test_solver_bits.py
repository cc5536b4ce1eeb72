"""The bit helpers of the solver against plain Python."""

from __future__ import annotations

import random

import numpy as np
import pytest

from rook_analyze.solver import bits, config, kernel


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


def _compress_forms():
    """Both forms of the compression: the byte tables, and BMI2's where this
    CPU runs them (``config.FAST_PEXT``: the kernels use that one then)."""
    forms = [("table", kernel._compress_lanes_table, kernel._compress3_table)]
    if config.FAST_PEXT:
        forms.append(("pext", kernel._compress_lanes_pext, kernel._compress3_pext))
    return forms


def test_compress_lanes_equals_python():
    """The table key's per-color compression (ranks relative to the live cards)."""
    for name, one, three in _compress_forms():
        rng = random.Random(5)
        for x, rem in _masks(rng, 3000):
            y = rng.getrandbits(64) if rng.random() < 0.8 else 0  # a 0 mask is a path of its own
            want = _compress_lanes_py(x, rem)
            assert int(one(np.uint64(x), np.uint64(rem))) == want, (name, hex(x), hex(rem))
            got = three(np.uint64(y), np.uint64(x), np.uint64(0), np.uint64(rem))
            assert [int(v) for v in got] == [_compress_lanes_py(y, rem), want, 0], (name, hex(x), hex(y), hex(rem))


def test_kernels_use_the_fast_form_where_the_cpu_has_it():
    one, three = ((kernel._compress_lanes_pext, kernel._compress3_pext) if config.FAST_PEXT
                  else (kernel._compress_lanes_table, kernel._compress3_table))
    assert kernel._compress_lanes is one and kernel._compress3 is three
    if config.FAST_PEXT:
        x, m = np.uint64(0xF0F0_1234_8001_FFFF), np.uint64(0x0FF0_00FF_8001_00F0)
        assert int(bits.pext(x, m)) == 0b1111_00110100_1_1_1111 and int(bits.pdep(bits.pext(x, m), m)) == int(x & m)


@pytest.mark.parametrize("shape", [(1 << 10,), (1 << 8, 11)])
def test_prefetch_reads_nothing_back_and_compiles_to_the_instruction(shape):
    """``bits.prefetch`` (the probe's move hints, table buckets and
    payoff-similar slots, fifty-ninth session) only asks the CPU to load a
    word (of a 2-d array: the first of row ``i``): the array is unchanged,
    any index of it, and the instruction is made; from Python it does
    nothing."""
    from numba import njit

    @njit(cache=False)
    def fetch(a, i):
        bits.prefetch(a, i)

    size = int(np.prod(shape))
    arr = np.arange(size, dtype=np.uint64).reshape(shape)
    for i in (0, 1, shape[0] // 2 - 1, shape[0] - 1):
        fetch(arr, np.int64(i))
    assert np.array_equal(arr, np.arange(size, dtype=np.uint64).reshape(shape))
    assert "prefetch" in fetch.inspect_asm(fetch.signatures[0])
    assert bits.prefetch(arr, np.int64(3)) is None
