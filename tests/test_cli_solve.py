"""`rook-analyze solve` and `bench`: formats, deal input, --cards, --trick, and values that match the library."""

from __future__ import annotations

import csv
import io
import json
import re
import shlex
from pathlib import Path

import pytest

from clirunner import CliRunner
from rook_analyze.cli import common
from rook_analyze.cli.main import main
from rook_analyze.solver import Deal, Rules, api, card_values, play_line, random_deal, random_deals, solve

SMALL = "hasbro,hand_size=5"   # short hands: quick solves
FIELDS = {"deal", "rules", "trump", "declarer", "leader", "dealer", "declarer_points", "defender_points",
          "nodes", "ms"}


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input, prog_name="rook-analyze")


def deals(rules: str, n: int, seed: int) -> list[str]:
    return [d.rdn() for d in random_deals(rules, n, seed)]


def solve_args(rules=SMALL, trump="Y", declarer="E", *extra):
    return ["solve", "--rules", rules, "--trump", trump, "--declarer", declarer, *extra]


def ok(result):
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def test_every_format_gives_the_same_values_as_the_library():
    text = deals(SMALL, 1, 4)[0]
    messy = text.lower().replace(" / ", " /  ")            # case and spacing do not matter
    want = solve(Deal.from_rdn(text, SMALL), "Y", "E")
    rec = json.loads(ok(run(*solve_args(), "--format", "json", messy)).stdout)
    assert isinstance(rec, list) and len(rec) == 1
    rec = rec[0]
    assert set(rec) == FIELDS
    assert rec["deal"] == text                             # canonical RDN
    assert rec["rules"] == Rules.from_spec(SMALL).spec()
    assert (rec["trump"], rec["declarer"], rec["leader"], rec["dealer"]) == ("Y", "E", "N", "W")
    assert (rec["declarer_points"], rec["defender_points"]) == (want.declarer_points, want.defender_points)
    assert isinstance(rec["nodes"], int) and rec["nodes"] > 0
    assert isinstance(rec["ms"], float) and rec["ms"] > 0

    line = ok(run(*solve_args(), "--format", "jsonl", text)).stdout.splitlines()
    assert len(line) == 1
    got = json.loads(line[0])
    assert {k: got[k] for k in FIELDS - {"ms", "nodes"}} == {k: rec[k] for k in FIELDS - {"ms", "nodes"}}

    rows = list(csv.DictReader(io.StringIO(ok(run(*solve_args(), "--format", "csv", text)).stdout)))
    assert len(rows) == 1 and set(rows[0]) == FIELDS
    assert int(rows[0]["declarer_points"]) == rec["declarer_points"] and float(rows[0]["ms"]) > 0

    two = "\n".join(deals(SMALL, 2, 4)) + "\n"
    rows = list(csv.DictReader(io.StringIO(ok(run(*solve_args(), "--format", "csv", "-", input=two)).stdout)))
    assert [r["deal"] for r in rows] == deals(SMALL, 2, 4)   # one header, a row a deal
    # a first deal that fails leaves standard output empty: no header for a program to take as a result
    south = Deal.from_rdn(text, SMALL).hand("S")
    bad = run(*solve_args(), "--format", "csv", "--trick", next(iter(south)).rdn(), text)   # N leads
    assert bad.exit_code == 2 and bad.stdout == "" and len(bad.stderr.splitlines()) == 1
    assert "not in N's hand" in bad.stderr

    table = ok(run(*solve_args(), text)).stdout.splitlines()
    assert table[0].split() == ["#", "trump", "declarer", "leader", "declarer_points", "defender_points",
                                "nodes", "ms"]
    assert table[1].split()[:6] == ["1", "Y", "E", "N", str(rec["declarer_points"]), str(rec["defender_points"])]


@pytest.mark.parametrize("rules,trump", [("hasbro", "B"), ("dixie40", "G"), ("dixie40,hand_size=5,most_tricks=3:20", "G"), ("bridge,hand_size=6", "none"),
                                          ("full,hand_size=6,nest_size=5", "R")])
