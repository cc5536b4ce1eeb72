"""Profile the compiled search with Linux ``perf``: where its time goes.

numba's code lives in anonymous memory, so ``perf report`` shows bare
addresses. Run under ``perf record``, this script gives them names:

    perf record -F 999 -o /tmp/perf.data python benchmarks/perf_map.py --samples 40
    perf report -i /tmp/perf.data --sort sym

It compiles the solver into an empty numba cache of its own (numba keeps a
function's object code only when it compiled it, not when it loaded it from
the cache: allow a minute), writes ``/tmp/perf-PID.map`` with the address of
every compiled function, the probe's called helpers included (``perf``
reads that file by itself), then solves ``hand``'s own work (as
``bench_hand.py --nodes``: samples of the README's hand and of the
``hasbro`` sample hand, four trumps each, one thread). perf records the
compile too; it shows under LLVM's and Python's own symbols, apart from
the kernels'.

Code inlined into the probe shows as the probe. For a finer view,
``--dump DIR`` writes the pages of compiled code to DIR, one file per
mapping named by its start address, to disassemble around a hot address:

    objdump -D -b binary -mi386:x86-64 --adjust-vma=0xSTART DIR/START.bin

The twenty-fourth session found NRT's reference counts this way (two tiny
functions of ``lock incq`` / ``lock decq`` holding 14 % of the samples;
benchmarks/RESULTS.md).

By source line: ``--lines DIR`` compiles with line tables
(``NUMBA_DEBUGINFO=1``) and writes each kernel's object code and where it
was loaded to DIR; after the run, ``--annotate DIR`` reads ``perf``'s
samples and names the source line of each (``addr2line``):

    perf record -F 1999 -o /tmp/perf.data python benchmarks/perf_map.py --samples 10 --lines /tmp/lines
    python benchmarks/perf_map.py --annotate /tmp/lines --data /tmp/perf.data

A line of a helper inlined by numba (``inline='always'``) is named as the
helper's own line. The line tables cost the code some of LLVM's inlining
(small helpers such as ``legal_mask`` and ``popcount`` stay calls), so the
shares are those of a somewhat slower build: a guide to where the time
goes, not a measure of it.
"""

from __future__ import annotations

import argparse
import bisect
import collections
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_args import positive

# set before numba is imported: an empty cache, so this process compiles and
# keeps the object code (numba makes the folder when it first writes to it)
_CACHE = os.path.join(tempfile.gettempdir(), f"rook-perf-numba-{os.getpid()}")
os.environ["NUMBA_CACHE_DIR"] = _CACHE
if any(a == "--lines" or a.startswith("--lines=") for a in sys.argv[1:]):
    os.environ["NUMBA_DEBUGINFO"] = "1"  # line tables in the object code

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_hand import README_HAND, sample_hands  # noqa: E402
from rook_analyze.analysis.hand import policy_plays  # noqa: E402
from rook_analyze.analysis.policy import DEFAULT_POLICY  # noqa: E402
from rook_analyze.analysis.sampling import DealSampler  # noqa: E402
from rook_analyze.solver import Rules, Solver, bits, kernel  # noqa: E402


def _work(samples: int, seed: int = 5):
    rules = Rules.preset("hasbro")
    for hand in (README_HAND, sample_hands()["hasbro"]):
        sampler = DealSampler(rules, 0, hand)
        for i in range(samples):
            for trump, (_, played) in policy_plays(sampler.deal(i, seed), 0, DEFAULT_POLICY, rules).items():
                yield played, trump


def _compiled():
    """(name, compile result) of every kernel and helper compiled or loaded
    in this process."""
    for module in (kernel, bits):
        for name in dir(module):
            for cres in getattr(getattr(module, name), "overloads", {}).values():
                yield name, cres


def _object_code(lib) -> bytes | None:
    """A compiled library's object code (None where it came from the cache)."""
    try:
        data = lib.serialize_using_object_code()
    except RuntimeError:  # loaded from a cache: no object code
        return None
    return data[2][0] if isinstance(data[2], tuple) else data[2]


