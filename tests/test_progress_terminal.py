"""Progress bars on a terminal: short runs draw none, and records streamed to the
same terminal as the bar never land on the bar's line."""

from __future__ import annotations

import io
import re
import sys

import pytest

from rook_analyze.cli import common, solve_cmd
from rook_analyze.cli.main import main
from rook_analyze.solver import random_deals

SMALL = "hasbro,hand_size=5"


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_short_run_draws_no_bar(monkeypatch):
    """README: the bar shows when the run takes more than about a second."""
    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    with common.progress(3, "solving", unit="deal", mininterval=0) as bar:
        bar.update(3)
    assert term.getvalue() == ""


@pytest.mark.parametrize("fmt, start", [("jsonl", '{"deal"'), ("csv", "N: ")])
def test_streamed_records_start_their_own_line_beside_a_bar(monkeypatch, tmp_path, fmt, start):
    """solve --format jsonl|csv with standard output and standard error on one terminal:
    each record starts a line of its own, never after the bar's text on its line."""
    path = tmp_path / "deals.rdn"
    path.write_text("".join(d.rdn() + "\n" for d in random_deals(SMALL, 4, 7)))
    term = Terminal()
    monkeypatch.setattr(sys, "stdout", term)
    monkeypatch.setattr(sys, "stderr", term)
    # a bar drawn at once and at every update, as a long run's is
    monkeypatch.setattr(solve_cmd, "progress", lambda total, desc, **kw: common.progress(
        total, desc, **{**kw, "delay": 0, "mininterval": 0, "miniters": 1}))
    main(["solve", "--rules", SMALL, "--trump", "B", "--declarer", "N", "--format", fmt,
          "--workers", "2", "--file", str(path)], standalone_mode=False)
    out = term.getvalue()
    assert "solving" in out  # the bar was drawn
    records = [m.start() for m in re.finditer(re.escape(start), out)]
    assert len(records) == 4
    for at in records:
        # the cursor at the start of a line: after a newline, or after the bar was wiped
        assert out[at - 1] in "\r\n", repr(out[max(0, at - 80):at + 10])
    # and what is left once the bar's lines are taken out is the data alone
    data = re.sub(r"\r[^\r\n]*(?=\r)", "", out).replace("\r", "")
    lines = [s for s in data.split("\n") if s.strip()]
    assert sum(s.startswith(start) for s in lines) == 4
