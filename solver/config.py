"""Numba options for every kernel, in one place."""

import os

# cache: compiled kernels persist on disk (the search is iterative, so the
# cached path is safe on reload; tests/test_cache.py proves it).
# nogil: threads can run kernels side by side.
JIT = dict(cache=True, nogil=True, fastmath=False, boundscheck=False)

# Transposition table size: 2**TT_BITS entries of about 44 bytes each.
# 21 bits is about 92 MB a table; override with ROOK_ANALYZE_TT_BITS.
TT_BITS = int(os.environ.get("ROOK_ANALYZE_TT_BITS", "20"))
TT_WAYS = 4  # entries probed per bucket
