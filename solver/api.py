"""The public solver: validate, convert to the kernel's encoding, call, wrap.

``solve`` gives the double-dummy value of RULES.md from a trick boundary (or
from inside a trick with ``trick=``); ``card_values`` the value after each
legal card; ``play_line`` a line of perfect play to the end of the hand;
``solve_batch`` many deals over all cores."""

from __future__ import annotations

import functools
import math
import os
import queue
import signal
import threading
import time
import weakref
from collections import deque
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, ContextManager, Iterable, Iterator, Sequence, TypeVar

import numpy as np

from . import bits, config, kernel
from .cards import COLORS, Card, Hand, as_cards, canonical_key, shown
from .cards import trick_cards as _trick_cards
from .config import DEFAULT_TT_BITS, SHORT_HAND_BITS, TT_BITS, TT_WAYS
from .deal import Deal, most_tricks_always_awarded
from .errors import DealError, IllegalActionError, RookError, RulesError
from .game import Trick, trick_winner
from .rules import Rules

# the modules the kernels compile from: their disk cache is stale when any of these changed
KERNEL_SOURCES = (kernel, bits, config)
config.key_caches_on_sources(KERNEL_SOURCES)

T = TypeVar("T")

# Ctrl-C. Python takes a signal on the main thread only, between bytecodes,
# and a kernel call keeps its thread for as long as it searches (minutes on
# some 13-card deals). So the kernels run on other threads while the main
# thread waits (``run_on_threads``); when the wait ends in KeyboardInterrupt,
# the main thread stops that call's searches: each gives up within a
# millisecond or so (the kernel reads its stop flag before each trick it
# searches) and its caller raises ``SearchInterrupted``.
#
# Each call that may be stopped has a flag of its own (``_StopScope``), so
# that stopping one call leaves the calls of other threads running. The
# scopes form a tree: the calls made by a call's tasks (``run_on_threads``,
# ``_in_order_on_threads``) hang below it and stop with it, and every scope
# hangs below the process's (``_stop``), which Ctrl-C under
# ``ctrl_c_stops_searches`` sets: that stops every search in the process.
_stop = np.zeros(1, np.int64)
_stop_signal = [0]  # the signal that set _stop, for SearchInterrupted


class _StopScope:
    """The stop flag of one call's searches (the kernels read ``flag[0]``).

    ``stop()`` sets it and those of the scopes made under it, now or later
    (a scope made under a stopped one starts stopped); ``close()`` takes
    the scope off its parent once the call is done."""

    __slots__ = ("flag", "_parent", "_children")

    def __init__(self, parent: "_StopScope | None" = None, flag: np.ndarray | None = None):
        self.flag = np.zeros(1, np.int64) if flag is None else flag
        self._parent = parent
        self._children: set = set()
        if parent is not None:
            # added first, then the parent's flag read: a stop() on another
            # thread sets the flag before it lists the children, so one of
            # the two sees the other (set.add and tuple(set) hold the GIL)
            parent._children.add(self)
            if parent.flag[0]:
                self.flag[0] = 1

    def stop(self) -> None:
        self.flag[0] = 1
        for child in tuple(self._children):
            child.stop()

    def close(self) -> None:
        if self._parent is not None:
            self._parent._children.discard(self)


_root = _StopScope(flag=_stop)   # the process's: Ctrl-C under ctrl_c_stops_searches
_scopes = threading.local()      # .scope: the scope of the task this thread runs, if any


def _current_scope() -> _StopScope:
    """The scope of the task this thread runs (``run_on_threads``), else the process's."""
    scope = getattr(_scopes, "scope", None)
    return _root if scope is None else scope


def _in_scope(scope: _StopScope, task: Callable[[], T]) -> Callable[[], T]:
    """``task`` run with ``scope`` as its thread's scope, so the searches it makes stop with it."""
    def run() -> T:
        previous = getattr(_scopes, "scope", None)
        _scopes.scope = scope
        try:
            return task()
        finally:
            _scopes.scope = previous
    return run


def _stop_all() -> None:
    """Stop every search in the process, and any started before the flag is cleared."""
    _root.stop()


class SearchInterrupted(KeyboardInterrupt):
    """A search stopped part-way because the run was interrupted (Ctrl-C).

    ``signum``: the signal that stopped every search in the process (under
    ``signal_stops_searches``), 0 where only this call was stopped. Where
    Python dropped the signal handler's own exception, this is how its
    caller learns which signal it was (SIGTERM, not Ctrl-C)."""

    def __init__(self, *args: Any):
        super().__init__(*args)
        self.signum = _stop_signal[0] if _stop[0] else 0


def _finished(value: int) -> int:
    # the kernels return -1 when their stop flag ended the search
    if value < 0:
        raise SearchInterrupted("the search was interrupted")
    return int(value)


def ctrl_c_stops_searches() -> ContextManager[None]:
    """While the block runs, Ctrl-C sets the stop flag itself, then raises
    KeyboardInterrupt as usual.

    Python drops a KeyboardInterrupt that lands in a weakref callback or a
    ``__del__`` (it prints "Exception ignored" and goes on), and with the
    plain handler a long run would then go on to the end. Here the searches
    stop all the same and the next one raises ``SearchInterrupted``. The flag
    is cleared when the block ends. Off the main thread, or where a program
    has put in its own SIGINT handler, the block changes nothing."""
    return signal_stops_searches(signal.SIGINT, KeyboardInterrupt)


@contextmanager
def signal_stops_searches(signum: int, raises: type[BaseException]) -> Iterator[None]:
    """``ctrl_c_stops_searches`` for another signal (the CLI's SIGTERM): while
    the block runs, ``signum`` sets the stop flag, then raises ``raises``. Off
    the main thread, or where the signal has a handler other than Python's
    own (a program's, or SIG_IGN), the block changes nothing."""
    plain = signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signum) is not plain:
        yield
        return

    def stop_and_raise(signum, frame):
        _stop_signal[0] = signum
        _stop_all()
        raise raises

    previous = signal.signal(signum, stop_and_raise)
    try:
        yield
    finally:
        signal.signal(signum, previous)
        _stop[0] = 0


def stop_requested() -> bool:
    """True while Ctrl-C has asked the searches to stop (see
    ``ctrl_c_stops_searches``): for loops that wait on work elsewhere
    (other processes) and so do not meet the flag in a search."""
    return bool(_stop[0])


def _delivered(e: KeyboardInterrupt) -> bool:
    """Is ``e`` a Ctrl-C that reached this wait on the main thread (rather
    than a search's ``SearchInterrupted``, raised where the stop flag ended
    it)? Then the stop that ``ctrl_c_stops_searches`` made for every search
    has done its work once this call's searches end: the caller has its
    KeyboardInterrupt, and the calls it makes next run (only a Ctrl-C that
    Python dropped leaves the flag set, to stop them)."""
    return threading.current_thread() is threading.main_thread() and not isinstance(e, SearchInterrupted)


