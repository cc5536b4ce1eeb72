"""Ctrl-C stops a search within milliseconds, in the kernel, the library
and the command line, and leaves nothing behind that changes later values."""

import errno
import io
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from typing import Iterator

import numpy as np
import pytest

from clirunner import CliRunner
from rook_analyze.analysis.simulate import LOCK_FILE, finished_chunks, read_dataset
from rook_analyze.cli.main import main as cli
from rook_analyze.solver import Rules, api, kernel, random_deal, random_deals, solve, solve_batch
from rook_analyze.solver.config import TT_WAYS

RULES = Rules.preset("hasbro")


def _kernel_solve(pos, tt, gen, stop):
    hands = pos.hands.copy()
    stats = np.zeros(1, np.int64)
    value = kernel.solve_exact(hands, pos.leader, pos.trick, 0, 0, pos.P, pos.side, pos.enc.values,
                               pos.enc.bird_mask, pos.unit, *tt, gen, TT_WAYS, stats, stop)
    return value, int(stats[0]), hands


def test_a_set_stop_flag_ends_the_search_and_restores_the_hands():
    tt = kernel.tt_new(18)
    pos = api._position(random_deal(RULES, 14), "B", 0, None, "W", ())
    value, nodes, _ = _kernel_solve(pos, tt, 1, np.zeros(1, np.int64))
    # long enough that the timer below (2 ms) stops it midway: some
    # hundredths of a second or more (1.6 M nodes with the kernel of the
    # forty-second session)
    assert nodes > 500_000
    stopped, stopped_nodes, hands = _kernel_solve(pos, tt, 2, np.ones(1, np.int64))
    assert stopped == -1
    # the probe reads the flag before it searches its first trick that the
    # quick bounds and the table leave open, and gives up there
    assert stopped_nodes < 100
    assert (hands == pos.hands).all()
    # the stop comes deep in the search too: set from another thread while
    # the kernel runs (it releases the GIL), the cards come back all the same
    stop = np.zeros(1, np.int64)
    timer = threading.Timer(0.002, stop.__setitem__, (0, 1))
    timer.start()
    stopped, stopped_nodes, hands = _kernel_solve(pos, tt, 3, stop)
    timer.join()
    assert stopped == -1 and 0 < stopped_nodes < nodes
    assert (hands == pos.hands).all()
    # what the stopped searches left in the table does not change the value
    again, _, _ = _kernel_solve(pos, tt, 3, np.zeros(1, np.int64))
    assert again == value


def _interrupt_after(seconds: float) -> threading.Timer:
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    return timer


class _Backstop:
    """Stops the searches ``seconds`` after the start if the signal did not.

    Without the command line's guard, a KeyboardInterrupt that Python drops
    (raised in a weakref callback, as CI once saw) leaves the run going for
    minutes (50 full-deck deals, one of them 42 s alone); this ends it, so the
    test fails at once and says why instead of holding the suite. It sets the
    flag only then, and clears it again, so the checks of the flag hold."""

    def __init__(self, seconds: float):
        self.fired = False
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.start()

    def _fire(self) -> None:
        self.fired = True
        api._stop_all()

    def cancel(self) -> None:
        self._timer.cancel()
        self._timer.join()
        if self.fired:
            api._stop[0] = 0


@contextmanager
def _ctrl_c_after(seconds: float, backstop: float) -> Iterator[_Backstop]:
    """SIGINT to this process after ``seconds``; the searches stopped by the
    backstop after ``backstop`` seconds if the signal did not stop them."""
    timer = _interrupt_after(seconds)
    stop = _Backstop(backstop)
    try:
        yield stop
    finally:
        timer.cancel()
        timer.join()
        stop.cancel()


def test_ctrl_c_stops_solve_batch_at_once_and_the_next_call_is_exact():
    deals = list(random_deals(RULES, 200, seed=11))
    solve(deals[0], "B", "N")  # loaded (or compiled) before the clock starts
    timer = _interrupt_after(0.5)
    t0 = time.perf_counter()
    try:
        with pytest.raises(KeyboardInterrupt):
            solve_batch(deals, "B", "N", threads=2)
    finally:
        timer.cancel()
        timer.join()
    # 200 deals take seconds (6.7 s on 2 cores, uninterrupted); the threads stop
    # within milliseconds of the signal
    assert time.perf_counter() - t0 < 5.0
    assert api._stop[0] == 0
    few = deals[:3]
    assert list(solve_batch(few, "B", "N", threads=2)) == [solve(d, "B", "N").declarer_points for d in few]


