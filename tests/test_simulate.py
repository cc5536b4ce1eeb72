"""Batch simulation: chunk contents and determinism, the output folder, and
real Dask runs on loopback (an embedded LocalCluster, and a ``dask scheduler``
with two ``dask worker`` processes started here) that lose a worker or are
killed outright and still end with the dataset of an uninterrupted run."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from clirunner import CliRunner
from rook_analyze.analysis.features import hand_features
from rook_analyze.analysis.policy import DEFAULT_POLICY, POLICY_REVISION
from rook_analyze.analysis.simulate import (META_FILE, PLAN_KEY, Plan, SimulationError, chunk_deals, dataset_schema,
                                            default_chunk_size, finished_chunks, load_plan, make_plan, prepare_output, read_dataset,
                                            simulate, simulate_chunk, write_part)
from rook_analyze.cli.main import main
from rook_analyze.solver import Deal, Hand, Rules, solve

TINY = "hasbro,hand_size=4"      # solves in microseconds: for the in-process checks
CLUSTER_RULES = "hasbro,hand_size=7"  # a chunk of 3 deals takes about half a second: runs can be cut mid-way
CLUSTER_DEALS = 24
CLUSTER_CHUNK = 3
CLUSTER_SEED = 11


# ------------------------------------------------------------- one chunk
def test_chunk_rows_are_the_policy_and_the_solver():
    plan = make_plan(TINY, 6, seed=5, chunk_size=3)
    rules = Rules.from_spec(TINY)
    table = simulate_chunk(plan, 1)
    assert table.schema.equals(dataset_schema(rules))
    frame = table.to_pandas()
    assert len(frame) == 3 * 4
    assert list(frame["deal_id"]) == [d for d in (3, 4, 5) for _ in range(4)]
    assert list(frame["seat"]) == ["N", "E", "S", "W"] * 3
    deals = chunk_deals(plan, 1)
    for _, row in frame.iterrows():
        deal = deals[row["deal_id"] - 3]
        seat = rules.check_seat(row["seat"])
        assert row["hand"] == deal.hands[seat].rdn()
        assert row["nest"] == deal.nest.rdn()
        for name, value in hand_features(rules, deal.hands[seat]).items():
            assert row[name] == value, name
        both = deal.hands[seat] | deal.nest
        # the policy of hand (issue 6: "policy discards as in hand"), seeing hand and nest alone
        assert row["policy_trump"] == DEFAULT_POLICY.trump(both, rules)
        for t in rules.trumps:
            discard = Hand.from_rdn(row[f"discard_{t}"])
            assert len(discard) == rules.nest_size and (discard - both).mask == 0
            assert discard == DEFAULT_POLICY.discard(both, t, rules), t
            # the stored points are the solver's value of that position
            hands = list(deal.hands)
            hands[seat] = both - discard
            pos = Deal(rules, tuple(hands), discard)
            assert row[f"points_{t}"] == solve(pos, t, seat, dealer="W").declarer_points
        pts = [row[f"points_{t}"] for t in rules.trumps]
        assert row["best_points"] == max(pts)
        assert row["policy_points"] == row[f"points_{row['policy_trump']}"]
        assert row[f"points_{row['best_trump']}"] == max(pts)
        if row["policy_points"] == max(pts):  # a tie with the policy's trump goes to it (README)
            assert row["best_trump"] == row["policy_trump"]
        # hasbro: W deals, N (left of the dealer) leads
        assert row["leader"] == "N" and row["declarer_leads"] == (row["seat"] == "N")
        assert row["side_leads"] == (row["seat"] in ("N", "S"))
        assert row["position"] == {"N": 1, "E": 2, "S": 3, "W": 4}[row["seat"]]


@pytest.mark.parametrize("rules, hand, expected", [
    # counters 20 + 10 + 10 + 5 + 10; runs B14 B13 and G14 G13; 12 or above: B14 B13 Y12 G14 G13
    ("hasbro", "Rook B14 B13 B11 R10 R5 Y12 G14 G13",
     dict(counters=55, rook=1, len_B=3, len_R=2, len_Y=1, len_G=2, top_B=14, top_R=10, top_Y=12, top_G=14,
          run_B=2, run_R=0, run_Y=0, run_G=2, longest=3, longest_color="B", tops=4, high=5, voids=0,
          singletons=1)),
    # kentucky: the 1 ranks first and counts 15 (15 + 10 + 15 + 10 + 5 + 20); its runs start at the 1
    ("kentucky", "Rook B1 B14 R1 R14 Y6 Y5 G13 G12 G11",
     dict(counters=75, rook=1, len_B=2, len_R=2, len_Y=2, len_G=3, top_B=15, top_R=15, top_Y=6, top_G=13,
          run_B=2, run_R=2, run_Y=0, run_G=0, longest=3, longest_color="G", tops=4, high=6, voids=0,
          singletons=0)),
    # four colors of two: the longest is the one with the higher top card (R13 over B12)
    ("hasbro", "Rook B12 B5 R13 R6 Y11 Y7 G10 G9",
     dict(counters=35, rook=1, len_B=2, len_R=2, len_Y=2, len_G=2, top_B=12, top_R=13, top_Y=11, top_G=10,
          run_B=0, run_R=0, run_Y=0, run_G=0, longest=2, longest_color="R", tops=0, high=2, voids=0,
          singletons=0)),
    # a void and two birds (double_bird), no counters among the numbers
    ("hasbro,double_bird=true", "Rook Rook2 B13 B12 B11 B9 B8 R9 R8",
     dict(counters=40, rook=2, len_B=5, len_R=2, len_Y=0, len_G=0, top_B=13, top_R=9, top_Y=0, top_G=0,
          run_B=0, run_R=0, run_Y=0, run_G=0, longest=5, longest_color="B", tops=0, high=2, voids=2,
          singletons=0)),
], ids=["hasbro", "kentucky", "tie", "double_bird"])
def test_hand_features_worked_by_hand(rules, hand, expected):
    """The dataset's features (issue 6: counters held, length and top cards per
    color, the Rook) on hands worked out by hand: the chunk test above only
    compares the rows with hand_features itself."""
    assert hand_features(rules, Hand.from_rdn(hand)) == expected


def test_longest_color_ties_go_to_the_first_in_b_r_y_g_order():
    # B and G both three long, both headed by the 14: B, the first (its docstring)
    assert hand_features(Rules.preset("hasbro"), Hand.from_rdn("B14 B9 B7 G14 G9 G7 R5 Y6 Y7"))["longest_color"] == "B"
    assert hand_features(Rules.preset("hasbro"), Hand.from_rdn("G14 G9 G7 R14 R9 R7 B5 Y6 Y7"))["longest_color"] == "R"


def test_the_readme_documents_the_schema():
    """Issue 6: the dataset's schema is documented in the README: its table names
    every column (``len_B`` ... ``len_G`` standing for the four colors) with its type."""
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    table = text.split("| column | type | meaning |\n|---|---|---|\n", 1)[1].split("\n\n", 1)[0]
    documented = {}
    for line in table.splitlines():
        names_cell, types_cell = [c.strip() for c in line.strip("|").split("|")[:2]]
        names = re.findall(r"`(\w+)`", names_cell)
        if "..." in names_cell:   # `x_B` ... `x_G`
            names = [names[0][:-1] + c for c in "BRYG"]
        types = [t.strip() for t in types_cell.split(",")]
        for name, kind in zip(names, types * len(names) if len(types) == 1 else types):
            documented[name] = kind
    schema = dataset_schema(Rules.from_spec("hasbro"))
    assert documented == {f.name: str(f.type) for f in schema}


def test_a_chunk_depends_on_seed_and_index_alone():
    a = make_plan(TINY, 50, seed=9, chunk_size=10)
    b = make_plan(TINY, 20, seed=9, chunk_size=10)   # another run length, same chunk 1
    assert simulate_chunk(a, 1).equals(simulate_chunk(b, 1))
    assert [d.rdn() for d in chunk_deals(a, 1)] == [d.rdn() for d in chunk_deals(b, 1)]
    assert [d.rdn() for d in chunk_deals(a, 1)] != [d.rdn() for d in chunk_deals(a, 2)]
    c = make_plan(TINY, 50, seed=10, chunk_size=10)
    assert [d.rdn() for d in chunk_deals(a, 1)] != [d.rdn() for d in chunk_deals(c, 1)]
    # the module docstring's generator: chunk i deals from numpy.random.default_rng([seed, i])
    import numpy as np
    from rook_analyze.solver import random_deal

    rng = np.random.default_rng([9, 1])
    dealt = [random_deal(Rules.from_spec(TINY), rng).rdn() for _ in range(10)]
    assert [d.rdn() for d in chunk_deals(a, 1)] == dealt


def test_a_chunks_progress_counts_its_deals():
    # progress(n): the deals finished since the last call (the solver counts positions: seats x trumps a deal)
    plan = make_plan(TINY, 6, seed=5, chunk_size=3)
    told = []
    simulate_chunk(plan, 1, progress=told.append)
    assert sum(told) == 3 and all(n > 0 for n in told)


def test_plan_chunks_and_the_short_last_chunk():
    plan = Plan(rules=TINY, seed=1, deals=23, chunk_size=10)
    assert plan.chunks == 3
    assert [plan.chunk_span(i) for i in range(3)] == [(0, 10), (10, 10), (20, 3)]
    assert len(chunk_deals(plan, 2)) == 3
    assert Plan.from_json(plan.to_json()) == plan
    with pytest.raises(SimulationError, match="chunk 3"):
        plan.chunk_span(3)
    with pytest.raises(SimulationError, match="deals=0"):
        Plan(rules=TINY, seed=1, deals=0)


def test_the_default_chunk_size_gives_a_small_run_chunks_to_share():
    # 200 deals a chunk, or N/32 rounded up below 6,400 deals: never a single chunk for many deals
    assert [default_chunk_size(n) for n in (1, 31, 32, 33, 60, 1000, 6399, 6400, 10**6)] == \
        [1, 1, 1, 2, 2, 32, 200, 200, 200]
    assert make_plan(TINY, 60, seed=1).chunk_size == 2 and make_plan(TINY, 60, seed=1).chunks == 30
    assert make_plan(TINY, 10**6, seed=1).chunks == 5000
    assert make_plan(TINY, 60, seed=1, chunk_size=60).chunks == 1


def test_resume_without_a_chunk_size_takes_the_datasets(tmp_path):
    # a dataset made with chunks of 4 (not the default for 8 deals, which is 1)
    out = tmp_path / "run"
    plan = make_plan(TINY, 8, seed=3, chunk_size=4)
    prepare_output(out, plan, resume=False)
    write_part(out, 0, simulate_chunk(plan, 0))
    summary = simulate(TINY, 8, out, resume=True, workers=1, progress=False)
    assert summary.plan == plan and summary.chunks_done_before == 1 and summary.chunks_computed == 1
    with pytest.raises(SimulationError, match="chunk size 4 .asked 1."):
        simulate(TINY, 8, out, resume=True, chunk_size=1, progress=False)


# ------------------------------------------------------------ the folder
def test_output_folder_checks_and_resume_mismatch(tmp_path):
    out = tmp_path / "run"
    plan = make_plan(TINY, 8, seed=3, chunk_size=4)
    assert prepare_output(out, plan, resume=False) == set()
    assert load_plan(out) == plan
    write_part(out, 0, simulate_chunk(plan, 0))
    assert [p.name for p in out.iterdir() if p.name.startswith(".")] == []   # no temporary file left
    assert finished_chunks(out) == {0}
    with pytest.raises(SimulationError, match="not empty .it holds a simulate dataset: resume=True finishes it.") as e:
        prepare_output(out, plan, resume=False)
    assert "--resume" not in str(e.value) and "--resume finishes it" in e.value.cli_message
    (out / ".part-000001.parquet.123.abcd.tmp").write_bytes(b"half a file")
    assert prepare_output(out, plan, resume=True) == {0}
    assert not (out / ".part-000001.parquet.123.abcd.tmp").exists()
    for other, word in ((make_plan(TINY, 8, seed=4, chunk_size=4), "seed"),
                        (make_plan(TINY, 9, seed=3, chunk_size=4), "deals"),
                        (make_plan(TINY, 8, seed=3, chunk_size=2), "chunk size"),
                        (make_plan("hasbro", 8, seed=3, chunk_size=4), "rules")):
        with pytest.raises(SimulationError, match=word):
            prepare_output(out, other, resume=True)
    frame = read_dataset(out)
    assert len(frame) == 4 * 4 and frame["deal_id"].max() == 3
    # a plain Parquet dataset: the metadata and temporary names are skipped by pyarrow
    (out / ".part-000001.parquet.9.beef.tmp").write_bytes(b"half a file")
    assert len(pd.read_parquet(out)) == len(frame)
    # a part one past the plan's last chunk (chunks 0 and 1 here) is not this dataset's
    shutil.copy(out / "part-000000.parquet", out / "part-000002.parquet")
    with pytest.raises(SimulationError, match="holds part 2 beyond the plan's 2 chunks"):
        prepare_output(out, plan, resume=True)


def test_read_dataset_joins_parts_in_batches_and_orders_rows_written_out_of_order(tmp_path, monkeypatch):
    """Parts are joined as they are read (``JOIN_PARTS`` at a time) into the
    same frame; rows a part holds out of order (another program wrote it)
    come back in deal and seat order, and rows in order are not sorted."""
    import rook_analyze.analysis.simulate as sim

    out = tmp_path / "run"
    plan = make_plan(TINY, 10, seed=5, chunk_size=2)
    prepare_output(out, plan, resume=False)
    for i in range(plan.chunks):
        write_part(out, i, simulate_chunk(plan, i))
    whole = read_dataset(out)
    assert list(whole["deal_id"]) == [d for d in range(10) for _ in range(4)]
    monkeypatch.setattr(sim, "JOIN_PARTS", 2)
    pd.testing.assert_frame_equal(read_dataset(out), whole)
    sorts = []
    monkeypatch.setattr(pd.DataFrame, "sort_values", lambda self, *a, **k: sorts.append(a) or
                        pd.DataFrame.sort_index(self))  # any sort here is a fault: the rows are in order
    read_dataset(out)
    assert sorts == []
    monkeypatch.undo()
    path = out / "part-000003.parquet"
    table = pq.read_table(path)
    pq.write_table(table.take(list(range(table.num_rows))[::-1]).replace_schema_metadata(table.schema.metadata),
                   path)
    assert pq.read_table(path).column("deal_id").to_pylist()[0] == 7
    pd.testing.assert_frame_equal(read_dataset(out), whole)
    # columns without deal_id come in the same order: sorted by position alone, every deal's
    # first seat came first
    for columns in (["position", "points_B"], ["points_B", "seat"]):
        pd.testing.assert_frame_equal(read_dataset(out, columns), whole[columns])


def test_warming_the_solver_keeps_no_full_size_table():
    """The process that runs ``simulate`` only warms the kernels; the workers
    solve. A default table (about 240 MB) stayed with it for the whole run
    and after."""
    from rook_analyze.analysis.simulate import warm_solver
    from rook_analyze.solver import api, release_tables

    release_tables()
    warm_solver(TINY)
    held = sum(a.nbytes for entry in api._tables._free for a in entry[0])
    assert 0 < held < 20_000_000
    release_tables()


def test_a_dataset_of_another_policy_revision_is_read_but_not_resumed(tmp_path):
    """The plan names the declarer policy's revision: a dataset written before
    it did (no 'policy' field: the first revision, which kept losing counters
    under a last-trick nest) still reports, but a resume, or a chunk of its
    plan computed here, is refused: its rows would hold other points."""
    out = tmp_path / "run"
    plan = two_chunk_dataset(out, 4)
    assert plan.policy == POLICY_REVISION == json.loads((out / META_FILE).read_text())["policy"]
    meta = out / META_FILE
    doc = json.loads(meta.read_text())
    del doc["policy"]
    meta.write_text(json.dumps(doc))
    strip_records(out)  # as its parts were written: before parts recorded their run
    old = load_plan(out)
    assert old.policy == "heuristic 1" and old != plan
    assert len(read_dataset(out)) == 4 * 4
    r = run_cli("report", str(out), "--format", "json")
    assert r.exit_code == 0 and json.loads(r.stdout)["dataset"]["policy"] == "heuristic 1"
    assert "(policy: heuristic 1)." in run_cli("report", str(out)).stdout
    with pytest.raises(SimulationError, match=re.escape(f"policy 'heuristic 1' (asked '{POLICY_REVISION}'); use a "
                                                        "new output folder (or the rook-analyze that made it)")):
        prepare_output(out, make_plan(TINY, 4, seed=3, chunk_size=2), resume=True)
    with pytest.raises(SimulationError, match="declarer policy is 'heuristic 1'"):
        simulate_chunk(old, 0)
    doc["policy"] = 2
    meta.write_text(json.dumps(doc))
    with pytest.raises(SimulationError, match="field 'policy' is 2, not text"):
        load_plan(out)


def test_a_part_is_written_to_a_temporary_name_and_renamed(tmp_path, monkeypatch):
    """Issue 6: each chunk written atomically. A write that dies part-way leaves
    no part (nor its temporary file); a whole one arrives by a rename in the folder."""
    import rook_analyze.analysis.simulate as simulate_module

    out = tmp_path / "run"
    plan = make_plan(TINY, 8, seed=3, chunk_size=4)
    prepare_output(out, plan, resume=False)
    table = simulate_chunk(plan, 0)
    real_write, real_replace = simulate_module.pq.write_table, os.replace

    def dies_part_way(t, f, **kwargs):
        f.write(b"PAR1 half a part")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(simulate_module.pq, "write_table", dies_part_way)
    with pytest.raises(OSError):
        write_part(out, 0, table)
    assert sorted(p.name for p in out.iterdir()) == [META_FILE] and finished_chunks(out) == set()
    renames = []
    monkeypatch.setattr(simulate_module.pq, "write_table", real_write)
    monkeypatch.setattr(os, "replace", lambda a, b: renames.append((Path(a), Path(b))) or real_replace(a, b))
    write_part(out, 0, table)
    (src, dst), = renames
    assert dst == out / "part-000000.parquet" and src.parent == out and src.name.startswith(".")
    assert not src.exists() and finished_chunks(out) == {0}


def test_simulate_with_nothing_left_to_do_starts_no_cluster(tmp_path):
    out = tmp_path / "run"
    plan = make_plan(TINY, 4, seed=3, chunk_size=4)
    prepare_output(out, plan, resume=False)
    write_part(out, 0, simulate_chunk(plan, 0))
    summary = simulate(TINY, 4, out, resume=True, chunk_size=4)   # the stored seed is found
    assert summary.plan.seed == 3 and summary.chunks_computed == 0 and summary.chunks_done_before == 1


def run_cli(*args: str):
    return CliRunner().invoke(main, list(args), prog_name="rook-analyze")


def test_cli_bad_input_is_one_line_exit_2(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "something").write_text("x")
    r = run_cli("simulate", "--rules", TINY, "--deals", "4", "--out", str(out))
    assert r.exit_code == 2 and "not empty" in r.stderr and r.stderr.count("\n") == 1
    assert "resume" not in r.stderr  # not a dataset: nothing to resume
    # a dataset's folder: the message names --resume, the command line's flag, alone
    data = tmp_path / "data"
    prepare_output(data, make_plan(TINY, 4, seed=3, chunk_size=4), resume=False)
    r = run_cli("simulate", "--rules", TINY, "--deals", "4", "--out", str(data))
    assert r.exit_code == 2 and r.stderr == (f"Error: output folder {str(data)!r} is not empty (it holds a "
                                             "simulate dataset: --resume finishes it); give a new or empty folder\n")
    r = run_cli("simulate", "--rules", TINY, "--deals", "4", "--out", str(tmp_path / "x"), "--workers", "2",
                "--scheduler", "tcp://127.0.0.1:1")
    assert r.exit_code == 2 and "--workers" in r.stderr and r.stderr.count("\n") == 1
    # more workers than the machine runs: named as the option, not the library's workers=
    r = run_cli("simulate", "--rules", TINY, "--deals", "4", "--out", str(tmp_path / "x"), "--workers", "99999")
    assert r.exit_code == 2 and r.stderr.startswith("Error: --workers 99999: at most ") and r.stderr.count("\n") == 1
    assert r.stderr.endswith("a larger cluster runs with --scheduler ADDRESS\n") and not (tmp_path / "x").exists()
    r = run_cli("simulate", "--rules", "nosuch", "--deals", "4", "--out", str(tmp_path / "y"))
    assert r.exit_code == 2 and "nosuch" in r.stderr
    assert not (tmp_path / "y").exists()


def test_cli_resume_with_nothing_to_resume_says_so_and_a_refused_write_is_status_1(tmp_path, monkeypatch):
    import rook_analyze.analysis.simulate as simulate_module

    calls = []

    def full_disk(*args, **kwargs):  # the run, up to a part the disk has no room for
        calls.append(kwargs["resume"])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(simulate_module, "simulate", full_disk)
    for out in (tmp_path / "new", tmp_path / "empty"):
        if out.name == "empty":
            out.mkdir()
        r = run_cli("simulate", "--rules", TINY, "--deals", "4", "--out", str(out), "--resume")
        lines = r.stderr.strip().splitlines()
        assert lines[0] == f"--resume: nothing to resume in {str(out)!r} (no {META_FILE}): starting a new run"
        assert r.exit_code == 1 and lines[-1] == f"Error: --out {str(out)!r}: No space left on device"
    # a folder with a run in it: resumed without the notice
    prepare_output(tmp_path / "run", make_plan(TINY, 4, seed=1, chunk_size=2), resume=False)
    r = run_cli("simulate", "--rules", TINY, "--deals", "4", "--out", str(tmp_path / "run"), "--resume")
    assert r.exit_code == 1 and "nothing to resume" not in r.stderr and calls == [True, True, True]


def test_a_start_killed_while_it_wrote_the_plan_leaves_a_folder_a_run_can_use(tmp_path, monkeypatch):
    """A run killed between opening the plan's temporary file and renaming it
    left ._simulate.json.PID.XXXXXXXX.tmp and no plan: the folder was 'not
    empty' for a new run and 'has files but no _simulate.json' for --resume,
    so neither could use it. It is a new folder: either starts the run there."""
    import rook_analyze.analysis.simulate as simulate_module

    plan = make_plan(TINY, 4, seed=1, chunk_size=2)
    leftover = f".{META_FILE}.4242.0badcafe.tmp"
    for resume in (False, True):
        out = tmp_path / f"killed-{resume}"
        out.mkdir()
        (out / leftover).write_text('{"rules": "hasb')
        assert prepare_output(out, plan, resume=resume) == set()
        assert sorted(p.name for p in out.iterdir()) == [META_FILE] and load_plan(out) == plan
    # and a part's temporary file beside it (a run killed mid-write, its plan then lost) is no dataset either
    out = tmp_path / "cli"
    out.mkdir()
    (out / leftover).write_text("")
    (out / ".part-000000.parquet.4242.0badcafe.tmp").write_bytes(b"PAR1")
    monkeypatch.setattr(simulate_module, "simulate", lambda *a, **k: (_ for _ in ()).throw(OSError(28, "full")))
    r = run_cli("simulate", "--rules", TINY, "--deals", "4", "--out", str(out), "--resume")
    assert r.stderr.startswith(f"--resume: nothing to resume in {str(out)!r}")
    # a folder with any other file still is not a new one
    (out / "notes.txt").write_text("x")
    with pytest.raises(SimulationError, match="not empty"):
        prepare_output(out, plan, resume=False)


def test_one_run_at_a_time_writes_into_a_folder(tmp_path):
    """Two runs started together into one new folder both found it empty (39
    of 200 tries): each wrote its plan, and the dataset held parts of both seeds
    under one plan, reported complete. A --resume beside a running run
    removed that run's temporary files, and its rename then failed. The run
    writing into a folder holds its lock; a second is refused, the folder
    untouched."""
    import rook_analyze.analysis.simulate as simulate_module

    out = tmp_path / "run"
    plan = make_plan(TINY, 4, seed=3, chunk_size=2)
    held = simulate_module._lock_output(out)          # a run writing into out, as simulate holds it
    assert held is not None
    prepare_output(out, plan, resume=False)
    writing = out / ".part-000000.parquet.4242.0badcafe.tmp"    # its part on the way
    writing.write_bytes(b"PAR1")
    for resume, seed in ((False, 4), (True, None), (True, 3)):
        with pytest.raises(SimulationError, match="another simulate run is writing into"):
            simulate(TINY, 4, out, seed, resume=resume, chunk_size=2, workers=1)
    assert writing.exists() and load_plan(out) == plan
    r = run_cli("simulate", "--rules", TINY, "--deals", "4", "--out", str(out), "--resume")
    assert r.exit_code == 2 and r.stderr.endswith("then run again with --resume if it did not\n")
    # another process is held off the same way (flock: the kernel's, dropped when its holder dies)
    probe = ("import sys; from pathlib import Path; from rook_analyze.analysis import simulate as s\n"
             "try: s._lock_output(Path(sys.argv[1]))\nexcept s.SimulationError as e: print(e)")
    r = subprocess.run([sys.executable, "-c", probe, str(out)], capture_output=True, text=True, timeout=60)
    assert "another simulate run is writing into" in r.stdout, r.stderr
    simulate_module._unlock_output(out, held)
    assert not (out / simulate_module.LOCK_FILE).exists()
    # once it lets go (or dies), a resume finishes the dataset: the dead run's temporary file is removed
    write_part(out, 0, simulate_chunk(plan, 0))
    write_part(out, 1, simulate_chunk(plan, 1))
    summary = simulate(TINY, 4, out, resume=True)
    assert summary.chunks_computed == 0 and not writing.exists()
    assert sorted(p.name for p in out.iterdir()) == [META_FILE, "part-000000.parquet", "part-000001.parquet"]
    # a run refused at the folder (not empty) leaves no lock file in it
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("x")
    with pytest.raises(SimulationError, match="not empty"):
        simulate(TINY, 4, other, 1, workers=1)
    assert sorted(p.name for p in other.iterdir()) == ["notes.txt"]


def test_workers_and_a_scheduler_together_are_one_line_naming_both(tmp_path):
    out = tmp_path / "run"
    r = run_cli("simulate", "--rules", TINY, "--deals", "4", "--out", str(out), "--workers", "2",
                "--scheduler", "tcp://127.0.0.1:8786")
    assert r.exit_code == 2 and r.stderr.count("\n") == 1, r.output
    assert "--workers 2 and --scheduler 'tcp://127.0.0.1:8786': give one, not both" in r.stderr
    assert not out.exists()


def test_a_malformed_scheduler_address_is_one_line_and_leaves_no_dataset(tmp_path):
    for address in ("garbage", "tcp://host", "foo://1.2.3.4:8786", "127.0.0.1:notaport", "", "tcp://:8786",
                    "tcp://127.0.0.1:99999", "tcp://127.0.0.1:-1", "127.0.0.1:0"):
        out = tmp_path / "run"
        r = run_cli("simulate", "--rules", TINY, "--deals", "4", "--out", str(out), "--scheduler", address)
        assert r.exit_code == 2, (address, r.output)
        assert "not a scheduler address" in r.stderr and repr(address) in r.stderr
        assert r.stderr.count("\n") == 1 and "Traceback" not in r.output
        assert not out.exists()  # nothing was written, so the same --out works without the scheduler


def test_a_solver_table_the_run_cannot_have_leaves_no_dataset(tmp_path, monkeypatch):
    # a bad ROOK_ANALYZE_TT_BITS is bad input, told before the folder is made; a table the machine
    # has no memory for fails before any chunk: either way the same command, put right, starts anew
    import rook_analyze.analysis.simulate as simulate_module

    out = tmp_path / "run"
    monkeypatch.setattr("rook_analyze.solver.api.TT_BITS", "lots")
    r = run_cli("simulate", "--rules", TINY, "--deals", "4", "--out", str(out), "--seed", "1")
    assert r.exit_code == 2 and r.stderr.startswith("Error: ROOK_ANALYZE_TT_BITS 'lots': ")
    assert r.stderr.count("\n") == 1 and not out.exists()
    monkeypatch.setattr("rook_analyze.solver.api.TT_BITS", 8)

    def no_memory(rules):
        raise MemoryError

    monkeypatch.setattr(simulate_module, "warm_solver", no_memory)
    for existed in (False, True):
        if existed:
            out.mkdir()
        r = run_cli("simulate", "--rules", TINY, "--deals", "4", "--out", str(out), "--seed", "1")
        assert r.exit_code == 1 and r.stderr.startswith("Error: out of memory"), r.output
        assert out.exists() == existed and not (out / META_FILE).exists()


def test_more_embedded_workers_than_the_memory_holds_are_refused_up_front(tmp_path, monkeypatch):
    # the workers start at once and each checks its own table against memory
    # the others have not taken yet: the run checks them together, first
    from rook_analyze.analysis.simulate import WORKER_BASE_BYTES
    from rook_analyze.solver import api

    monkeypatch.setattr(api, "TT_BITS", None)  # each worker's table as large as its searches use
    each = api.table_bytes(api.made_bits(None, Rules.from_spec(TINY).hand_size)) + WORKER_BASE_BYTES
    monkeypatch.setattr(api, "_memory_available", lambda: 2 * each + 1)
    out = tmp_path / "run"
    with pytest.raises(SimulationError, match=rf"^workers=3: each worker process holds about "
                                              rf"{each / 1e6:,.0f} MB .* use workers=2 or fewer"):
        simulate(TINY, 4, out, seed=1, workers=3, progress=False)
    assert not out.exists()
    r = run_cli("simulate", "--rules", TINY, "--deals", "4", "--out", str(out), "--seed", "1", "--workers", "3")
    # memory the system will not give, as where a solver's table does not fit: status 1, not bad input's 2
    assert r.exit_code == 1 and r.stderr.startswith("Error: --workers 3: ") and "use --workers 2 or fewer" in r.stderr
    assert r.stderr.count("\n") == 1 and not out.exists()
    monkeypatch.setattr(api, "_memory_available", lambda: each - 1)
    with pytest.raises(SimulationError, match="no worker fits") as refused:
        simulate(TINY, 4, out, seed=1, workers=1, progress=False)
    assert isinstance(refused.value, MemoryError)  # a MemoryError too: status 1 on the command line
    assert not out.exists()


def test_the_embedded_cluster_has_a_worker_a_core_this_process_may_run_on(tmp_path, monkeypatch):
    # under taskset -c 0 (or a job's cpuset) on a machine of 8 cores the default was 8 workers on 1 core
    from rook_analyze.analysis.simulate import WORKER_BASE_BYTES
    from rook_analyze.solver import api

    if not hasattr(os, "sched_getaffinity"):
        pytest.skip("no CPU affinity here")
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    monkeypatch.setattr(api, "TT_BITS", None)  # each worker's table as large as its searches use
    each = api.table_bytes(api.made_bits(None, Rules.from_spec(TINY).hand_size)) + WORKER_BASE_BYTES
    monkeypatch.setattr(api, "_memory_available", lambda: each - 1)  # refused before a cluster starts
    out = tmp_path / "run"
    with pytest.raises(SimulationError, match=r"^workers=1: "):
        simulate(TINY, 4, out, seed=1, progress=False)
    assert not out.exists()


def test_an_unreachable_scheduler_leaves_the_folder_as_it_was(tmp_path):
    out = tmp_path / "run"
    t0 = time.perf_counter()
    with pytest.raises(SimulationError, match="no Dask scheduler answers"):
        simulate(TINY, 4, out, seed=1, scheduler="tcp://127.0.0.1:1", chunk_size=4, progress=False,
                 connect_timeout=2)
    assert time.perf_counter() - t0 < 20  # gave up on its timeout, not Dask's 30 s default
    assert not out.exists()
    out.mkdir()
    with pytest.raises(SimulationError, match="no Dask scheduler answers"):
        simulate(TINY, 4, out, seed=1, scheduler="tcp://127.0.0.1:1", chunk_size=4, progress=False,
                 connect_timeout=2)
    assert out.is_dir() and list(out.iterdir()) == []


def test_cli_connect_timeout_bounds_the_wait_for_a_scheduler(tmp_path):
    out = tmp_path / "run"
    t0 = time.perf_counter()
    r = run_cli("simulate", "--rules", TINY, "--deals", "4", "--out", str(out), "--scheduler",
                "tcp://127.0.0.1:1", "--connect-timeout", "1")
    assert time.perf_counter() - t0 < 20
    assert r.exit_code == 2 and "no Dask scheduler answers" in r.stderr and r.stderr.count("\n") == 1
    assert not out.exists()
    r = run_cli("simulate", "--rules", TINY, "--deals", "4", "--out", str(out), "--connect-timeout", "0")
    assert r.exit_code == 2 and "--connect-timeout" in r.stderr
    # nan passes the option's range and was named by the library's argument, connect_timeout=nan
    r = run_cli("simulate", "--rules", TINY, "--deals", "4", "--out", str(out), "--connect-timeout", "nan")
    assert r.exit_code == 2 and r.stderr == "Error: --connect-timeout nan: expected seconds, above 0 and finite\n"
    r = run_cli("simulate", "--rules", TINY, "--deals", "4", "--out", str(out), "--connect-timeout", "inf")
    assert r.exit_code == 2 and r.stderr == "Error: --connect-timeout inf: expected seconds, above 0 and finite\n"
    for bad in (0, -1, "5", float("nan"), float("inf"), True):
        with pytest.raises(SimulationError, match="connect_timeout"):
            simulate(TINY, 4, out, seed=1, scheduler="tcp://127.0.0.1:1", connect_timeout=bad, progress=False)
    assert not out.exists()


@pytest.fixture
def not_a_scheduler():
    """Two services on loopback that are not Dask schedulers: ``quiet`` takes
    connections and says nothing, ``web`` answers every one with an HTTP 400."""
    import socket
    import threading

    quiet = socket.create_server(("127.0.0.1", 0))  # listening: the kernel takes the connections
    web = socket.create_server(("127.0.0.1", 0))

    def answer() -> None:
        while True:
            try:
                conn, _ = web.accept()
            except OSError:
                return
            with conn:
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")

    threading.Thread(target=answer, daemon=True).start()
    try:
        yield {name: f"tcp://127.0.0.1:{s.getsockname()[1]}" for name, s in (("quiet", quiet), ("web", web))}
    finally:
        quiet.close()
        web.close()


def test_a_service_that_is_not_a_scheduler_is_one_line_within_the_timeout(tmp_path, not_a_scheduler):
    # one that answers something else: it was a MemoryError traceback (its reply read as a frame length)
    out = tmp_path / "web"
    r = run_cli("simulate", "--rules", TINY, "--deals", "4", "--out", str(out), "--scheduler",
                not_a_scheduler["web"], "--connect-timeout", "5")
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert r.stderr.startswith(f"Error: scheduler {not_a_scheduler['web']!r}: no Dask scheduler answers there")
    assert r.stderr.count("\n") == 1 and not out.exists()
    # a tls:// address without Dask's TLS settings: it was a TypeError traceback
    tls = not_a_scheduler["web"].replace("tcp://", "tls://")
    r = run_cli("simulate", "--rules", TINY, "--deals", "4", "--out", str(out), "--scheduler", tls,
                "--connect-timeout", "5")
    assert r.exit_code == 2 and r.stderr.startswith(f"Error: scheduler {tls!r}: no Dask scheduler answers there (")
    assert "TLS" in r.stderr and r.stderr.count("\n") == 1 and not out.exists()
    # one that takes the connection and stays quiet: it held the command for ever (in its own
    # process here, so that the old hang fails the test instead of holding the suite)
    out = tmp_path / "quiet"
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "rook_analyze.cli", "simulate", "--rules", TINY, "--deals", "4",
                          "--out", str(out), "--scheduler", not_a_scheduler["quiet"], "--connect-timeout", "2"],
                         capture_output=True, text=True, timeout=60)
    assert time.perf_counter() - t0 < 40
    assert res.returncode == 2 and res.stderr == (f"Error: scheduler {not_a_scheduler['quiet']!r}: no Dask "
                                                  "scheduler answers there (no answer within 2 s)\n")
    assert not out.exists()


def test_a_client_that_fails_to_connect_is_closed_at_once(tmp_path, not_a_scheduler):
    # distributed leaves a Client whose start failed (here a tls:// address without Dask's TLS
    # settings) with its event-loop thread running, in a reference cycle: left to the collector, it
    # was closed on whatever thread collected it, and on the event-loop thread of a cluster being
    # made that close waited for the lock the start held: the next run failed after 10 s with an
    # AssertionError from distributed (the suite, once in a few runs, on Python 3.13)
    import gc
    import threading

    def loops() -> int:
        return sum(t.name == "IO loop" and t.is_alive() for t in threading.enumerate())

    tls = not_a_scheduler["web"].replace("tcp://", "tls://")
    before = loops()
    gc.disable()  # the collector must not do the work the run left undone
    try:
        with pytest.raises(SimulationError, match="TLS"):
            simulate(TINY, 4, tmp_path / "run", scheduler=tls, connect_timeout=5, progress=False)
        assert loops() == before
    finally:
        gc.enable()


def strip_records(out: Path) -> None:
    """Take each part's record of its run out (``PLAN_KEY``), as in a dataset
    written before parts recorded it."""
    for path in out.glob("part-*.parquet"):
        table = pq.read_table(path)
        meta = dict(table.schema.metadata)
        del meta[PLAN_KEY]
        pq.write_table(table.replace_schema_metadata(meta), path, compression="zstd")


def edited_part(tmp_path: Path, edit) -> Path:
    """A two-chunk dataset of 8 deals in tmp_path/run whose second part is
    written again as ``edit(table)`` makes it; the folder."""
    out = tmp_path / "run"
    two_chunk_dataset(out, 8)
    part = out / "part-000001.parquet"
    pq.write_table(edit(pq.read_table(part)), part, compression="zstd")
    return out


def two_chunk_dataset(out: Path, deals: int):
    """A dataset of two chunks written in this process, and its plan."""
    plan = make_plan(TINY, deals, seed=3, chunk_size=deals // 2)
    prepare_output(out, plan, resume=False)
    for i in (0, 1):
        write_part(out, i, simulate_chunk(plan, i))
    return plan


def test_a_part_of_another_chunk_is_caught_by_its_footer(tmp_path):
    out = tmp_path / "run"
    plan = two_chunk_dataset(out, 8)
    part = out / "part-000001.parquet"
    part.write_bytes((out / "part-000000.parquet").read_bytes())  # the same rows count, chunk 0's deals
    with pytest.raises(SimulationError, match="part-000001.parquet.*deal_id values are not chunk 1's, 4 to 7"):
        read_dataset(out)
    with pytest.raises(SimulationError, match="deal_id values"):
        read_dataset(out, columns=["seat"])  # the footer tells, whatever columns are read
    # resume sets it aside with the damaged parts, to be computed again
    assert prepare_output(out, plan, resume=True) == {0}
    assert not part.exists() and (out / ".part-000001.parquet.damaged").exists()


def test_a_part_of_another_run_is_refused_and_computed_again(tmp_path):
    """Each part records the run that wrote it: a part of another seed's run,
    copied in under the same chunk (same rows, same deal ids, same columns),
    passed every check, and the report mixed its deals into this dataset's."""
    out = tmp_path / "run"
    plan = two_chunk_dataset(out, 8)
    whole = read_dataset(out)
    other = make_plan(TINY, 8, seed=4, chunk_size=4)
    part = out / "part-000001.parquet"
    write_part(tmp_path, 1, simulate_chunk(other, 1))
    shutil.copy(tmp_path / "part-000001.parquet", part)
    words = "another run wrote it, with seed 4: not a part of this dataset"
    with pytest.raises(SimulationError, match=re.escape(words)):
        read_dataset(out)
    r = run_cli("report", str(out))
    assert r.exit_code == 2 and words in r.stderr and "--resume" in r.stderr and r.stderr.count("\n") == 1
    assert prepare_output(out, plan, resume=True) == {0}
    assert not part.exists() and (out / ".part-000001.parquet.damaged").exists()
    write_part(out, 1, simulate_chunk(plan, 1))
    pd.testing.assert_frame_equal(read_dataset(out), whole)