def run_on_threads(tasks: Sequence[Callable[[], T]], threads: int) -> list[T]:
    """Run ``tasks`` on up to ``threads`` threads; their results, in order.

    On the main thread Ctrl-C ends the wait: the searches the tasks run stop
    within milliseconds, the tasks not started are dropped, and
    KeyboardInterrupt goes on once every thread is done. Only this call's
    searches stop: those of other threads' calls go on. An error in a task
    drops the tasks not started and is raised when the running ones end."""
    tasks = list(tasks)
    scope = _StopScope(_current_scope())
    pool = ThreadPoolExecutor(max_workers=max(1, min(threads, len(tasks))))
    delivered = False
    try:
        futures = [pool.submit(_in_scope(scope, t)) for t in tasks]
        return [f.result() for f in futures]
    except KeyboardInterrupt as e:
        scope.stop()
        delivered = _delivered(e)
        raise
    finally:
        try:
            pool.shutdown(wait=True, cancel_futures=True)
        finally:
            scope.close()
            if delivered:
                _stop[0] = 0


def _in_order_on_threads(tasks: Iterable[Callable[[], T]], threads: int, ahead: int = 4) -> Iterator[T]:
    """Run ``tasks`` on up to ``threads`` threads and yield their results in
    the tasks' order, each as soon as it and those before it are done; at
    most ``ahead`` tasks a thread are taken from ``tasks`` before their
    results are yielded, so a long stream holds little in memory.

    For the commands: an early end (a task's error, raised in its place;
    Ctrl-C; the caller closing the generator) stops the searches its tasks
    still run, so they give up at once rather than run to their end, and
    waits for the threads. The searches of other calls go on."""
    threads = max(1, threads)
    scope = _StopScope(_current_scope())
    pool = ThreadPoolExecutor(max_workers=threads)
    pending: deque = deque()
    finished = delivered = False
    try:
        for task in tasks:
            pending.append(pool.submit(_in_scope(scope, task)))
            while len(pending) >= threads * ahead:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
        finished = True
    except KeyboardInterrupt as e:
        delivered = _delivered(e)
        raise
    finally:
        if not finished:
            scope.stop()
        try:
            pool.shutdown(wait=True, cancel_futures=True)
        finally:
            scope.close()
            if delivered:
                _stop[0] = 0


class _Helper:
    """One thread that runs the main thread's kernel calls, kept for the
    next call: a thread or a pool made each call cost 0.4 to 0.7 ms, more than
    many small solves take."""

    def __init__(self):
        self._lock = threading.Lock()
        self._pid = None
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()

    def _serve(self, jobs: queue.SimpleQueue) -> None:
        while True:
            call, box, done = jobs.get()
            try:
                box.append((True, call()))
            except BaseException as e:  # handed to the waiting caller
                box.append((False, e))
            done.set()
            # the call holds its search's table (its arguments): kept here
            # until the next job, it would outlive the solver that owns it
            del call, box, done

    def run(self, call: Callable[[], T], scope: _StopScope) -> T:
        """``call()`` on the helper thread; Ctrl-C while it runs stops ``scope``'s searches."""
        with self._lock:
            if self._pid != os.getpid():  # first use, or a forked child (threads do not survive a fork)
                self._jobs = queue.SimpleQueue()
                threading.Thread(target=self._serve, args=(self._jobs,), name="rook-analyze solver",
                                 daemon=True).start()
                self._pid = os.getpid()
        box: list = []
        done = threading.Event()
        self._jobs.put((call, box, done))
        try:
            done.wait()
        except KeyboardInterrupt:
            scope.stop()
            done.wait()  # the search gives up within a millisecond or so
            _stop[0] = 0  # the Ctrl-C reached its caller (see _delivered)
            raise
        ok, value = box[0]
        if not ok:
            raise value
        return value


_helper = _Helper()


def _first_call_here(fn, hands: np.ndarray, *args) -> None:
    """Make kernel ``fn``'s first call (its compile, or its load from the
    cache), with empty hands (no search), before the searches go to
    threads. Called on the main thread, it runs on a thread of its own while
    the main thread waits: Python runs a signal's handler on the main
    thread, between two steps of whatever Python code runs there, and one
    that raised inside numba's compile or cache load broke it (a
    RuntimeError, "no compiled object yet", in place of the Ctrl-C) or was
    dropped (in a ctypes callback: "Exception ignored"), and the compile
    went on to its end, a minute on a cold cache. The wait answers Ctrl-C
    and SIGTERM at once; a compile left behind ends with the process (or,
    in a program that goes on, by itself: the next call waits for it)."""
    if fn.overloads:
        return
    if threading.current_thread() is not threading.main_thread():
        fn(np.zeros_like(hands), *args)
        return
    failed: list = []
    done = threading.Event()

    def first_call() -> None:
        try:
            fn(np.zeros_like(hands), *args)
        except BaseException as e:  # raised again on the main thread
            failed.append(e)
        finally:
            done.set()

    threading.Thread(target=first_call, name="rook-analyze: load the solver", daemon=True).start()
    done.wait()
    if failed:
        raise failed[0]


def _kernel_call(call: Callable[[np.ndarray], T]) -> T:
    """``call(stop)`` (a kernel call, given the stop flag its search reads),
    off the main thread so that Ctrl-C stops it. On the main thread the
    search gets a scope of its own, which Ctrl-C stops; elsewhere it stops
    with the task it runs in (``run_on_threads``), or with the process."""
    if threading.current_thread() is threading.main_thread():
        scope = _StopScope(_current_scope())
        try:
            return _helper.run(lambda: call(scope.flag), scope)
        finally:
            scope.close()
    return call(_current_scope().flag)


@dataclass(frozen=True)
class SolveResult:
    """The double-dummy value of a position for both sides."""

    declarer_points: int
    defender_points: int
    nodes: int
    ms: float


@dataclass(frozen=True)
class LinePlay:
    """One card of a line of perfect play (``play_line``): the trick it goes
    to (1 for the position's first), the seat and card, the declaring side's
    points for the hand with this card played and perfect play after (the
    same all along a line: the value of the position), and on the card that
    completes a trick, the seat that wins it."""

    trick: int
    seat: str
    card: Card
    declarer_points: int
    winner: str | None = None

    def to_dict(self) -> dict:
        """As ``solve --line`` writes it: the card in RDN, the seats by name."""
        return {"trick": self.trick, "seat": self.seat, "card": self.card.rdn(),
                "declarer_points": self.declarer_points, "winner": self.winner}


@dataclass(frozen=True)
class Encoding:
    """How one (rules, trump) maps card indices to the kernel's rank-ordered bits."""

    perm: np.ndarray       # card index -> kernel bit, -1 when not in the deck
    inv: np.ndarray        # kernel bit -> card index, -1 when unused
    values: np.ndarray     # points of each kernel bit
    bird_mask: np.uint64   # kernel bits of the birds
    trump_lane: int        # -1 for no trump

    def to_bits(self, mask: int) -> np.uint64:
        """Kernel bits of a card-index mask."""
        out = 0
        m = mask
        while m:
            low = m & -m
            out |= 1 << int(self.perm[low.bit_length() - 1])
            m ^= low
        return np.uint64(out)