def test_both_sides_add_up_to_the_points_at_stake(rules, trump):
    text = deals(rules, 1, 21)[0]
    rec = json.loads(ok(run(*solve_args(rules, trump, "S"), "--format", "json", text)).stdout)[0]
    d = Deal.from_rdn(text, rules)
    assert rec["declarer_points"] + rec["defender_points"] == d.total_points()
    if rules in ("hasbro", "dixie40"):                     # a full deal: all 120 points
        assert d.total_points() == 120
    # In a zero-sum game solve reports the total less the declarer's points as
    # the defenders', so the sum above mostly checks the total. Solve the
    # defenders' own best apart: E-W declaring, the same seat on lead; under
    # nest_to=declarer that search gives E-W the nest, taken off again.
    r = Rules.from_spec(rules)
    swapped = solve(d, trump, "W", rec["leader"]).declarer_points
    nest = r.points_of_mask(d.nest.mask) if r.nest_to == "declarer" else 0
    assert swapped - nest == rec["defender_points"]


def test_file_and_stdin_give_one_record_per_deal(tmp_path):
    texts = deals(SMALL, 3, 8)
    path = tmp_path / "deals.rdn"
    path.write_text(f"# three deals\n{texts[0]}\n\n{texts[1]}\n  # indented comment\n{texts[2]}\n")
    from_file = [json.loads(s) for s in ok(run(*solve_args(), "--format", "jsonl", "--file", str(path))).stdout.splitlines()]
    from_stdin = [json.loads(s) for s in ok(run(*solve_args(), "--format", "jsonl", "-",
                                                input=path.read_text())).stdout.splitlines()]
    from_dash_file = json.loads(ok(run(*solve_args(), "--format", "json", "--file", "-",
                                       input=path.read_text())).stdout)
    # piped in with no DEAL and no --file (the runner's standard input is not a terminal)
    from_pipe = [json.loads(s) for s in ok(run(*solve_args(), "--format", "jsonl",
                                               input=path.read_text())).stdout.splitlines()]
    assert [r["deal"] for r in from_file] == [r["deal"] for r in from_pipe] == texts
    for a, b, c, d in zip(from_file, from_stdin, from_dash_file, from_pipe):
        assert a["declarer_points"] == b["declarer_points"] == c["declarer_points"] == d["declarer_points"]
    for rec, text in zip(from_file, texts):
        assert rec["declarer_points"] == solve(Deal.from_rdn(text, SMALL), "Y", "E").declarer_points
    # a file saved with a byte-order mark (some Windows editors) reads the same
    bom = tmp_path / "bom.rdn"
    bom.write_text(texts[0] + "\r\n", encoding="utf-8-sig")
    rec = json.loads(ok(run(*solve_args(), "--format", "json", "--file", str(bom))).stdout)[0]
    assert rec["deal"] == texts[0] and rec["declarer_points"] == from_file[0]["declarer_points"]


@pytest.mark.parametrize("rules,declarer,dealer,leader", [
    ("full,hand_size=5", "E", "W", "E"),        # first_lead=declarer
    ("hasbro,hand_size=5", "E", "W", "N"),      # left of the dealer
    ("hasbro,hand_size=5", "E", "S", "W"),
    ("bridge,hand_size=5", "E", "W", "S"),      # left of the declarer
])
def test_default_leader_follows_first_lead(rules, declarer, dealer, leader):
    text = deals(rules, 1, 2)[0]
    rec = json.loads(ok(run(*solve_args(rules, "B", declarer), "--dealer", dealer, "--format", "json",
                            text)).stdout)[0]
    assert rec["leader"] == leader and rec["dealer"] == dealer


def test_cards_gives_every_legal_card_and_the_best_is_the_value():
    text = deals(SMALL, 1, 5)[0]
    d = Deal.from_rdn(text, SMALL)
    for leader in ("N", "E"):          # a defender and the declarer on lead
        rec = json.loads(ok(run(*solve_args(), "--leader", leader, "--cards", "--format", "json", text)).stdout)[0]
        cards = rec["cards"]
        assert set(cards) == {c.rdn() for c in d.hand(leader)}  # leading: every card is legal
        best = max if leader == "E" else min                   # E declares: E-W maximise
        assert best(cards.values()) == rec["declarer_points"]
        # best first for the seat to play: E-W the most points, N-S the fewest
        assert list(cards.values()) == sorted(cards.values(), reverse=leader == "E")
        lib = card_values(d, "Y", "E", leader)
        assert cards == {c.rdn(): v for c, v in lib.items()}

    rows = list(csv.DictReader(io.StringIO(ok(run(*solve_args(), "--cards", "--format", "csv", text)).stdout)))
    assert json.loads(rows[0]["cards"]) == json.loads(ok(run(*solve_args(), "--cards", "--format", "json",
                                                             text)).stdout)[0]["cards"]
    table = ok(run(*solve_args(), "--cards", text)).stdout
    assert "cards" in table.splitlines()[0] and "=" in table.splitlines()[1]


