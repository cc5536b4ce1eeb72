"""Batch double-dummy simulation on Dask, into a Parquet dataset.

For every random deal and every seat as would-be declarer, the declarer
takes the nest, the declarer's policy (``analysis.policy``) names its trump
and picks discards, and the solver finds the double-dummy points for each
trump with the discards the policy would make for that trump. Each row of
the dataset is one (deal, declarer seat) with those points and the features
of the seat's dealt hand (``analysis.features``).

The work is cut into chunks of ``chunk_size`` deals. Chunk ``i`` deals from
``numpy.random.default_rng([seed, i])``, so it is the same on any machine
and in any run; a chunk is one Dask task and one file ``part-{i:06d}.parquet``
written under a temporary name and renamed into place. A run that dies
leaves only whole parts behind and ``resume=True`` computes the rest, so a
killed and resumed run ends with the same dataset as an uninterrupted one.
A lost worker only costs its chunk: Dask runs it again elsewhere.

The engine is ``dask.distributed``: by default an embedded ``LocalCluster``
with one single-threaded worker process per core; ``scheduler=ADDRESS`` runs
the same tasks on a running cluster (``dask scheduler`` / ``dask worker``).
Results come back to this process, which alone writes the files, so the
workers need rook-analyze installed but no shared disk."""

from __future__ import annotations

import contextlib
import errno
import io
import itertools
import json
import logging
import os
import re
import secrets
import signal
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from rook_analyze.analysis.features import FEATURE_COLUMNS, hand_features
from rook_analyze.analysis.policy import DEFAULT_POLICY, POLICY_REVISION
from rook_analyze.solver.cards import Hand, shown
from rook_analyze.solver.deal import FRESH_SEEDS, MAX_SEED, Deal, random_deal
from rook_analyze.solver.errors import RookError, plural
from rook_analyze.solver import api
from rook_analyze.solver.api import made_bits, most_threads, stop_requested
from rook_analyze.solver.rules import Rules

from .inputs import (callable_or_none, folder, hand_and_nest, is_whole, number, optional_whole, threads_count,
                     whole)

SCHEMA_VERSION = 1
MAX_DEALS = 2**31 - 1
DEFAULT_CHUNK_SIZE = 200  # deals a chunk at most, unless asked
SMALL_RUN_CHUNKS = 32     # a run too small to fill 200-deal chunks is cut into this many
CONNECT_TIMEOUT = 30.0    # seconds a --scheduler address has to answer (Dask's own default)
META_FILE = "_simulate.json"  # the leading _ keeps it out of pyarrow's dataset discovery
LOCK_FILE = ".simulate.lock"  # held (flock) by the run writing into the folder; hidden from pyarrow too
PART_RE = re.compile(r"^part-(\d{6,})\.parquet$")
PROGRESS_TOPIC = "rook-analyze-simulate-progress"
# each part's record of the run that wrote it (Parquet key-value metadata): parts copied in
# from another run (other rules or seed) passed every other check, and a report mixed them in
PLAN_KEY = b"rook_analyze_plan"
PLAN_FIELDS = ("schema_version", "rules", "seed", "deals", "chunk_size", "dealer", "policy")
FIELD_WORDS = {"schema_version": "schema version", "chunk_size": "chunk size"}  # as a message says them
# retries are for exceptions (a MemoryError...); a chunk of a lost worker is rerun anyway
TASK_RETRIES = 2
SUBMIT_WINDOW = 1000      # chunks submitted ahead of the parts written (at least 4 a worker thread)
WORKER_WATCH_S = 10.0     # how often a run with progress looks for its cluster's workers (_watch_workers)
READ_THREADS = 4          # threads reading parts (read_dataset)
JOIN_PARTS = 256          # parts joined into one table as read_dataset reads them


class SimulationError(RookError):
    """An output folder that cannot be used, or a resume that does not match the dataset.

    The message names the library's arguments (``resume=True``);
    ``cli_message`` is the same in the command line's words (``--resume``),
    which the command line shows instead (the message itself where they
    do not differ)."""

    def __init__(self, message: str, cli_message: str | None = None) -> None:
        super().__init__(message)
        self.cli_message = message if cli_message is None else cli_message


class WorkersDoNotFit(SimulationError, MemoryError):
    """More embedded workers than the memory available holds, refused before
    the run starts: a ``SimulationError`` of the library's, and a
    ``MemoryError`` (memory the system will not give), so the command line
    ends with status 1 as it does where a solver's table does not fit."""


class ClusterLost(RuntimeError):
    """The run cannot go on on its cluster: the scheduler's connection was
    lost, or Dask gave up on a chunk whose workers kept dying. Not bad input
    (a ``RuntimeError``, not a ``RookError``): the finished parts are kept,
    and a resume finishes the run. ``cli_message`` as ``SimulationError``'s."""

    def __init__(self, message: str, cli_message: str) -> None:
        super().__init__(message)
        self.cli_message = cli_message


def _cluster_lost(e: BaseException, key: str, out: Path, plan: Plan, deals_in: int) -> ClusterLost | None:
    """``e`` from a chunk's future as the error to tell, where it says the
    cluster lost the run (else None: the chunk's own error, raised as it is).
    Dask's own were a traceback of 75 lines with no word of a resume."""
    name = type(e).__name__
    if name == "KilledWorker":  # distributed.scheduler.KilledWorker, past allowed-failures
        index = int(key.rsplit("-", 1)[-1])
        why = (f"the workers that ran chunk {index} died each time (out of memory, or killed), and Dask gave up "
               f"on it")
    elif name in ("FutureCancelledError", "CancelledError"):  # the scheduler's connection went
        # "... cancelled for reason: scheduler-connection-lost.\nClient lost ...": the reason's word
        reason = str(e).rsplit("reason:", 1)[-1].split()[0].rstrip(".") if "reason:" in str(e) else "cancelled"
        why = f"the run's tasks were cancelled ({reason}): the scheduler was lost"
    else:
        return None

    return _resume_error(lambda how: f"{why}; {deals_in} of {plan.deals} deals are in {str(out)!r}: run again "
                                     f"with {how} to finish", ClusterLost)


def _resume_error(message: Callable[[str], str], error: type = SimulationError) -> Exception:
    """An error (``error``) whose remedy is a resume: ``message(how)`` with
    ``how`` the library's ``resume=True``, and for the command line its ``--resume``."""
    return error(message("resume=True"), cli_message=message("--resume"))