@lru_cache(maxsize=256)
def encoding(rules: Rules, trump: str) -> Encoding:
    """The kernel encoding of ``rules`` under ``trump`` (cached)."""
    trump = rules.check_trump(trump)
    perm = np.full(64, -1, np.int64)
    inv = np.full(64, -1, np.int64)
    values = np.zeros(64, np.int64)
    bird_mask = 0
    for lane, color in enumerate(COLORS):
        for pos, idx in enumerate(rules.color_order(trump if trump != "none" else None, color)):
            b = lane * 16 + pos
            perm[idx] = b
            inv[b] = idx
            values[b] = rules.card_points(idx)
            if Card.from_index(idx).is_bird:
                bird_mask |= 1 << b
    return Encoding(perm, inv, values, np.uint64(bird_mask),
                    COLORS.index(trump) if trump != "none" else -1)


def point_unit(rules: Rules, extra: int) -> int:
    """The grid every achievable value lies on: gcd of all point amounts."""
    g = 0
    for v in set(rules.card_points(i) for i in range(64) if rules.deck_mask >> i & 1):
        g = math.gcd(g, v)
    g = math.gcd(g, rules.trick_points)
    g = math.gcd(g, extra)
    g = math.gcd(g, rules.last_trick_bonus)
    if rules.most_tricks is not None:
        g = math.gcd(g, rules.most_tricks[1])
    return g


def _seat(rules: Rules, seat: str | int, what: str) -> int:
    """``rules.seat_index``, its error naming the role (declarer, leader, dealer), as a DealError."""
    try:
        return rules.seat_index(seat, what)
    except RulesError as e:
        raise DealError(str(e)) from None


def _check_deal(deal, what: str = "deal") -> Deal:
    if not isinstance(deal, Deal):
        hint = ("build one with Deal.from_rdn(text, rules)" if isinstance(deal, str)
                else "build one with Deal.from_rdn(text, rules) or random_deal(rules, seed)")
        raise DealError(f"{what} {shown(deal)}: expected a Deal; {hint}")
    return deal


@dataclass
class _Position:
    """A position in kernel form, plus what the wrapper adds back."""

    hands: np.ndarray      # uint64 per seat, the current trick's cards removed
    leader: int
    trick: np.ndarray      # kernel bits of the current trick
    tlen: int
    P: np.ndarray
    side: np.ndarray
    enc: Encoding
    unit: int
    nest_points: int       # added to the declaring side (nest_to=declarer)
    total: int             # points at stake from here, when zero-sum
    zero_sum: bool
    context: tuple         # positions with equal context share table entries
    longest: int           # cards in the deal's longest hand: the part of a table its searches use (used_bits)


def _position(deal: Deal, trump: str, declarer, leader, dealer, trick: Sequence) -> _Position:
    rules = _check_deal(deal).rules
    trump = rules.check_trump(trump)
    d = _seat(rules, declarer, "declarer")
    # the dealer by default: W, or the last seat at other tables
    deal_seat = _seat(rules, rules.last_seat if dealer is None else dealer, "dealer")
    lead = rules.first_leader(d, deal_seat) if leader is None else _seat(rules, leader, "leader")
    enc = encoding(rules, trump)
    n = rules.seats
    hands = [h.mask for h in deal.hands]
    trick_cards = _trick_cards(trick)
    if len(trick_cards) >= n:
        raise IllegalActionError(f"trick {shown(' '.join(c.rdn() for c in trick_cards))}: a trick in progress "
                                 f"has at most {n - 1} card{'' if n == 2 else 's'}, not {len(trick_cards)}")
    led_bits = -1
    tbits = []
    for i, card in enumerate(trick_cards):
        seat = (lead + i) % n
        if not hands[seat] & card.bit:
            raise IllegalActionError(
                f"card {card.rdn()!r} played to the trick is not in {rules.seat_names[seat]}'s hand")
        b = int(enc.perm[card.index])
        # an int, as the kernels pass it: a bool would compile legal_mask a second time
        legal = kernel.legal_mask(enc.to_bits(hands[seat]), led_bits, int(rules.bird_play == "any_time"),
                                  enc.bird_mask)
        if not (int(legal) >> b) & 1:
            raise IllegalActionError(
                f"card {card.rdn()!r} may not be played by {rules.seat_names[seat]}: it must follow the led color")
        if i == 0:
            led_bits = b
        hands[seat] &= ~card.bit
        tbits.append(b)
    side = np.zeros(6, np.int64)
    for s in range(n):
        side[s] = rules.side_of(s, d)
    nest_pts = rules.points_of_mask(deal.nest.mask)
    last_extra = rules.last_trick_bonus + (nest_pts if rules.nest_to == "last_trick" else 0)
    most_n, most_p = rules.most_tricks if rules.most_tricks is not None else (0, 0)
    P = np.array([n, int(rules.bird_play == "any_time"), rules.trick_points, last_extra, most_n, most_p,
                  enc.trump_lane], np.int64)
    tricks_left = max(bin(h).count("1") for h in hands)
    total = rules.points_of_mask(deal.in_play_mask) + rules.trick_points * tricks_left
    if tricks_left:
        total += rules.last_trick_bonus
    zero_sum = True
    if rules.most_tricks is not None and tricks_left >= most_n:
        if most_tricks_always_awarded(most_n, tricks_left):
            total += most_p
        else:
            zero_sum = False
    if rules.nest_to == "last_trick" and not tricks_left:
        total -= nest_pts  # no last trick left to take the nest
    trick_arr = np.zeros(8, np.int64)  # the kernels write the whole trick (up to 6 seats) into it
    trick_arr[:len(tbits)] = tbits
    hands_arr = np.array([enc.to_bits(h) for h in hands], np.uint64)
    context = (rules, trump, tuple(side), tuple(h.mask for h in deal.hands), deal.nest.mask)
    return _Position(hands_arr, lead, trick_arr, len(tbits), P, side, enc,
                     point_unit(rules, last_extra), nest_pts if rules.nest_to == "declarer" else 0,
                     total, zero_sum, context, max(len(h) for h in deal.hands))


# a table must hold its largest bucket (kernel.L0_WAYS * TT_WAYS entries);
# 2**32 entries would be over 400 GB
MIN_TT_BITS, MAX_TT_BITS = 8, 31


def table_bits(bits: int | None) -> int:
    """The transposition table size (log2 of its entries), checked: ``bits``,
    else ``ROOK_ANALYZE_TT_BITS``, else the most a table is made by default
    (21; ``made_bits``)."""
    value = TT_BITS if bits is None else bits
    if value is None:
        return DEFAULT_TT_BITS
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
            or not MIN_TT_BITS <= value <= MAX_TT_BITS:
        src = "ROOK_ANALYZE_TT_BITS" if bits is None else "tt_bits"
        raise RookError(f"{src} {shown(value)}: the table size must be an integer from {MIN_TT_BITS} to {MAX_TT_BITS} "
                        f"(log2 of its entries, {kernel.entry_bytes()} bytes each)")
    return int(value)