def test_a_deadline_stops_solve_batch_and_keeps_what_finished():
    deals = list(random_deals(RULES, 200, seed=12))
    solve(deals[0], "B", "N")  # loaded (or compiled) before the clock starts
    t0 = time.monotonic()
    points = solve_batch(deals, "B", "N", threads=2, deadline=t0 + 0.5)
    # 200 deals take seconds on 2 cores; the searches stop within milliseconds of the deadline
    assert time.monotonic() - t0 < 3.0
    solved = np.flatnonzero(points != api.UNSOLVED)
    assert 0 < len(solved) < len(deals)
    assert api._stop[0] == 0
    # what finished is exact, and the tables the stopped searches left give exact values after
    assert list(points[solved]) == [solve(deals[i], "B", "N").declarer_points for i in solved]
    again = deals[:6]
    assert list(solve_batch(again, "B", "N", threads=2)) == [solve(d, "B", "N").declarer_points for d in again]
    # a deadline already past solves nothing; one far off solves everything
    assert list(solve_batch(again, "B", "N", threads=2, deadline=time.monotonic() - 1)) == [api.UNSOLVED] * 6
    far = solve_batch(again, "B", "N", threads=2, deadline=math.inf)
    assert list(far) == list(solve_batch(again, "B", "N", threads=2))


def test_ctrl_c_stops_a_single_solve_on_the_main_thread():
    # 13-card deals take seconds to minutes a solve: the first that runs past
    # the signal shows that the main thread's solve stops (and raises)
    rules = Rules.preset("full")
    solve(random_deal(RULES, 0), "B", "N")
    t0 = time.perf_counter()
    with _ctrl_c_after(1.0, backstop=8.0) as backstop, pytest.raises(KeyboardInterrupt):
        for d in random_deals(rules, 50, seed=3):
            solve(d, "B", "N")
    assert not backstop.fired, "the interrupt was lost: the solves ran on until the backstop stopped them"
    assert time.perf_counter() - t0 < 5.0
    assert api._stop[0] == 0


def test_cli_ctrl_c_is_one_line_and_status_130():
    solve(random_deal(RULES, 0), "B", "N")
    timer = _interrupt_after(1.5)
    t0 = time.perf_counter()
    try:
        result = CliRunner().invoke(cli, ["hand", "B14 B12 B9 B7 R13 R6 Y11 Y5 G9", "--rules", "hasbro",
                                          "--samples", "5000", "--seed", "1"])
    finally:
        timer.cancel()
        timer.join()
    assert time.perf_counter() - t0 < 10.0
    assert result.exit_code == 130, result.output
    assert result.stderr.strip().splitlines()[-1] == "interrupted"
    assert api._stop[0] == 0


def test_results_in_order_from_threads_read_only_a_little_ahead():
    pulled = []

    def tasks(n):
        for i in range(n):
            pulled.append(i)
            yield lambda i=i: (time.sleep(0.002 * (i % 3)), i)[1]   # later tasks often finish first

    gen = api._in_order_on_threads(tasks(50), 2, ahead=3)
    assert next(gen) == 0 and len(pulled) == 6   # 2 threads x 3 ahead, not the whole stream
    assert list(gen) == list(range(1, 50))

    def failing():
        for i in range(10):
            yield lambda i=i: i if i != 4 else 1 // 0

    got = []
    with pytest.raises(ZeroDivisionError):
        for v in api._in_order_on_threads(failing(), 2):
            got.append(v)
    assert got == [0, 1, 2, 3] and api._stop[0] == 0   # raised in its place; the flag set, then cleared


def test_cli_ctrl_c_stops_deals_solved_on_threads():
    # 13-card deals take seconds to minutes each: at the signal both threads are mid-search
    text = "\n".join(d.rdn() for d in random_deals(Rules.preset("full"), 6, seed=3)) + "\n"
    solve(random_deal(RULES, 0), "B", "N")
    t0 = time.perf_counter()
    with _ctrl_c_after(1.5, backstop=12.0) as backstop:
        result = CliRunner().invoke(cli, ["solve", "--rules", "full", "--trump", "B", "--declarer", "N",
                                          "--workers", "2", "--format", "jsonl", "-"], input=text)
    assert not backstop.fired, "the interrupt was lost: the solves ran on until the backstop stopped them"
    assert time.perf_counter() - t0 < 10.0
    assert result.exit_code == 130, result.output
    assert result.stderr.strip().splitlines()[-1] == "interrupted"
    assert api._stop[0] == 0


