"""The kernel's own functions run as plain Python (numba's ``py_func``) on
random positions: compiled, an index past the end of an array writes or
reads memory that is not the array's, silently (the kernels run without
bounds checks); in Python it raises IndexError. The values must be the
compiled kernel's. (The probe of the kernels' first call once wrote past
its one-ply arrays: ``test_threads.py``.)"""

from __future__ import annotations

import random
import warnings

import numpy as np

from campaign import random_position, random_rules
from rook_analyze.solver import Rules, Solver, api, kernel, random_deal


def _as_python(monkeypatch) -> None:
    """Every compiled function of the kernel module, as its Python source (the
    bit helpers of ``solver.bits`` stay compiled: they are LLVM intrinsics)."""
    for name, obj in list(vars(kernel).items()):
        f = getattr(obj, "py_func", None)
        if f is not None and f.__module__ == kernel.__name__:
            monkeypatch.setattr(kernel, name, f)


def _python_value(pos) -> tuple[int, int]:
    tt = kernel.tt_new(10)
    stats = np.zeros(1, np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # uint64 hashes wrap, as compiled
        value = kernel.solve_exact(pos.hands.copy(), pos.leader, pos.trick, pos.tlen, 0, pos.P, pos.side,
                                   pos.enc.values, pos.enc.bird_mask, pos.unit, *tt, 1, api.TT_WAYS, stats,
                                   np.zeros(1, np.int64))
    return value + pos.nest_points, int(stats[0])


def test_the_kernel_as_python_on_random_endings_of_random_rules(monkeypatch):
    rng = random.Random(48)
    cases = []
    while len(cases) < 60:
        rules = random_rules(rng)
        try:
            cases.append(random_position(rules, rng, rng.choice((2, 3, 4, 5))))
        except ValueError:  # a rule set too small for that ending
            continue
    solver = Solver(tt_bits=12)
    want = [solver.solve(d, t, dec, lead, None, trick).declarer_points for d, t, dec, lead, trick in cases]
    positions = [api._position(d, t, dec, lead, None, trick) for d, t, dec, lead, trick in cases]
    _as_python(monkeypatch)
    nodes = 0
    for pos, value in zip(positions, want):
        got, searched = _python_value(pos)
        assert got == value
        nodes += searched
    assert nodes > 5_000  # searched, not settled by the bounds alone
    assert {r.seats for r in (p[0].rules for p in cases)} >= {2, 4, 6}


def test_the_kernel_as_python_on_a_full_hasbro_deal_from_inside_a_trick(monkeypatch):
    rules = Rules.preset("hasbro")
    deal = random_deal(rules, 7)
    leader = api._seat(rules, "N", "leader")
    led = max(deal.hands[leader], key=rules.card_points)  # a counter led: the first call's case
    pos = api._position(deal.ending(4), "R", "E", "N", None, ())
    pos_trick = api._position(deal, "R", "E", "N", None, (led,))
    want = [Solver(tt_bits=14).solve(deal.ending(4), "R", "E", "N").declarer_points,
            Solver(tt_bits=14).solve(deal, "R", "E", "N", None, (led,)).declarer_points]
    _as_python(monkeypatch)
    assert _python_value(pos)[0] == want[0]
    assert _python_value(pos_trick)[0] == want[1]