def test_line_plays_the_hand_out_as_the_library_does():
    text = deals(SMALL, 1, 7)[0]
    d = Deal.from_rdn(text, SMALL)
    rec = json.loads(ok(run(*solve_args(), "--line", "--format", "json", text)).stdout)[0]
    lib = play_line(d, "Y", "E")
    assert rec["line"] == [p.to_dict() for p in lib]
    assert len(rec["line"]) == 4 * 5 and {p["declarer_points"] for p in rec["line"]} == {rec["declarer_points"]}
    assert [p["winner"] is not None for p in rec["line"]] == [i % 4 == 3 for i in range(20)]
    rows = list(csv.DictReader(io.StringIO(ok(run(*solve_args(), "--line", "--format", "csv", text)).stdout)))
    assert json.loads(rows[0]["line"]) == rec["line"]
    table = ok(run(*solve_args(), "--line", text)).stdout.splitlines()
    assert table[0].split()[-1] == "line"
    assert table[1].count(" | ") == 4  # five tricks
    first = [f"{p['seat']}:{p['card']}" for p in rec["line"][:4]] + [">" + rec["line"][3]["winner"]]
    assert " ".join(first) in table[1]
    # from inside a trick: the line starts with the next seat's card
    card = rec["line"][0]["card"]
    after = json.loads(ok(run(*solve_args(), "--trick", card, "--line", "--format", "json", text)).stdout)[0]
    assert after["line"][0]["seat"] == rec["line"][1]["seat"] and len(after["line"]) == 19


def test_trick_continues_from_a_played_card():
    # a card that is not the lead's best: its value is not the position's, so a value solved
    # without the --trick card cannot pass for it (the best card's value is the position's)
    text = deals(SMALL, 1, 7)[0]
    rec = json.loads(ok(run(*solve_args(), "--cards", "--format", "json", text)).stdout)[0]
    card, value = next((c, v) for c, v in rec["cards"].items() if v != rec["declarer_points"])
    after = json.loads(ok(run(*solve_args(), "--trick", card.lower(), "--format", "json", text)).stdout)[0]
    assert after["trick"] == [card]
    assert after["declarer_points"] == value


def test_a_deal_without_its_nest_comes_back_canonical():
    """The deal field is canonical RDN: an empty nest part is 'nest:', no trailing space."""
    text = "n: b14 / e: b13 / s: b12 / w: b11"
    doc = json.loads(ok(run(*solve_args(SMALL, "B", "N", "--format", "json"), text)).stdout)
    assert doc[0]["deal"] == "N: B14 / E: B13 / S: B12 / W: B11 / nest:"
    row = next(csv.DictReader(io.StringIO(ok(run(*solve_args(SMALL, "B", "N", "--format", "csv"), text)).stdout)))
    assert row["deal"] == doc[0]["deal"]


def test_illegal_trick_card_is_bad_input():
    text = deals(SMALL, 1, 6)[0]
    d = Deal.from_rdn(text, SMALL)
    not_leaders = d.hand("E").cards()[0].rdn()           # N leads; E's card cannot be N's play
    result = run(*solve_args(), "--trick", not_leaders, text)
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert repr(not_leaders) in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.parametrize("bad", [
    "N: B14 / E: B13 / S: B12",                                  # a seat missing
    "N: B14 B5 / E: B13 / S: B12 / W: B11",                      # unequal hands
    "N: B14 / E: B13 / S: B12 / W: B4",                          # B4 is not in the hasbro deck
    "N: B14 / E: B14 / S: B12 / W: B11",                         # duplicate
    "N: B14 / E: B13 / S: B12 / X: B11",                         # unknown seat
])
def test_bad_deal_exits_2(bad):
    result = run(*solve_args(), bad)
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and "Traceback" not in result.stderr
    assert result.stderr.startswith("Error: DEAL: ") and result.stderr.count("\n") == 1


def test_two_deals_as_arguments_are_one_line_exit_2():
    text = deals(SMALL, 1, 6)[0]
    result = run(*solve_args(), text, text)
    assert result.exit_code == 2 and result.stdout == ""
    assert "more than one deal" in result.stderr and result.stderr.count("\n") == 1
    # one deal in unquoted words is still one deal
    assert run(*solve_args(), *text.split()).exit_code == 0