def test_a_ctrl_c_that_python_drops_still_stops_the_searches():
    # Python drops a KeyboardInterrupt raised in a weakref callback or a
    # __del__ ("Exception ignored"); under the command line's guard the
    # handler has set the stop flag first, so the run stops all the same
    deals = list(random_deals(RULES, 4, seed=5))
    expected = solve(deals[0], "B", "N").declarer_points
    with api.ctrl_c_stops_searches():
        handler = signal.getsignal(signal.SIGINT)
        assert handler is not signal.default_int_handler
        try:
            handler(signal.SIGINT, None)
        except KeyboardInterrupt:
            pass  # dropped, as Python drops it in a callback
        with pytest.raises(api.SearchInterrupted):
            solve(deals[0], "B", "N")
        with pytest.raises(KeyboardInterrupt):
            solve_batch(deals, "B", "N", threads=2)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert api._stop[0] == 0
    assert solve(deals[0], "B", "N").declarer_points == expected


def test_under_the_guard_a_ctrl_c_that_reached_its_caller_leaves_later_calls_running():
    # a script that catches the KeyboardInterrupt and goes on: the stop the
    # handler made for every search has ended the call the interrupt reached,
    # and the next calls solve as usual (only a dropped interrupt stops them)
    deal = random_deal(RULES, 0)
    expected = solve(deal, "B", "N").declarer_points
    full = list(random_deals(Rules.preset("full"), 20, seed=3))  # seconds to minutes a solve
    with api.ctrl_c_stops_searches():
        for interrupted in ("solve", "solve_batch"):
            with _ctrl_c_after(0.3, backstop=8.0) as backstop, pytest.raises(KeyboardInterrupt):
                if interrupted == "solve":
                    for d in full:
                        solve(d, "B", "N")
                else:
                    solve_batch(full, "B", "N", threads=2)
            assert not backstop.fired, "the interrupt was lost"
            assert solve(deal, "B", "N").declarer_points == expected, interrupted
            assert list(solve_batch([deal, deal], "B", "N", threads=2)) == [expected] * 2, interrupted
    assert api._stop[0] == 0


def test_the_guard_leaves_another_handler_alone():
    calls = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: calls.append(signum))
    try:
        with api.ctrl_c_stops_searches():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # the handler runs on the main thread's next bytecode
        assert calls == [signal.SIGINT] and api._stop[0] == 0
    finally:
        signal.signal(signal.SIGINT, previous)


def _group_gone(pgid: int, seconds: float) -> bool:
    """Has every process of group ``pgid`` ended within ``seconds``?"""
    deadline = time.monotonic() + seconds
    while True:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)


def _signal_simulate_mid_run(command: list[str], out, send) -> tuple[subprocess.Popen, str, float, bool]:
    """Start ``command`` (a simulate run into ``out``) in a session of its own,
    as a terminal does; once a chunk is done (the workers are solving the
    next ones) ``send(run)`` signals it. Returns the run, its standard error,
    the seconds from the signal to its end and whether its whole process
    group ended within 10 s after it (what is left is killed)."""
    run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not finished_chunks(out):
            assert run.poll() is None, run.stderr.read().decode()
            assert time.monotonic() < deadline, "no chunk finished in 120 s"
            time.sleep(0.05)
        send(run)
        t0 = time.monotonic()
        _, err = run.communicate(timeout=60)
        seconds = time.monotonic() - t0
        gone = _group_gone(run.pid, 10.0)
    finally:
        if not _group_gone(run.pid, 0.0):
            os.killpg(run.pid, signal.SIGKILL)
            run.wait(timeout=30)
    return run, err.decode(), seconds, gone