def used_bits(bits: int, hand_size: int, deals: int = 1) -> int:
    """log2 of the entries a search uses in a table of 2**``bits``, for
    ``deals`` deals sharing a generation whose longest hand holds
    ``hand_size`` cards: at most ``SHORT_HAND_BITS`` for one deal of hands
    of 9 cards or fewer, four times that many entries a card over 9 (the
    whole table from 11 cards: ``full``, ``bridge``), and as many times
    more as there are deals (rounded up to a power of 2).

    Entries go to buckets by hash, so a search reads the tags of as many
    buckets as it looks up positions, most of them finding nothing. In a
    smaller part those reads fall on fewer cache lines, which the core's
    own caches keep: `hand`'s work ran in 0.94 of the time with 2 threads
    (sixty-second session). A 9-card search needs few entries (``hasbro``:
    3,400 left by the median of 100 solves, 194,000 by the largest; mean
    nodes +0.02 % in 2^18, +0.01 % for ``kentucky`` in 2^20, but +0.8 %
    for ``nest``'s groups of 12 deals in 2^18). Values do not depend on
    it: only which entries are kept."""
    return min(bits, SHORT_HAND_BITS + 2 * max(0, hand_size - 9) + (deals - 1).bit_length())


def tables_fixed(bits: int | None) -> bool:
    """Whether every table is made ``table_bits(bits)`` entries (a size given
    as ``tt_bits`` or by ``ROOK_ANALYZE_TT_BITS``) rather than as large as
    its searches use (``made_bits``)."""
    return bits is not None or TT_BITS is not None


def made_bits(bits: int | None, hand_size: int, deals: int = 1) -> int:
    """log2 of the entries of a table made for the searches ``used_bits``
    describes: the size given (``tables_fixed``), else the part of the
    default size they use. A 9-card deal's table is then 40 MB, not 253 MB;
    a table made whole at 2^18 entries ran as fast as the front of a larger
    one (sixty-second session)."""
    size = table_bits(bits)
    return size if tables_fixed(bits) else used_bits(size, hand_size, deals)


def _entries_bits(table: tuple) -> int:
    """log2 of the entries of ``table`` (``kernel.tt_new``'s arrays)."""
    return table[0].shape[0].bit_length() - 1


def _table_part(table: tuple, bits: int) -> tuple:
    """The first 2**``bits`` entries of ``table`` (views of its arrays; the
    fixed caches whole), as a search that ``used_bits`` gives ``bits`` uses it."""
    n = 1 << bits
    assert n <= table[0].shape[0], (bits, table[0].shape)
    return (table[0][:n], table[1][:n], table[2][:n]) + tuple(table[3:])


def _one_at_a_time(method):
    """A ``Solver`` method run under the solver's lock: its table holds one search at a time."""
    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)
    return locked


