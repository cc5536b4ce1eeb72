"""``cache=True`` is safe on reload: the solver runs in two fresh processes
sharing one cache directory that starts empty. The first compiles and
writes the cache, the second loads it (no recompiling, nothing rewritten)
and gets the same, correct values. "Loads it" is read from numba's own
per-kernel counters of cache hits and misses, not from the clock.

The directory is the installed solver's own cache when that is still empty
(a fresh checkout, as in CI; this test runs first), so the rest of the
suite loads what the first process compiled rather than compiling it a
second time; where it is already filled, even in part (a working checkout
after a change to the kernels), an empty directory of the test's own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from naive import naive_card_values, naive_value
from rook_analyze.solver import Card, Deal

DEAL = "N: Rook B14 R5 Y10 / E: B13 R14 Y5 G6 / S: B5 R10 G14 G12 / W: B10 R12 Y14 G5 / nest: B7 Y9"
SPEC = "hasbro"

CHILD = r"""
import json, sys
from numba.core.dispatcher import Dispatcher
from rook_analyze.solver import Card, Deal, card_values, kernel, needs_compile, play_line, solve, solve_batch
fresh = needs_compile(("solve", "card_values", "batch", "line"))
deal = Deal.from_rdn(sys.argv[1], sys.argv[2])
res = solve(deal, "R", "N", "E")
cards = card_values(deal, "R", "N", "E", trick=[Card.from_rdn("B13")])
batch = solve_batch([deal, deal], ["R", "G"], "N", ["E", "S"], threads=2)
line = play_line(deal, "R", "N", "E")
KERNELS = ("solve_exact", "card_values_kernel", "best_card_kernel")
print(json.dumps({
    "needs_compile": fresh,
    "cache_path": kernel.solve_exact._cache._cache_path,
    "declarer": res.declarer_points,
    "defender": res.defender_points,
    "cards": {c.rdn(): v for c, v in cards.items()},
    "batch": [int(v) for v in batch],
    "line": [p.card.rdn() for p in line],
    # numba's counters: a kernel loaded from the disk cache is a hit, one compiled a miss
    "loaded": {k: sum(getattr(kernel, k).stats.cache_hits.values()) for k in KERNELS},
    "compiled": {k: sum(getattr(kernel, k).stats.cache_misses.values()) for k in KERNELS},
    # a function compiled for two sets of argument types: each copy costs seconds of the compile
    "twice": sorted(k for k, f in vars(kernel).items() if isinstance(f, Dispatcher) and len(f.signatures) > 1),
}))
"""


def _run(cache_dir: Path | None) -> dict:
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = str(cache_dir)
    env.pop("NUMBA_DISABLE_JIT", None)
    proc = subprocess.run([sys.executable, "-c", CHILD, DEAL, SPEC], env=env, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _snapshot(cache_dir: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(cache_dir)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in cache_dir.rglob("*") if p.is_file() and p.suffix in (".nbi", ".nbc")}


def test_cache_reload(tmp_path):
    where = None  # numba's own place for the installed solver's cache
    first = _run(where)
    if first["needs_compile"] and all(n >= 1 for n in first["compiled"].values()):
        cache_dir = Path(first["cache_path"])
    else:
        where = cache_dir = tmp_path / "numba"
        cache_dir.mkdir()
        first = _run(where)
    after_first = _snapshot(cache_dir)
    assert any(name.endswith(".nbi") for name in after_first), "no numba index files were written"
    assert any(name.endswith(".nbc") for name in after_first), "no compiled code was written"

    second = _run(where)
    after_second = _snapshot(cache_dir)

    assert first["needs_compile"] is True
    assert second["needs_compile"] is False
    # the second process loaded every kernel from the cache: nothing was added or rewritten
    assert after_second == after_first
    # the first process compiled the entry kernels, the second loaded them and compiled none
    # (this replaces a comparison of the two processes' run times, which a busy machine can upset)
    assert all(n >= 1 for n in first["compiled"].values()), first
    assert all(n >= 1 for n in second["loaded"].values()), second
    assert all(n == 0 for n in second["compiled"].values()), second
    # the compile made one copy of each function (a literal 0 passed where an int64 is
    # passed later once compiled the two-trick search a second time, 5 s of the compile)
    assert first["twice"] == [], first["twice"]

    # same answers in both, and the right ones
    keys = ("declarer", "defender", "cards", "batch", "line")
    assert {k: first[k] for k in keys} == {k: second[k] for k in keys}
    deal = Deal.from_rdn(DEAL, SPEC)
    assert first["declarer"] == naive_value(deal, "R", 0, 1)
    assert first["declarer"] + first["defender"] == deal.total_points()
    expect = naive_card_values(deal, "R", 0, 1, [Card.from_rdn("B13")])
    assert first["cards"] == {c.rdn(): v for c, v in expect.items()}
    assert first["batch"] == [naive_value(deal, "R", 0, 1), naive_value(deal, "G", 0, 2)]
    # the line's first card is one of the reference's best for the leader (E, a defender: the fewest)
    lead = naive_card_values(deal, "R", 0, 1)
    assert lead[Card.from_rdn(first["line"][0])] == min(lead.values())
    assert len(first["line"]) == sum(len(h) for h in deal.hands)
