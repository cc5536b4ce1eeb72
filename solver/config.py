"""Numba options for every kernel, in one place."""

import os

# cache: compiled kernels persist on disk (the search is iterative, so the
# cached path is safe on reload; tests/test_cache.py proves it).
# nogil: threads can run kernels side by side.
JIT = dict(cache=True, nogil=True, fastmath=False, boundscheck=False)

# Transposition table size: 2**TT_BITS entries of 116 bytes each; the
# default 21 bits is about 243 MB a table, 251 MB with its two fixed caches
# (1 MB two-trick, 6.3 MB payoff-similar; the budget: 256 MB);
# override with ROOK_ANALYZE_TT_BITS (checked where a table is made:
# api.table_bits).
_bits = os.environ.get("ROOK_ANALYZE_TT_BITS", "21")
TT_BITS = int(_bits) if _bits.strip().lstrip("-").isdigit() else _bits
TT_WAYS = 32  # entries per bucket: positions sharing an exact key share a bucket