@pytest.mark.parametrize("sep", ["\n", " "])
def test_two_deals_in_one_argument_are_called_two_deals(sep):
    # solve "$(rook-analyze deal --count 2)": one argument holding two deals was read as one
    # deal, and the message blamed a card "'N:' (in nest)"
    a, b = deals(SMALL, 2, 6)
    result = run(*solve_args(), a + sep + b)
    assert result.exit_code == 2 and result.stdout == ""
    assert "the argument holds more than one deal" in result.stderr and result.stderr.count("\n") == 1
    # one deal written over several lines is still one deal
    assert ok(run(*solve_args(), "--format", "json", a.replace(" / ", "\n/ "))).stdout


@pytest.mark.parametrize("extra, words", [
    (" / nest: B5", "the nest is given twice"),
    (" / S: B5", "seat S is given twice"),
    (" /", "an empty part"),
])
def test_one_deal_in_words_with_a_part_too_many_is_not_called_two_deals(extra, words):
    # a deal with its nest, unquoted, and one part too many (or a stray /) has more /s
    # than seats: it was "the N arguments hold more than one deal", not what is wrong
    text = deals(SMALL, 1, 6)[0] + extra
    result = run(*solve_args(), *text.split())
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("Error: DEAL: ") and words in result.stderr
    assert "more than one deal" not in result.stderr and result.stderr.count("\n") == 1
    # quoted, the same message
    assert words in run(*solve_args(), text).stderr


def test_compile_notice_goes_to_stderr_once(monkeypatch):
    monkeypatch.setattr(common, "_NOTICE_SHOWN", False)
    asked = []
    monkeypatch.setattr("rook_analyze.solver.needs_compile", lambda uses: asked.append(tuple(uses)) or True)
    texts = "\n".join(deals(SMALL, 2, 1))
    result = ok(run(*solve_args(), "--format", "jsonl", "-", input=texts))
    assert result.stderr.count("compiling the solver") == 1
    assert [json.loads(s)["deal"] for s in result.stdout.splitlines()] == texts.splitlines()
    assert asked == [("solve",)]  # only the kernels this command runs
    asked.clear()
    monkeypatch.setattr(common, "_NOTICE_SHOWN", False)
    ok(run(*solve_args(), "--cards", "--line", texts.splitlines()[0]))
    assert asked[0] == ("solve", "card_values", "line")


def test_compile_notice_names_an_options_kernel_when_the_search_is_cached(monkeypatch):
    # solve compiled earlier: the first --cards or --line run compiles only that option's small kernel
    monkeypatch.setattr(common, "_NOTICE_SHOWN", False)
    monkeypatch.setattr("rook_analyze.solver.needs_compile",
                        lambda uses: any(u not in ("solve", "batch") for u in tuple(uses)))
    result = ok(run(*solve_args(), "--line", deals(SMALL, 1, 1)[0]))
    assert result.stderr.splitlines()[0] == "compiling the solver's line of play for --line (first run only)..."
    monkeypatch.setattr(common, "_NOTICE_SHOWN", False)
    result = ok(run(*solve_args(), "--cards", "--line", deals(SMALL, 1, 1)[0]))
    assert result.stderr.splitlines()[0] == ("compiling the solver's card values for --cards and line of play "
                                             "for --line (first run only)...")
    monkeypatch.setattr(common, "_NOTICE_SHOWN", False)
    result = ok(run(*solve_args(), deals(SMALL, 1, 1)[0]))
    assert "compiling" not in result.stderr


def test_compile_notice_asks_about_the_kernels_a_command_runs(monkeypatch):
    """bench runs solve_batch only: a cold card_values kernel is no reason to
    say it compiles (it would not)."""
    asked = []
    monkeypatch.setattr(common, "_NOTICE_SHOWN", False)
    monkeypatch.setattr("rook_analyze.solver.needs_compile", lambda uses: asked.append(tuple(uses)) or False)
    result = ok(run("bench", "--rules", "hasbro,hand_size=3", "--deals", "1", "--format", "json"))
    assert "compiling the solver" not in result.stderr
    assert asked == [("batch",)]