def test_damage_inside_a_part_that_leaves_its_footer_whole_is_found_and_computed_again(tmp_path):
    """Bytes changed inside a part's data (a bad disk or copy), its footer
    intact: the report said to resume, and the resume, reading only the
    footer, kept the part, so the report failed again. Parts carry page
    checksums, and a resume reads each part whole."""
    from rook_analyze.analysis.simulate import part_is_whole

    out = tmp_path / "run"
    plan = two_chunk_dataset(out, 8)
    whole = read_dataset(out)
    part = out / "part-000001.parquet"
    data = bytearray(part.read_bytes())
    for k in range(100, 116):  # in the first column's pages, far from the footer at the end
        data[k] ^= 0x5A
    part.write_bytes(bytes(data))
    rows = plan.chunk_span(1)[1] * 4
    assert part_is_whole(out, 1, rows, plan.chunk_span(1), plan=plan)   # the footer alone shows nothing
    assert not part_is_whole(out, 1, rows, plan.chunk_span(1), plan=plan, full=True)
    with pytest.raises(SimulationError, match="part-000001.parquet' cannot be read .*resume=True to compute"):
        read_dataset(out)
    r = run_cli("report", str(out))
    assert r.exit_code == 2 and "--resume to compute that part again" in r.stderr and r.stderr.count("\n") == 1
    assert prepare_output(out, plan, resume=True) == {0}
    assert not part.exists() and (out / ".part-000001.parquet.damaged").exists()
    write_part(out, 1, simulate_chunk(plan, 1))
    pd.testing.assert_frame_equal(read_dataset(out), whole)