class Solver:
    """A reusable solver with its own transposition table.

    Solves of the same deal, trump and declaring side share table entries:
    another leader, the cards of ``card_values``, the plies of a line of play.
    One table holds one search at a time, so a solver shared by threads runs
    their calls one after another; to solve on several cores at once, give
    each thread a solver of its own (the module's ``solve``, ``card_values``
    and ``play_line`` do) or use ``solve_batch``. ``tt_bits``: log2 of the
    table's entries; None: ``ROOK_ANALYZE_TT_BITS``, else as many as its
    searches use (``made_bits``: 2^18 for 9-card deals, at most 2^21)."""

    def __init__(self, tt_bits: int | None = None):
        self.tt_bits = table_bits(tt_bits)
        self._fixed = tables_fixed(tt_bits)  # its table made tt_bits whatever it solves (made_bits)
        self._entry = None  # [table, generation], from the pool solve_batch draws on
        self._context = None
        self._part = None  # the table's arrays as the context's searches use them (_table)
        self._lock = threading.RLock()

    def _release_table(self) -> bool:
        """Drop the table unless a call is using it (the next call takes
        another); whether it was dropped."""
        if not self._lock.acquire(blocking=False):
            return False
        try:
            self._entry = None
            self._context = None
            self._part = None
            return True
        finally:
            self._lock.release()

    def _table(self, context, longest: int):
        """The table's arrays for a search in ``context`` (``_Position.context``
        and the side searched for): a new generation when the context changes,
        and the part ``used_bits`` gives a deal whose longest hand holds
        ``longest`` cards; a larger table first where the one held is too
        small for it (``made_bits``)."""
        part = used_bits(self.tt_bits, longest)
        size = self.tt_bits if self._fixed else part
        if self._entry is not None and _entries_bits(self._entry[0]) < size:
            _tables.give(self._entry)
            self._entry = None
            self._context = None
        if self._entry is None:
            self._entry = _tables.take(size)
        if context != self._context:
            self._entry[1] += 1
            self._context = context
            self._part = _table_part(self._entry[0], part)
        return self._part

    @property
    def _gen(self) -> int:
        return self._entry[1]

    def __del__(self):
        # the table goes back to the pool (a thread's solver dies with it);
        # never waiting for its lock, which the thread that the cyclic
        # collector interrupted to run this may hold itself
        entry = getattr(self, "_entry", None)
        if entry is not None:
            try:
                _tables.give(entry, wait=False)
            except Exception:  # at interpreter exit the pool may be gone already
                pass

    def _ready(self, pos: _Position) -> None:
        """The table made and the kernel loaded (or compiled) before the clock
        starts, so ``ms`` is the search alone: an empty position returns at once.
        On the calling thread (``_first_call_here``)."""
        self._table(pos.context + (False,), pos.longest)
        _load_solve(pos)

    def _value(self, pos: _Position, stats: np.ndarray, flip: bool = False) -> int:
        side = 1 - pos.side if flip else pos.side
        if flip:
            side[pos.P[0]:] = 0
        ctx = pos.context + (flip,)
        tt = self._table(ctx, pos.longest)
        gen = self._gen
        return _finished(_kernel_call(lambda stop: kernel.solve_exact(
            pos.hands.copy(), pos.leader, pos.trick, pos.tlen, 0, pos.P, side, pos.enc.values,
            pos.enc.bird_mask, pos.unit, *tt, gen, TT_WAYS, stats, stop)))

    @_one_at_a_time
    def solve(self, deal: Deal, trump: str, declarer: str | int, leader: str | int | None = None,
              dealer: str | int | None = None, trick: Sequence = ()) -> SolveResult:
        """The double-dummy value of a position (as the module's ``solve``), on this solver's table."""
        pos = _position(deal, trump, declarer, leader, dealer, trick)
        stats = np.zeros(1, np.int64)
        self._ready(pos)
        t0 = time.perf_counter()
        value = self._value(pos, stats)
        declarer_points = value + pos.nest_points
        if pos.zero_sum:
            defender_points = pos.total - declarer_points
        else:
            defender_points = self._value(pos, stats, flip=True)
        ms = (time.perf_counter() - t0) * 1000.0
        return SolveResult(declarer_points, defender_points, int(stats[0]), ms)

    @_one_at_a_time
    def card_values(self, deal: Deal, trump: str, declarer: str | int, leader: str | int | None = None,
                    dealer: str | int | None = None, trick: Sequence = ()) -> dict[Card, int]:
        """The value after each legal card (as the module's ``card_values``), on this solver's table."""
        pos = _position(deal, trump, declarer, leader, dealer, trick)
        tt = self._table(pos.context + (False,), pos.longest)
        stats = np.zeros(1, np.int64)
        out_cards = np.zeros(kernel.MAXMOVES, np.int64)
        out_vals = np.zeros(kernel.MAXMOVES, np.int64)
        gen = self._gen
        _load_card_values(pos)
        k = _finished(_kernel_call(lambda stop: kernel.card_values_kernel(
            pos.hands.copy(), pos.leader, pos.trick, pos.tlen, 0, pos.P, pos.side, pos.enc.values,
            pos.enc.bird_mask, pos.unit, *tt, gen, TT_WAYS, stats, stop, out_cards, out_vals)))
        result = {}
        for i in range(k):
            card = Card.from_index(int(pos.enc.inv[out_cards[i]]))
            result[card] = int(out_vals[i]) + pos.nest_points
        # best first for the seat to play (the declaring side wants the most
        # points, the defenders the fewest); equals in canonical card order
        to_play = (pos.leader + pos.tlen) % int(pos.P[0])
        sign = -1 if pos.side[to_play] == 1 else 1
        high = deal.rules.one_high  # the 1 first among equals where it ranks above the 14, as RDN writes it
        return dict(sorted(result.items(), key=lambda kv: (sign * kv[1], canonical_key(kv[0].index, high))))

    @_one_at_a_time
    def play_line(self, deal: Deal, trump: str, declarer: str | int, leader: str | int | None = None,
                  dealer: str | int | None = None, trick: Sequence = ()) -> tuple[LinePlay, ...]:
        """A line of perfect play to the end of the hand (as the module's ``play_line``), on this solver's table."""
        if isinstance(trick, Iterator):  # read twice below: a generator would be spent by the first read
            trick = list(trick)
        pos = _position(deal, trump, declarer, leader, dealer, trick)  # checks every input first
        rules = deal.rules
        trump = rules.check_trump(trump)
        n = rules.seats
        d = _seat(rules, declarer, "declarer")
        names = rules.seat_names
        lead = pos.leader
        played = as_cards(trick, "trick")
        hands = [h.mask for h in deal.hands]
        captured = won = 0
        number = 1
        line: list[LinePlay] = []
        # one table generation for the whole line, the same as solve's and card_values'
        # for this deal: its positions are all of one game (the same kernel parameters,
        # sides and worths), so entries carry over, from a solve just made too
        self._ready(pos)
        value = self._value(pos, np.zeros(1, np.int64)) + pos.nest_points
        tt = self._table(pos.context + (False,), pos.longest)
        while pos.hands.any():
            card = self._best_card(pos, tt, won, value - captured, rules.one_high)
            seat = (lead + len(played)) % n
            played.append(card)
            winner = None
            if len(played) == n:
                w = (lead + trick_winner(played, trump, rules)) % n
                for i, c in enumerate(played):
                    hands[(lead + i) % n] &= ~c.bit
                last = not any(hands)
                if rules.side_of(w, d) == 1:
                    captured += Trick(lead, tuple(played), w).points(rules)
                    if last:
                        captured += rules.last_trick_bonus
                        if rules.nest_to == "last_trick":
                            captured += rules.points_of_mask(deal.nest.mask)
                    won += 1
                winner = names[w]
                lead, played = w, []
            line.append(LinePlay(number, names[seat], card, value, winner))
            if winner is not None:
                number += 1
            pos = _position(Deal(rules, tuple(Hand(h) for h in hands), deal.nest), trump, d, lead, None, played)
        return tuple(line)

    def _best_card(self, pos: _Position, tt, won: int, value: int, one_high: bool = False) -> Card:
        """The seat to play's best card at ``pos``, whose exact value (the
        declaring side's points from here, the nest to the declarer
        included) is ``value``: the first in canonical card order among the
        best (the 1 first under ``one_high``). ``won``: the tricks the
        declaring side took before ``pos``."""
        n = int(pos.P[0])
        seat = (pos.leader + pos.tlen) % n
        led = int(pos.trick[0]) if pos.tlen else -1
        legal = int(kernel.legal_mask(pos.hands[seat], led, int(pos.P[1]), pos.enc.bird_mask))
        cards = sorted((Card.from_index(int(pos.enc.inv[b])) for b in range(64) if legal >> b & 1),
                       key=lambda c: canonical_key(c.index, one_high))
        order = np.array([int(pos.enc.perm[c.index]) for c in cards], np.int64)
        stats = np.zeros(1, np.int64)
        gen = self._gen
        _load_best_card(pos)
        i = _kernel_call(lambda stop: kernel.best_card_kernel(
            pos.hands.copy(), pos.leader, pos.trick, pos.tlen, won, value - pos.nest_points, order, len(order),
            pos.P, pos.side, pos.enc.values, pos.enc.bird_mask, *tt, gen, TT_WAYS, stats, stop))
        if i == -2:  # a solver bug, not a fault of the input
            raise RuntimeError(f"no card of {[c.rdn() for c in cards]} keeps the value {value}")
        return cards[_finished(i)]


# The first call of each kernel (``_first_call_here``), made the same way by
# ``Solver``, ``solve_batch`` and ``_load_kernels``: empty hands, so no
# search, and the argument types of the real calls, so the same compiled
# version. On a small table of its own: a first call that Ctrl-C left
# behind ends later, and must not then write to a table a search uses.
def _first_table() -> tuple:
    return kernel.tt_new(4)


# The first calls below pass no trick (a zero trick, tlen 0) with the empty
# hands: the empty position then returns at once. With the position's trick
# in progress, the seat to play had no card, and the probe played a card that
# is none (index 64) past the end of its one-ply arrays: heap memory
# corrupted on the loading thread, and a segmentation fault when Python freed
# it at exit (about one run in ten of a multi-deal ``solve --trick``).
def _load_solve(pos: _Position) -> None:
    if not kernel.solve_exact.overloads:
        _first_call_here(kernel.solve_exact, pos.hands, pos.leader, np.zeros_like(pos.trick), 0, 0, pos.P, pos.side,
                         pos.enc.values, pos.enc.bird_mask, pos.unit, *_first_table(), 1, TT_WAYS,
                         np.zeros(1, np.int64), _stop)


def _load_card_values(pos: _Position) -> None:
    if not kernel.card_values_kernel.overloads:
        out = np.zeros(kernel.MAXMOVES, np.int64)
        _first_call_here(kernel.card_values_kernel, pos.hands, pos.leader, np.zeros_like(pos.trick), 0, 0, pos.P,
                         pos.side, pos.enc.values, pos.enc.bird_mask, pos.unit, *_first_table(), 1, TT_WAYS,
                         np.zeros(1, np.int64), _stop, out, out.copy())