def test_needs_compile_names_its_entry_points(monkeypatch):
    from rook_analyze.solver import needs_compile, solve_batch
    assert needs_compile(()) is False  # nothing to run, nothing to compile
    # each entry point run once in this process: its kernel is in the disk cache now
    d = Deal.from_rdn("N: B14 / E: B13 / S: B12 / W: B11", SMALL)
    solve(d, "Y", "E"), card_values(d, "Y", "E"), solve_batch([d], "Y", "E"), play_line(d, "Y", "E")
    for uses in (("solve",), ("card_values",), ("batch",), ("line",), ("solve", "card_values", "batch", "line")):
        assert needs_compile(uses) is False, uses
    # as in a fresh process, where nothing is compiled yet: the kernels load from the disk cache
    from numba.core.caching import IndexDataCacheFile, NullCache
    from rook_analyze.solver import kernel

    for name in ("solve_exact", "card_values_kernel", "best_card_kernel"):
        monkeypatch.setattr(getattr(kernel, name), "overloads", {})
    if not isinstance(kernel.solve_exact._cache, NullCache):  # (a folder takes numba's cache)
        for uses in (("solve",), ("card_values",), ("batch",), ("line",)):
            assert needs_compile(uses) is False, uses
    # with the cache's indexes empty (as numba finds a fresh or a stale cache), every entry point must
    # compile: an answer that never looks at the cache (or fails and falls back to False) would not say so
    monkeypatch.setattr(IndexDataCacheFile, "_load_index", lambda self: {})
    for uses in (("solve",), ("card_values",), ("batch",), ("line",)):
        assert needs_compile(uses) is True, uses
    with pytest.raises(ValueError, match="'deal'"):
        needs_compile(("deal",))


def test_bench_reports_speed_per_rules():
    doc = json.loads(ok(run("bench", "--rules", "hasbro,hand_size=4", "--deals", "3", "--format", "json")).stdout)
    assert len(doc) == 1
    row = doc[0]
    assert row["rules"] == "hasbro,hand_size=4" and row["deals"] == 3
    assert row["deals_per_s"] > 0 and row["nodes_per_s"] > 0 and row["mean_nodes"] > 0
    assert 0 < row["median_ms"] <= row["p90_ms"] <= row["p99_ms"] <= row["max_ms"]
    table = ok(run("bench", "--rules", "bridge,hand_size=3", "--deals", "2")).stdout.splitlines()
    assert table[0].split()[:3] == ["rules", "deals", "deals_per_s"]
    assert table[1].split()[:2] == ["bridge,hand_size=3", "2"]


def test_bench_figures_come_from_the_timed_solves(monkeypatch):
    """The figures are those of the deals' own solves: the deals of --seed in
    order, N declaring with its longest color, W dealing, the preset's lead;
    the warm-up solve is not among them. A stand-in solver gives known times
    and nodes, so the median, percentiles and rates can be checked exactly."""
    from rook_analyze.cli import bench_cmd

    times, counts = [40.0, 10.0, 100.0, 30.0, 20.0], [4000, 1000, 9000, 3000, 2000]
    calls = []

    def fake_solve(deal, trump, declarer, leader=None, dealer=None):
        calls.append((deal, trump, declarer, leader, dealer))
        if deal.cards_per_hand == 2:  # the warm-up position: a time no deal has
            return api.SolveResult(0, 0, 10**9, 10**6)
        k = sum(1 for c in calls if c[0].cards_per_hand != 2) - 1
        return api.SolveResult(0, 0, counts[k], times[k])

    monkeypatch.setattr(bench_cmd, "solve", fake_solve)
    doc = json.loads(ok(run("bench", "--rules", "hasbro", "--deals", "5", "--seed", "7", "--format", "json")).stdout)
    rules = Rules.from_spec("hasbro")
    want_deals = list(random_deals(rules, 5, 7))
    timed = [c for c in calls if c[0].cards_per_hand != 2]
    assert [c[0] for c in timed] == want_deals
    assert [c[1:] for c in timed] == [(bench_cmd.longest_color(d.hands[0]), 0, None, 3) for d in want_deals]
    assert len(calls) == 6  # one warm-up, then the five deals
    assert doc == [{
        "rules": "hasbro", "deals": 5, "deals_per_s": doc[0]["deals_per_s"],
        "median_ms": 30.0, "p90_ms": 76.0, "p99_ms": 97.6, "max_ms": 100.0,  # numpy's linear percentiles
        "mean_nodes": 3800, "nodes_per_s": round(19000 / 0.2),
    }]
    assert doc[0]["deals_per_s"] > 0