# ------------------------------------------------------------------ the plan
@dataclass(frozen=True)
class Plan:
    """What a dataset holds; stored as ``_simulate.json`` in the output folder.

    ``deals`` random deals under ``rules`` (a spec), cut into chunks of
    ``chunk_size``; chunk ``i`` is dealt from ``default_rng([seed, i])``.
    ``dealer`` is fixed: every seat is tried as declarer, so every position
    relative to the dealer is covered."""

    rules: str
    seed: int
    deals: int
    chunk_size: int = DEFAULT_CHUNK_SIZE
    dealer: str | None = None   # None: the last seat (W, or the last P at other tables)
    schema_version: int = SCHEMA_VERSION
    policy: str = POLICY_REVISION  # the declarer's policy that chose the trumps and discards

    def __post_init__(self) -> None:
        if isinstance(self.rules, str):
            try:
                rules = Rules.from_spec(self.rules)
                if self.dealer is None:  # not a literal W: the other tables have no W
                    object.__setattr__(self, "dealer", rules.last_seat)
                elif isinstance(self.dealer, str):  # a seat of the table (a stored plan's 'Q' was taken)
                    rules.seat_index(self.dealer, "dealer")
            except RookError as e:
                raise SimulationError(f"rules={shown(self.rules)}: {e}") from None
        whole("deals", self.deals, 1, error=SimulationError, small="need at least 1 deal")
        whole("chunk_size", self.chunk_size, 1, error=SimulationError, small="need at least 1 deal a chunk")
        whole("seed", self.seed, 0, error=SimulationError, small="must be 0 or more", most=MAX_SEED)
        whole("schema_version", self.schema_version, 1, error=SimulationError)
        for name in ("rules", "dealer", "policy"):
            if not isinstance(getattr(self, name), str):
                raise SimulationError(f"{name}={getattr(self, name)!r}: expected a string")

    @property
    def chunks(self) -> int:
        return -(-self.deals // self.chunk_size)

    def chunk_span(self, index: int) -> tuple[int, int]:
        """(first deal_id, number of deals) of chunk ``index``; the last chunk may be short."""
        if not is_whole(index) or not 0 <= index < self.chunks:
            raise SimulationError(f"chunk {shown(index)}: the plan has chunks 0..{self.chunks - 1}")
        start = index * self.chunk_size
        return start, min(self.chunk_size, self.deals - start)

    def to_json(self) -> str:
        doc = asdict(self)
        doc["chunks"] = self.chunks
        doc["trumps"] = list(Rules.from_spec(self.rules).trumps)
        doc["package"] = "rook-analyze"
        return json.dumps(doc, indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str, where: str = META_FILE) -> "Plan":
        try:
            doc = json.loads(text)
        except ValueError:
            raise SimulationError(f"{where}: not a simulate metadata file (not JSON)") from None
        if not isinstance(doc, dict):
            raise SimulationError(f"{where}: not a simulate metadata file (not a JSON object)")
        fields_ = {"rules": str, "seed": int, "deals": int, "chunk_size": int, "dealer": str, "schema_version": int}
        for key, kind in fields_.items():
            if key not in doc:
                raise SimulationError(f"{where}: not a simulate metadata file (no {shown(key)} field)")
            if not isinstance(doc[key], kind) or isinstance(doc[key], bool):
                wanted = "a whole number" if kind is int else "text"
                raise SimulationError(f"{where}: field {shown(key)} is {shown(doc[key])}, not {wanted}")
        if doc["schema_version"] != SCHEMA_VERSION:
            raise SimulationError(f"{where}: schema_version {shown(doc['schema_version'])}: this rook-analyze reads "
                                  f"datasets of schema_version {SCHEMA_VERSION}")
        # datasets written before the plan named its policy were made by its first revision
        policy = doc.get("policy", "heuristic 1")
        if not isinstance(policy, str):
            raise SimulationError(f"{where}: field 'policy' is {shown(policy)}, not text")
        try:  # values of the right type that make no plan: named with the file, as above
            Rules.from_spec(doc["rules"])
            return cls(**{key: doc[key] for key in fields_}, policy=policy)
        except RookError as e:
            raise SimulationError(f"{where}: {e}") from None


def _check_plan(plan: Any) -> None:
    if not isinstance(plan, Plan):
        raise SimulationError(f"plan={shown(plan)}: expected a Plan (make_plan(...))")


def default_chunk_size(deals: int) -> int:
    """The chunk size of a run that does not choose one: ``DEFAULT_CHUNK_SIZE``
    deals, or fewer in a small run so that it still makes ``SMALL_RUN_CHUNKS``
    chunks (with a single chunk every worker but one would wait, and a deal's
    solving time varies tenfold, so more chunks even out the workers' loads).
    It depends on ``deals`` alone, so the dataset does not depend on the
    machine."""
    deals = whole("deals", deals, 1, error=SimulationError, small="need at least 1 deal")
    return min(DEFAULT_CHUNK_SIZE, -(-deals // SMALL_RUN_CHUNKS))


def make_plan(rules: Rules | str, deals: int, seed: int | None = None,
              chunk_size: int | None = None) -> Plan:
    """A plan; without a seed, a fresh random one (kept in the metadata so a
    resume finds it); without a chunk size, ``default_chunk_size(deals)``."""
    rules = Rules.from_spec(rules)
    deals = whole("deals", deals, 1, error=SimulationError, small="need at least 1 deal")
    if deals > MAX_DEALS:
        why = f"at most {MAX_DEALS:,} in one dataset (deal_id and chunk are 32-bit)"
        raise SimulationError(f"deals={deals}: {why}", cli_message=f"--deals {deals}: {why}")
    if chunk_size is None:
        chunk_size = default_chunk_size(deals)
    chunk_size = whole("chunk_size", chunk_size, 1, error=SimulationError, small="need at least 1 deal a chunk")
    seed = optional_whole("seed", seed, 0, error=SimulationError, most=MAX_SEED)
    if not rules.spec_rebuilds():
        # workers and a resume rebuild the rules from the plan's text
        raise SimulationError(f"rules {rules.spec()!r}: simulate needs rules its text form rebuilds "
                              f"(a preset and knobs, not a deck or counters of one's own)")
    if seed is None:
        seed = secrets.randbelow(FRESH_SEEDS)
    return Plan(rules=rules.spec(), seed=seed, deals=deals, chunk_size=chunk_size)  # the last seat deals


# ------------------------------------------------------------------- policy
def declarer_choice(rules: Rules | str, hand: Hand | str, nest: Hand | str) -> tuple[str, dict[str, int]]:
    """The declarer's choices after taking the nest, seeing only ``hand`` and
    ``nest`` (Hands or Rook deal notation): the trump it names, and for every
    trump the discards (a mask) it would make if that trump were named."""
    rules = Rules.from_spec(rules)
    policy = DEFAULT_POLICY
    hand, nest = hand_and_nest(hand, nest, rules)
    cards = hand | nest
    discards = {t: policy.discard(cards, t, rules).mask for t in rules.trumps}
    return policy.trump(cards, rules), discards


# ------------------------------------------------------------- one chunk
def chunk_deals(plan: Plan, index: int) -> list[Deal]:
    """The deals of chunk ``index``: the same in every run and on every machine."""
    _check_plan(plan)
    rules = Rules.from_spec(plan.rules)
    _, count = plan.chunk_span(index)
    rng = np.random.default_rng([plan.seed, index])
    return [random_deal(rules, rng) for _ in range(count)]


def dataset_schema(rules: Rules | str) -> pa.Schema:
    """The Arrow schema of a part file (documented in the README, "simulate and report: batch simulation")."""
    rules = Rules.from_spec(rules)
    fields = [
        ("deal_id", pa.int64()), ("chunk", pa.int32()), ("seat", pa.string()), ("position", pa.int8()),
        ("dealer", pa.string()), ("leader", pa.string()), ("declarer_leads", pa.bool_()),
        ("side_leads", pa.bool_()), ("hand", pa.string()), ("nest", pa.string()),
        ("policy_trump", pa.string()),
    ]
    fields += [(f"discard_{t}", pa.string()) for t in rules.trumps]
    fields += [(f"points_{t}", pa.int16()) for t in rules.trumps]
    fields += [("policy_points", pa.int16()), ("best_trump", pa.string()), ("best_points", pa.int16())]
    for col in FEATURE_COLUMNS:
        if col == "longest_color":
            fields.append((col, pa.string()))
        else:
            fields.append((col, pa.int16() if col == "counters" else pa.int8()))
    return pa.schema(fields, metadata={b"rook_analyze_schema_version": str(SCHEMA_VERSION).encode()})


def simulate_chunk(plan: Plan, index: int, progress: Callable[[int], None] | None = None,
                   threads: int = 1) -> pa.Table:
    """Compute chunk ``index``: one row per (deal, declarer seat).

    ``progress(n)`` is called with the number of deals finished since the
    last call."""
    from rook_analyze.solver import solve_batch

    _check_plan(plan)
    if plan.policy != POLICY_REVISION:
        # a plan from another version (a resume, or a worker of a cluster): its rows would hold other points
        raise SimulationError(f"the plan's declarer policy is {shown(plan.policy)}, this rook-analyze's is "
                              f"{POLICY_REVISION!r}: its chunks would hold other points")

    rules = Rules.from_spec(plan.rules)
    names = rules.seat_names
    trumps = rules.trumps
    dealer = rules.check_seat(plan.dealer)
    start, _ = plan.chunk_span(index)
    deals = chunk_deals(plan, index)
    n_seats, n_trumps = rules.seats, len(trumps)

    positions: list[Deal] = []
    pos_trumps: list[str] = []
    pos_declarers: list[int] = []
    rows: list[dict[str, Any]] = []
    for d, deal in enumerate(deals):
        for seat in range(n_seats):
            hand = deal.hands[seat]
            policy_trump, discards = declarer_choice(rules, hand, deal.nest)
            leader = rules.first_leader(seat, dealer)
            row: dict[str, Any] = {
                "deal_id": start + d, "chunk": index, "seat": names[seat],
                "position": (seat - dealer - 1) % n_seats + 1, "dealer": names[dealer],
                "leader": names[leader], "declarer_leads": leader == seat,
                "side_leads": rules.side_of(leader, seat) == 1,
                "hand": hand.rdn(rules.one_high), "nest": deal.nest.rdn(rules.one_high),
                "policy_trump": policy_trump,
            }
            both = hand.mask | deal.nest.mask
            for t in trumps:
                discard = discards[t]
                if discard & ~both or discard.bit_count() != len(deal.nest):
                    raise RookError(f"policy discards {Hand(discard).rdn(rules.one_high)!r} for trump {t} are not "
                                    f"{len(deal.nest)} cards of {Hand(both).rdn(rules.one_high)!r}")
                row[f"discard_{t}"] = Hand(discard).rdn(rules.one_high)
                hands = list(deal.hands)
                hands[seat] = Hand(both & ~discard)
                positions.append(Deal(rules, tuple(hands), Hand(discard)))
                pos_trumps.append(t)
                pos_declarers.append(seat)
            row.update(hand_features(rules, hand))
            rows.append(row)

    per_deal = n_seats * n_trumps
    done = [0]

    def solved(n: int) -> None:
        # the solver counts positions; report whole deals
        done[0] += n
        whole = done[0] // per_deal
        if progress is not None and whole:
            progress(whole)
            done[0] -= whole * per_deal

    points = np.asarray(solve_batch(positions, pos_trumps, pos_declarers, dealer=plan.dealer,
                                    threads=threads, progress=solved), dtype=np.int64)
    points = points.reshape(len(deals) * n_seats, n_trumps)
    for r, row in enumerate(rows):
        for k, t in enumerate(trumps):
            row[f"points_{t}"] = int(points[r, k])
        row["policy_points"] = row[f"points_{row['policy_trump']}"]
        best = int(points[r].max())
        # a tie with the policy's own trump counts as the policy's
        row["best_trump"] = (row["policy_trump"] if row["policy_points"] == best
                             else trumps[int(points[r].argmax())])
        row["best_points"] = best
    schema = dataset_schema(rules)
    schema = schema.with_metadata({**schema.metadata, PLAN_KEY: plan_record(plan)})
    return pa.Table.from_pylist(rows, schema=schema)


def plan_record(plan: Plan) -> bytes:
    """What a part records of the run that wrote it: the plan's fields that
    ``--resume`` checks, as JSON (``PLAN_KEY`` in the part's metadata)."""
    return json.dumps({k: getattr(plan, k) for k in PLAN_FIELDS}, sort_keys=True).encode()


def _record_problem(metadata: dict | None, plan: Plan) -> str | None:
    """What sets a part's record of its run (``plan_record``) apart from
    ``plan``; None when they agree, or when the part has none (written
    before parts recorded their run)."""
    raw = (metadata or {}).get(PLAN_KEY)
    if raw is None or raw == plan_record(plan):
        return None
    try:
        doc = json.loads(raw)
    except ValueError:
        doc = None
    if not isinstance(doc, dict):
        return "its record of the run that wrote it is not a simulate record"
    diffs = [f"{FIELD_WORDS.get(k, k)} {doc.get(k)!r}" for k in PLAN_FIELDS if doc.get(k) != getattr(plan, k)]
    if not diffs:
        return None
    return f"another run wrote it, with {', '.join(diffs)}: not a part of this dataset"


POINT_COLUMNS = ("policy_points", "best_points")  # and points_<trump>


def _is_points(name: str) -> bool:
    """A column of points (``POINT_COLUMNS`` and each trump's ``points_<trump>``)."""
    return name.startswith("points_") or name in POINT_COLUMNS


def _points_problem(meta: pq.FileMetaData, total: int) -> str | None:
    """A points column whose footer statistics lie outside 0..``total`` (the
    rules' points a hand): a value no solve gives. None when all fit or
    there are no statistics to tell."""
    names = meta.schema.names
    cols = [(i, name) for i, name in enumerate(names) if _is_points(name)]
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        for i, name in cols:
            stats = group.column(i).statistics
            if stats is None or not stats.has_min_max:
                continue
            if not (isinstance(stats.min, int) and isinstance(stats.max, int)):
                return f"its column {name!r} holds values that are not whole numbers"
            if stats.min < 0 or stats.max > total:
                bad = stats.min if stats.min < 0 else stats.max
                return f"its column {name!r} holds {bad}, outside the 0 to {total} points of a hand"
    return None


def _task(plan_json: str, index: int, token: str) -> tuple[int, bytes, str, float]:
    """One Dask task: compute a chunk and send it back as Arrow IPC bytes
    (small: a few hundred rows), with the worker's address and the compute time."""
    plan = Plan.from_json(plan_json)
    address = ""
    worker = None
    try:
        from distributed import get_worker

        worker = get_worker()
        address = worker.address
    except (ImportError, ValueError):
        pass
    t0 = time.perf_counter()
    last = [time.monotonic(), 0]

    def progress(n: int) -> None:
        # a worker event at most every half second: the client's bar moves between chunks
        last[1] += n
        now = time.monotonic()
        if worker is not None and now - last[0] >= 0.5:
            worker.log_event(PROGRESS_TOPIC, {"token": token, "chunk": index, "deals": last[1]})
            last[0] = now

    table = simulate_chunk(plan, index, progress=progress)
    if worker is not None:
        _free_tables_if_paused(worker)
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return index, sink.getvalue(), address, time.perf_counter() - t0


def _free_tables_if_paused(worker: Any) -> None:
    """Free the solver tables the worker keeps for its next chunks (one a
    thread, up to 253 MB each: ``solver.release_tables``) when its process
    memory is past Dask's pause threshold. Dask pauses a worker there until
    its memory falls, and kept tables never fall: the worker would wait for
    ever, and the run with it. Freed, they are made again by the next chunk."""
    from rook_analyze.solver import release_tables

    try:
        manager = worker.memory_manager
        limit, pause = manager.memory_limit, manager.memory_pause_fraction
        if not limit or pause is False:
            return
        memory = worker.monitor.get_process_memory()
    except Exception:  # a Dask without these (they are its own business): keep the tables
        return
    if memory > pause * limit:
        release_tables()


# -------------------------------------------------------------- the folder
def part_path(out: str | os.PathLike, index: int) -> Path:
    return Path(out) / f"part-{index:06d}.parquet"


def finished_chunks(out: str | os.PathLike) -> set[int]:
    """Indices of the parts already in ``out`` (a part is there whole or not at all)."""
    out = Path(folder("out", out, error=SimulationError))
    if not out.is_dir():
        return set()
    found = set()
    for entry in os.scandir(out):
        index = part_index(entry.name)
        if index is not None and entry.is_file():
            found.add(index)
    return found


def part_index(name: str) -> int | None:
    """The chunk whose part a file name is, or None: only the name simulate
    writes (``part_path``) counts, so part-0000005.parquet is not chunk 5's
    part-000005.parquet."""
    m = PART_RE.match(name)
    return int(m.group(1)) if m and name == part_path("", int(m.group(1))).name else None


def load_plan(out: str | os.PathLike) -> Plan:
    meta = Path(folder("out", out, error=SimulationError)) / META_FILE
    try:
        text = meta.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SimulationError(f"{shown(str(out))} is not a simulate dataset: no {META_FILE} in it") from None
    except (OSError, UnicodeDecodeError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else "not UTF-8 text"
        raise SimulationError(f"{shown(str(meta))} cannot be read ({why})") from None
    return Plan.from_json(text, str(meta))


def is_temporary(name: str) -> bool:
    """Is ``name`` a temporary file simulate writes (``_write_atomic``: a part's
    or the plan's, ``.NAME.PID.XXXXXXXX.tmp``)? One found in the folder when a run
    starts was left by a run that died before it renamed it into place."""
    return name.endswith(".tmp") and (name.startswith(".part-") or name.startswith(f".{META_FILE}."))


def _lock_output(out: Path) -> int | None:
    """Make ``out`` and take its lock (``LOCK_FILE``, an exclusive ``flock``)
    for the run that will write there; the file descriptor that holds it, or
    None where there is no lock to take (no ``fcntl``; a folder no one may
    write in; ``out`` a file, which ``prepare_output`` refuses). Two runs on
    one folder (started together, or a --resume while a run still writes)
    each saw it new or took the other's temporary files for a dead run's: a
    dataset of two seeds under one plan, or a run failing at its rename.
    The kernel drops the lock of a process that dies, so a killed run's
    lock file holds nothing back."""
    try:
        import fcntl
    except ImportError:  # (Windows)
        return None
    if out.exists() and not out.is_dir():
        return None
    out.mkdir(parents=True, exist_ok=True)
    lock = out / LOCK_FILE
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        except PermissionError:  # a folder no one may write in: no run can write there either
            return None
        except OSError as e:
            if e.errno == errno.EROFS:
                return None
            raise
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise _resume_error(lambda how: f"another simulate run is writing into {str(out)!r}; wait for it to "
                                            f"finish (or stop it), then run again with {how} if it did not") from None
        except OSError:  # a file system without locks
            os.close(fd)
            return None
        try:  # the file we locked is still the folder's (its holder removes it as it lets go)
            if os.fstat(fd).st_ino == os.stat(lock).st_ino:
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)


def _unlock_output(out: Path, fd: int | None) -> None:
    if fd is None:
        return
    try:
        os.unlink(out / LOCK_FILE)  # removed while held, so the next run locks a file of its own
    except OSError:
        pass
    os.close(fd)


def is_ours(name: str) -> bool:
    """Is ``name`` one of simulate's own hidden files other than the plan and
    parts (the lock, or a dead run's temporary file)? A folder holding only
    these is a new folder."""
    return name == LOCK_FILE or is_temporary(name)


def _remove_leftovers(out: Path) -> None:
    for entry in os.scandir(out):
        if is_temporary(entry.name):
            try:
                os.unlink(entry.path)
            except OSError:
                pass


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_atomic(path: Path, write: Callable[[Any], None]) -> None:
    """Write to a temporary name in the same folder, flush to disk, rename into place."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with open(tmp, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
    _fsync_dir(path.parent)


def write_part(out: str | os.PathLike, index: int, table: pa.Table) -> Path:
    path = part_path(out, index)
    # page checksums: damage inside a page's data (a bad disk or copy) that the footer does not
    # show is found when the part is read, rather than read as other values or as garbage
    _write_atomic(path, lambda f: pq.write_table(table, f, compression="zstd", write_page_checksum=True))
    return path


def prepare_output(out: str | os.PathLike, plan: Plan, resume: bool) -> set[int]:
    """Create ``out`` or check it for a resume; returns the chunks already done.

    Without ``resume`` the folder must be new or empty. With it, the stored
    plan must match ``plan`` field by field (a different seed, size or rules
    would mix two datasets)."""
    out = Path(folder("out", out, error=SimulationError))
    _check_plan(plan)
    if out.exists() and not out.is_dir():
        raise SimulationError(f"output folder {str(out)!r} is a file, not a folder")
    meta = out / META_FILE
    # a run killed while it wrote its plan left the plan's temporary file and no plan: the folder
    # is still new (neither a fresh run nor a resume could use it before)
    if not resume:
        if out.is_dir() and any(not is_ours(p.name) for p in out.iterdir()):
            if meta.exists():
                raise _resume_error(lambda how: f"output folder {str(out)!r} is not empty (it holds a simulate "
                                                f"dataset: {how} finishes it); give a new or empty folder")
            raise SimulationError(f"output folder {str(out)!r} is not empty; give a new or empty folder")
        out.mkdir(parents=True, exist_ok=True)
        _remove_leftovers(out)
        _write_atomic(meta, lambda f: f.write(plan.to_json().encode()))
        return set()
    if not meta.exists():
        if out.is_dir() and any(p.name != META_FILE and not is_ours(p.name) for p in out.iterdir()):
            raise SimulationError(f"cannot resume in {str(out)!r}: it has files but no {META_FILE}, so it is "
                                  f"not a simulate dataset")
        out.mkdir(parents=True, exist_ok=True)
        _remove_leftovers(out)
        _write_atomic(meta, lambda f: f.write(plan.to_json().encode()))
        return set()
    stored = load_plan(out)
    diffs = [f"{FIELD_WORDS.get(k, k)} {getattr(stored, k)!r} (asked {getattr(plan, k)!r})"
             for k in PLAN_FIELDS if getattr(stored, k) != getattr(plan, k)]
    if diffs:
        # the policy is the version's own, no setting: only a new folder (or that version) continues
        how = ("use a new output folder (or the rook-analyze that made it)" if stored.policy != plan.policy
               else "resume with the same settings or use a new output folder")
        raise SimulationError(f"cannot resume: the dataset in {str(out)!r} was made with "
                              + ", ".join(diffs) + f"; {how}")
    # temporary files of a run that died; the parts themselves are whole
    _remove_leftovers(out)
    for entry in os.scandir(out):
        if PART_RE.match(entry.name) and part_index(entry.name) is None:
            # a part under a name simulate does not write (part-0000005.parquet): no chunk's part,
            # but pandas.read_parquet(DIR) would read it, so it goes aside as a damaged part does
            os.replace(entry.path, out / f".{entry.name}.damaged")
    done = finished_chunks(out)
    extra = sorted(i for i in done if i >= plan.chunks)
    if extra:
        raise SimulationError(f"cannot resume: {str(out)!r} holds part {extra[0]} beyond the plan's "
                              f"{plan.chunks} chunks")
    # a part damaged after it was written (a copy cut short, a bad disk) is
    # moved aside under a hidden name and computed again
    seats = Rules.from_spec(plan.rules).seats
    schema = dataset_schema(plan.rules)
    # read whole (its pages' checksums): damage inside the data left the footer readable, the
    # part was kept, and every report then failed on it. Threads: Arrow reads without the GIL
    def sound(i: int) -> bool:
        return part_is_whole(out, i, plan.chunk_span(i)[1] * seats, plan.chunk_span(i), schema, plan=plan, full=True)

    finished = sorted(done)
    with ThreadPoolExecutor(max_workers=max(1, min(READ_THREADS, len(finished)))) as pool:
        checked = list(pool.map(sound, finished))
    for i, ok in zip(finished, checked):
        if not ok:
            path = part_path(out, i)
            os.replace(path, path.with_name(f".{path.name}.damaged"))
            done.discard(i)
    if len(done) < plan.chunks:
        _check_writable(out)
    return done


def _check_writable(out: Path) -> None:
    """Raise the OSError of a folder the run cannot write its parts in, before
    any chunk is computed (a resume into a read-only folder solved its first
    chunks before the first part failed to be written). A file of our own,
    made and gone at once, as ``output_file`` tries a folder."""
    with tempfile.TemporaryFile(dir=out):
        pass


def _read_part(out: Path, index: int, columns: Sequence[str] | None, span: tuple[int, int],
               schema: pa.Schema, plan: Plan) -> pa.Table:
    path = part_path(out, index)
    try:
        # ParquetFile rather than read_table, which sets up a dataset a file: a
        # million-deal run has 5,000 parts, read two to three times as fast so
        with _open_part(path) as source, pq.ParquetFile(source, page_checksum_verification=True) as f:
            # the dataset's columns in its order: a part with one more column, or its columns
            # in another order (another program wrote it), failed where the parts were joined
            table = f.read(columns=list(columns) if columns else schema.names)
            # a column of another type (a file another program wrote) failed later, a traceback
            # where the parts were joined or where the figures were fitted. Checked on the table
            # read: the file's schema_arrow cost 0.02 to 0.03 ms more a part
            wrong = _schema_problem(table.schema, schema, columns)
            if wrong is not None:
                raise _unreadable(path, wrong)
            if not _deal_ids_fit(f.metadata, span):
                raise _unreadable(path, f"its deal_id values are not chunk {index}'s, {span[0]} to "
                                        f"{span[0] + span[1] - 1}: a part of another chunk")
            wrong = _record_problem(f.metadata.metadata, plan)  # (the points: read_dataset, on all parts at once)
            if wrong is not None:
                raise _unreadable(path, wrong)
    except (pa.ArrowException, OSError) as e:
        raise _unreadable(path, str(e)) from None
    if any(c.null_count for c in table.columns):  # simulate writes every value; one missing broke the fit
        name, col = next((n, c) for n, c in zip(table.column_names, table.columns) if c.null_count)
        raise _unreadable(path, f"its column {name!r} has {col.null_count} missing "
                                f"value{'' if col.null_count == 1 else 's'}")
    return table


def _check_points(frame: pd.DataFrame, out: Path, plan: Plan) -> None:
    """Points no hand holds (outside 0..``total_points``) name their part: on
    all rows at once, where a check of each part's footer cost 0.1 ms a part."""
    total = _total(plan)
    for name in [c for c in frame.columns if _is_points(c)]:
        values = frame[name].to_numpy()
        bad = (values < 0) | (values > total)
        if bad.any():
            k = int(bad.argmax())
            if "chunk" in frame.columns:
                where = part_path(out, int(frame["chunk"].iat[k]))
            elif "deal_id" in frame.columns:
                where = part_path(out, int(frame["deal_id"].iat[k]) // plan.chunk_size)
            else:
                where = Path(out) / "part-*.parquet"
            raise _unreadable(where, f"its column {name!r} holds {int(values[k])}, outside the 0 to {total} "
                                     f"points of a hand")


def _total(plan: Plan) -> int:
    return Rules.from_spec(plan.rules).total_points


def _open_part(path: Path) -> pa.NativeFile:
    """A part opened for Arrow by its path's bytes: Arrow encodes a str path as
    UTF-8, which a folder whose name is not UTF-8 (read as surrogates) fails."""
    return pa.OSFile(os.fsencode(path))


def _schema_problem(schema: pa.Schema, dataset: pa.Schema, columns: Sequence[str] | None = None) -> str | None:
    """What keeps a part's ``schema`` from the ``dataset``'s (``dataset_schema``)
    in ``columns`` (None: all of them): a column of another type, or (all of
    them) one missing; None when they agree. A column missing among those
    read is left to the read, which names it. Column by column only when the
    whole schema differs: that loop cost 0.1 ms a part, 0.6 s on a million
    deals' 5,000 parts."""
    if columns is None and schema.equals(dataset, check_metadata=False):
        return None
    got = dict(zip(schema.names, schema.types))
    expected = dict(zip(dataset.names, dataset.types))
    for name in (expected if columns is None else columns):
        want = expected.get(name)
        if want is None:
            continue
        if name not in got:
            if columns is None:
                return f"no column {name!r} in it"
            continue
        if got[name] != want:
            return f"its column {name!r} holds {got[name]}, not {want}: not a part simulate wrote"
    return None


def _deal_ids_fit(meta: pq.FileMetaData, span: tuple[int, int]) -> bool:
    """Do a part's deal_id values lie in its chunk's span (first, count)? Read
    from the footer's statistics (the minimum and maximum of each row group),
    so a part copied in from another chunk is caught without reading its
    rows; True where the footer has no statistics to tell."""
    names = meta.schema.names
    if "deal_id" not in names:
        return True
    col = names.index("deal_id")
    first, count = span
    for g in range(meta.num_row_groups):
        stats = meta.row_group(g).column(col).statistics
        if stats is None or not stats.has_min_max:
            continue
        if not (isinstance(stats.min, int) and isinstance(stats.max, int)):
            return False  # deal_id values that are not whole numbers: no deal_id simulate wrote
        if stats.min < first or stats.max >= first + count:
            return False
    return True


def _unreadable(path: Path, why: str) -> SimulationError:
    why = " ".join(why.split())  # Arrow's messages run over several lines; an error is one
    return _resume_error(lambda how: f"{str(path)!r} cannot be read ({why}); run simulate again on this "
                                     f"folder with {how} to compute that part again")


def part_is_whole(out: str | os.PathLike, index: int, rows: int, span: tuple[int, int] | None = None,
                  schema: pa.Schema | None = None, *, plan: Plan | None = None, full: bool = False) -> bool:
    """Does part ``index`` read as Parquet with ``rows`` rows, with ``span``
    (first deal_id, deals) its chunk's deals, and with ``schema`` (the
    dataset's, ``dataset_schema``) its columns, of their types and with no
    value missing? With ``plan``: also written by that plan's run (its
    record, where it has one) and its points within the rules' total.
    Only its footer is read, unless ``full``: then its data too, each
    page against its checksum where the part has them."""
    out = folder("out", out, error=SimulationError)
    if span is not None and not (isinstance(span, (tuple, list)) and len(span) == 2
                                 and all(is_whole(x) for x in span)):
        raise SimulationError(f"span={shown(span)}: expected (first deal_id, deals)")
    if not is_whole(index) or index < 0:
        raise SimulationError(f"index={shown(index)}: expected a chunk number, 0 or more")
    if not is_whole(rows):
        raise SimulationError(f"rows={shown(rows)}: expected a whole number")
    if plan is not None:
        _check_plan(plan)
    try:
        with _open_part(part_path(out, index)) as source, \
                pq.ParquetFile(source, page_checksum_verification=True) as f:
            meta = f.metadata
            if schema is not None and (_schema_problem(meta.schema.to_arrow_schema(), schema) is not None
                                        or _has_nulls(meta)):
                return False
            if plan is not None and (_record_problem(meta.metadata, plan) is not None
                                     or _points_problem(meta, _total(plan)) is not None):
                return False
            if meta.num_rows != rows or (span is not None and not _deal_ids_fit(meta, span)):
                return False
            if full:
                table = f.read()
                if table.num_rows != rows or any(c.null_count for c in table.columns):
                    return False
    except (pa.ArrowException, OSError):
        return False
    return True


def _has_nulls(meta: pq.FileMetaData) -> bool:
    """Does the footer's statistics count a missing value in any column?"""
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        for c in range(group.num_columns):
            stats = group.column(c).statistics
            if stats is not None and stats.has_null_count and stats.null_count:
                return True
    return False


def read_dataset(out: str | os.PathLike, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """The rows of every finished part, in deal and seat order; ``columns``:
    the columns to read (one name or a list; None: all)."""
    out = Path(folder("out", out, error=SimulationError))
    plan = load_plan(out)
    if columns is not None:
        columns = [columns] if isinstance(columns, str) else columns
        if not isinstance(columns, (list, tuple)) or not columns or not all(isinstance(c, str) for c in columns):
            raise SimulationError(f"columns={shown(columns)}: expected column names (one, or a list), or None")
        unknown = [c for c in columns if c not in dataset_schema(plan.rules).names]
        if unknown:
            raise SimulationError(f"columns: no column {shown(unknown[0])} in the dataset (README lists them)")
    parts = sorted(finished_chunks(out))
    if not parts:
        raise SimulationError(f"{str(out)!r} holds no finished parts yet")
    if parts[-1] >= plan.chunks:
        raise SimulationError(f"{str(part_path(out, parts[-1]))!r} is not a part of this dataset: its plan "
                              f"({META_FILE}) has chunks 0..{plan.chunks - 1}")
    seats = Rules.from_spec(plan.rules).seats
    schema = dataset_schema(plan.rules)
    want = list(dict.fromkeys(columns)) if columns else schema.names
    # the order keys are read even when not asked for: rows are put in deal and seat order by them
    # (sorted by position alone, every deal's first seat came first), then left out
    order_keys = [c for c in ("deal_id", "position") if c not in want]
    read = want + order_keys
    joined: list[pa.Table] = []
    batch: list[pa.Table] = []
    # Arrow reads without the GIL: a few threads overlap the parts' file opens and decoding
    with ThreadPoolExecutor(max_workers=min(READ_THREADS, len(parts))) as pool:
        for i, table in zip(parts, pool.map(lambda i: _read_part(out, i, read, plan.chunk_span(i), schema,
                                                                 plan), parts)):
            # ParquetFile.read leaves out a column a part lacks (read_table refused): counted here,
            # after the threads (a schema check in each read held the GIL: a million deals took 9 s more)
            if table.num_columns != len(read):
                missing = next(c for c in read if c not in table.column_names)
                raise _unreadable(part_path(out, i), f"no column {missing!r} in it")
            rows = plan.chunk_span(i)[1] * seats
            if table.num_rows != rows:
                raise SimulationError(f"{str(part_path(out, i))!r} holds {table.num_rows} rows where the plan "
                                      f"({META_FILE}: {plan.rules!r}) makes {rows}: the part or the plan was "
                                      f"changed")
            batch.append(table)
            if len(batch) == JOIN_PARTS:
                # thousands of small tables cost more memory in their objects than in their data:
                # joined as they come, a million deals' report peaked 0.3 GB lower
                joined.append(pa.concat_tables(batch).combine_chunks())
                batch = []
    frame = pa.concat_tables(joined + batch).to_pandas()
    del joined, batch
    _check_points(frame, out, plan)
    keys = ["deal_id", "position"]
    if not _in_order(frame, keys):
        frame = frame.sort_values(keys, kind="stable").reset_index(drop=True)
    return frame.drop(columns=order_keys) if order_keys else frame


def _in_order(frame: pd.DataFrame, keys: Sequence[str]) -> bool:
    """Whether the rows already run in ``keys`` order (parts are written so): the sort's copy of a
    million deals' frame is then left out."""
    first = frame[keys[0]].to_numpy().astype(np.int64)  # signed: a difference of unsigned ints wraps
    step = np.diff(first)
    if (step < 0).any():
        return False
    if len(keys) == 1:
        return True
    second = frame[keys[1]].to_numpy().astype(np.int64)
    # within one value of the first key, the second never falls
    return not ((step == 0) & (np.diff(second) < 0)).any()


# ------------------------------------------------------------------ progress
def _hours(seconds: float) -> str:
    """``H:MM:SS`` with the hours unbounded (``27:46:40``), as tqdm's bar writes
    a time: a long run's time left is days, which a clock time (``%H``) wraps."""
    minutes, sec = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours:02d}:{minutes:02d}:{sec:02d}"


class _Progress:
    """Deals done: whole chunks written plus what running chunks report.

    ``show``: None shows a bar (tqdm) on a terminal and nothing elsewhere;
    True shows the bar on a terminal and elsewhere (a log file) a status
    line every ``every`` seconds and at the end; False shows nothing."""

    def __init__(self, total: int, initial: int, show: bool | None, every: float = 30.0) -> None:
        self.total = total
        self.written = initial
        self.start_written = initial
        self.partial: dict[int, int] = {}
        # chunks written: a worker's progress event can arrive after its chunk's result, and counted
        # again it stayed in ``partial`` for the rest of the run (the bar ran ahead, a line twice at the end)
        self.ended: set[int] = set()
        self.lock = threading.Lock()
        self.t0 = time.monotonic()
        self.every = every
        self.last_line = self.t0
        err = sys.stderr
        tty = hasattr(err, "isatty") and err.isatty()
        self.show = tty if show is None else show
        self.bar = None
        if self.show and tty:
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=initial, unit="deal", file=err, dynamic_ncols=True,
                            smoothing=0.05, desc="simulate")
        self.shown = initial

    def running(self, chunk: int, deals: int) -> None:
        with self.lock:
            if chunk in self.ended:
                return
            self.partial[chunk] = deals
            self._refresh()

    def finished(self, chunk: int, deals: int) -> None:
        with self.lock:
            self.partial.pop(chunk, None)
            self.ended.add(chunk)
            self.written += deals
            self._refresh()

    def _refresh(self) -> None:
        # never backwards: a chunk restarted on another worker reports from 0 again
        n = min(self.total, max(self.shown, self.written + sum(self.partial.values())))
        if self.bar is not None:
            if n > self.shown:
                self.bar.update(n - self.shown)
        elif self.show:
            now = time.monotonic()
            if now - self.last_line >= self.every or self.written == self.total:
                self.last_line = now
                print(self.line(n), file=sys.stderr, flush=True)
        self.shown = n

    def line(self, n: int) -> str:
        dt = max(time.monotonic() - self.t0, 1e-9)
        rate = (n - self.start_written) / dt
        left = (self.total - n) / rate if rate > 0 else float("nan")
        left_text = _hours(left) if np.isfinite(left) else "?"
        return f"simulate: {n}/{self.total} deals, {rate:.1f} deals/s, {left_text} left"

    def say(self, text: str) -> None:
        """A line on standard error, above the bar where there is one (a
        plain print lands in the middle of it)."""
        if self.bar is not None:
            self.bar.write(text, file=sys.stderr)
        else:
            print(text, file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# ------------------------------------------------------------------ the run
@dataclass(frozen=True)
class SimulationSummary:
    """What one ``simulate`` call did."""

    out: str
    plan: Plan
    chunks_done_before: int
    chunks_computed: int
    deals_computed: int
    seconds: float
    workers: int
    by_worker: dict[str, int]   # worker address -> chunks it computed

    @property
    def deals_per_second(self) -> float:
        return self.deals_computed / self.seconds if self.seconds > 0 else float("nan")

    def to_dict(self) -> dict[str, Any]:
        return {"out": self.out, "rules": self.plan.rules, "seed": self.plan.seed, "deals": self.plan.deals,
                "chunk_size": self.plan.chunk_size, "chunks": self.plan.chunks,
                "chunks_done_before": self.chunks_done_before, "chunks_computed": self.chunks_computed,
                "deals_computed": self.deals_computed, "seconds": round(self.seconds, 3),
                "deals_per_second": round(self.deals_per_second, 3), "workers": self.workers,
                "by_worker": dict(self.by_worker)}


def check_scheduler_address(address: str) -> None:
    """A Dask scheduler address with a scheme Dask knows and a host and port
    (``tcp://10.0.0.5:8786``, ``10.0.0.5:8786``), or raise ``SimulationError``."""
    from distributed.comm import get_address_host_port

    try:
        host, port = get_address_host_port(str(address))
        if not host:
            raise ValueError("no host")
        if not 1 <= int(port) <= 65535:
            raise ValueError(f"port {port} is not 1..65535")
    except (ValueError, TypeError) as e:
        why = "the port is not a number" if "invalid literal" in str(e) else str(e)
        raise SimulationError(f"scheduler {shown(address)}: not a scheduler address ({why}); give HOST:PORT or "
                              "tcp://HOST:PORT, as 'dask scheduler' prints it") from None


def _check_scheduler_answers(address: str, timeout: float) -> None:
    """Raise ``SimulationError`` unless a tcp address completes Dask's
    handshake within ``timeout`` seconds.

    Dask's ``connect`` bounds the TCP connect but not the handshake after it:
    a service on that port that accepts and stays quiet held ``Client(...)``
    for ever, and one that answers something else (a web server's 400) raised
    a MemoryError, its reply read as a frame length. tls:// and ws:// take
    security settings that only the Client looks up: they are left to it."""
    import asyncio

    from distributed.comm import connect, parse_address

    if parse_address(address)[0] != "tcp":
        return

    async def probe() -> None:
        comm = await asyncio.wait_for(connect(address, timeout=timeout), timeout)
        await comm.close()

    # an event loop of its own, whatever the caller runs, on a daemon thread: a pool's
    # thread is joined on the way out, so Ctrl-C waited out the whole timeout (90 s)
    answer: list[BaseException | None] = []

    def run_probe() -> None:
        try:
            asyncio.run(probe())
            answer.append(None)
        except BaseException as e:  # handed to the caller's thread
            answer.append(e)

    worker = threading.Thread(target=run_probe, name="rook-scheduler-probe", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.1)  # in short waits, so a signal's handler runs at once
    e = answer[0] if answer else RuntimeError("the probe ended without an answer")
    if e is None:
        return
    if isinstance(e, (OSError, asyncio.TimeoutError)):  # refused, or no answer in time
        why = str(e) or f"no answer within {timeout:g} s"
        if _refused(address):
            why = f"nothing listens there, the connection is refused; {why}"
    else:  # an answer that is not Dask's (a MemoryError, its first bytes read as a frame length)
        why = f"what answers does not speak Dask's protocol: {type(e).__name__}"
    raise SimulationError(f"scheduler {shown(address)}: no Dask scheduler answers there ({why})") from None


def _refused(address: str) -> bool:
    """Does a tcp address refuse a connection now (no process listens on the
    port)? Dask's connect retries a refusal until its timeout, as for a
    scheduler still starting, so its message says only "timed out"."""
    import socket

    from distributed.comm import parse_host_port

    try:
        host, port = parse_host_port(address.split("://", 1)[-1])
        with socket.create_connection((host, port), timeout=1):
            return False
    except ConnectionRefusedError:
        return True
    except (OSError, ValueError):
        return False


def _connect(address: str, timeout: float) -> Any:
    """``Client(address, timeout=timeout)``, closed again when its start fails.

    distributed leaves a Client whose start failed (a tls:// address without
    Dask's TLS settings) with its event-loop thread running, in a reference
    cycle: only the cyclic collector closed it, on whatever thread it ran.
    On the event-loop thread of a cluster being made, that close waited for
    the lock the cluster's start held, and the start gave up after 10 s with
    an AssertionError (the next run in the process; seen on Python 3.13)."""
    from distributed import Client

    client = Client.__new__(Client)
    try:
        client.__init__(address, timeout=timeout)
    except BaseException:
        if getattr(client, "status", "newly-created") != "newly-created":  # its start began
            try:
                client.close()
            except Exception:  # the start's error is the one to tell
                pass
        raise
    return client


def _undo_output(out: Path, existed: bool) -> None:
    """Take back what ``prepare_output`` made for a run that never started."""
    try:
        (out / META_FILE).unlink(missing_ok=True)
        (out / LOCK_FILE).unlink(missing_ok=True)
        if not existed:
            out.rmdir()
    except OSError:
        pass


def warm_solver(rules: Rules | str, tt_bits: int | None = api.MIN_TT_BITS) -> None:
    """Solve one small position so the numba kernels are compiled and on the
    disk cache before worker processes start (they then load, not compile).
    ``tt_bits``: the solver table's size, which this process keeps
    (``release_tables`` frees it): the smallest by default; None, the
    default size, for a process that goes on to solve with it."""
    from rook_analyze.solver import solve_batch

    rules = Rules.from_spec(rules)
    plan = make_plan(rules, 1, seed=0, chunk_size=1)
    deal = chunk_deals(plan, 0)[0]
    small = deal.ending(2)  # two tricks' worth of cards: compiles every kernel, solves in no time
    # the smallest table compiles the same kernels: the process that runs simulate solves
    # nothing more, and a default table (about 240 MB) stayed with it for the whole run and after
    solve_batch([small], rules.trumps[0], 0, dealer=plan.dealer, threads=1, tt_bits=tt_bits)


# what a worker process holds besides its solver table (Python, numba's
# compiled kernels, Dask, pyarrow): the benchmark's workers start at about
# 478 MB with a 251 MB table (benchmarks/RESULTS.md)
WORKER_BASE_BYTES = 250_000_000


def _check_memory_for_workers(n: int, bits: int) -> None:
    """WorkersDoNotFit (a SimulationError) when ``n`` embedded workers, a
    solver table each, would not fit in the memory available. Each worker checks its own table
    as it makes it, but they start at the same moment and each sees the
    memory the others have not taken yet: together they would swap the
    machine to a crawl or be killed by the system."""
    available = api._memory_available()
    each = api.table_bytes(bits) + WORKER_BASE_BYTES
    if available is None or n * each <= available:
        return
    fit = available // each

    def message(workers: str) -> str:  # the library's words, then the command line's
        advice = f"use {workers}{fit} or fewer" if fit else "no worker fits"
        if bits > api.MIN_TT_BITS:
            advice += ", or a smaller ROOK_ANALYZE_TT_BITS"
        return (f"{workers}{n}: each worker process holds about {each / 1e6:,.0f} MB (its solver table and "
                f"the rest), {n * each / 1e6:,.0f} MB in all, and {available / 1e6:,.0f} MB of memory is "
                f"available; {advice}")

    raise WorkersDoNotFit(message("workers="), cli_message=message("--workers "))


def _local_cluster(n: int) -> Any:
    """The embedded ``LocalCluster``: ``n`` single-threaded worker processes on
    loopback, which never see Ctrl-C or a hangup.

    A terminal's Ctrl-C (and SIGHUP, when it closes) goes to the whole
    foreground process group, worker processes included. This process
    handles it (it stops the run and closes the cluster); a worker that took
    a Ctrl-C too died printing a KeyboardInterrupt traceback, and a hangup
    killed multiprocessing's resource tracker, which printed a traceback for
    every shared resource. A new process starts with the signal mask of the
    thread that started it, and the Nannies start their worker processes
    (and restart them) from the cluster's event-loop thread, which has the
    mask of the thread that made the cluster. So the cluster is made on a
    thread of its own with both signals blocked: every worker process starts
    with them blocked (pending, never delivered), while the main thread keeps
    its handlers and answers at once, even while the workers start."""
    from distributed import LocalCluster

    def make() -> Any:
        # loopback only; the dashboard (if bokeh is installed) on a free port
        return LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                            dashboard_address=":0", silence_logs=logging.CRITICAL)

    if not hasattr(signal, "pthread_sigmask"):  # no signal masks (Windows): the plain cluster
        return make()
    # multiprocessing starts its resource tracker with SIGINT blocked and then
    # unblocks it in the thread that started it: started here first, it is
    # never started from the event-loop thread, whose mask then stays as set
    from multiprocessing import resource_tracker

    # (it unblocks SIGINT itself, and ignores it; a hangup stays blocked there)
    unblocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
    try:
        resource_tracker.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)
    made: dict[str, Any] = {}
    # an Event, not Thread.join: a join that Ctrl-C interrupts takes the thread
    # for finished (Python 3.11), so a second one would not wait for it
    done = threading.Event()

    def run() -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGHUP})
        try:
            made["cluster"] = make()
        except BaseException as e:  # raised again on the calling thread
            made["error"] = e
        finally:
            done.set()

    threading.Thread(target=run, name="rook-analyze: start the Dask cluster", daemon=True).start()
    try:
        done.wait()
    except KeyboardInterrupt:
        # Ctrl-C while the workers start: close the cluster once it is made,
        # so that no worker outlives the run (a second Ctrl-C leaves at once)
        done.wait()
        if "cluster" in made:
            made["cluster"].close()
        raise
    if "error" in made:
        raise made["error"]
    return made["cluster"]