def _load_best_card(pos: _Position) -> None:
    if not kernel.best_card_kernel.overloads:
        _first_call_here(kernel.best_card_kernel, pos.hands, pos.leader, np.zeros_like(pos.trick), 0, 0, 0,
                         np.zeros(1, np.int64), 0, pos.P, pos.side, pos.enc.values, pos.enc.bird_mask,
                         *_first_table(), 1, TT_WAYS, np.zeros(1, np.int64), _stop)


def _load_kernels(deal: Deal, trump: str, declarer: str | int, leader: str | int | None = None,
                  dealer: str | int | None = None, trick: Sequence = (),
                  uses: Sequence[str] = ("solve",)) -> None:
    """Make the first call of the kernels behind ``uses`` ("solve",
    "card_values", "line"), with empty hands and a small table: their
    compile, or their load from the cache, before the threads that then
    solve start (``_first_call_here``: on the main thread, Ctrl-C ends the
    wait for it at once)."""
    pos = _position(deal, trump, declarer, leader, dealer, trick)
    _load_solve(pos)
    if "card_values" in uses:
        _load_card_values(pos)
    if "line" in uses:
        _load_best_card(pos)


_local = threading.local()
# the solvers of the module's solve, card_values and play_line, one a thread
# (it dies with its thread), so that release_tables can drop their tables
_thread_solvers: "weakref.WeakSet[Solver]" = weakref.WeakSet()
_thread_solvers_lock = threading.Lock()


def _thread_solver() -> Solver:
    s = getattr(_local, "solver", None)
    if s is None:
        s = _local.solver = Solver()
        with _thread_solvers_lock:
            _thread_solvers.add(s)
    return s


def solve(deal: Deal, trump: str, declarer: str | int, leader: str | int | None = None,
          dealer: str | int | None = None, trick: Sequence = ()) -> SolveResult:
    """The double-dummy value of ``deal`` (a position at a trick boundary; with
    ``trick``, the cards already played to the current trick, from the leader:
    Cards or card texts, or one text such as ``"R5 R9"``).

    ``leader`` defaults to what ``rules.first_lead`` says (with ``dealer``,
    by default W, or the last seat at other tables)."""
    return _thread_solver().solve(deal, trump, declarer, leader, dealer, trick)


def card_values(deal: Deal, trump: str, declarer: str | int, leader: str | int | None = None,
                dealer: str | int | None = None, trick: Sequence = ()) -> dict[Card, int]:
    """Declaring side's points after each legal card of the seat to play, best
    first for that seat (equals in canonical card order): a dict from Card
    to points. Arguments as ``solve``."""
    return _thread_solver().card_values(deal, trump, declarer, leader, dealer, trick)


def play_line(deal: Deal, trump: str, declarer: str | int, leader: str | int | None = None,
              dealer: str | int | None = None, trick: Sequence = ()) -> tuple[LinePlay, ...]:
    """A line of perfect play from the position to the end of the hand: at
    each turn the seat to play takes its best card by ``card_values`` (the
    most points for the declaring side, the fewest for a defender; the
    first in canonical card order among equals). One ``LinePlay`` a card;
    ``declarer_points`` stays the position's value all along, counting the
    tricks already played on the line and, under ``most_tricks``, the
    tricks the declaring side has won on it. Arguments as ``solve``.

    Each card costs one probe of the search for every card tried before it
    (cards are tried in canonical order until one keeps the value), all on
    the table of the deal's ``solve``: after a ``solve`` of the deal on the
    same thread, a line costs a fraction of it."""
    return _thread_solver().play_line(deal, trump, declarer, leader, dealer, trick)


def _broadcast(value, m: int, name: str) -> list:
    if isinstance(value, (str, bytes, int, np.integer)) or value is None:
        return [value] * m  # bytes too: one label, not a sequence of small ints
    if isinstance(value, (set, frozenset)):  # its order would follow the hash seed
        raise DealError(f"{name} {shown(value)}: a set has no order; give one value a deal, in the deals' order")
    if isinstance(value, Mapping):  # list() would take its keys for the values
        raise DealError(f"{name} {shown(value)}: expected one value for every deal or a sequence of one per "
                        f"deal, not a mapping")
    try:
        out = list(value)
    except TypeError:
        raise DealError(f"{name} {shown(value)}: expected one value for every deal or a sequence "
                        f"of one per deal") from None
    if len(out) != m:
        raise DealError(f"{name} {shown(value)}: {len(out)} values for {m} deals")
    return out


def _check_threads(threads) -> int:
    if threads is None:
        return default_threads()
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise RookError(f"threads {shown(threads)}: expected a whole number 1 or more (None: every core)")
    if threads > most_threads():
        raise RookError(f"threads {int(threads)}: at most {most_threads()} on this machine (each solver thread "
                        f"keeps a table of its own)")
    return int(threads)


def default_threads() -> int:
    """The cores this process may run on (at least 1)."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def most_threads() -> int:
    """The most solver threads (or ``simulate`` worker processes) a call may
    ask for: four a core, and 64 on any machine. Past a few a core they only
    thrash it, and each keeps a table of about 253 MB; 200 of them ended in
    numpy's MemoryError halfway through a run."""
    return max(64, 4 * (os.cpu_count() or 1))


def table_bytes(bits: int) -> int:
    """Bytes one solver table of 2**bits entries takes, its fixed caches included."""
    return (1 << bits) * kernel.entry_bytes() + ((1 << kernel.TWO_BITS) * kernel.TWO_W
                                                 + (1 << kernel.PS_BITS) * (kernel.PS_W + 1)
                                                 + (1 << kernel.HINT_BITS)) * 8