README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_solve_example_shows_real_values():
    text = README.read_text()
    m = re.search(r"```sh\nrook-analyze deal ([^\n|]*) \| rook-analyze solve ([^\n]*) -\n```\n\n```\n(.*?)```", text, re.S)
    assert m, "the solve example is missing from README.md"
    deal_args, solve_args_, shown = shlex.split(m.group(1)), shlex.split(m.group(2)), m.group(3)
    dealt = ok(run("deal", *deal_args)).stdout
    result = ok(run("solve", *solve_args_, "-", input=dealt)).stdout
    got, want = result.splitlines(), shown.splitlines()
    assert got[0].split() == want[0].split()              # widths follow the ms column
    # the values; nodes and ms depend on the solver's table history and the machine
    assert got[1].split()[:6] == want[1].split()[:6]


def test_readme_python_example_runs(capsys):
    # the solver's example under "Library use" (other python blocks run long Monte Carlo jobs)
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    code = next(b for b in blocks if b.startswith("from rook_analyze.solver import"))
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    declarer, defender, nodes, ms = out[0].split()
    assert int(declarer) + int(defender) == 120 and int(nodes) > 0 and float(ms) > 0
    # the second line: each card N may lead (hasbro: N, left of dealer W, leads) and N-S's points after it;
    # N-S maximise, so the best of them is the value on the first line
    cards = json.loads(out[1].replace("'", '"'))
    held = random_deal(Rules.from_spec("hasbro,bird=low"), seed=1).hand("N")   # the example's deal
    assert set(cards) == {c.rdn() for c in held}
    assert max(cards.values()) == int(declarer)


def test_bad_table_size_from_the_environment_is_one_line_before_any_deal(monkeypatch):
    monkeypatch.setattr("rook_analyze.solver.api.TT_BITS", "lots")
    result = run(*solve_args(), deals(SMALL, 1, 1)[0])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "Error: ROOK_ANALYZE_TT_BITS 'lots': the table size must be an integer from 8 to 31 "
        "(log2 of its entries, 116 bytes each)"]


def _without_timings(text: str) -> list[dict]:
    return [{k: v for k, v in json.loads(line).items() if k not in ("nodes", "ms")} for line in text.splitlines()]


def test_deals_solved_on_threads_come_out_as_one_at_a_time():
    # several deals go to the cores at once; the records, and their order, are those of one thread
    rules = "hasbro,hand_size=6"
    text = "\n".join(deals(rules, 9, 12)) + "\n"
    args = solve_args(rules, "B", "N", "--cards", "--line")
    one = ok(run(*args, "--format", "jsonl", "--workers", "1", "-", input=text)).stdout
    assert len(one.splitlines()) == 9
    for workers in ("2", "3"):
        many = ok(run(*args, "--format", "jsonl", "--workers", workers, "-", input=text)).stdout
        assert _without_timings(many) == _without_timings(one)
    # the default (every core) and the other formats too
    doc = json.loads(ok(run(*args, "--format", "json", "-", input=text)).stdout)
    assert [{k: v for k, v in r.items() if k not in ("nodes", "ms")} for r in doc] == _without_timings(one)
    rows = list(csv.DictReader(io.StringIO(ok(run(*args, "--format", "csv", "--workers", "2", "-",
                                                   input=text)).stdout)))
    assert [r["deal"] for r in rows] == [r["deal"] for r in doc]
    assert [int(r["declarer_points"]) for r in rows] == [r["declarer_points"] for r in doc]
    table = ok(run(*solve_args(rules, "B", "N"), "--workers", "2", "-", input=text)).stdout.splitlines()
    assert [line.split()[4] for line in table[1:]] == [str(r["declarer_points"]) for r in doc]