def test_a_part_with_its_columns_in_another_order_or_one_more_reads_as_the_dataset(tmp_path):
    # read_dataset failed with pyarrow's two schemas in its message, naming no file;
    # report and pandas.read_parquet read such a part
    two_chunk_dataset(tmp_path / "whole", 8)
    whole = read_dataset(tmp_path / "whole")

    def reorder(table):
        table = table.select(table.column_names[::-1])
        return table.append_column("note", pa.array(["checked"] * table.num_rows))

    out = edited_part(tmp_path, reorder)
    pd.testing.assert_frame_equal(read_dataset(out), whole)


def test_points_no_hand_holds_are_refused(tmp_path):
    out = edited_part(tmp_path, lambda t: t.set_column(t.column_names.index("policy_points"), "policy_points",
                                                       pa.array([999] * t.num_rows, pa.int16())))
    total = Rules.from_spec(TINY).total_points
    with pytest.raises(SimulationError, match=re.escape(f"its column 'policy_points' holds 999, outside the 0 to "
                                                        f"{total} points of a hand")):
        read_dataset(out)


def test_a_resume_into_a_folder_it_cannot_write_stops_before_any_chunk(tmp_path, monkeypatch):
    """A read-only folder: a new run was refused at once, but a resume solved
    its first chunks and failed only when it wrote a part. (Root writes
    anywhere, so the folder's refusal is played by its probe, a temporary file there.)"""
    import tempfile

    out = tmp_path / "run"
    two_chunk_dataset(out, 8)
    (out / "part-000001.parquet").unlink()
    made = tempfile.TemporaryFile

    def refusing(*args, dir=None, **kwargs):
        if dir is not None and Path(dir) == out:
            raise PermissionError(13, "Permission denied", str(dir))
        return made(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "TemporaryFile", refusing)
    written = []
    with pytest.raises(SimulationError, match=re.escape(f"output folder {str(out)!r}: Permission denied")):
        simulate(TINY, 8, out, seed=3, resume=True, workers=1, progress=False,
                 on_chunk=lambda i, w: written.append(i))
    assert written == [] and finished_chunks(out) == {0}
    r = run_cli("simulate", "--rules", TINY, "--deals", "8", "--out", str(out), "--seed", "3", "--resume",
                "--workers", "1")
    assert r.exit_code == 2 and "Permission denied" in r.stderr and r.stderr.count("\n") == 1, r.output
    monkeypatch.undo()
    summary = simulate(TINY, 8, out, seed=3, resume=True, workers=1, progress=False)
    assert summary.chunks_done_before == 1 and summary.chunks_computed == 1
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]