def _memory_available() -> int | None:
    """Bytes the system can still give without swapping (Linux's MemAvailable); None where unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _check_memory_for_table(bits: int, making: int = 0) -> None:
    """MemoryError before making a table the system cannot hold. Making one
    writes every page of it, so past what is available Linux does not refuse
    the allocation: it swaps the search to a crawl or kills the process
    without a word (one table a thread: ``--workers 16``, or
    ``ROOK_ANALYZE_TT_BITS=31`` at 249 GB). ``making``: bytes of the tables
    other threads are making now, which the memory available does not show
    yet (``solve_batch``'s threads take theirs at the same moment)."""
    need, available = table_bytes(bits), _memory_available()
    if available is not None and need + making > available:
        others = f", {making / 1e6:,.0f} MB of it going to the tables other threads are making" if making else ""
        raise MemoryError(f"a solver table of 2^{bits} entries takes {need / 1e6:,.0f} MB; "
                          f"{available / 1e6:,.0f} MB of memory is available{others}")


class _TablePool:
    """Tables kept between ``solve_batch`` calls (and ``Solver``s' lives).
    Making one has the system zero every page of it (253 MB at the default
    size, 40-70 ms; ``tt_new``), which `nest` paid every racing round on
    every thread and `simulate` every chunk. A table is reused under a new
    generation, and entries of older generations are empty to every lookup,
    so values never depend on what a table held before. Holds at most
    ``default_threads()`` tables, the largest given back: a table serves
    any search of its size or smaller (``_table_part``), so tables of the
    sizes a run mixes (``nest``'s rounds) are made once."""

    def __init__(self):
        self._lock = threading.Lock()
        self._free: list[list] = []  # [table, last generation used]
        self._making = 0  # bytes of the tables being made now, on any thread

    def take(self, bits: int) -> list:
        """The smallest table kept of 2**``bits`` entries or more, else a new one of 2**``bits``."""
        with self._lock:
            fits = [i for i, e in enumerate(self._free) if _entries_bits(e[0]) >= bits]
            if fits:
                return self._free.pop(min(fits, key=lambda i: _entries_bits(self._free[i][0])))
            # checked and counted together: threads that make tables at once
            # each see the others' (the memory available shows a table only
            # once ``tt_new`` has written its pages)
            _check_memory_for_table(bits, self._making)
            need = table_bytes(bits)
            self._making += need
        try:
            return [kernel.tt_new(bits), 0]
        finally:
            with self._lock:
                self._making -= need

    def give(self, entry: list, wait: bool = True) -> None:
        """``entry`` back for the next ``take``. ``wait=False`` (a finalizer,
        which the cyclic collector may run on a thread inside ``take`` or
        ``give``): where the lock is held, the table is dropped rather than
        waited for."""
        if not self._lock.acquire(blocking=wait):
            return
        try:
            self._free.append(entry)
            if len(self._free) > default_threads():
                self._free.pop(min(range(len(self._free)), key=lambda i: _entries_bits(self._free[i][0])))
        finally:
            self._lock.release()

    def release(self) -> None:
        with self._lock:
            self._free = []


_tables = _TablePool()


def release_tables() -> None:
    """Free the transposition tables kept for the next ``solve_batch`` call or
    ``Solver`` (one per core at most, up to 253 MB each by default: 40 MB for 9-card deals),
    and those of the solvers behind ``solve``, ``card_values`` and
    ``play_line`` (one for each thread that called them) but a solver's that
    is solving at the time; their next call makes a table again. A
    ``Solver`` made by the caller keeps its own."""
    with _thread_solvers_lock:
        solvers = list(_thread_solvers)
    for solver in solvers:
        solver._release_table()
    _tables.release()


def _work_units(groups, P, sides, values, birds, threads: int) -> list[list[int]]:
    """``solve_batch``'s units of work: each deal alone, or with ``groups``
    the deals of one label and one game together, in order of first
    appearance. The game is everything the kernel's table entries depend on
    besides the position: P (seats, bird play, trick points, last trick's
    extra, most tricks, trump), the sides, the cards' worths and the bird.
    Fewer units than threads would leave threads idle, so the largest
    units are halved until there are enough (or all are single deals)."""
    m = len(P)
    if groups is None:
        return [[i] for i in range(m)]
    units: dict = {}
    for i in range(m):
        game = (P[i].tobytes(), sides[i].tobytes(), values[i].tobytes(), int(birds[i]))
        units.setdefault((groups[i], game), []).append(i)
    out = list(units.values())
    while len(out) < min(threads, m):
        k = max(range(len(out)), key=lambda j: len(out[j]))
        half = (len(out[k]) + 1) // 2
        out[k:k + 1] = [out[k][:half], out[k][half:]]
    return out


UNSOLVED = -1  # solve_batch's points for a deal its deadline left unsolved


def solve_batch(deals: Sequence[Deal], trumps: str | Sequence[str], declarers, leaders=None,
                dealer: str | int | None = None, threads: int | None = None,
                progress: Callable[[int], None] | None = None, tt_bits: int | None = None,
                return_nodes: bool = False, groups: Sequence | None = None, deadline: float | None = None):
    """Declaring side's double-dummy points for many deals, spread over threads.

    ``trumps``, ``declarers`` and ``leaders`` are one value for all or one per
    deal (a list, tuple or array in the deals' order); ``leaders`` None and
    ``dealer`` (one for all) as in ``solve``. Returns the points as a numpy
    int64 array, one a deal; with ``return_nodes``, a pair (points, nodes
    searched). ``threads``: None for every core. The values do not depend on
    ``threads`` (the node counts do). ``progress(k)`` is called with the
    number of deals finished since the last call. ``tt_bits``: log2 of each
    thread's table entries (None: ``ROOK_ANALYZE_TT_BITS``, else as many as
    the deals' searches use, at most 2^21: ``made_bits``; a search of hands
    of 10 cards or fewer uses a part of a larger table, ``used_bits``).
    Each thread's table is kept for the next call (``release_tables`` frees them).
    An error on one thread (MemoryError for a table the memory available
    cannot hold, an exception from ``progress``) stops the others' searches
    and is raised.

    ``groups``: None, or a label per deal (any hashable; a single str, bytes or
    int: the same label for all). Deals with the same label and the same
    game (rules, trump, declaring side, last trick's prize) are solved one
    after another on one thread and share its table,
    so each finds the positions the others stored: worth it for deals that
    share most of their play, such as one layout under different discards.
    Groups are halved while there are fewer of them than threads. The
    values are the same either way; only the time changes.

    ``deadline``: None, or an instant of ``time.monotonic()``. The searches
    still running then stop (within milliseconds) and no more start; the
    deals not solved by then come back as ``UNSOLVED`` (-1), every other as
    without a deadline. Which deals finish depends on the machine."""
    bits = table_bits(tt_bits)
    fixed = tables_fixed(tt_bits)
    threads = _check_threads(threads)
    if not isinstance(return_nodes, bool):
        raise RookError(f"return_nodes={shown(return_nodes)}: expected True or False")
    if progress is not None and not callable(progress):
        raise RookError(f"progress {shown(progress)}: expected a function taking a count, or None")
    if deadline is not None:
        given = deadline
        if isinstance(given, bool) or not isinstance(given, (int, float, np.integer, np.floating)):
            raise RookError(f"deadline {shown(given)}: expected an instant of time.monotonic(), or None")
        try:
            deadline = float(given)
        except OverflowError:  # a whole number beyond any float: as far off (or as long past) as inf
            deadline = math.inf if given > 0 else -math.inf
        if math.isnan(deadline):
            raise RookError(f"deadline {shown(given)}: expected an instant of time.monotonic(), or None")
    if isinstance(deals, Deal):
        raise DealError(f"deals: one Deal ({deals.rdn()!r}) where a sequence of Deals is expected: "
                        f"pass [deal]")
    if isinstance(deals, str):
        raise DealError(f"deals {shown(deals)}: expected a sequence of Deals; build each with "
                        f"Deal.from_rdn(text, rules)")
    try:
        deals = list(deals)
    except TypeError:
        raise DealError(f"deals {shown(deals)}: expected a sequence of Deals") from None
    m = len(deals)
    trumps = _broadcast(trumps, m, "trumps")
    declarers = _broadcast(declarers, m, "declarers")
    leaders = _broadcast(leaders, m, "leaders")
    if groups is not None:
        groups = _broadcast(groups, m, "groups")  # one label: every deal of one game shares
        for i, g in enumerate(groups):
            try:
                hash(g)
            except TypeError:
                raise DealError(f"groups[{i}] {shown(g)}: expected a hashable label") from None
    out = np.zeros(m, np.int64)
    nodes = np.zeros(m, np.int64)
    if m == 0:
        return (out, nodes) if return_nodes else out
    hands = np.zeros((m, 6), np.uint64)
    lead = np.zeros(m, np.int64)
    P = np.zeros((m, 7), np.int64)
    sides = np.zeros((m, 6), np.int64)
    values = np.zeros((m, 64), np.int64)
    birds = np.zeros(m, np.uint64)
    units = np.zeros(m, np.int64)
    nest = np.zeros(m, np.int64)
    longest = np.zeros(m, np.int64)  # cards in the longest hand: which part of the table a search uses
    for i, deal in enumerate(deals):
        if not isinstance(deal, Deal):
            _check_deal(deal, f"deals[{i}]")
        try:
            pos = _position(deal, trumps[i], declarers[i], leaders[i], dealer, ())
        except RookError as e:  # which of the deals: a seat or trump may suit the others and not this one
            raise type(e)(f"deals[{i}]: {e}") from None
        hands[i, :len(pos.hands)] = pos.hands
        lead[i] = pos.leader
        P[i] = pos.P
        sides[i] = pos.side
        values[i] = pos.enc.values
        birds[i] = pos.enc.bird_mask
        units[i] = pos.unit
        nest[i] = pos.nest_points
        longest[i] = pos.longest
    units_of_work = _work_units(groups, P, sides, values, birds, threads)
    part_bits = [used_bits(bits, int(longest[unit].max()), len(unit)) for unit in units_of_work]
    size = bits if fixed else max(part_bits)  # the tables the threads take
    if m and not kernel.solve_exact.overloads:
        _first_call_here(kernel.solve_exact, hands[0], lead[0], np.zeros(8, np.int64), 0, 0, P[0], sides[0],
                         values[0], birds[0], units[0], *_first_table(), 1, TT_WAYS, np.zeros(1, np.int64), _stop)
    lock = threading.Lock()
    next_unit = [0]
    failed = [False]  # a worker's error (no table to be had, a progress call that raised) ends the call
    expired = [False]  # the deadline passed: the searches stopped, and the deals left are UNSOLVED
    scopes: list = []  # the workers' scopes, for the deadline's timer to stop
    if deadline is not None:
        out[:] = UNSOLVED

    def worker():
        # one unit (a deal, or a group of deals sharing a table) at a time:
        # solve times are heavy-tailed, so coarse blocks would leave a thread
        # idle. Each call is the same compiled solve_exact as Solver.solve's
        # (a kernel looping over the deals cost a compile of its own, longer
        # than the solver's)
        scope = _current_scope()  # this call's (run_on_threads): Ctrl-C stops its searches alone
        entry = None
        try:
            entry = _tables.take(size)
            tt = entry[0]
            stats = np.zeros(1, np.int64)
            hist = np.zeros(8, np.int64)
            with lock:
                scopes.append(scope)
            while True:
                with lock:
                    u = next_unit[0]
                    if u >= len(units_of_work) or failed[0] or expired[0]:
                        return
                    next_unit[0] += 1
                # a new generation: the table is empty to this unit. Entries
                # hold for any position of the same game, so a group's deals
                # may share one
                entry[1] += 1
                unit = units_of_work[u]
                part = _table_part(tt, part_bits[u])
                for i in unit:
                    stats[0] = 0
                    value = kernel.solve_exact(hands[i].copy(), lead[i], hist, 0, 0, P[i], sides[i], values[i],
                                               birds[i], units[i], *part, entry[1], TT_WAYS, stats, scope.flag)
                    if value < 0 and (failed[0] or expired[0]):
                        return  # stopped for another worker's error, which the call raises, or at the deadline
                    out[i] = _finished(value)
                    nodes[i] = stats[0]
                    if progress is not None:
                        with lock:
                            progress(1)
        except BaseException:
            # the other workers stop at once, rather than solve the rest of
            # the deals for a call that raises
            failed[0] = True
            scope.stop()
            raise
        finally:
            if entry is not None:
                _tables.give(entry)

    def expire():
        with lock:
            expired[0] = True
            stopping = list(scopes)
        for scope in stopping:
            scope.stop()

    timer = None
    if deadline is not None and time.monotonic() >= deadline:
        expired[0] = True  # past already: no search starts
    elif deadline is not None:
        # a timer thread: the main thread waits in run_on_threads, where Ctrl-C must still reach it
        timer = threading.Timer(max(0.0, min(deadline - time.monotonic(), threading.TIMEOUT_MAX)), expire)
        timer.daemon = True
        timer.start()
    try:
        run_on_threads([worker] * min(threads, len(units_of_work)), threads)
    finally:
        if timer is not None:
            timer.cancel()
    solved = out != UNSOLVED
    out[solved] += nest[solved]
    return (out, nodes) if return_nodes else out


_ENTRY_KERNELS = {"solve": "solve_exact", "card_values": "card_values_kernel", "batch": "solve_exact",
                  "line": "best_card_kernel"}


def needs_compile(uses: str | Sequence[str] = ("solve", "card_values", "batch")) -> bool:
    """True when a kernel behind the entry points in ``uses`` ("solve",
    "card_values", "batch": ``solve_batch``, "line": ``play_line``; one name or several) is neither
    loaded in this process nor in numba's disk cache for this machine and these sources (its first
    call will compile it, which takes a while)."""
    if isinstance(uses, str):
        uses = (uses,)
    try:
        uses = list(uses)
    except TypeError:
        raise RookError(f"needs_compile: entry points {shown(uses)}: expected a name or a sequence "
                        f"of names from {', '.join(_ENTRY_KERNELS)}") from None
    for name in uses:
        if not isinstance(name, str) or name not in _ENTRY_KERNELS:
            raise RookError(f"needs_compile: unknown entry point {shown(name)}: "
                            f"choose from {', '.join(_ENTRY_KERNELS)}")
    return any(not _compiled(getattr(kernel, _ENTRY_KERNELS[name])) for name in uses)


def _compiled(fn) -> bool:
    """Kernel ``fn`` is compiled in this process, or its disk cache holds it:
    an index that numba will not call stale (written by this numba version,
    under the sources' stamp) with an entry for this machine's CPU. An index
    file alone is not enough: after an upgrade or on another CPU it is there,
    and numba compiles anyway."""
    if fn.overloads:
        return True
    try:
        from numba.core.caching import NullCache

        if isinstance(fn._cache, NullCache):  # no disk cache (config.DISK_CACHE)
            return False
        index = fn._cache._cache_file._load_index()  # {} when missing or stale
        machine = fn.targetctx.codegen().magic_tuple()
        return any(key[1] == machine for key in index)
    except Exception:  # the cache layout is numba's private business
        return True