def simulate(rules: Rules | str, deals: int, out: str | os.PathLike, seed: int | None = None, *,
             workers: int | None = None, scheduler: str | None = None, resume: bool = False,
             chunk_size: int | None = None, progress: bool | None = None,
             client: Any = None, on_chunk: Callable[[int, str], None] | None = None,
             connect_timeout: float = CONNECT_TIMEOUT,
             on_start: Callable[[], None] | None = None) -> SimulationSummary:
    """Simulate ``deals`` random deals into the Parquet dataset at ``out``.

    ``workers``: processes of the embedded LocalCluster (default: one per
    core). ``scheduler``: the address of a running Dask scheduler instead.
    ``connect_timeout``: seconds to wait for that scheduler to answer
    before the run is an error.
    ``client``: an existing ``distributed.Client`` (for tests and notebooks).
    ``resume``: keep the finished parts of an earlier run with the same plan
    (with ``seed=None`` the stored seed is used, with ``chunk_size=None`` the
    stored chunk size). ``chunk_size``: deals a chunk (default:
    ``default_chunk_size(deals)``). ``progress``: None (the
    default) a bar on standard error when it is a terminal, else nothing;
    True the bar on a terminal, else a status line every 30 seconds (the
    CLI's choice); False nothing. ``on_chunk(index, worker)``
    is called after each part is written; ``on_start()`` once the run is
    sure to start: the inputs checked, the folder ready, chunks left to
    compute, and the scheduler answering (the CLI's compile notice: never
    for a run refused or one with nothing to do)."""
    rules = Rules.from_spec(rules)
    workers = threads_count(workers, "workers", error=SimulationError, most=False)  # its own message below
    most = most_threads()
    if workers is not None and workers > most:
        # one process each: more than a few per core only thrashes the machine
        raise SimulationError(f"workers={workers}: at most {most} on this machine (a process each); "
                              f"a larger cluster runs with a scheduler address",
                              cli_message=f"--workers {workers}: at most {most} on this machine (a process each); "
                                          f"a larger cluster runs with --scheduler ADDRESS")
    if client is not None and not callable(getattr(client, "submit", None)):
        raise SimulationError(f"client={shown(client)}: expected a distributed.Client (or None)")
    if workers is not None and scheduler is not None:
        raise SimulationError(f"workers={shown(workers)} and scheduler={shown(scheduler)}: give workers (the embedded "
                              f"cluster) or a scheduler address, not both")
    if scheduler is not None:
        if not isinstance(scheduler, str):
            raise SimulationError(f"scheduler={shown(scheduler)}: expected an address such as 'tcp://10.0.0.5:8786'")
        check_scheduler_address(scheduler)
    connect_timeout = number("connect_timeout", connect_timeout, what="seconds", error=SimulationError,
                             finite=True)  # inf would wait for ever on an address that never answers
    if not isinstance(resume, bool):
        raise SimulationError(f"resume={shown(resume)}: expected True or False")
    if progress is not None and not isinstance(progress, bool):
        raise SimulationError(f"progress={shown(progress)}: expected None, True or False")
    on_chunk = callable_or_none("on_chunk", on_chunk, error=SimulationError)
    on_start = callable_or_none("on_start", on_start, error=SimulationError)
    # checked here, before a stored seed is looked up or a folder is made
    deals = whole("deals", deals, 1, error=SimulationError, small="need at least 1 deal")
    if chunk_size is not None:
        chunk_size = whole("chunk_size", chunk_size, 1, error=SimulationError, small="need at least 1 deal a chunk")
    seed = optional_whole("seed", seed, 0, error=SimulationError, most=MAX_SEED)
    out_path = Path(folder("out", out, error=SimulationError))
    if resume and (seed is None or chunk_size is None) and (out_path / META_FILE).exists():
        stored = load_plan(out_path)
        seed = stored.seed if seed is None else seed
        chunk_size = stored.chunk_size if chunk_size is None else chunk_size
    plan = make_plan(rules, deals, seed, chunk_size)
    # the embedded cluster's, where there is one: a process a core this process may run on (taskset, a
    # cpuset), as the solver's threads; os.cpu_count() counted the machine's, and 2 workers shared 1 core
    local_workers = workers or api.default_threads()
    if client is None and scheduler is None:
        # the embedded cluster's workers take this environment: a bad ROOK_ANALYZE_TT_BITS is bad
        # input, told before the output folder is touched; so are more workers than the memory holds
        _check_memory_for_workers(local_workers, made_bits(None, Rules.from_spec(plan.rules).hand_size))
    lock = None
    try:
        existed = out_path.exists()
        had_meta = (out_path / META_FILE).exists()
        lock = _lock_output(out_path)  # held until the run returns: one run writes into a folder
        try:
            done = prepare_output(out_path, plan, resume)
        except BaseException:  # a folder refused: left as it was (a folder made for the lock removed)
            if lock is not None and not existed:
                _undo_output(out_path, existed)
            raise
    except OSError as e:  # a name too long, a file in the path, no permission
        _unlock_output(out_path, lock)
        raise SimulationError(f"output folder {str(out)!r}: {e.strerror or e}") from None
    except BaseException:
        _unlock_output(out_path, lock)
        raise
    try:
        return _run(plan, out_path, done, rules, scheduler=scheduler, local_workers=local_workers,
                    client=client, progress=progress, on_chunk=on_chunk, connect_timeout=connect_timeout,
                    existed=existed, had_meta=had_meta, on_start=on_start)
    finally:
        _unlock_output(out_path, lock)