def _defined_functions(nm: str, path) -> list[tuple[str, int, int]]:
    """(symbol, offset, size) of every function an object file defines."""
    listing = subprocess.run([nm, "--defined-only", "-S", str(path)], capture_output=True, text=True).stdout
    return [(parts[3], int(parts[0], 16), int(parts[1], 16)) for parts in map(str.split, listing.splitlines())
            if len(parts) == 4 and parts[2] in "Tt"]


def _symbols() -> dict[int, str]:
    """Address -> name of every function in the object code of each kernel
    compiled in this process (the helpers linked into a kernel included)."""
    nm = shutil.which("nm")
    out: dict[int, str] = {}
    for name, cres in _compiled():
        lib = cres.library
        out[lib.get_pointer_to_function(cres.fndesc.llvm_func_name)] = name
        code = _object_code(lib) if nm is not None else None
        if code is None:
            continue
        with tempfile.NamedTemporaryFile(suffix=".o") as f:
            f.write(code)
            f.flush()
            functions = _defined_functions(nm, f.name)
        for sym, _, _ in functions:
            addr = lib.get_pointer_to_function(sym)
            if addr:
                out[addr] = sym
    return out


def _write_objects(folder: Path) -> int:
    """Each compiled library's object code, and the address every function
    of it was loaded at (``manifest.json``), for ``--annotate``."""
    folder.mkdir(parents=True, exist_ok=True)
    manifest = []
    seen = set()
    nm = shutil.which("nm") or "nm"
    for name, cres in _compiled():
        lib = cres.library
        if id(lib) in seen:
            continue
        seen.add(id(lib))
        code = _object_code(lib)
        if code is None:
            continue
        obj = folder / f"{name}-{len(seen)}.o"
        obj.write_bytes(code)
        for sym, value, _ in _defined_functions(nm, obj):
            addr = lib.get_pointer_to_function(sym)
            if addr:
                manifest.append({"obj": obj.name, "sym": sym, "value": value, "addr": addr})
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return len(seen)


def _short(symbol: str) -> str:
    """``probe`` for numba's mangled ``_ZN12rook_analyze6solver6kernel5probeB3v32...``."""
    m = re.search(r"(?:6kernel|4bits)(\d+)", symbol)
    if m is None:
        return symbol[:60]
    name = symbol[m.end():m.end() + int(m.group(1))]
    return f"{name} (wrapper)" if symbol.startswith("cfunc") or "7cpython" in symbol[:12] else name


def _annotate(folder: Path, data: Path, top: int) -> None:
    """perf's samples in the kernels by function and by source line."""
    manifest = sorted(json.loads((folder / "manifest.json").read_text()), key=lambda m: m["addr"])
    # each function's extent, from the object files the manifest names
    nm = shutil.which("nm") or "nm"
    sizes = {}
    for obj in {m["obj"] for m in manifest}:
        sizes.update({(obj, sym): size for sym, _, size in _defined_functions(nm, folder / obj)})
    ends = [m["addr"] + sizes.get((m["obj"], m["sym"]), 0) for m in manifest]
    starts = [m["addr"] for m in manifest]
    ips = subprocess.run(["perf", "script", "-i", str(data), "-F", "ip"], capture_output=True, text=True,
                         check=True).stdout.split()
    offsets: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    by_function: collections.Counter = collections.Counter()
    for text in ips:
        ip = int(text, 16)
        i = bisect.bisect_right(starts, ip) - 1
        # past a function's end is not the kernels' code (libc's malloc during
        # the compile lands there): count only what a function's extent covers
        if i < 0 or ip >= ends[i]:
            continue
        m = manifest[i]
        offsets[m["obj"]][ip - m["addr"] + m["value"]] += 1
        by_function[_short(m["sym"])] += 1
    total = sum(by_function.values())
    if not total:
        print("no samples in the kernels' code")
        return
    by_line: collections.Counter = collections.Counter()
    for obj, counts in offsets.items():
        offs = sorted(counts)
        out = subprocess.run(["addr2line", "-a", "-e", str(folder / obj)] + [hex(o) for o in offs],
                             capture_output=True, text=True).stdout.splitlines()
        names = {}
        for i in range(0, len(out) - 1, 2):
            names[int(out[i], 16)] = out[i + 1].split(" (")[0]
        for o in offs:
            by_line[names.get(o, "??:0")] += counts[o]
    print(f"{total} samples in the kernels' code")
    print("by function:")
    for name, k in by_function.most_common(top):
        print(f"{k:8d} {100 * k / total:5.1f} %  {name}")
    print("by source line (\"?\": code the line tables give no line):")
    sources: dict[str, list[str]] = {}
    for where, k in by_line.most_common(top):
        path, _, line = where.rpartition(":")
        text = ""
        if line.isdigit() and os.path.isfile(path):
            if path not in sources:
                sources[path] = Path(path).read_text().splitlines()
            lines = sources[path]
            text = lines[int(line) - 1].strip() if 0 < int(line) <= len(lines) else ""
        print(f"{k:8d} {100 * k / total:5.1f} %  {os.path.basename(path)}:{line}  {text[:70]}")


