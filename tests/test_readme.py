"""The README's Python examples, run as written: every ```python block, so
that none drifts from the library."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from matplotlib.figure import Figure

from rook_analyze.analysis import HandReport, NestReport, Recommendation
from rook_analyze.solver import Rules

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def run_block(start: str, folder: Path, monkeypatch) -> dict:
    """Run the README block that starts with ``start`` in ``folder`` (it may write files); its names."""
    found = [b for b in BLOCKS if b.startswith(start)]
    assert len(found) == 1, f"README.md: {len(found)} python blocks start with {start!r}"
    monkeypatch.chdir(folder)
    scope: dict = {}
    exec(compile(found[0], "README.md", "exec"), scope)
    return scope


STARTS = ("from rook_analyze.solver import", "from rook_analyze.analysis import analyze_hand, analyze_nest")


def test_every_python_block_is_run_here():
    # a new block needs a test below, and a start here
    assert len(BLOCKS) == len(STARTS)
    assert sorted(s for b in BLOCKS for s in STARTS if b.startswith(s)) == sorted(STARTS)


def test_readme_solver_block_runs(tmp_path, monkeypatch, capsys):
    # its printed values are checked in test_cli_solve.test_readme_python_example_runs
    scope = run_block(STARTS[0], tmp_path, monkeypatch)
    assert scope["rules"] == Rules.from_spec("hasbro,bird=low")
    assert len(capsys.readouterr().out.splitlines()) == 2 + 4 * 9  # value, cards, one line a card played


def test_readme_analysis_block_runs(tmp_path, monkeypatch):
    scope = run_block(STARTS[1], tmp_path, monkeypatch)
    report, nest = scope["report"], scope["nest"]
    assert isinstance(report, HandReport) and isinstance(nest, NestReport)
    rules = Rules.preset("hasbro")
    # the hand's tables: one row per trump, one per bid level
    assert isinstance(report.trumps, pd.DataFrame) and list(report.trumps["trump"]) == list(rules.trumps)
    assert isinstance(report.bids, pd.DataFrame) and list(report.bids["bid"]) == rules.bid_levels()
    assert {"p_make", "ev"} <= set(report.bids.columns)
    assert isinstance(report.recommendation, Recommendation) and report.recommendation.trump in rules.trumps
    assert report.samples == 20 and len(report.detail) == 20
    assert {"deal", "trump", "discard", "points_B", "points_G"} <= set(report.detail.columns)
    assert (tmp_path / "curve.png").stat().st_size > 0
    assert isinstance(scope["bid_curve"](report), Figure)
    # the nest's: options best first, the first the recommendation; one detail row per solve
    assert isinstance(nest.options, pd.DataFrame) and nest.bid == 100 and nest.samples == 4
    first = nest.options.iloc[0]
    assert (first["trump"], first["discard"]) == (nest.recommendation.trump, nest.recommendation.discard.rdn())
    assert nest.options["p_make"].notna().all()
    assert list(nest.detail.columns) == ["option", "trump", "discard", "sample", "deal", "points"]
    assert len(nest.detail) == nest.solves


@pytest.mark.parametrize("section, call", [("### hand:", "`analyze_hand`"), ("### nest:", "`analyze_nest`")])
def test_command_sections_point_to_the_library(section, call):
    text = README.read_text()
    body = text[text.index(section):]
    body = body[:body.index("\n### ", 1)]
    assert f"From Python: {call}" in body and "Library use" in body


def _exported_functions():
    import rook_analyze.analysis as analysis
    import rook_analyze.solver as solver

    for module in (solver, analysis):
        for name in module.__all__:
            obj = getattr(module, name)
            if callable(obj) and not isinstance(obj, type):
                yield f"{module.__name__}.{name}", obj


EXPORTED = list(_exported_functions())


@pytest.mark.parametrize("name, fn", EXPORTED, ids=[name for name, _ in EXPORTED])
def test_every_optional_argument_is_documented(name, fn):
    # the exported functions' docstrings name each argument a caller may leave out
    # (``seed``, or ``progress(k)``), or send the reader to solve's ("Arguments as ``solve``")
    import inspect

    doc = inspect.getdoc(fn) or ""
    optional = [p for p, v in inspect.signature(fn).parameters.items() if v.default is not inspect.Parameter.empty]
    if "as ``solve``" in doc:
        optional = [p for p in optional if p not in ("leader", "dealer", "trick")]
    missing = [p for p in optional if f"``{p}``" not in doc and f"``{p}(" not in doc]
    assert not missing, f"{name}: {missing} not in its docstring"


def _preset_rows(section: str) -> dict[str, list[str]]:
    """The rows of the README's preset tables under ``section``, by preset name."""
    text = README.read_text()
    body = text[text.index(section):]
    body = body[:body.index("\n## ", 1)]
    rows: dict[str, list[str]] = {}
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and cells[0].strip("`") in ("full", "hasbro", "kentucky", "dixie40", "bridge"):
            rows.setdefault(cells[0].strip("`"), []).extend(cells[1:])
    return rows


def test_readme_presets_give_play_scoring_and_bidding_of_each_preset():
    # RULES.md's preset table has bird_play, nest_to, the bids and the all-pass
    # rule, and the target: the README's tables give them too (they are not
    # shipped elsewhere), and say what the presets are
    rows = _preset_rows("## Rules presets and knobs")
    assert set(rows) == {"full", "hasbro", "kentucky", "dixie40", "bridge"}
    for name, cells in rows.items():
        r = Rules.preset(name)
        text = " ".join(cells)
        assert r.bird_play in text, (name, "bird_play")
        if r.nest_size:
            assert r.nest_to in text, (name, "nest_to")
        if r.has_auction:
            assert f"{r.min_bid} / {r.bid_step} / {r.max_bid}" in text, (name, "bids")
            assert r.all_pass in text, (name, "all_pass")
        assert str(r.target) in cells, (name, "target")


def test_readme_counter_values_name_every_preset_counter():
    # "Counters are worth ...": every counter value of a preset, the kentucky 1s' 15 too
    text = README.read_text()
    sentence = text[text.index("Counters are worth"):]
    sentence = " ".join(sentence[:sentence.index(".")].split())
    for name in ("full", "hasbro", "kentucky", "dixie40"):
        for _, points in Rules.preset(name).counters:
            assert f"{points} (" in sentence, (name, points)