def _run(plan: Plan, out_path: Path, done: set[int], rules: Rules, *,
         scheduler: str | None, local_workers: int, client: Any, progress: bool | None,
         on_chunk: Callable[[int, str], None] | None, connect_timeout: float, existed: bool,
         had_meta: bool, on_start: Callable[[], None] | None = None) -> SimulationSummary:
    """The run of ``simulate`` once its folder is prepared (and locked)."""
    # lazily: a plan may have up to 2**31 chunks, more than a list of them fits in memory
    todo = (i for i in range(plan.chunks) if i not in done)
    done_deals = sum(plan.chunk_span(i)[1] for i in done)
    t0 = time.perf_counter()
    if len(done) == plan.chunks:
        return SimulationSummary(str(out_path), plan, len(done), 0, 0, 0.0, 0, {})

    from distributed import Client, as_completed

    own_cluster = own_client = None
    try:
        if client is None:
            if scheduler is not None:
                try:
                    _check_scheduler_answers(scheduler, connect_timeout)
                    own_client = client = _connect(scheduler, connect_timeout)
                except BaseException as e:  # (a tls:// address without Dask's TLS settings is a TypeError)
                    if not had_meta:  # nothing was computed (Ctrl-C too): leave the output folder as it was
                        _undo_output(out_path, existed)
                    if isinstance(e, SimulationError) or not isinstance(e, Exception):
                        raise
                    raise SimulationError(f"scheduler {shown(scheduler)}: no Dask scheduler answers there "
                                          f"({str(e) or type(e).__name__})") from None
            else:
                if on_start is not None:
                    on_start()  # before this process compiles the solver (or loads it) for its workers
                try:
                    warm_solver(rules)
                except Exception:  # (no memory for the solver's table): nothing was computed
                    if not had_meta:
                        _undo_output(out_path, existed)
                    raise
                own_cluster = _local_cluster(local_workers)
                own_client = client = Client(own_cluster)
        if on_start is not None and own_cluster is None:
            on_start()  # a scheduler that answered, or the caller's client
        n_workers = len(client.nthreads())
        bar = _Progress(plan.deals, done_deals, progress)
        if n_workers == 0 and bar.show:
            bar.say(f"simulate: no worker has joined {scheduler or 'the cluster'} yet; the chunks wait for "
                    "one ('dask worker ADDRESS')")
        watch = _watch_workers(client, scheduler or "the cluster", n_workers, bar.say) if bar.show else None
        token = uuid.uuid4().hex[:12]

        def on_event(event: Any) -> None:
            try:
                msg = event[1]
                if msg.get("token") == token:
                    bar.running(int(msg["chunk"]), int(msg["deals"]))
            except Exception:  # a progress message must never break the run
                pass

        subscribed = False
        try:
            client.subscribe_topic(PROGRESS_TOPIC, on_event)
            subscribed = True
        except Exception:
            pass
        plan_json = plan.to_json()

        def submit(index: int) -> Any:
            fut = client.submit(_task, plan_json, index, token, key=f"rook-simulate-{token}-{index:06d}",
                                pure=False, retries=TASK_RETRIES, priority=-index)
            live[fut.key] = fut
            return fut

        # a window of chunks in flight, topped up as parts are written: with every chunk submitted
        # at once, a plan of 100,000s of chunks wrote no part until all were queued (minutes, the
        # scheduler's memory), and a loaded machine lost its scheduler connection first
        live: dict[str, Any] = {}
        window = max(SUBMIT_WINDOW, 4 * sum(client.nthreads().values()))
        # this client's loop: as_completed would otherwise take the default client's,
        # which differs when the caller has another Client open
        queue = as_completed([submit(i) for i in itertools.islice(todo, window)], loop=client.loop)
        by_worker: dict[str, int] = {}
        computed = 0
        deals_computed = 0
        try:
            for fut in queue:
                try:
                    index, payload, address, _ = fut.result()
                except Exception as e:
                    lost = _cluster_lost(e, fut.key, out_path, plan, done_deals + deals_computed)
                    if lost is None:
                        raise
                    raise lost from None
                table = pa.ipc.open_stream(payload).read_all()
                write_part(out_path, index, table)
                del live[fut.key]
                fut.release()
                following = next(todo, None)
                if following is not None:
                    queue.add(submit(following))
                by_worker[address] = by_worker.get(address, 0) + 1
                computed += 1
                n = plan.chunk_span(index)[1]
                deals_computed += n
                bar.finished(index, n)
                if on_chunk is not None:
                    on_chunk(index, address)
                if stop_requested():
                    # a Ctrl-C that Python dropped (in a weakref callback) while this
                    # loop ran: the chunks run in other processes, so stop here
                    raise KeyboardInterrupt
        finally:
            if watch is not None:
                watch.set()
            bar.close()
            if subscribed:
                try:
                    client.unsubscribe_topic(PROGRESS_TOPIC)
                except Exception:
                    pass
            for fut in live.values():
                if not fut.done():
                    fut.cancel()
        return SimulationSummary(str(out_path), plan, len(done), computed, deals_computed,
                                 time.perf_counter() - t0, n_workers, by_worker)
    finally:
        with _signals_held():
            if own_client is not None:
                own_client.close()
            if own_cluster is not None:
                own_cluster.close()


