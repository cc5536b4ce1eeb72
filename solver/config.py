"""Numba options for every kernel, in one place."""

import hashlib
import os
import re


def _disk_cache_available() -> bool:
    """Has numba a folder it may write this package's compiled code to?

    numba tries, in turn, ``NUMBA_CACHE_DIR``, the ``__pycache__`` beside
    the source (an install's ``site-packages``) and the user's cache folder
    (``~/.cache/numba``), and uses the first it can write to. Where none
    takes a file, every ``cache=True`` function fails to decorate
    ("no locator available"), so the package could not even be imported;
    the kernels then compile in each process instead."""
    try:
        from numba.core.caching import FunctionCache
    except Exception:  # a numba without this module: let it decide
        return True
    try:
        FunctionCache(_disk_cache_available)  # this file's folder is the kernels' folder
    except RuntimeError:  # no locator available
        return False
    except Exception:  # numba's private API changed: let it decide
        return True
    return True


# False where no folder takes numba's cache (above): each run then compiles.
DISK_CACHE = _disk_cache_available()

# cache: compiled kernels persist on disk (the search is iterative, so the
# cached path is safe on reload; tests/test_cache.py proves it).
# nogil: threads can run kernels side by side.
JIT = dict(cache=DISK_CACHE, nogil=True, fastmath=False, boundscheck=False)

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


def _whole_number(text: str) -> int | str:
    """``text`` as an int where it is written as one (ASCII digits, a sign,
    spaces around), else ``text`` itself, for the check to name."""
    return int(text) if re.fullmatch(r"\s*[+-]?[0-9]+\s*", text) else text


# Transposition table size: entries of 116 bytes each. By default a table
# is made as large as its deals' searches use (api.used_bits), at most
# 2**DEFAULT_TT_BITS entries: 21 bits is about 243 MB a table, 253 MB with
# its three fixed caches (1 MB two-trick, 6.3 MB payoff-similar, 2 MB move
# hints; the budget: 256 MB). ROOK_ANALYZE_TT_BITS makes every
# table 2**TT_BITS entries (None where it is unset; checked where a table
# is made: api.table_bits).
DEFAULT_TT_BITS = 21
TT_BITS = _whole_number(os.environ["ROOK_ANALYZE_TT_BITS"]) if "ROOK_ANALYZE_TT_BITS" in os.environ else None
TT_WAYS = 32  # entries per bucket: positions sharing an exact key share a bucket
# A search of hands of 9 cards or fewer uses at most the first 2**18 entries
# of its table (api.used_bits says why and how it grows with longer hands)
SHORT_HAND_BITS = 18


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


def key_caches_on_sources(modules) -> None:
    """Key the disk cache of every numba function in ``modules`` on the
    source of all of them together.

    numba keys a function's cache on its own file alone, but a kernel's
    compiled code holds what it calls from other modules (``bits``'
    intrinsics, ``config``'s choices): after an edit or an upgrade that
    changed only those, the old code would load. An install does not clear
    the cache (pip leaves the ``.nbi`` and ``.nbc`` files it did not write,
    and the user's cache folder is not the package's), so the stamp numba
    checks each index against is a hash of every module here instead; an
    index written under another stamp is stale, and the kernel compiles."""
    try:
        from numba.core.dispatcher import Dispatcher

        digest = hashlib.sha256()
        for module in modules:
            with open(module.__file__, "rb") as f:
                digest.update(f.read())
        stamp = ("rook_analyze sources", digest.hexdigest())
        for module in modules:
            for fn in vars(module).values():
                cache_file = getattr(fn, "_cache", None) if isinstance(fn, Dispatcher) else None
                cache_file = getattr(cache_file, "_cache_file", None)
                if cache_file is not None and hasattr(cache_file, "_source_stamp"):
                    cache_file._source_stamp = stamp
    except Exception:  # a source file not on disk, numba's private API changed: numba's own keys
        pass