def test_a_part_under_another_name_than_simulate_writes_is_not_a_finished_chunk(tmp_path):
    # part-0000001.parquet (seven digits) matched the part pattern as chunk 1, whose file
    # part-000001.parquet is not there: the report said to resume, and the resume failed on
    # "output folder ...: No such file or directory"
    out = tmp_path / "run"
    plan = two_chunk_dataset(out, 8)
    (out / "part-000001.parquet").rename(out / "part-0000001.parquet")
    assert finished_chunks(out) == {0}
    assert read_dataset(out)["deal_id"].nunique() == 4
    # resume sets it aside as a damaged part (pandas.read_parquet(DIR) would read it too) and computes chunk 1
    assert prepare_output(out, plan, resume=True) == {0}
    assert not (out / "part-0000001.parquet").exists() and (out / ".part-0000001.parquet.damaged").exists()


def test_a_damaged_part_is_an_error_for_the_report_and_is_computed_again_on_resume(tmp_path):
    out = tmp_path / "run"
    plan = two_chunk_dataset(out, 8)
    whole = read_dataset(out)
    part = out / "part-000001.parquet"
    part.write_bytes(part.read_bytes()[:100])  # a copy cut short
    with pytest.raises(SimulationError, match="part-000001.parquet.*cannot be read.*with resume=True to") as e:
        read_dataset(out)
    assert "--resume" not in str(e.value)
    r = run_cli("report", str(out))
    assert r.exit_code == 2 and "cannot be read" in r.stderr and r.stderr.count("\n") == 1
    # the command line names its own flag, not the library's argument
    assert "run simulate again on this folder with --resume to compute" in r.stderr and "resume=True" not in r.stderr
    # resume reads every part's footer: the damaged one is set aside and done again
    assert prepare_output(out, plan, resume=True) == {0}
    assert not part.exists() and (out / ".part-000001.parquet.damaged").exists()
    summary = simulate(TINY, 8, out, resume=True, chunk_size=4, workers=1, progress=False)
    assert summary.chunks_computed == 1
    pd.testing.assert_frame_equal(read_dataset(out), whole)