def test_ctrl_c_in_a_terminal_stops_simulate_without_worker_tracebacks(tmp_path):
    # a terminal's Ctrl-C goes to the whole foreground process group: the
    # command and the worker processes of its embedded Dask cluster. The
    # command alone handles it (it stops, closes the cluster and says how to
    # resume); a worker that took it too died printing a KeyboardInterrupt
    # traceback. The command runs in a session of its own, as in a terminal,
    # and the whole group is signalled once the workers are solving.
    deals, chunk = 60, 3
    out = tmp_path / "run"
    base = [sys.executable, "-m", "rook_analyze.cli", "simulate", "--rules", "hasbro,hand_size=7",
            "--deals", str(deals), "--out", str(out), "--seed", "11", "--chunk-size", str(chunk)]
    run, err, seconds, gone = _signal_simulate_mid_run(base + ["--workers", "2"], out,
                                                       lambda run: os.killpg(run.pid, signal.SIGINT))
    assert run.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.strip().splitlines()[-1].startswith("interrupted: ")
    assert "run the same command with --resume to finish" in err
    assert seconds < 30.0  # closing the cluster takes a few seconds
    assert gone, "processes of the run's group outlived it"
    done = finished_chunks(out)
    assert 0 < len(done) < deals // chunk, "the run was not cut mid-way"
    res = subprocess.run(base + ["--resume", "--workers", "2", "--format", "json"], capture_output=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr.decode()
    summary = json.loads(res.stdout)
    assert summary["chunks_done_before"] == len(done)
    assert summary["chunks_computed"] == deals // chunk - len(done)
    frame = read_dataset(out, columns=["deal_id", "seat"])
    assert sorted(frame["deal_id"].unique()) == list(range(deals))
    assert len(frame) == 4 * deals and not frame.duplicated().any()



def _start_a_long_hand(tmp_path, **popen) -> subprocess.Popen:
    """A ``hand`` run of ``full`` hands, returned once it is solving. The
    seed and the samples are fixed so that it runs for many minutes: with
    a fresh seed two samples took from 1 to 66 s (thirty-ninth session),
    and a quick pair finished before the test's signal came."""
    run = subprocess.Popen([sys.executable, "-m", "rook_analyze.cli", "hand", "--rules", "full", "-n", "500",
                            "--seed", "8", "Rook B14 B12 B10 B7 B5 R13 R10 R4 Y14 Y9 G11 G5", "--detail", "d.csv"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                           cwd=tmp_path, **popen)
    # after this note on standard error (and the compile notice, on a cold cache), the run is solving
    line = run.stderr.readline()
    while line.startswith("compiling"):
        line = run.stderr.readline()
    assert line.startswith("note: 13-card hands"), f"no note before the solve: {line!r}"
    time.sleep(0.5)
    return run


@pytest.mark.parametrize("signum, word", [(signal.SIGTERM, "terminated"), (signal.SIGHUP, "hangup")])
def test_sigterm_and_sighup_stop_a_command_as_ctrl_c_does(tmp_path, signum, word):
    # kill, timeout, a service manager (SIGTERM), a closed terminal (SIGHUP):
    # each ended the process on the spot, without a word and without the
    # cleanup a Ctrl-C gets. Each now stops the run the same way, says so in
    # one line, and exits 128 + the signal's number (143, 129)
    run = _start_a_long_hand(tmp_path)
    try:
        run.send_signal(signum)
        t0 = time.monotonic()
        out, err = run.communicate(timeout=30)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert (run.returncode, out, err) == (128 + signum, "", f"{word}\n")
    assert time.monotonic() - t0 < 5.0
    assert list(tmp_path.iterdir()) == []


def test_a_run_under_nohup_goes_on_after_a_hangup(tmp_path):
    # nohup starts the command with SIGHUP ignored: the CLI leaves that alone
    def ignore_hangups():
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    run = _start_a_long_hand(tmp_path, preexec_fn=ignore_hangups)
    try:
        run.send_signal(signal.SIGHUP)
        time.sleep(1.0)
        assert run.poll() is None, "a hangup stopped a run that ignores it"
        run.send_signal(signal.SIGTERM)
        out, err = run.communicate(timeout=30)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert (run.returncode, out, err) == (143, "", "terminated\n")


def test_the_word_for_a_stop_is_dropped_where_the_terminal_is_gone(monkeypatch):
    # after a hangup, writing to the closed terminal fails (EIO): the run still
    # ends with its status, not with a traceback from the except clause
    from rook_analyze.cli.common import say_stopped

    class GoneTerminal(io.StringIO):
        def write(self, text):
            raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(sys, "stderr", GoneTerminal())
    say_stopped("hangup")  # raises OSError without the guard
    monkeypatch.undo()
    with pytest.raises(OSError):
        GoneTerminal().write("x")


@pytest.mark.parametrize("signum, word, send", [
    (signal.SIGTERM, "terminated", lambda run: run.send_signal(signal.SIGTERM)),
    (signal.SIGHUP, "hangup", lambda run: os.killpg(run.pid, signal.SIGHUP)),
], ids=["sigterm", "sighup"])
def test_sigterm_and_sighup_stop_simulate_as_ctrl_c_does_and_say_how_to_resume(tmp_path, signum, word, send):
    # SIGTERM to the command alone (kill PID, timeout), SIGHUP to its whole
    # group (the terminal closed: workers included): it ended at once, the
    # embedded cluster's workers left to notice by themselves, multiprocessing's
    # "leaked semaphore objects" warning on standard error, the folder's lock
    # left behind and no word of --resume. It now closes the cluster as Ctrl-C does
    out = tmp_path / "run"
    command = [sys.executable, "-m", "rook_analyze.cli", "simulate", "--rules", "hasbro,hand_size=7",
               "--deals", "60", "--out", str(out), "--seed", "11", "--chunk-size", "3", "--workers", "2"]
    run, err, _, gone = _signal_simulate_mid_run(command, out, send)
    assert run.returncode == 128 + signum, err
    assert len(err.strip().splitlines()) == 1 and err.startswith(f"{word}: "), err
    assert "run the same command with --resume to finish" in err
    assert gone, "processes of the run's group outlived it"
    assert not (out / LOCK_FILE).exists()
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]


def _sigint_blocked() -> bool:
    # SIGHUP with it: a closed terminal signals the whole group too
    return {signal.SIGINT, signal.SIGHUP} <= signal.pthread_sigmask(signal.SIG_BLOCK, [])


def test_the_embedded_clusters_workers_never_see_ctrl_c_or_a_hangup_even_when_restarted():
    # simulate's LocalCluster starts its worker processes with SIGINT blocked
    # (the Nanny restarts them the same way); this process keeps its handler
    from distributed import Client

    from rook_analyze.analysis.simulate import _local_cluster

    cluster = _local_cluster(1)
    try:
        assert not _sigint_blocked()
        with Client(cluster) as client:
            (address, (pid, blocked)), = client.run(lambda: (os.getpid(), _sigint_blocked())).items()
            assert blocked
            os.kill(pid, signal.SIGKILL)  # a lost worker: its Nanny starts another
            deadline = time.monotonic() + 60
            while set(client.scheduler_info(n_workers=-1)["workers"]) in (set(), {address}):
                assert time.monotonic() < deadline, "the Nanny did not restart the worker in 60 s"
                time.sleep(0.2)
            (again, (new_pid, blocked)), = client.run(lambda: (os.getpid(), _sigint_blocked())).items()
            assert again != address and new_pid != pid and blocked
    finally:
        cluster.close()


@pytest.mark.parametrize("stop, status, word", [
    ("raise KeyboardInterrupt", 130, "interrupted"),
    ("os.kill(os.getpid(), signal.SIGTERM); time.sleep(5)", 143, "terminated"),
    ("os.kill(os.getpid(), signal.SIGHUP); time.sleep(5)", 129, "hangup"),
], ids=["ctrl-c", "sigterm", "sighup"])
def test_a_stop_while_the_command_loads_is_one_line(stop, status, word):
    """A Ctrl-C in the first tenths of a second, while the entry point imports
    numba and the solver, ends as one in the middle of a command does; so do
    SIGTERM and SIGHUP, whose default action ended the process there with no
    word (status 143 and nothing on standard error)."""
    from importlib.metadata import entry_points

    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "rook-analyze"]
    assert script.value == "rook_analyze.cli:run"
    stopped_import = (
        "import builtins, os, signal, time\n"
        "real = builtins.__import__\n"
        "def fake(name, *args, **kwargs):\n"
        "    if name == 'rook_analyze.cli.common':\n"
        f"        {stop}\n"
        "    return real(name, *args, **kwargs)\n"
        "builtins.__import__ = fake\n"
        "from rook_analyze.cli import run\n"
        "run()\n"
    )
    proc = subprocess.run([sys.executable, "-c", stopped_import, "deal", "--rules", "hasbro"],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (status, "", f"{word}\n")


def test_a_signal_while_a_cluster_closes_waits_for_the_close_then_goes_on():
    """simulate closes its cluster with the signals held: one cut short was
    left to distributed's exit-time clean-up, which waited out 10 s. The
    held signal then reaches its handler; a second one does at once."""
    from rook_analyze.analysis.simulate import _signals_held

    seen = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: seen.append(("handler", signum)))
    try:
        with _signals_held():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
            seen.append("closed")
        assert seen == ["closed", ("handler", signal.SIGTERM)]
        seen.clear()
        with _signals_held():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
            seen.append("closed")
        assert seen == [("handler", signal.SIGTERM), "closed", ("handler", signal.SIGTERM)]
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_sigterm_while_simulate_waits_for_a_scheduler_stops_it_at_once(tmp_path):
    """The scheduler's check ran in a thread pool, whose thread the way out
    waited for: a SIGTERM (or Ctrl-C) took the whole --connect-timeout
    (90 s), and left the new folder's plan behind, so the same command was
    then refused as a folder that is not empty."""
    out = tmp_path / "run"
    run = subprocess.Popen([sys.executable, "-m", "rook_analyze.cli", "simulate", "--rules", "hasbro", "--deals", "4",
                            "--out", str(out), "--seed", "3", "--scheduler", "tcp://127.0.0.1:1",
                            "--connect-timeout", "120"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 60
    while not out.exists():  # the folder is made (and locked) just before the scheduler is asked
        assert time.monotonic() < deadline and run.poll() is None
        time.sleep(0.05)
    time.sleep(1)
    t0 = time.monotonic()
    run.send_signal(signal.SIGTERM)
    _, err = run.communicate(timeout=60)
    assert time.monotonic() - t0 < 10
    assert run.returncode == 143 and err == f"terminated; nothing written to {str(out)!r}\n", err
    assert not out.exists()


def test_a_dropped_sigterm_still_reads_as_sigterm(monkeypatch):
    # Python drops a handler's exception raised inside a __del__ ("Exception
    # ignored"); the stop flag still stops the next search, whose
    # SearchInterrupted then said "interrupted", 130, for a SIGTERM
    from rook_analyze.cli.common import Terminated, stopped_by

    dropped = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: dropped.append(u.exc_type))

    class SignalledWhileCollected:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGTERM)
            # the handler runs here (once the signal has reached this thread: on a loaded
            # machine that may take a while), and its exception goes nowhere
            deadline = time.monotonic() + 10
            while not api.stop_requested() and time.monotonic() < deadline:
                pass

    deal = random_deal(Rules.from_spec("hasbro"), seed=3)
    solve(deal, trump="B", declarer="N")  # loaded: only the search is left to stop
    with api.signal_stops_searches(signal.SIGTERM, Terminated):
        SignalledWhileCollected()
        assert dropped == [Terminated]
        with pytest.raises(api.SearchInterrupted) as stopped:
            solve(deal, trump="R", declarer="N")
    assert stopped.value.signum == signal.SIGTERM
    assert stopped_by(stopped.value) == ("terminated", 143)
    # a search stopped by its own call alone names no signal
    assert not api.stop_requested()
    assert stopped_by(KeyboardInterrupt()) == ("interrupted", 130)


