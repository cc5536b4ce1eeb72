"""Numba options for every kernel, in one place."""

import os

# cache: compiled kernels persist on disk (the search is iterative, so the
# cached path is safe on reload; tests/test_cache.py proves it).
# nogil: threads can run kernels side by side.
JIT = dict(cache=True, nogil=True, fastmath=False, boundscheck=False)

# How the probe's helpers are compiled. Small helpers that take arrays are
# inlined into it by numba (`inline='always'`): a call that passes arrays
# costs reference counting. Helpers of plain ints are compiled on their own,
# and LLVM inlines them anyway. The biggest, the quick bounds and the
# two-trick search, are called: numba's inlining copies each body into the
# probe's IR, and its passes grow faster than the code (the first compile
# took 118-133 s with everything inlined, 66-70 s so). They are compiled
# without NRT, so passing them arrays costs no reference counting. Timed
# in one process against everything inlined: the same speed; calling the
# key, the store and the move generator this way too ran 1.06-1.08 x slower
# for no less compile (benchmarks/RESULTS.md, twenty-third session). Such a
# helper may read and write the arrays it is given, but must not make or
# return one (numba refuses to compile it). The probe is compiled so as
# well, on arrays ``probe_space`` makes once a solve: with NRT each view it
# took of them cost an atomic reference count (0.93 x the time without).
JIT_CALLED = dict(JIT, _nrt=False)

# Transposition table size: 2**TT_BITS entries of 116 bytes each; the
# default 21 bits is about 243 MB a table, 251 MB with its two fixed caches
# (1 MB two-trick, 6.3 MB payoff-similar; the budget: 256 MB);
# override with ROOK_ANALYZE_TT_BITS (checked where a table is made:
# api.table_bits).
_bits = os.environ.get("ROOK_ANALYZE_TT_BITS", "21")
TT_BITS = int(_bits) if _bits.strip().lstrip("-").isdigit() else _bits
TT_WAYS = 32  # entries per bucket: positions sharing an exact key share a bucket


def _fast_pext() -> bool:
    """Does the CPU numba compiles for have a fast PEXT/PDEP (BMI2)?

    The table key compresses card masks by rank with them (two instructions
    a mask) where it can, else by byte tables. numba compiles for the host
    CPU unless NUMBA_CPU_NAME names another, and then only the tables are
    safe; AMD's Zen 1 and 2 run PEXT in microcode (hundreds of cycles), so
    they take the tables too. numba's cache keys on the CPU, so a kernel
    compiled with one choice is never loaded where the other applies."""
    if os.environ.get("NUMBA_CPU_NAME"):
        return False  # even "host": this numba's LLVM takes it for no CPU at all
    try:
        import llvmlite.binding as llvm

        name = llvm.get_host_cpu_name()
        feats = llvm.get_host_cpu_features()
    except Exception:  # an llvmlite without these queries: the safe choice
        return False
    return bool(feats.get("bmi2", False)) and name not in ("znver1", "znver2", "znver")


FAST_PEXT = _fast_pext()