def test_a_part_missing_a_column_is_an_error_not_a_traceback(tmp_path):
    out = edited_part(tmp_path, lambda t: t.drop_columns(["policy_points"]))
    with pytest.raises(SimulationError, match="part-000001.parquet.*cannot be read.*no column 'policy_points'"):
        read_dataset(out, columns=["deal_id", "policy_points"])
    r = run_cli("report", str(out))
    assert r.exit_code == 2 and "no column 'policy_points'" in r.stderr and r.stderr.count("\n") == 1


@pytest.mark.parametrize("column, value, words", [
    ("policy_points", pa.array([1.5, 2.5, 3.5, 4.5] * 4), "its column 'policy_points' holds double, not int16"),
    ("seat", pa.array(list(range(16))), "its column 'seat' holds int64, not string"),
    ("deal_id", pa.array([str(i) for i in range(16)]), "its column 'deal_id' holds string, not int64"),
    ("counters", pa.nulls(16, pa.int16()), "its column 'counters' has 16 missing values"),
])
def test_a_part_of_other_types_or_missing_values_is_an_error_and_is_computed_again_on_resume(
        tmp_path, column, value, words):
    # a part another program wrote, with the right rows: a column of another type was a
    # traceback where the parts were joined (an ArrowInvalid) or where the footer's deal_ids
    # were compared (a TypeError), and missing values one where the hand count was fitted
    out = tmp_path / "run"
    plan = two_chunk_dataset(out, 8)
    whole = read_dataset(out)
    part = out / "part-000001.parquet"
    table = pq.read_table(part)
    pq.write_table(table.set_column(table.schema.get_field_index(column), column, value), part)
    with pytest.raises(SimulationError, match=re.escape(words)):
        read_dataset(out)
    r = run_cli("report", str(out))
    assert r.exit_code == 2 and r.stdout == "" and r.stderr.count("\n") == 1
    assert r.stderr.startswith(f"Error: {str(part)!r} cannot be read ({words}") and "--resume" in r.stderr
    # as the message says, a resume computes that part again
    assert prepare_output(out, plan, resume=True) == {0}
    assert (out / ".part-000001.parquet.damaged").exists()
    simulate(TINY, 8, out, resume=True, chunk_size=4, workers=1, progress=False)
    pd.testing.assert_frame_equal(read_dataset(out), whole)


