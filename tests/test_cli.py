"""The click layer: help on every command, `deal`, and one-line errors with exit status 2."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
from pathlib import Path

import click
import pytest

from clirunner import CliRunner
from rook_analyze.cli import common
from rook_analyze.cli.common import RookGroup, emit, format_table
from rook_analyze.cli.main import main
from rook_analyze.solver import PRESETS, Deal, Rules, RulesError, random_deals
from rook_analyze.solver.rules import KNOBS

PRESET_NAMES = list(PRESETS)


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input, prog_name="rook-analyze")


def assert_bad_input(result, *names: str) -> None:
    """Exit 2, one line on stderr naming the input, nothing on stdout, no traceback."""
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
    err = result.stderr
    assert err.startswith("Error: ") and err.endswith("\n") and err.count("\n") == 1, repr(err)
    assert "Traceback" not in err
    for name in names:
        assert name in err, (name, err)
    assert result.stdout == ""


# ------------------------------------------------------------------- help
def test_main_help_lists_every_command():
    result = run("--help")
    assert result.exit_code == 0
    # the "Commands:" section names each command once, at the start of its line
    # ("deal" or "hand" anywhere in the text would not show that it is listed)
    listed = result.stdout.split("\nCommands:\n", 1)[1].splitlines()
    assert [line.split()[0] for line in listed if line.strip()] == sorted(main.commands)
    # every command of CONTRACT.md among them (commands may be added, never removed)
    assert set(main.commands) >= {"deal", "solve", "hand", "nest", "simulate", "report", "bench"}
    assert "Rook" in result.stdout


def test_no_command_prints_the_help():
    # not a usage error: the same help as --help, on standard output, status 0
    result = run()
    assert result.exit_code == 0 and result.stderr == ""
    assert result.stdout == run("--help").stdout and "\nCommands:\n" in result.stdout


@pytest.mark.parametrize("name", sorted(main.commands))
def test_help_of_every_command(name):
    result = run(name, "--help")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"Usage: rook-analyze {name}")
    assert "--help" in result.stdout


@pytest.mark.parametrize("name", ["deal", "hand", "nest"])
def test_constraint_help_says_what_a_feature_counts(name):
    # a color counts its number cards alone (feature_value: the Rook is in no color, even where it
    # belongs to trump under trump_suit) and counters count points: the help said neither
    text = " ".join(run(name, "--help").stdout.split())
    assert "the Rook is in no color" in text and "counters (points)" in text


@pytest.mark.parametrize("name", ["hand", "nest"])
def test_seat_help_says_who_sits_where(name):
    # a player thinks of "my left-hand opponent" and "the dealer on my right": the help named
    # the seats N and W without saying where they sit, so a constraint on "my left opponent" was a guess
    text = " ".join(run(name, "--help").stdout.split())
    assert "N E S W clockwise" in text and "left-hand opponent is E" in text and "right-hand opponent W" in text


@pytest.mark.parametrize("args, deck", [
    (["hand", "Rook B14 B10 B9 R14 R5 Y13 G10 G1", "--rules", "hasbro"], "5-14 in each color, and the Rook"),
    (["nest", "--rules", "hasbro", "--hand", "Rook B14 B10 B9 R14 R5 Y13 G10 G5", "--nest", "B5 R10 Y14 G1 Y5"],
     "5-14 in each color, and the Rook"),
    (["nest", "--rules", "kentucky", "--hand", "Rook B1 B14 B12 B10 B7 R13 R10 Y1 G11", "--nest", "B2 R5 R6 R7 R8"],
     "1+5-14 in each color, and the Rook"),
    (["hand", "Rook B14 B13 B11 B10 B7 R13 R10 Y14", "--rules", "dixie40"], "5-14 in each color, and no Rook"),
])
def test_a_card_not_in_the_deck_says_what_the_deck_holds(args, deck):
    # "card 'G1' is not in this deck" left a player who knows the 57-card deck to guess which cards hasbro keeps
    assert_bad_input(run(*args), "is not in this deck", deck)


@pytest.mark.parametrize("command", [["hand", "Rook B14 B10 B9 R14 R5 Y13 G10 G5"], ["deal"]])
def test_a_constraint_the_shell_cut_at_its_operator_says_to_quote_it(command):
    # `-c E:counters>=30` unquoted: the shell sends '>=30' to a file and the tool sees 'E:counters'
    assert_bad_input(run(*command, "--rules", "hasbro", "-c", "E:counters"),
                     "'E:counters'", "quote it", "-c 'E:B>=3'", "redirection")
    # a constraint with its operator misspelt is not a shell matter
    r = run(*command, "--rules", "hasbro", "-c", "E:Y=>3")
    assert_bad_input(r, "'E:Y=>3'")
    assert "quote it" not in r.stderr


def test_version():
    from importlib.metadata import version

    result = run("--version")
    assert result.exit_code == 0
    assert version("rook-analyze") in result.stdout


# ------------------------------------------------------------------- deal
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_deal_is_reproducible_per_seed_and_parses_back(preset):
    first = run("deal", "--rules", preset, "--count", "4", "--seed", "11")
    again = run("deal", "--rules", preset, "--count", "4", "--seed", "11")
    other = run("deal", "--rules", preset, "--count", "4", "--seed", "12")
    assert first.exit_code == 0, first.output
    assert first.stdout == again.stdout
    assert first.stdout != other.stdout
    lines = first.stdout.splitlines()
    assert len(lines) == 4 and first.stderr == ""
    rules = PRESETS[preset]
    for line in lines:
        d = Deal.from_rdn(line, preset, complete=True)  # every hand and the nest full
        assert d.rdn() == line                            # canonical output
        assert all(len(h) == rules.hand_size for h in d.hands)
    # the same stream as the library's seeded dealer
    assert lines == [d.rdn() for d in random_deals(preset, 4, 11)]


def test_deal_knobs_change_the_deal():
    out = run("deal", "--rules", "full,nest_size=6,double_bird=true", "--seed", "3").stdout.strip()
    d = Deal.from_rdn(out, "full,nest_size=6,double_bird=true", complete=True)
    assert len(d.nest) == 6
    assert "Rook2" in out.split() and "Rook" in out.split()


def test_deal_without_seed_is_random():
    a = run("deal", "--rules", "full", "--count", "2").stdout
    b = run("deal", "--rules", "full", "--count", "2").stdout
    assert a != b


def test_deal_formats_carry_the_same_deals():
    rdn = run("deal", "--rules", "hasbro", "--count", "3", "--seed", "5").stdout.splitlines()
    doc = json.loads(run("deal", "--rules", "hasbro", "--count", "3", "--seed", "5", "--format", "json").stdout)
    assert [r["deal"] for r in doc] == rdn
    assert set(doc[0]) == {"deal", "rules", "N", "E", "S", "W", "nest"}
    assert doc[0]["rules"] == "hasbro"
    jsonl = run("deal", "--rules", "hasbro", "--count", "3", "--seed", "5", "--format", "jsonl").stdout
    assert [json.loads(line)["deal"] for line in jsonl.splitlines()] == rdn
    text = run("deal", "--rules", "hasbro", "--count", "3", "--seed", "5", "--format", "csv").stdout
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["deal"] for r in rows] == rdn
    assert rows[0]["N"] == Deal.from_rdn(rdn[0], "hasbro").hands[0].rdn()
    # --format is read in any case, as --objective is
    for fmt in ("JSON", "Jsonl", "CSV"):
        again = run("deal", "--rules", "hasbro", "--count", "3", "--seed", "5", "--format", fmt)
        assert again.exit_code == 0 and again.stdout == run("deal", "--rules", "hasbro", "--count", "3", "--seed",
                                                            "5", "--format", fmt.lower()).stdout, fmt


def test_deal_with_known_cards_and_constraints():
    args = ["deal", "--rules", "hasbro", "--count", "12", "--known", "N:Rook", "-c", "N:B>=5",
            "-c", "nest:counters>=20"]
    r = run(*args, "--seed", "2")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert len(lines) == 12 and run(*args, "--seed", "2").stdout == r.stdout
    for line in lines:
        d = Deal.from_rdn(line, "hasbro", complete=True)
        assert d.hands[0].has_bird() and d.hands[0].count("B") >= 5
        assert d.rules.points_of_mask(d.nest.mask) >= 20
    # without --seed: a fresh seed, said on standard error, that gives the same deals again
    fresh = run(*args)
    assert fresh.exit_code == 0 and fresh.stderr.startswith("seed ")
    seed = fresh.stderr.split()[1]
    assert run(*args, "--seed", seed).stdout == fresh.stdout


def test_deal_with_known_cards_prints_each_deal_as_it_is_dealt(monkeypatch):
    # as plain deals do: a huge --count is not held in memory before the first line
    # (200,000 deals took 12 s and 170 MB before any output), and a Ctrl-C keeps
    # the deals dealt so far
    from rook_analyze.analysis.sampling import DealSampler

    first = [d.rdn() for d in DealSampler(PRESETS["hasbro"], known=["N:Rook"]).deals(2, 2)]
    real = DealSampler.deal
    calls = []

    def deal(self, index, seed):
        calls.append(index)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(self, index, seed)

    monkeypatch.setattr(DealSampler, "deal", deal)
    r = run("deal", "--rules", "hasbro", "--count", "1000000000", "--seed", "2", "--known", "N:Rook")
    assert r.exit_code == 130 and r.stderr == "interrupted\n", (r.output, r.exception)
    assert r.stdout.splitlines() == first


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_deal_streams_jsonl_and_csv(monkeypatch, fmt):
    # as rdn: each deal printed as it is dealt, so a huge --count is not held
    # in memory (100,000 csv deals took 185 MB more than rdn's before any
    # output) and a Ctrl-C keeps the records printed so far
    from rook_analyze.cli import deal_cmd

    def deals(rules, count, seed):
        yield from random_deals(rules, 2, seed)
        raise KeyboardInterrupt

    monkeypatch.setattr(deal_cmd, "random_deals", deals)
    r = run("deal", "--rules", "hasbro", "--count", "1000000000", "--seed", "5", "--format", fmt)
    assert r.exit_code == 130 and r.stderr == "interrupted\n", (r.output, r.exception)
    expected = [d.rdn() for d in random_deals("hasbro", 2, 5)]
    if fmt == "jsonl":
        assert [json.loads(line)["deal"] for line in r.stdout.splitlines()] == expected
    else:
        assert [row["deal"] for row in csv.DictReader(io.StringIO(r.stdout))] == expected


@pytest.mark.parametrize("extra, words", [
    (["-c", "E:rook=1", "-c", "W:rook=1"], ["contradictory constraints", "'E:rook=1'"]),
    (["-c", "E:rook=1", "-c", "E:counters<20"], ["impossible constraints 'E:rook=1', 'E:counters<20'"]),
    (["-c", "X:B>1"], ["'X:B>1'", "place 'X'"]),
    (["-c", "E:hcp>1"], ["--constraint", "'E:hcp>1'"]),
    (["--known", "N:B99"], ["'B99'"]),
    (["--known", "N:B14", "--known", "E:B14"], ["'B14'", "both N and E"]),
])
def test_deal_constraints_that_cannot_be_met_are_one_line(extra, words):
    assert_bad_input(run("deal", "--rules", "hasbro", "--seed", "1", *extra), *words)


@pytest.mark.parametrize("extra, words", [
    # a count of more digits than Python reads (4,300) was a ValueError traceback
    (["-c", "N:B>=" + "9" * 5000], ["--constraint", "'N:B>=999", "5,000 digits is too large"]),
    (["-c", "N:B>=-" + "9" * 5000], ["--constraint", "5,000 digits is below 0"]),
    # a long count or list of known cards was quoted in full: thousands of characters on one line
    (["-c", "N:B>=" + "9" * 4000], ["impossible constraint 'N:B>=999", "...: N can only hold 0 to 9 B cards"]),
    (["--known", "N:" + "B5 " * 3000], ["known cards for N ('B5 B5", "duplicate card 'B5'"]),
])
def test_deal_long_constraints_and_known_cards_are_one_short_line(extra, words):
    result = run("deal", "--rules", "hasbro", "--seed", "1", *extra)
    assert_bad_input(result, *words)
    assert len(result.stderr) < 600, len(result.stderr)


# ------------------------------------------------------------- bad input
BAD = [
    (["deal", "--rules", "fulx"], ["--rules", "'fulx'"]),
    (["deal", "--rules", "full,bird=lo"], ["bird", "'lo'"]),
    (["deal", "--rules", "full,colour=red"], ["'colour'"]),
    (["deal", "--rules", "full,nest_size=60"], ["nest_size=60"]),
    (["deal", "--rules", "full,most_tricks=14:20"], ["most_tricks"]),
    (["deal", "--rules", "full", "--count", "0"], ["--count", "0"]),
    (["deal", "--rules", "full", "--count", "many"], ["--count", "many"]),
    (["deal", "--rules", "full", "--seed", "-4"], ["--seed", "-4"]),
    (["deal", "--rules", "full", "--format", "xml"], ["--format", "xml"]),
    (["deal"], ["--rules"]),
    (["deal", "--rulz", "full"], ["--rulz"]),
    (["dael"], ["dael"]),
    (["bench", "--rules", "full,bird=wings"], ["wings"]),
    (["bench", "--deals", "0"], ["--deals"]),
]


@pytest.mark.parametrize("args,names", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_is_one_line_exit_2(args, names):
    assert_bad_input(run(*args), *names)


LONG = "x" * 3000


@pytest.mark.parametrize("args,names", [
    (["deal", "--rules", "hasbro," + LONG], ["--rules", "'xxx"]),
    (["deal", "--rules", "hasbro", "-c", "N:" + LONG], ["--constraint", "'N:xxx"]),
    (["deal", "--rules", "hasbro", "--known", LONG + ":B5"], ["place", "'xxx"]),
    (["solve", "--rules", "hasbro", "--trump", LONG, "--declarer", "N", "x"], ["--trump", "'xxx"]),
    (["solve", "--rules", "hasbro", "--trump", "B", "--declarer", LONG, "x"], ["--declarer", "'XXX"]),
], ids=["rules", "constraint", "known", "trump", "declarer"])
def test_a_long_bad_input_is_quoted_cut_short(args, names):
    # the message still names what is wrong, in a line a terminal shows, not the whole input (twice)
    result = run(*args)
    assert_bad_input(result, *names)
    assert len(result.stderr) < 600 and "..." in result.stderr


@pytest.mark.parametrize("command", ["deal", "bench", "hand", "nest", "simulate"])
def test_seeds_are_64_bit_on_every_command(command):
    # one check for every --seed; a number of thousands of digits is quoted cut short
    huge = run(command, "--seed", "9" * 5000)
    assert_bad_input(huge, "--seed", "'999")
    assert len(huge.stderr) < 400
    assert_bad_input(run(command, "--seed", str(2 ** 64)), "--seed", str(2 ** 64))


def test_the_largest_seed_deals():
    result = run("deal", "--rules", "hasbro", "--seed", str(2 ** 64 - 1))
    assert result.exit_code == 0 and result.stdout.count("nest:") == 1


def test_a_bad_trump_is_quoted_as_typed():
    assert_bad_input(run("solve", "--rules", "hasbro", "--trump", "no", "--declarer", "N", "x"), "'no'")


def _a_deal(rules="full", seed=1) -> str:
    return next(random_deals(rules, 1, seed)).rdn()


SOLVE = ["solve", "--rules", "full", "--trump", "B", "--declarer", "N"]


@pytest.mark.parametrize("args,names", [
    (["solve", "--rules", "full", "--trump", "B", "--declarer", "Q"], ["--declarer", "'Q'"]),
    (["solve", "--rules", "full", "--trump", "P", "--declarer", "N"], ["--trump", "'P'"]),
    (["solve", "--rules", "full", "--trump", "none", "--declarer", "N"], ["--trump", "'none'"]),
    (["solve", "--rules", "full", "--trump", "B", "--declarer", "N", "--leader", "X"], ["--leader", "'X'"]),
    (["solve", "--rules", "full", "--trump", "B", "--declarer", "N", "--dealer", "5"], ["--dealer", "'5'"]),
    (SOLVE + ["--trick", "B99"], ["--trick", "'B99'"]),
    (SOLVE + ["--trick", "Roo\u212a"], ["--trick", "'Roo\u212a'"]),
    # the long s uppers to 'S' under Unicode's case rules: no seat
    (["solve", "--rules", "full", "--trump", "B", "--declarer", "\u017f"], ["--declarer", "'\u017f'"]),
    (["solve", "--rules", "full", "--trump", "B", "--declarer", "N", "--leader", "\u017f"], ["--leader"]),
])
def test_solve_bad_options(args, names):
    assert_bad_input(run(*args, _a_deal()), *names)


def test_a_bad_trump_is_named_with_the_trumps_of_the_rules():
    # --rules given first: the choices are its trumps ('none' only where the deck has no Rook);
    # the message once offered 'none' under hasbro, then refused it
    r = run("solve", "--rules", "hasbro", "--trump", "X", "--declarer", "N", _a_deal("hasbro"))
    assert r.exit_code == 2 and "trump 'X': choose B, R, Y, G (" in r.stderr and "none" not in r.stderr, r.stderr
    r = run("solve", "--rules", "hasbro", "--trump", "none", "--declarer", "N", _a_deal("hasbro"))
    assert r.exit_code == 2 and "Rook is always a trump" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    r = run("solve", "--rules", "bridge", "--trump", "X", "--declarer", "N", _a_deal("bridge"))
    assert r.exit_code == 2 and "trump 'X': choose B, R, Y, G, none" in r.stderr, r.stderr


def test_solve_bad_card_names_the_card():
    text = _a_deal().replace("B9 ", "B15 ", 1) if "B9 " in _a_deal() else _a_deal().replace(": ", ": B15 ", 1)
    assert_bad_input(run(*SOLVE, text), "B15")


def test_solve_duplicate_card_and_wrong_deck():
    d = _a_deal()
    n_first = d.split("/")[0].split()[1]        # N's first card, given again to E
    dup = d.replace("E: ", f"E: {n_first} ", 1)
    assert_bad_input(run(*SOLVE, dup), repr(n_first))
    assert_bad_input(run("solve", "--rules", "hasbro", "--trump", "B", "--declarer", "N", d), "hasbro")


def test_a_deal_and_a_file_together_name_both(tmp_path):
    path = tmp_path / "deals.txt"
    path.write_text(_a_deal() + "\n")
    assert_bad_input(run(*SOLVE, _a_deal(), "--file", str(path)), "DEAL " + repr(_a_deal())[:150],
                     f"... and --file {str(path)!r}: give a DEAL or --file PATH, not both")  # a long deal cut short


def test_an_input_file_without_deals_is_named(tmp_path):
    # a script that runs solve over many files can tell which one held nothing
    for text in ("", "# only a comment\n\n"):
        path = tmp_path / "empty.rdn"
        path.write_text(text)
        assert_bad_input(run(*SOLVE, "--file", str(path)),
                         f"{path}: no deals in the input (blank lines and # lines are skipped)")


def test_solve_needs_a_deal(monkeypatch):
    # nothing but comments piped in (the runner's standard input is never a terminal): read, and found empty
    assert_bad_input(run(*SOLVE, input="# only a comment\n\n"),
                     "<stdin>: no deals in the input (blank lines and # lines are skipped)")
    assert_bad_input(run(*SOLVE, _a_deal(), "--file", "-", input=_a_deal()), "not both", "--file '-'",
                     "DEAL '" + _a_deal()[:20])

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    # at a terminal standard input is not read unless asked for with -
    monkeypatch.setattr(sys, "stdin", Terminal(_a_deal()))
    with pytest.raises(click.UsageError, match="no deal: give a DEAL argument"):
        list(common.read_deal_lines(None))
    assert [text for _, text in common.read_deal_lines("-")] == [_a_deal()]


def test_bad_line_in_a_deal_file_names_the_line(tmp_path):
    path = tmp_path / "deals.txt"
    path.write_text(f"# two deals\n{_a_deal()}\n\nN: B1 / E: B2 / S: B3 / W: B3\n")
    assert_bad_input(run(*SOLVE, "--file", str(path)), "line 4", "B3")
    assert_bad_input(run(*SOLVE, "-", input=f"\n{_a_deal()}\nnonsense\n"), "<stdin> line 3", "nonsense")
    assert_bad_input(run(*SOLVE, "--file", str(tmp_path / "missing.txt")), "--file", "missing.txt")
    binary = tmp_path / "deals.bin"
    binary.write_bytes(b"N: B14 / E: B13 / S: B12 / W: B11\n\xff\xfe\n")
    assert_bad_input(run(*SOLVE, "--file", str(binary)), "deals.bin", "UTF-8")


def test_group_turns_library_errors_into_exit_2():
    @click.group(cls=RookGroup)
    def g():
        pass

    @g.command()
    def boom():
        raise RulesError("rules knob 'x' is bad")

    result = CliRunner().invoke(g, ["boom"])
    assert_bad_input(result, "rules knob 'x' is bad")


def test_installed_command_exits_2_without_traceback():
    """The real entry point, in a fresh interpreter."""
    proc = subprocess.run([sys.executable, "-m", "rook_analyze.cli", "deal", "--rules", "full,bird=sideways"],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and "sideways" in proc.stderr
    assert proc.stdout == ""
    ok = subprocess.run([sys.executable, "-m", "rook_analyze.cli", "deal", "--rules", "kentucky", "--count", "2",
                         "--seed", "9"], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout == run("deal", "--rules", "kentucky", "--count", "2", "--seed", "9").stdout


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_output_the_system_refuses_is_one_line_not_a_traceback():
    """Standard output on a full disk: one line on standard error, exit status 1."""
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "rook_analyze.cli", "deal", "--rules", "hasbro", "--count", "3",
                               "--seed", "1"], stdout=full, stderr=subprocess.PIPE, text=True,
                              stdin=subprocess.DEVNULL, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr == "Error: No space left on device\n", proc.stderr


@pytest.mark.parametrize("args", [
    ["solve", "--rules", "hasbro,hand_size=2", "--trump", "B", "--declarer", "N",
     "N: Y11 Y5 / E: Y12 G6 / S: Rook R5 / W: B8 B6 / nest: B12 B9 R10 R8 G14"],
    ["hand", "Rook B14", "--rules", "hasbro,hand_size=2", "--samples", "2", "--seed", "1"],
    ["bench", "--rules", "hasbro,hand_size=2", "--deals", "1"],
])
def test_memory_the_system_refuses_is_one_line_not_a_traceback(monkeypatch, args):
    # a solver table the system will not give (ROOK_ANALYZE_TT_BITS=31, the documented
    # top, asks 249 GB a thread; --workers 16 under a 4 GB limit): one line, status 1
    from rook_analyze.solver import api

    def take(bits):
        raise MemoryError("Allocation failed (probably too large).")

    monkeypatch.setattr(api._tables, "take", take)
    # no solver an earlier test left on this thread, with its table already taken
    monkeypatch.setattr(api, "_local", threading.local())
    result = run(*args)
    assert result.exit_code == 1, (result.output, result.exception)
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("Error: out of memory") and "ROOK_ANALYZE_TT_BITS" in result.stderr


def test_a_table_past_the_memory_available_is_refused_before_it_is_made(monkeypatch):
    # making a table writes all of it, so Linux does not refuse one it cannot hold: it swaps or
    # kills the process without a word; the pool compares it with MemAvailable first
    from rook_analyze.solver import api

    monkeypatch.setattr(api, "_tables", api._TablePool())     # no table kept from earlier tests
    monkeypatch.setattr(api, "_local", threading.local())
    monkeypatch.setattr(api, "TT_BITS", None)  # tables as large as the searches use: 2^18 for 2 cards a hand
    monkeypatch.setattr(api, "_memory_available", lambda: api.table_bytes(api.made_bits(None, 2)) - 1)
    deal = "N: Y11 Y5 / E: Y12 G6 / S: Rook R5 / W: B8 B6 / nest: B12 B9 R10 R8 G14"
    with pytest.raises(MemoryError, match=r"a solver table of 2\^\d+ entries takes [\d,]+ MB; [\d,]+ MB of memory"):
        api.Solver().solve(Deal.from_rdn(deal, "hasbro,hand_size=2"), "B", "N")
    result = run("hand", "Rook B14", "--rules", "hasbro,hand_size=2", "--samples", "2", "--seed", "1")
    assert result.exit_code == 1 and result.stderr.startswith("Error: out of memory: each solver thread keeps a "
                                                              "table of up to 2^21 entries"), result.stderr
    monkeypatch.setattr(api, "_memory_available", lambda: None)   # unknown (not Linux): no check
    assert api.Solver().solve(Deal.from_rdn(deal, "hasbro,hand_size=2"), "B", "N").declarer_points == 45


def test_memory_a_report_cannot_get_is_one_line_without_the_solver_hint(monkeypatch, tmp_path):
    from rook_analyze.analysis import report

    def build_report(*args, **kw):
        raise MemoryError

    monkeypatch.setattr(report, "build_report", build_report)
    result = run("report", str(tmp_path))
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", "Error: out of memory\n"), result.exception


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["--version"], ["--help"], [], ["deal", "--help"]])
def test_version_and_help_on_a_full_disk_are_one_line(args):
    # --version and the group's --help write while click parses the options
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "rook_analyze.cli", *args], stdout=full,
                              stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr == "Error: No space left on device\n", proc.stderr


def test_a_closed_pipe_ends_quietly():
    """A reader that stops early (| head -1): no traceback, no message."""
    proc = subprocess.Popen([sys.executable, "-m", "rook_analyze.cli", "deal", "--rules", "hasbro", "--count",
                             "20000", "--seed", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL)
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert err == "" and proc.returncode in (0, 1)


def _first_lines_then_close(args: list[str], lines: int) -> tuple[int, str]:
    """The command's status and standard error where its reader takes
    ``lines`` lines and leaves (``| head -N``)."""
    proc = subprocess.Popen([sys.executable, "-m", "rook_analyze.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    for _ in range(lines):
        proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    return proc.wait(timeout=300), err


def test_a_json_document_cut_by_its_reader_is_not_status_0():
    """One 8.5 MB write of the document: the pipe took 64 KiB, and Python's
    buffered writer dropped the rest without an error, so the command said
    0 with its data cut. Written in pieces, the next piece meets the closed
    pipe: status 1, quietly."""
    status, err = _first_lines_then_close(["deal", "--rules", "hasbro", "--count", "20000", "--seed", "1",
                                           "--format", "json"], 1)
    assert (status, err) == (1, "")


def test_a_hand_table_goes_out_whole_before_its_reader_stops():
    """As the README says (| head -2): the table is one write, which the
    pipe's buffer takes whole, so the status is 0; written a line at a time
    the third line met the closed pipe (status 1)."""
    status, err = _first_lines_then_close(["hand", "B14 B12 R13 Y11 G9", "--rules", "hasbro,hand_size=5",
                                           "-n", "2", "--seed", "1"], 2)
    assert status == 0 and "Traceback" not in err, err


def test_one_high_rules_write_the_1_first_in_every_command():
    """RULES.md's canonical order is each color high to low; where the 1 ranks
    above the 14 (kentucky) every command writes it first: the deal and its
    hands, the hand `hand` echoes, `nest`'s hand, nest, discards and keep."""
    doc = json.loads(run("deal", "--rules", "kentucky", "--seed", "1", "--format", "json").stdout)[0]
    assert doc["deal"] == " / ".join(f"{k}: {doc[k]}" for k in ("N", "E", "S", "W", "nest"))
    assert "S: B1 B14 B11" in doc["deal"] and doc["S"].startswith("B1 B14 B11")
    r = run("hand", "g11 y1 r10 r13 b7 b10 b12 b14 b1 rook", "--rules", "kentucky", "-n", "2", "--seed", "1",
            "--format", "json")
    assert json.loads(r.stdout)["hand"] == "Rook B1 B14 B12 B10 B7 R13 R10 Y1 G11"
    r = run("nest", "--rules", "kentucky", "--hand", "Rook B14 B12 B10 B7 R13 R10 Y1 G11 G1", "--nest",
            "R1 B1 G5 Y10 R14", "--samples", "2", "--candidates", "2", "--seed", "1", "--format", "json")
    doc = json.loads(r.stdout)
    assert doc["hand"] == "Rook B14 B12 B10 B7 R13 R10 Y1 G1 G11"  # given with G1 last
    assert doc["nest"] == "B1 R1 R14 Y10 G5"
    kept = [c for c in doc["recommendation"]["keep"] if not c.startswith("Rook")]
    for color in "BRYG":  # each color's cards in rank order, the 1 above the 14
        ranks = [15 if c == f"{color}1" else int(c[1:]) for c in kept if c[0] == color]
        assert ranks == sorted(ranks, reverse=True), kept
    assert any(c[1:] == "1" for c in kept)  # a 1 among them: the order is tested