def _watch_workers(client: Any, where: str, workers: int, say: Callable[[str], None]) -> threading.Event:
    """Say (``say``, on standard error) when the cluster has no worker left, and when
    one is back: the run waits for them with no chunk finishing, so no
    progress line came to show why it stood still. Looks every
    ``WORKER_WATCH_S`` seconds on a daemon thread until the returned event is set."""
    done = threading.Event()

    def watch() -> None:
        had = workers
        while not done.wait(WORKER_WATCH_S):
            try:
                now = len(client.nthreads())
            except Exception:  # a closing client: the run itself tells what went wrong
                return
            if now == 0 and had > 0:
                say(f"simulate: no worker is left in {where}; the chunks wait for one ('dask worker ADDRESS')")
            elif now > 0 and had == 0:
                say(f"simulate: {plural(now, 'worker')} in {where} now; the chunks run")
            had = now

    threading.Thread(target=watch, name="rook-worker-watch", daemon=True).start()
    return done


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """While the block runs (a cluster's close, a second or so), a first
    Ctrl-C, SIGTERM or SIGHUP waits for its end, then goes to the handler it
    would have reached; a second goes there at once. A close cut short by a
    signal was left to distributed's exit-time cleanup, which waited out its
    10 s timeout (a service manager's grace period is often 10 s). Off the
    main thread (where signals cannot be handled) the block changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    previous: dict[int, Any] = {}

    def deliver(signum: int) -> None:
        handler = previous[signum]
        if callable(handler):
            handler(signum, None)  # the command's: stop the searches, raise its KeyboardInterrupt
        elif handler == signal.SIG_DFL:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

    def hold(signum: int, frame: Any) -> None:
        held.append(signum)
        if len(held) > 1:  # asked twice: no more waiting
            deliver(signum)

    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            num = getattr(signal, name)
            previous[num] = signal.signal(num, hold)
    try:
        yield
    finally:
        for num, handler in previous.items():
            signal.signal(num, handler)
    if held:
        deliver(held[0])