def test_a_dataset_in_a_folder_whose_name_is_not_utf8_is_read(tmp_path):
    # pyarrow encodes a str path as UTF-8, and the surrogates such a name is read as
    # do not encode: report was a UnicodeEncodeError traceback
    out = tmp_path / os.fsdecode(b"run-\xff")
    two_chunk_dataset(out, 8)
    assert len(read_dataset(out)) == 32
    r = run_cli("report", str(out), "--format", "json")
    assert r.exit_code == 0 and json.loads(r.stdout)["dataset"]["deals"] == 8
    # a standard output that is strict about its encoding (en_US.UTF-8 makes it so) takes the
    # folder's name in the table as the bytes it came in as
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    res = subprocess.run([sys.executable, "-m", "rook_analyze.cli", "report", os.fsencode(out)],
                         capture_output=True, env=env, timeout=120)
    assert res.returncode == 0 and res.stderr == b""
    assert res.stdout.startswith(b"Dataset " + os.fsencode(out) + b": rules")


def test_report_refuses_a_dataset_whose_parts_and_plan_disagree(tmp_path):
    src = tmp_path / "run"
    two_chunk_dataset(src, 4)
    assert len(read_dataset(src)) == 16

    def copy(name):
        dst = tmp_path / name
        shutil.copytree(src, dst)
        return dst

    extra = copy("extra")   # a part the plan never made
    shutil.copy(extra / "part-000001.parquet", extra / "part-000099.parquet")
    other = copy("other")   # the plan's rules changed under the parts: 3 seats where 4 played
    meta = other / META_FILE
    meta.write_text(meta.read_text().replace('"hasbro,hand_size=4"', '"hasbro,seats=3,teams=alone,hand_size=4"')
                    .replace('"dealer": "W"', '"dealer": "P3"'))
    older = copy("older")   # the same, under parts that do not record their run: their rows tell
    strip_records(older)
    (older / META_FILE).write_text(meta.read_text())
    newer = copy("newer")
    meta = newer / META_FILE
    meta.write_text(meta.read_text().replace('"schema_version": 1', '"schema_version": 2'))
    typed = copy("typed")
    meta = typed / META_FILE
    meta.write_text(meta.read_text().replace('"dealer": "W"', '"dealer": 3'))
    folder = copy("folder")   # the plan's file is a folder
    (folder / META_FILE).unlink()
    (folder / META_FILE).mkdir()
    for where, words in ((extra, "part-000099.parquet' is not a part of this dataset"),
                         (other, "another run wrote it, with rules 'hasbro,hand_size=4', dealer 'W': not a "
                                 "part of this dataset"),
                         (older, "holds 8 rows where the plan"),
                         (newer, "schema_version 2"),
                         (typed, "field 'dealer' is 3"),
                         (folder, "cannot be read")):
        with pytest.raises(SimulationError, match=re.escape(words)):
            read_dataset(where)
        r = run_cli("report", str(where))
        assert r.exit_code == 2 and words in r.stderr and r.stderr.count("\n") == 1, r.output


def test_report_names_the_plan_file_whose_values_make_no_plan(tmp_path):
    # values of the right type that make no plan: the message names the file they
    # came from, as for a field of the wrong type ('report DIR' took no --rules)
    src = tmp_path / "run"
    two_chunk_dataset(src, 4)
    for name, old, new, words in (("rules", '"hasbro,hand_size=4"', '"nope"', "unknown rules preset 'nope'"),
                                  ("deals", '"deals": 4', '"deals": -1', "deals=-1"),
                                  ("chunk", '"chunk_size": 2', '"chunk_size": 0', "chunk_size=0"),
                                  ("dealer", '"dealer": "W"', '"dealer": "Q"', "dealer seat 'Q'")):
        where = tmp_path / name
        shutil.copytree(src, where)
        meta = where / META_FILE
        assert old in meta.read_text()
        meta.write_text(meta.read_text().replace(old, new))
        with pytest.raises(SimulationError, match=re.escape(f"{meta}: ")):
            load_plan(where)
        r = run_cli("report", str(where))
        assert r.exit_code == 2 and r.stderr.count("\n") == 1, r.output
        assert r.stderr.startswith(f"Error: {meta}: ") and words in r.stderr, r.stderr


def test_cli_out_must_name_a_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for blank in ("", "   "):
        r = run_cli("simulate", "--rules", TINY, "--deals", "2", "--out", blank)
        assert r.exit_code == 2 and "--out" in r.stderr and "give a folder name" in r.stderr
    assert list(tmp_path.iterdir()) == []


def test_status_lines_when_standard_error_is_not_a_terminal(capsys):
    from rook_analyze.analysis.simulate import _Progress

    quiet = _Progress(10, 0, None)
    quiet.finished(0, 10)
    assert capsys.readouterr().err == ""
    logged = _Progress(10, 0, True, every=0.0)
    logged.running(0, 4)
    logged.finished(0, 10)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("simulate: 4/10 deals, ") and lines[-1].startswith("simulate: 10/10 deals, ")
    assert all("deals/s" in x and "left" in x for x in lines)


def test_a_progress_event_that_comes_after_its_chunk_is_written_is_not_counted_again(capsys):
    # a worker's last progress event can reach the client after the chunk's result: counted again,
    # it stayed in the count for the rest of the run (ahead of the parts written), and a run's last
    # status line was printed twice
    from rook_analyze.analysis.simulate import _Progress

    p = _Progress(100, 0, True, every=3600.0)
    p.running(0, 7)
    p.finished(0, 10)
    p.running(0, 10)  # late
    assert p.shown == 10
    p.finished(1, 90)
    p.running(1, 90)  # late, after the last part
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("simulate: 100/100 deals, ")