def test_an_error_part_way_stops_the_threads_where_one_at_a_time_stops():
    # a --trick card that N holds in the first deals but not in the fourth: the records before it
    # are printed, then the one-line error that names the fourth, whatever the thread count
    rules = "hasbro,hand_size=6"
    pool = [Deal.from_rdn(t, rules) for t in deals(rules, 40, 13)]
    card = next(c for c in pool[0].hand("N").cards() if all(c in d.hand("N") for d in pool[1:3]))
    bad = next(i for i, d in enumerate(pool) if i >= 3 and card not in d.hand("N"))
    chosen = pool[:3] + [pool[bad]] + pool[3:bad] + pool[bad + 1:bad + 5]
    text = "\n".join(d.rdn() for d in chosen) + "\n"
    outs = []
    for workers in ("1", "2"):
        res = run(*solve_args(rules, "B", "N"), "--trick", card.rdn(), "--format", "jsonl", "--workers", workers,
                  "-", input=text)
        assert res.exit_code == 2 and "Traceback" not in res.stderr
        assert len(res.stderr.splitlines()) == 1 and "not in N's hand" in res.stderr
        outs.append((_without_timings(res.stdout), res.stderr))
    assert outs[0] == outs[1]
    assert [r["deal"] for r in outs[0][0]] == [d.rdn() for d in chosen[:3]]
    assert api._stop[0] == 0  # the threads' searches were stopped, and the flag cleared


def test_times_keep_their_documented_places_in_table_and_csv(monkeypatch):
    # README: solve's ms is to the microsecond and bench's milliseconds to 0.01 "in every format";
    # table and csv wrote every float to 6 significant digits, so a 1314.693 ms solve was 1314.69
    # and a 12345.68 ms median 12345.7
    from rook_analyze.cli import bench_cmd, solve_cmd

    text = deals(SMALL, 1, 4)[0]
    monkeypatch.setattr(solve_cmd, "solve_deal", lambda *a: api.SolveResult(10, 20, 5, 1314.6934))
    assert json.loads(ok(run(*solve_args(), "--format", "json", text)).stdout)[0]["ms"] == 1314.693
    row = next(csv.DictReader(io.StringIO(ok(run(*solve_args(), "--format", "csv", text)).stdout)))
    assert row["ms"] == "1314.693"
    assert ok(run(*solve_args(), text)).stdout.splitlines()[1].split()[-1] == "1314.693"

    monkeypatch.setattr(bench_cmd, "solve", lambda *a: api.SolveResult(0, 0, 1000, 12345.678))
    args = ("bench", "--rules", "hasbro,hand_size=4", "--deals", "2")
    assert json.loads(ok(run(*args, "--format", "json")).stdout)[0]["median_ms"] == 12345.68
    row = next(csv.DictReader(io.StringIO(ok(run(*args, "--format", "csv")).stdout)))
    assert row["median_ms"] == row["max_ms"] == "12345.68"
    assert ok(run(*args)).stdout.splitlines()[1].split()[3] == "12345.68"


def test_a_deal_that_does_not_read_fails_before_any_solve(tmp_path):
    # README: every deal is read first; a bad one prints no record, in jsonl and csv too, and the
    # one-line error names its line
    good = deals(SMALL, 2, 3)
    path = tmp_path / "deals.rdn"
    path.write_text(f"{good[0]}\r\n# a comment\r\n{good[1]}\r\nN: B14 / E: X9 / S: B12 / W: B11\r\n")
    for fmt in ("jsonl", "csv", "table", "json"):
        res = run(*solve_args(), "--format", fmt, "--file", str(path))
        assert res.exit_code == 2 and res.stdout == "", fmt
        assert res.stderr == f"Error: {path} line 4: unknown card 'X9': expected a color B/R/Y/G and a number " \
                             "1-14 (e.g. B14), or Rook (in E)\n"


@pytest.mark.parametrize("source", [["-"], ["--file", "-"]])
def test_standard_input_reads_alike_as_dash_and_as_file_dash(source):
    # '-' read sys.stdin, which splits lines on LF alone and decodes by the locale: two deals
    # ending in CR (old Mac files) were read as one, and under PYTHONIOENCODING=latin-1 a
    # byte-order mark was an unknown card; --file - read both right
    import os
    import subprocess
    import sys

    a, b = deals(SMALL, 2, 6)
    env = {**os.environ, "PYTHONIOENCODING": "latin-1"}
    for data in ((a + "\r" + b + "\r").encode(), ("\ufeff" + a + "\n" + b + "\n").encode("utf-8")):
        p = subprocess.run([sys.executable, "-m", "rook_analyze.cli", *solve_args(), "--format", "jsonl", *source],
                           input=data, capture_output=True, env=env)
        assert p.returncode == 0, p.stderr.decode()
        assert [json.loads(line)["deal"] for line in p.stdout.decode().splitlines()] == [
            Deal.from_rdn(a, Rules.from_spec(SMALL)).rdn(), Deal.from_rdn(b, Rules.from_spec(SMALL)).rdn()]