class _FirstCall:
    """A stand-in kernel: its first call takes ``seconds`` (a compile) and notes its thread."""

    def __init__(self, seconds: float, error: Exception | None = None):
        self.overloads: dict = {}
        self.seconds, self.error, self.threads = seconds, error, []

    def __call__(self, hands, *args):
        self.threads.append(threading.current_thread())
        time.sleep(self.seconds)
        if self.error is not None:
            raise self.error
        self.overloads["(int64,)"] = True


def test_a_kernels_first_call_runs_off_the_main_thread():
    # a signal's handler raised inside numba's compile or cache load broke it
    # (a RuntimeError in place of the Ctrl-C, or a segmentation fault) or was
    # dropped; on a thread of its own no handler ever runs inside it
    kernel_ = _FirstCall(0.0)
    api._first_call_here(kernel_, np.zeros(6, np.uint64), 1)
    (thread,) = kernel_.threads
    assert thread is not threading.main_thread() and kernel_.overloads
    api._first_call_here(kernel_, np.zeros(6, np.uint64), 1)
    assert len(kernel_.threads) == 1  # loaded: not called again
    failing = _FirstCall(0.0, ValueError("no memory for the compile"))
    with pytest.raises(ValueError, match="no memory for the compile"):
        api._first_call_here(failing, np.zeros(6, np.uint64), 1)