def test_a_status_line_gives_a_time_left_of_more_than_a_day_in_hours(monkeypatch):
    # a long run (a day at 1 deal/s) left 99,900 s: 27 h 45 min, not the clock time 03:45:00
    from rook_analyze.analysis import simulate as simulate_module

    clock = [1000.0]
    monkeypatch.setattr(simulate_module.time, "monotonic", lambda: clock[0])
    p = simulate_module._Progress(100_000, 0, False)
    clock[0] += 100.0
    assert p.line(100).endswith(", 27:45:00 left")
    assert p.line(0).endswith(", ? left")


# ---------------------------------------------------------- real clusters
def _dask(*args: str, log: Path, env: dict | None = None) -> subprocess.Popen:
    """A ``dask`` command of this environment, in its own process group (killed as a whole)."""
    return subprocess.Popen([sys.executable, "-m", "dask", *args], stdout=log.open("wb"), stderr=subprocess.STDOUT,
                            start_new_session=True, env=env)


def _scheduler(where: Path, env: dict | None = None) -> tuple[subprocess.Popen, Path]:
    """A ``dask scheduler`` on 127.0.0.1 and its scheduler file, once written."""
    sched_file = where / "scheduler.json"
    proc = _dask("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file",
                 str(sched_file), log=where / "scheduler.log", env=env)
    deadline = time.monotonic() + 60
    while not sched_file.exists():
        assert time.monotonic() < deadline, (where / "scheduler.log").read_text()
        time.sleep(0.2)
    time.sleep(0.2)  # the file is written whole, but give it a moment
    return proc, sched_file


