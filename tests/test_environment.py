"""The package as installed software: where numba keeps the compiled solver,
what happens where it cannot keep it, when the cache is stale, and the
environment variables the commands read. Most of these run a fresh process
(``python -m rook_analyze.cli``, or a short script): numba reads its
settings, and finds its cache folder, when it is imported."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from numba.core.caching import IndexDataCacheFile, NullCache
from numba.core.dispatcher import Dispatcher

from rook_analyze.solver import api, bits, config, kernel, needs_compile

DEAL = "N: Rook B14 R5 Y10 / E: B13 R14 Y5 G6 / S: B5 R10 G14 G12 / W: B10 R12 Y14 G5 / nest: B7 Y9"


def _python(*args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    full = dict(os.environ)
    full.pop("NUMBA_DISABLE_JIT", None)
    full.update(env or {})
    return subprocess.run([sys.executable, *args], env=full, cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def _command(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return _python("-m", "rook_analyze.cli", *args, env=env)


# ---------------------------------------------------------------- environment variables
@pytest.mark.parametrize("value", ["0", "-2", "abc", ""])
def test_a_bad_numba_thread_count_is_one_line_not_a_traceback(value):
    # numba refuses to import with 0 or less, and warns at length about text it cannot read
    proc = _command("deal", "--rules", "hasbro", "--seed", "1", env={"NUMBA_NUM_THREADS": value})
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"Error: NUMBA_NUM_THREADS {value!r}: numba's thread count must be a whole number above 0, or unset "
        "(the solver's threads are --workers)"]


def test_a_good_numba_thread_count_is_left_alone():
    proc = _command("deal", "--rules", "hasbro", "--seed", "1", env={"NUMBA_NUM_THREADS": "1"})
    assert proc.returncode == 0 and proc.stderr == "" and proc.stdout.startswith("N: ")


def test_a_table_size_int_cannot_read_is_one_line_not_a_traceback():
    # "--5" once passed the digit check and failed in int() when the package was imported
    proc = _command("solve", "--rules", "hasbro", "--trump", "R", "--declarer", "N", DEAL,
                    env={"ROOK_ANALYZE_TT_BITS": "--5"})
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.splitlines() == [
        "Error: ROOK_ANALYZE_TT_BITS '--5': the table size must be an integer from 8 to 31 "
        "(log2 of its entries, 116 bytes each)"]


@pytest.mark.parametrize("text, value", [("21", 21), (" 22 ", 22), ("+9", 9), ("-3", -3), ("--5", "--5"),
                                         ("\u00b2", "\u00b2"), ("\u0669", "\u0669"), ("2_2", "2_2"),
                                         ("22.0", "22.0"), ("", "")])
def test_table_size_setting_is_a_number_only_where_written_as_one(text, value):
    # a number where it is written as one (then range-checked), else the text, which the check names
    assert config._whole_number(text) == value


# ---------------------------------------------------------------- where the cache goes
NO_CACHE_FOLDER = """
import sys
import numba.core.caching as caching

def refuse(self):  # as where every folder numba tries is read-only
    raise PermissionError(13, "Permission denied", self.get_cache_path())

caching._CacheLocator.ensure_cache_path = refuse
if sys.argv[1] == "command":
    from rook_analyze.cli.main import main
    main(sys.argv[2:], prog_name="rook-analyze")
else:
    from rook_analyze.solver import config, needs_compile
    from rook_analyze.cli.common import compile_notice
    print(config.DISK_CACHE, needs_compile(("solve",)))
    compile_notice(("batch",))