def _write_map(symbols: dict[int, str]) -> Path:
    """perf's map of JIT code: start, size, name (a function runs to the next)."""
    path = Path(f"/tmp/perf-{os.getpid()}.map")
    items = sorted(symbols.items())
    with path.open("w") as fh:
        for i, (addr, name) in enumerate(items):
            size = min(items[i + 1][0] - addr, 1 << 20) if i + 1 < len(items) else 1 << 16
            fh.write(f"{addr:x} {size:x} {name}\n")
    return path


def _dump(folder: Path) -> int:
    """The executable anonymous mappings (numba's code), one file each."""
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    for line in Path("/proc/self/maps").read_text().splitlines():
        parts = line.split()
        if "x" not in parts[1] or len(parts) >= 6:  # a named file: a library, not JIT code
            continue
        start, end = (int(x, 16) for x in parts[0].split("-"))
        if end - start > 64 << 20:
            continue
        (folder / f"{start:x}.bin").write_bytes(ctypes.string_at(start, end - start))
        count += 1
    return count


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=positive, default=40, help="Samples of each hand (four solves each).")
    ap.add_argument("--dump", type=Path, default=None, metavar="DIR",
                    help="Also write the pages of compiled code to DIR (for objdump).")
    ap.add_argument("--lines", type=Path, default=None, metavar="DIR",
                    help="Compile with line tables; write the object code and its addresses to DIR.")
    ap.add_argument("--annotate", type=Path, default=None, metavar="DIR",
                    help="Only read perf's samples (--data) against a --lines DIR: by function and line.")
    ap.add_argument("--data", type=Path, default=Path("perf.data"), help="perf's data file (with --annotate).")
    ap.add_argument("--top", type=positive, default=40, help="Rows of each --annotate table.")
    try:  # the cache folder goes whatever happens, --help and bad options too
        args = ap.parse_args(argv)
        if args.annotate is not None:
            _annotate(args.annotate, args.data, args.top)
            return 0
        work = list(_work(args.samples))
        solver = Solver()
        t0 = time.perf_counter()
        solver.solve(*work[0], 0, dealer="W")
        print(f"compiled in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        symbols = _symbols()
        path = _write_map(symbols)
        if args.lines is not None:
            print(f"{_write_objects(args.lines)} libraries of object code written to {args.lines}", file=sys.stderr)
        print(f"{len(symbols)} functions named in {path}"
              + ("" if shutil.which("nm") else " (no nm on PATH: the kernels only, not their helpers)"),
              file=sys.stderr)
        t0 = time.perf_counter()
        nodes = 0
        for deal, trump in work:
            nodes += solver.solve(deal, trump, 0, dealer="W").nodes
        print(f"{len(work)} solves, {nodes:,} nodes, {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        if args.dump is not None:
            print(f"{_dump(args.dump)} mappings of code written to {args.dump}", file=sys.stderr)
    finally:
        shutil.rmtree(_CACHE, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