def _kill_group(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait(timeout=30)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The uninterrupted run: an embedded LocalCluster with two worker processes."""
    out = tmp_path_factory.mktemp("reference") / "run"
    summary = simulate(CLUSTER_RULES, CLUSTER_DEALS, out, CLUSTER_SEED, workers=2, chunk_size=CLUSTER_CHUNK,
                       progress=False)
    assert summary.workers == 2
    assert summary.chunks_computed == CLUSTER_DEALS // CLUSTER_CHUNK
    return read_dataset(out)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1."""
    from distributed import Client

    where = tmp_path_factory.mktemp("cluster")
    procs = {}
    try:
        procs["scheduler"], sched_file = _scheduler(where)
        for name in ("w1", "w2"):
            procs[name] = _dask("worker", "--scheduler-file", str(sched_file), "--host", "127.0.0.1",
                                "--nthreads", "1", "--name", name, "--no-dashboard", "--death-timeout", "60",
                                log=where / f"{name}.log")
        address = json.loads(sched_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        with Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=90)
        yield address, procs
    finally:
        for proc in procs.values():
            _kill_group(proc)


def _same_dataset(out: Path, reference: pd.DataFrame) -> None:
    frame = read_dataset(out)
    assert frame["deal_id"].nunique() == CLUSTER_DEALS
    assert not frame.duplicated(["deal_id", "seat"]).any()
    assert sorted(finished_chunks(out)) == list(range(CLUSTER_DEALS // CLUSTER_CHUNK))
    pd.testing.assert_frame_equal(frame, reference)


def test_a_worker_killed_mid_run_loses_nothing(cluster, reference, tmp_path):
    from distributed import Client

    address, procs = cluster
    out = tmp_path / "run"
    seen = {}
    with Client(address, timeout="30s") as spy:
        names = {info["name"]: addr for addr, info in spy.scheduler_info(n_workers=-1)["workers"].items()}
        victim = names["w1"]

        def on_chunk(index: int, worker: str) -> None:
            if seen:
                return
            # kill w1 while it is computing a chunk
            busy = spy.processing()
            seen["busy"] = list(busy.get(victim, ()))
            seen["written"] = len(finished_chunks(out))
            os.killpg(procs["w1"].pid, signal.SIGKILL)
            procs["w1"].wait(timeout=30)

        summary = simulate(CLUSTER_RULES, CLUSTER_DEALS, out, CLUSTER_SEED, scheduler=address,
                           chunk_size=CLUSTER_CHUNK, progress=False, on_chunk=on_chunk)
    assert seen["busy"], "w1 had no chunk in hand when it was killed"
    assert seen["written"] < CLUSTER_DEALS // CLUSTER_CHUNK
    assert summary.chunks_computed == CLUSTER_DEALS // CLUSTER_CHUNK
    assert summary.by_worker.get(victim, 0) < summary.chunks_computed  # the other worker finished the job
    _same_dataset(out, reference)


def test_chunks_are_submitted_in_a_window_topped_up_as_parts_are_written(cluster, tmp_path, monkeypatch):
    # a plan of 200,000 chunks submitted at once wrote no part in minutes and lost its
    # scheduler connection; a window keeps parts coming from the first chunks on
    from distributed import Client

    import rook_analyze.analysis.simulate as simulate_module

    monkeypatch.setattr(simulate_module, "SUBMIT_WINDOW", 1)   # the window: 4 a worker thread, 8 here
    address, _ = cluster
    out = tmp_path / "run"
    submitted, ahead = [], []
    with Client(address, timeout="30s") as spy:
        real_submit = spy.submit

        def counting_submit(*args, **kwargs):
            submitted.append(args[2])  # _task, plan, index, ...
            return real_submit(*args, **kwargs)

        monkeypatch.setattr(spy, "submit", counting_submit)

        def on_chunk(index: int, worker: str) -> None:
            ahead.append(len(submitted) - len(finished_chunks(out)))

        summary = simulate(CLUSTER_RULES, CLUSTER_DEALS, out, CLUSTER_SEED, client=spy, chunk_size=1,
                           progress=False, on_chunk=on_chunk)
    assert summary.chunks_computed == CLUSTER_DEALS and sorted(submitted) == list(range(CLUSTER_DEALS))
    assert max(ahead) <= 8  # never more than the window in flight
    assert read_dataset(out)["deal_id"].nunique() == CLUSTER_DEALS


def test_a_dropped_ctrl_c_stops_the_run_at_the_next_chunk(cluster, tmp_path):
    # the command line's SIGINT handler sets the stop flag before it raises;
    # when Python drops the KeyboardInterrupt (in a weakref callback), the
    # flag alone must end the run, whose chunks run in other processes
    from rook_analyze.solver import api

    address, _ = cluster
    out = tmp_path / "run"
    seen = []

    def on_chunk(index: int, worker: str) -> None:
        seen.append(index)
        api._stop_all()  # what the handler does, its exception dropped

    with api.ctrl_c_stops_searches():
        with pytest.raises(KeyboardInterrupt):
            simulate(CLUSTER_RULES, CLUSTER_DEALS, out, CLUSTER_SEED, scheduler=address,
                     chunk_size=CLUSTER_CHUNK, progress=False, on_chunk=on_chunk)
    assert len(seen) == 1 and sorted(finished_chunks(out)) == seen
    assert api._stop[0] == 0


def test_a_run_killed_outright_and_resumed_equals_the_uninterrupted_run(cluster, reference, tmp_path):
    address, _ = cluster
    out = tmp_path / "run"
    chunks = CLUSTER_DEALS // CLUSTER_CHUNK
    base = [sys.executable, "-m", "rook_analyze.cli", "simulate", "--rules", CLUSTER_RULES,
            "--deals", str(CLUSTER_DEALS), "--out", str(out), "--seed", str(CLUSTER_SEED),
            "--chunk-size", str(CLUSTER_CHUNK)]
    # the embedded cluster: the command, its nannies and worker processes share one process group
    run = subprocess.Popen(base + ["--workers", "2"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not finished_chunks(out):
            assert run.poll() is None, run.stderr.read().decode()
            assert time.monotonic() < deadline, "no chunk finished in 120 s"
            time.sleep(0.05)
    finally:
        _kill_group(run)
    done = finished_chunks(out)
    assert 0 < len(done) < chunks, "the run was not cut mid-way"
    # resume on the external cluster: only the missing chunks are computed
    res = subprocess.run(base + ["--resume", "--scheduler", address, "--format", "json"], capture_output=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr.decode()
    summary = json.loads(res.stdout)
    assert summary["chunks_done_before"] == len(done)
    assert summary["chunks_computed"] == chunks - len(done)
    _same_dataset(out, reference)
    # every part is a whole Parquet file
    for i in range(chunks):
        assert pq.ParquetFile(out / f"part-{i:06d}.parquet").metadata.num_rows == CLUSTER_CHUNK * 4
    assert load_plan(out).deals == CLUSTER_DEALS and (out / META_FILE).exists()


def test_a_worker_of_several_threads_gives_the_same_dataset_and_does_not_stay_paused(reference, tmp_path,
                                                                                     monkeypatch):
    # a Dask worker runs a chunk on each of its threads, each on a solver table
    # of its own, and keeps the tables for its next chunks. Past Dask's pause
    # threshold a worker starts no task until its memory falls, and kept tables
    # never fall: with them the run waited for ever (a 600 MB worker, one thread)
    import logging
    import threading

    import dask
    from distributed import Client, LocalCluster

    # tables of 2^22 entries (493 MB) and a pause at 500 MB: the worker's own
    # code and data (about 250 MB) stay under it, with a table kept over it
    monkeypatch.setenv("ROOK_ANALYZE_TT_BITS", "22")
    out = tmp_path / "run"
    with dask.config.set({"distributed.worker.memory.pause": 0.25}):
        cluster = LocalCluster(n_workers=1, threads_per_worker=2, processes=True, host="127.0.0.1",
                               dashboard_address=":0", memory_limit="2GB", silence_logs=logging.CRITICAL)
    try:
        with Client(cluster) as client:
            done: dict = {}

            def run() -> None:
                try:
                    done["summary"] = simulate(CLUSTER_RULES, CLUSTER_DEALS, out, CLUSTER_SEED, client=client,
                                               chunk_size=CLUSTER_CHUNK, progress=False)
                except BaseException as e:  # noqa: BLE001 (reported below)
                    done["error"] = e

            thread = threading.Thread(target=run, daemon=True)
            thread.start()
            parts, since = 0, time.monotonic()
            while thread.is_alive():
                thread.join(0.5)
                now = len(finished_chunks(out))
                if now != parts:
                    parts, since = now, time.monotonic()
                elif time.monotonic() - since > 30:
                    status = client.run(lambda dask_worker: dask_worker.status.name)
                    client.close()
                    thread.join(30)
                    pytest.fail(f"no part written in 30 s after {parts}: the worker is {status}")
    finally:
        cluster.close()
    assert "error" not in done, done
    assert done["summary"].chunks_computed == CLUSTER_DEALS // CLUSTER_CHUNK
    _same_dataset(out, reference)


def test_the_help_names_the_dataset_folder_dir():
    # the contract writes `--out DIR`, and the help's own text speaks of DIR
    r = CliRunner().invoke(main, ["simulate", "--help"])
    assert r.exit_code == 0 and re.search(r"^\s+--out DIR\s", r.output, re.M), r.output


def test_the_seed_help_says_the_chunk_size_changes_the_deals():
    # the help said "the same seed, rules and deals give the same dataset"; with another --chunk-size
    # chunk i is dealt from (seed, i) over other deals, so the dataset differs
    from rook_analyze.analysis.simulate import chunk_deals, make_plan

    one = [d.rdn() for i in range(2) for d in chunk_deals(make_plan(TINY, 2, seed=7, chunk_size=1), i)]
    two = [d.rdn() for d in chunk_deals(make_plan(TINY, 2, seed=7, chunk_size=2), 0)]
    assert one[0] == two[0] and one[1] != two[1]
    r = CliRunner().invoke(main, ["simulate", "--help"])
    seed_help = " ".join(r.output.split("--seed", 1)[1].split("--workers", 1)[0].split())
    assert "chunk size" in seed_help and "--chunk-size" in seed_help, seed_help


def test_a_chunk_whose_workers_keep_dying_ends_the_run_in_one_line_with_how_to_resume(tmp_path):
    """Dask gives up on a task whose workers die ``allowed-failures`` times
    (3 by default; 0 here, so one death does it): the run raised Dask's
    KilledWorker, a traceback of many lines with no word of a resume."""
    from distributed import Client

    from rook_analyze.analysis.simulate import ClusterLost

    procs = []
    try:
        scheduler, sched_file = _scheduler(tmp_path, env=dict(os.environ,
                                                              DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES="0"))
        procs.append(scheduler)
        procs.append(_dask("worker", "--scheduler-file", str(sched_file), "--host", "127.0.0.1", "--nthreads", "1",
                           "--no-nanny", "--no-dashboard", log=tmp_path / "worker.log"))
        address = json.loads(sched_file.read_text())["address"]
        out = tmp_path / "run"
        with Client(address, timeout="30s") as spy:
            spy.wait_for_workers(1, timeout=90)

            def on_chunk(index: int, worker: str) -> None:
                if index == 0:  # the worker has the next chunk in hand: kill it there
                    deadline = time.monotonic() + 30
                    while not any(spy.processing().values()):
                        assert time.monotonic() < deadline
                        time.sleep(0.05)
                    os.killpg(procs[1].pid, signal.SIGKILL)

            with pytest.raises(ClusterLost) as caught:
                simulate(CLUSTER_RULES, 9, out, CLUSTER_SEED, scheduler=address, chunk_size=1, progress=False,
                         on_chunk=on_chunk)
        text = str(caught.value)
        assert "\n" not in text and "died each time (out of memory, or killed), and Dask gave up on it" in text
        assert text.endswith(f"of 9 deals are in {str(out)!r}: run again with resume=True to finish")
        assert "--resume" in caught.value.cli_message
        assert finished_chunks(out)  # the parts written are kept
    finally:
        for proc in procs:
            _kill_group(proc)


def test_a_lost_scheduler_is_told_in_one_line_with_how_to_resume(tmp_path):
    """A scheduler killed mid-run cancels the run's futures: Dask's
    FutureCancelledError came out as a traceback of some 75 lines."""
    from concurrent.futures import CancelledError

    from rook_analyze.analysis.simulate import _cluster_lost

    plan = make_plan(CLUSTER_RULES, 9, seed=1, chunk_size=1)
    try:
        from distributed.client import FutureCancelledError
    except ImportError:  # older distributed: a plain CancelledError
        error = CancelledError()
    else:
        error = FutureCancelledError("rook-simulate-0123456789ab-000004", "scheduler-connection-lost",
                                     "Client lost the connection to the scheduler. Please check your connection.")
    lost = _cluster_lost(error, "rook-simulate-0123456789ab-000004", tmp_path, plan, 3)
    assert "\n" not in str(lost) and "the scheduler was lost; 3 of 9 deals are in" in str(lost)
    assert lost.cli_message.endswith(": run again with --resume to finish")
    # a chunk's own error is raised as it is
    assert _cluster_lost(ZeroDivisionError("x"), "rook-simulate-0123456789ab-000004", tmp_path, plan, 3) is None


def test_a_run_whose_workers_all_leave_says_so_and_when_one_is_back(tmp_path, monkeypatch, capsys):
    """With no worker no chunk finishes, so no progress line came: the run
    stood still without a word until one joined again."""
    import rook_analyze.analysis.simulate as simulate_module
    from distributed import Client

    monkeypatch.setattr(simulate_module, "WORKER_WATCH_S", 0.3)
    procs = {}
    try:
        procs["scheduler"], sched_file = _scheduler(tmp_path)

        def worker(name: str) -> subprocess.Popen:
            return _dask("worker", "--scheduler-file", str(sched_file), "--host", "127.0.0.1", "--nthreads", "1",
                         "--no-nanny", "--no-dashboard", log=tmp_path / f"{name}.log")

        procs["w1"] = worker("w1")
        address = json.loads(sched_file.read_text())["address"]
        out = tmp_path / "run"
        with Client(address, timeout="30s") as spy:
            spy.wait_for_workers(1, timeout=90)

            def on_chunk(index: int, worker_address: str) -> None:
                if "w2" in procs:
                    return
                _kill_group(procs["w1"])  # the only worker: its chunk waits
                deadline = time.monotonic() + 30
                while "no worker is left" not in capsys.readouterr().err:
                    assert time.monotonic() < deadline, "no word of the lost workers"
                    time.sleep(0.1)
                procs["w2"] = worker("w2")

            summary = simulate(CLUSTER_RULES, 6, out, CLUSTER_SEED, scheduler=address, chunk_size=1, progress=True,
                               on_chunk=on_chunk)
        assert summary.deals_computed == 6
        assert f"simulate: 1 worker in {address} now; the chunks run" in capsys.readouterr().err
    finally:
        for proc in procs.values():
            _kill_group(proc)


def test_the_compile_notice_comes_only_for_a_run_that_starts(tmp_path, monkeypatch):
    # it came before the library's checks: a refused run said it compiled the solver, and compiled nothing
    from rook_analyze.cli import common

    monkeypatch.setattr("rook_analyze.solver.needs_compile", lambda uses: True)
    out = tmp_path / "run"
    for args in (["--workers", "100000"], ["--scheduler", "nowhere:1", "--connect-timeout", "0.5"]):
        monkeypatch.setattr(common, "_NOTICE_SHOWN", False)
        r = run_cli("simulate", "--rules", TINY, "--deals", "8", "--out", str(out), "--seed", "3", *args)
        assert r.exit_code == 2 and "compiling" not in r.stderr and r.stderr.count("\n") == 1, r.output
    # a finished run resumed has nothing to compute: no notice either; on_start is called only with work to do
    two_chunk_dataset(out, 8)
    monkeypatch.setattr(common, "_NOTICE_SHOWN", False)
    r = run_cli("simulate", "--rules", TINY, "--deals", "8", "--out", str(out), "--seed", "3", "--resume",
                "--chunk-size", "4")
    assert r.exit_code == 0 and "compiling" not in r.stderr, r.output
    started = []
    simulate(TINY, 8, out, seed=3, resume=True, chunk_size=4, progress=False, on_start=lambda: started.append(1))
    assert started == []
    with pytest.raises(SimulationError, match="on_start=5"):
        simulate(TINY, 8, out, seed=3, resume=True, progress=False, on_start=5)
    # a run that starts says it, once
    monkeypatch.setattr(common, "_NOTICE_SHOWN", False)
    r = run_cli("simulate", "--rules", TINY, "--deals", "2", "--out", str(tmp_path / "new"), "--seed", "3",
                "--workers", "1")
    assert r.exit_code == 0 and r.stderr.count("compiling the solver (first run only)...") == 1, r.output