def test_ctrl_c_ends_the_wait_for_a_kernels_first_call_at_once():
    kernel_ = _FirstCall(15.0)
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    t0 = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        api._first_call_here(kernel_, np.zeros(6, np.uint64), 1)
    assert time.monotonic() - t0 < 5.0  # not the first call's 15 s


def test_signals_while_tables_are_made_never_break_them():
    # the table was made by a compiled function, whose boxing of the arrays
    # it returned runs Python code: a Ctrl-C handled there left a half-built
    # tuple with the exception set, and the process died of a segmentation
    # fault at its next use (a signal in the first second of a command)
    # signals at random gaps of 0.5 to 6 ms, until both counts pass 100: a
    # table's making writes its pages (about 0.6 ms at 2^12 entries), so
    # on a busy machine a fixed 2 ms gap let few makings end
    script = (
        "import os, random, signal, threading, time\n"
        "from rook_analyze.solver import kernel\n"
        "done = threading.Event()\n"
        "def fire():\n"
        "    gaps = random.Random(1)\n"
        "    while not done.is_set():\n"
        "        time.sleep(gaps.uniform(0.0005, 0.006))\n"
        "        if not done.is_set():\n"
        "            os.kill(os.getpid(), signal.SIGINT)\n"
        "firing = threading.Thread(target=fire)\n"
        "firing.start()\n"
        "made = stopped = 0\n"
        "deadline = time.monotonic() + 60\n"
        "while True:\n"
        "    try:\n"
        "        if (made > 100 and stopped > 100) or time.monotonic() > deadline:\n"
        "            signal.signal(signal.SIGINT, signal.SIG_IGN)  # one still on its way is dropped\n"
        "            done.set()\n"
        "            firing.join()\n"
        "            break\n"
        "        tables = kernel.tt_new(12)\n"
        "        assert len(tables) == 7 and all(t.size and not t.any() for t in tables)\n"
        "        made += 1\n"
        "    except KeyboardInterrupt:\n"
        "        stopped += 1\n"
        "print(made, stopped)\n"
    )
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    made, stopped = map(int, res.stdout.split())
    assert made > 100 and stopped > 100, (made, stopped)