"""


def test_without_a_folder_for_the_cache_the_commands_still_run():
    # numba's "no locator available" once failed the package's import: every command, --help too
    proc = _python("-c", NO_CACHE_FOLDER, "command", "deal", "--rules", "hasbro", "--seed", "1")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("N: ") and proc.stderr == ""
    # the kernels are compiled without a cache, and the notice says that every run compiles
    proc = _python("-c", NO_CACHE_FOLDER, "notice")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["False", "True"]
    assert proc.stderr.splitlines() == [
        "compiling the solver (numba has no folder it may write its cache to, so every run compiles: "
        "set NUMBA_CACHE_DIR to a folder you can write to)..."]


def test_kernels_are_cached_where_a_folder_takes_them():
    if not config.DISK_CACHE:
        pytest.skip("this environment has no folder for numba's cache")
    assert config.JIT["cache"] is True
    assert not isinstance(kernel.solve_exact._cache, NullCache)


# ---------------------------------------------------------------- stale caches
def test_kernel_caches_are_keyed_on_every_solver_module_they_compile_from():
    # numba keys a function's cache on its own file; the kernels' compiled code also holds bits.py's
    # intrinsics and config.py's choices, so their stamp is a hash of all of these
    sources = {m.__name__.rsplit(".", 1)[-1]: m for m in api.KERNEL_SOURCES}
    for name in ("kernel", "bits"):
        text = Path(sources[name].__file__).read_text()
        imported = set(re.findall(r"^from \.(\w+) import", text, re.M))
        imported |= set(re.findall(r"^from \. import (\w+)", text, re.M))
        assert imported <= set(sources), (name, imported - set(sources))
    digest = hashlib.sha256()
    for module in api.KERNEL_SOURCES:
        digest.update(Path(module.__file__).read_bytes())
    stamps = {fn._cache._cache_file._source_stamp for module in (kernel, bits) for fn in vars(module).values()
              if isinstance(fn, Dispatcher) and not isinstance(fn._cache, NullCache)}
    assert stamps == {("rook_analyze sources", digest.hexdigest())}


CALLER = """
from numba import njit
from .callee import step

@njit(cache=True)
def run(x):
    return step(x) * 10
"""

CALLEE = """
from numba import njit

@njit(cache=True)
def step(x):
    return x + {add}
"""

RUN = """
import sys
sys.path.insert(0, sys.argv[1])
from pkg import callee, caller
if sys.argv[2] == "keyed":
    from rook_analyze.solver.config import key_caches_on_sources
    key_caches_on_sources((caller, callee))
value = caller.run(1)
print(value, sum(caller.run.stats.cache_hits.values()))
"""


def test_a_change_to_a_called_module_is_not_hidden_by_the_cache(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "caller.py").write_text(textwrap.dedent(CALLER))
    (pkg / "callee.py").write_text(CALLEE.format(add=1))
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}

    def run(how: str) -> tuple[int, int]:
        proc = _python("-c", RUN, str(tmp_path), how, env=env)
        assert proc.returncode == 0, proc.stderr[-2000:]
        value, loaded = proc.stdout.split()
        return int(value), int(loaded)

    assert run("plain") == (20, 0)
    (pkg / "callee.py").write_text(CALLEE.format(add=20))  # an edit, or the next version
    assert run("plain") == (20, 1)  # numba alone: the caller's old code, the old callee in it
    assert run("keyed") == (210, 0)  # keyed on both files: stale, compiled again
    assert run("keyed") == (210, 1)  # and cached under the new key


def test_needs_compile_reads_the_index_as_numba_does(tmp_path, monkeypatch):
    # an index file is not enough: numba compiles when it was written for other sources (an edit,
    # an upgrade), by another numba or on another CPU, and the notice must say so
    fn = kernel.solve_exact
    if isinstance(fn._cache, NullCache):
        pytest.skip("this environment has no folder for numba's cache")
    real = fn._cache._cache_file
    monkeypatch.setattr(fn, "overloads", {})  # as in a fresh process

    def index(stamp) -> IndexDataCacheFile:
        f = IndexDataCacheFile(cache_path=str(tmp_path), filename_base="kernel.solve_exact-1.py3",
                               source_stamp=stamp)
        monkeypatch.setattr(fn._cache, "_cache_file", f)
        return f

    machine = fn.targetctx.codegen().magic_tuple()
    index(real._source_stamp)  # no index file yet
    assert needs_compile(("solve",)) is True
    index(real._source_stamp)._save_index({("sig", machine, ("code", "")): "x.1.nbc"})
    assert needs_compile(("solve",)) is False
    index(("rook_analyze sources", "other"))  # the same file, read for other sources
    assert needs_compile(("solve",)) is True
    index(real._source_stamp)._save_index({("sig", ("other-triple", "other-cpu", ""), ("code", "")): "x.1.nbc"})
    assert needs_compile(("solve",)) is True
    monkeypatch.undo()