@pytest.mark.parametrize("fmt", ["rdn", "csv", "jsonl"])
def test_a_few_deals_go_out_whole_before_their_reader_stops(fmt):
    """`deal --count 2 | head -1`: a deal a write let head leave before the
    second, so two deals ended with status 1 (five runs out of five), and a
    script under `set -o pipefail` failed. Output that fits a pipe's buffer
    is one write, as a table is: status 0."""
    status, err = _first_lines_then_close(["deal", "--rules", "hasbro", "--count", "2", "--seed", "1",
                                           "--format", fmt], 1)
    assert (status, err) == (0, "")


@pytest.mark.parametrize("fmt", ["rdn", "jsonl"])
def test_a_ctrl_c_keeps_the_deals_made_before_it(monkeypatch, fmt):
    """The deals wait in a block for their write; a Ctrl-C (or a deal that
    fails) writes the block before the command stops."""
    from rook_analyze.cli import deal_cmd

    made = list(random_deals(Rules.preset("hasbro"), 3, 3))

    def stopped(rules, count, seed):
        yield from made
        raise KeyboardInterrupt

    monkeypatch.setattr(deal_cmd, "random_deals", stopped)
    r = CliRunner().invoke(main, ["deal", "--rules", "hasbro", "--count", "10", "--seed", "3", "--format", fmt])
    assert r.exit_code == 130 and r.stderr.strip() == "interrupted", r.stderr
    printed = r.stdout.splitlines() if fmt == "rdn" else [json.loads(x)["deal"] for x in r.stdout.splitlines()]
    assert printed == [d.rdn() for d in made]