def test_a_kernels_first_call_gets_a_table_of_its_own(monkeypatch):
    # a first call that Ctrl-C left behind ends later: on the pool's table it
    # would write to a table the next searches use
    real = kernel.solve_exact
    tables = []

    class NotLoaded:
        overloads: dict = {}

        def __call__(self, hands, *args):
            tables.append((threading.current_thread() is threading.main_thread(), args[9].shape[0]))
            return real(hands, *args)

    deal = random_deal(Rules.from_spec("hasbro,hand_size=4"), seed=5)
    expect = solve(deal, trump="B", declarer="N").declarer_points
    monkeypatch.setattr(kernel, "solve_exact", NotLoaded())
    assert list(solve_batch([deal], trumps="B", declarers="N")) == [expect]
    first, *searches = tables
    assert first == (False, 16)  # off the main thread, on a table of 2**4 entries
    assert searches and all(entries > 16 for _, entries in searches)


def test_a_stop_while_deal_writes_a_later_block_leaves_whole_lines(monkeypatch):
    """A Ctrl-C that lands between two writes of a block (a slow reader
    keeps ``deal`` writing its later blocks piece by piece) left the last deal
    cut in the middle: ``deal ... | slow-reader`` stopped by Ctrl-C ended in
    half a deal, which ``solve --file`` then refused. The pieces are whole
    lines, so what was written before the stop is whole deals."""
    import click

    from rook_analyze.cli import common

    written: list[str] = []
    calls = {"n": 0}

    def echo(text="", nl=True, **kw):
        calls["n"] += 1
        if calls["n"] == 5:  # the first block, then a few pieces of the second: the stop lands here
            raise KeyboardInterrupt
        written.append(str(text) + ("\n" if nl else ""))

    monkeypatch.setattr(click, "echo", echo)
    lines = (f"N: B{i % 9 + 5} R14 Y13 G12 / nest: {'x' * (40 + i % 57)}" for i in range(5000))
    with pytest.raises(KeyboardInterrupt):
        common.echo_lines(lines)
    out = "".join(written)
    assert len(out) > common._PIPE_TAKES  # the stop came inside the second block
    assert out.endswith("\n")
    assert all(line.startswith("N: ") for line in out.splitlines())