def test_a_ctrl_c_keeps_every_deal_made_before_it_whole():
    """The same with a real Ctrl-C and a pipe: what is printed is the run's
    first deals, each line whole."""
    proc = subprocess.Popen([sys.executable, "-m", "rook_analyze.cli", "deal", "--rules", "hasbro", "--count",
                             "10000000", "--seed", "3"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True)
    first = proc.stdout.readline()
    proc.send_signal(signal.SIGINT)
    rest = proc.stdout.read()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 130, err
    assert err.strip().splitlines()[-1] == "interrupted", err
    lines = (first + rest).splitlines()
    assert (first + rest).endswith("\n") and len(lines) < 10_000_000
    assert lines == [d.rdn() for d in random_deals(Rules.preset("hasbro"), len(lines), 3)]



def test_a_ctrl_c_while_a_detail_file_is_written_leaves_no_temporary_file(tmp_path, monkeypatch):
    """save_csv writes to a temporary name, then renames: a Ctrl-C (or SIGTERM)
    in the middle of a large --detail took only OSError's path and left the
    half-written temporary file in the user's folder."""
    import pandas as pd

    def interrupted(self, f, **kwargs):
        f.write("sample,deal\n0,")
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", interrupted)
    with pytest.raises(KeyboardInterrupt):
        common.save_csv(pd.DataFrame({"sample": [0]}), str(tmp_path / "detail.csv"), "--detail")
    assert list(tmp_path.iterdir()) == []


def test_a_ctrl_c_while_a_plot_is_saved_leaves_no_part_of_it(tmp_path):
    """save_figure goes through the same temporary file: the plot was written
    straight to its path, so a Ctrl-C during the write left half an image."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    class Interrupted(Figure):
        def savefig(self, f, **kwargs):
            f.write(b"\x89PNG")
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        common.save_figure(Interrupted(), str(tmp_path / "curve.png"))
    assert list(tmp_path.iterdir()) == []
    # and a whole one is written, in the format its name ends in
    common.save_figure(Figure(), str(tmp_path / "curve.SVG"))
    assert (tmp_path / "curve.SVG").read_bytes().lstrip().startswith((b"<?xml", b"<svg"))
    assert [p.name for p in tmp_path.iterdir()] == ["curve.SVG"]



@pytest.mark.parametrize("args", [["deal", "--rules", "hasbro", "--seed", "1"], ["--help"]])
def test_a_closed_standard_output_is_refused(args):
    """Started with standard output closed (``>&-``), the command printed
    nothing and exited 0, as if its data had gone somewhere."""
    def close_stdout():
        os.close(1)

    r = subprocess.run([sys.executable, "-m", "rook_analyze.cli", *args], stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, text=True, timeout=120, preexec_fn=close_stdout)
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [
        "rook-analyze: standard output is closed: the data would go nowhere "
        "(redirect it to a file, or to /dev/null to drop it)"]


def run_into_a_closed_pipe(*args: str, cwd=None) -> subprocess.CompletedProcess:
    """The command with standard output a pipe whose reader has already gone
    (``| head -1`` once head has exited): its first write fails with EPIPE."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([sys.executable, "-m", "rook_analyze.cli", *args], stdout=write,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, cwd=cwd, timeout=300)
    finally:
        os.close(write)


@pytest.mark.parametrize("command", [
    ["hand", "B14 B12 R13 Y11 G9", "--rules", "hasbro,hand_size=5", "-n", "1", "--seed", "1", "--plot", "curve.png"],
    ["nest", "--rules", "hasbro,hand_size=5", "--hand", "B14 B12 R13 Y11 G9", "--nest", "Rook B5 R10 G8 G5",
     "--samples", "2", "--candidates", "2", "--seed", "1"],
])
def test_a_reader_that_stops_early_costs_no_detail_or_plot_file(tmp_path, command):
    """`hand ... --detail d.csv | head -2`: the table is written a line at a
    time and head leaves after two, so the next line met a closed pipe, and
    the files the run was asked for (the work of the whole run) were not
    written, without a word. They are written all the same, then the
    command ends quietly as click ends on a closed pipe (status 1)."""
    proc = run_into_a_closed_pipe(*command, "--detail", "detail.csv", cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "detail saved to detail.csv" in proc.stderr
    assert len(list(csv.DictReader(open(tmp_path / "detail.csv")))) >= 1
    if "--plot" in command:
        assert "plot saved to curve.png" in proc.stderr
        assert (tmp_path / "curve.png").read_bytes().startswith(b"\x89PNG")


# ---------------------------------------------------------------- output
def test_table_aligns_and_formats_nested_values():
    text = format_table([{"a": 1, "name": "x", "v": {"B14": 3}}, {"a": 100, "name": "long", "v": None}])
    lines = text.splitlines()
    assert lines[0].split() == ["a", "name", "v"]
    assert lines[1].startswith("  1  x") and lines[2].startswith("100  long")
    assert '{"B14":3}' in lines[1]


def test_emit_json_turns_numpy_and_nan_into_plain_json(capsys):
    import numpy as np
    import pandas as pd

    emit(pd.DataFrame({"n": np.array([1, 2]), "x": [0.5, float("nan")]}), "json")
    assert json.loads(capsys.readouterr().out) == [{"n": 1, "x": 0.5}, {"n": 2, "x": None}]
    emit([{"n": np.int64(3)}], "jsonl")
    assert json.loads(capsys.readouterr().out) == {"n": 3}
    # infinities are no JSON either (json.dumps would write Infinity)
    emit({"a": float("inf"), "b": [float("-inf"), 1.0]}, "json")
    assert json.loads(capsys.readouterr().out) == {"a": None, "b": [None, 1.0]}
    # columns keeps those fields, in that order, and only those
    emit([{"n": 1, "x": 2, "y": 3}], "jsonl", columns=["y", "n"])
    assert capsys.readouterr().out == '{"y": 3, "n": 1}\n'


def test_progress_bar_only_on_a_terminal(monkeypatch):
    """hand and nest show a bar on standard error (issue 4), off when it is not a terminal."""
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    for stream, shown in ((Terminal(), True), (io.StringIO(), False)):
        monkeypatch.setattr(sys, "stderr", stream)
        with common.progress(8, "solving", unit="solve", mininterval=0, delay=0) as bar:
            bar.update(8)
        assert ("solving" in stream.getvalue() and "8/8" in stream.getvalue()) == shown, stream.getvalue()


# ---------------------------------------------------------------- README
README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_opens_with_the_install_and_test_commands():
    lines = README.read_text().splitlines()
    assert lines[0] == "```sh" and lines[3] == "```"
    run_cmd, test_cmd = lines[1], lines[2]
    first = "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/rook-analyze hand "
    assert run_cmd.startswith(first)  # issue 4: install, then `rook-analyze hand` on a sample hand
    # and that command works: a report with a recommendation
    shown = run(*shlex.split(run_cmd[len(first) - len("hand "):]))
    assert shown.exit_code == 0, shown.output
    assert "recommendation:" in shown.stdout
    # its own environment: an editable install over the first command's
    # regular one is shadowed by the numba cache that one left in site-packages
    assert test_cmd == ('python3 -m venv .venv-dev && .venv-dev/bin/pip install -e ".[test]" '
                        '&& .venv-dev/bin/python -m pytest')
    # .ci/run installs and tests the same way
    ci = (README.parent / ".ci" / "run").read_text()
    assert 'pip" install -e ".[test]"' in ci and 'python" -m pytest' in ci


def test_readme_examples_print_what_the_readme_shows():
    text = README.read_text()
    examples = re.findall(r"<!-- example: rook-analyze (.*?) -->\n```\n(.*?)```", text, re.S)
    assert examples
    for args, shown in examples:
        result = run(*shlex.split(args))
        assert result.exit_code == 0 and result.stdout == shown, args


def test_readme_names_every_preset_and_knob():
    text = README.read_text()
    for name in PRESETS:
        assert f"`{name}`" in text
    for knob in KNOBS:
        assert f"`{knob}`" in text


def test_hand_from_empty_standard_input_says_so():
    r = run("hand", "-", "--rules", "hasbro", input="\n# no hand here\n")
    assert r.exit_code == 2 and r.stderr.strip() == "Error: HAND -: standard input holds no hand (only blank or # lines)"


@pytest.mark.parametrize("how", ["CliRunner", "process"])
def test_bytes_that_are_not_utf8_on_standard_input_are_one_short_line(how):
    args = ["solve", "--rules", "hasbro", "--trump", "B", "--declarer", "N", "-"]
    junk = b"N: B14 \xff\xfe\x00junk / E: B5\n" + bytes(range(128, 256)) * 4 + b"\n"
    if how == "CliRunner":   # its own standard input
        r = CliRunner().invoke(main, args, input=junk)
        code, err = r.exit_code, r.stderr
    else:                    # a real one (sys.stdin would hand undecodable bytes on as surrogates)
        p = subprocess.run([sys.executable, "-m", "rook_analyze.cli", *args], input=junk, capture_output=True)
        code, err = p.returncode, p.stderr.decode()
    assert code == 2 and "Traceback" not in err
    assert err.startswith("Error: <stdin>") and "not UTF-8 text" in err and len(err) < 100, err


def test_every_unknown_seat_gets_the_same_message():
    for option in ("--declarer", "--leader", "--dealer"):
        args = ["solve", "--rules", "hasbro", "--trump", "B", "--declarer", "N", option, "q"]
        r = run(*args, "N: B14 / E: B13 / S: B12 / W: B11")
        assert r.exit_code == 2 and r.stderr.strip() == f"Error: {option}: seat 'Q': choose one of N E S W"
