"""The nest advisor: which trump to name and which cards to bury after
winning the bid, with the expected points and the chance of making the bid.

The declarer holds hand + nest (18 cards in ``full``) and discards
``nest_size`` of them: 4 x C(18, 5) = 34,272 choices in ``full``, far too
many to solve. The advisor works in two steps.

Candidates (``nest_candidates``). For each trump, every discard is scored by
a quick static estimate of the points it brings (``quick_scores``: banked or
risked counters in the nest, sure winners, trump length and control, voids
to ruff with). The pool is the union of

- the heuristic policy's own choice (``analysis.policy``), and its discards
  for every other trump, so each trump is solved at least once;
- discards built by rule: bury the losing counters (a sure thing when the
  nest goes to the declarer), protect them (the nest is a prize for the
  last trick when it goes there), void each short side color, throw the
  lowest side cards;
- the best discards of each trump by the quick estimate, from the full
  enumeration, so nothing the estimate ranks high is pruned.

Birds are discarded only when the other cards run short, and trumps only
when the side cards run short: then every mix of side cards and trumps is
weighed (keeping a side card and burying one more trump can pay).
Discards that differ only in which of equivalent cards they bury (the same
color and points, no unseen card ranking between them) play alike on every
layout, so they are one option (``equivalence_classes``). The pool is cut
to ``candidates`` options: first the policy's choice, then its discards for
the other trumps, then each trump's top-ranked discard, then the rest by
the quick estimate (so with fewer ``candidates`` than those forced ones,
the later ones are left out; the default keeps them all).

Evaluation (``analyze_nest``). Monte Carlo over layouts of the unseen cards
(``analysis.sampling``: the declarer knows the nest, so the unseen cards go
to the other seats and out of play), solved double-dummy with the discards
as the nest. Every candidate is solved on the same layouts (common random
numbers: layout ``i`` is sample ``i`` of the seed, whoever asks), so the
differences between options are measured without the layout noise. The
layouts go to the contenders by successive halving: all candidates are
solved on a few layouts, the better half is kept and solved on twice as
many, and so on until two finalists have ``samples`` layouts each (no round
has fewer than ``FIRST_ROUND`` layouts, so with few ``samples`` the early
rounds share one count: ``halving_schedule``). The
policy's own choice is the yardstick: it stays to the last round (taking
the last place when it would drop out).

Decision: the option that measures best by ``objective`` (mean points by
default) is recommended when it *is* the policy's choice or leads it by at
least ``margin`` standard errors of their paired difference (and by more
than 0: an option tied with it is no improvement), and the two score
differently on at least ``switch_layouts(margin)`` layouts (3 at the
default margin: a lead that two layouts show alike has a standard error
of 0, and one layout that differs where the rest tie gives a lead of
exactly one standard error); otherwise the policy's choice is kept. The
best of many options measured on the same few layouts looks better than
it is (the winner's curse), and the policy's choice is a sound default,
so a switch must be earned.

Reported per option: mean points and standard error, P(make the bid) (with
its standard error and 95% Wilson interval, as in ``hand``) and the
expected score with ``bid``, the layouts it was solved on, and the gap
to the recommendation with the standard error of the paired differences
(``gap_se``). Results depend only on the inputs and the seed, never on the
number of threads: the layouts are seeded per index and the solver is exact.

A ``time_limit`` ends the halving early: once it has passed, the
searches stop and no new layouts are solved; a layout counts only when
every option of its round was solved on it (and on every layout before
it), so the solves of a layout left part done are dropped. With a limit
a round is solved a few layouts at a time (one a thread); the options of
the round the limit cuts (or of the last round run) are the finalists,
ranked on the layouts they reached, and the decision against the
policy's choice is made as without a limit. A limit that comes before
every option has ``FIRST_ROUND`` layouts (with 13-card hands the first
round can take from seconds to many minutes) leaves nothing to compare:
the options rank by the quick estimate and the policy's choice stands,
unmeasured (where the trumps given leave it out, the best by the quick
estimate; ``NestRecommendation.layouts``). Which rounds run depends on
the machine, so the report gives the rounds as run
(``schedule``) and says whether the limit ended them (``timed_out``); each
layout and each option's points on it are the same as in any run with the
seed.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from rook_analyze.solver import solve_batch
from rook_analyze.solver.api import UNSOLVED, default_threads
from rook_analyze.solver.cards import BIRD_MASK, COLORS, Hand, first_card, mask_indices, shown
from rook_analyze.solver.deal import Deal
from rook_analyze.solver.errors import ConstraintError, DealError, DuplicateCardError, RulesError
from rook_analyze.solver.rules import Rules

from .hand import wilson
from .policy import DEFAULT_POLICY, check_policy, policy_label, HeuristicPolicy, NestPolicy, take_nest
from .inputs import (MAX_SAMPLES, as_hand, callable_or_none, hand_and_nest, is_whole, json_records, number,
                     reports_equal, threads_count, whole)
from .sampling import NEST, Constraint, DealSampler, check_cards, check_hand, resolve_seed

# the most discards of one trump the advisor lists and scores (each is a
# tuple in a list first): `full` has 8,568 at most, a two-seat table with a
# nest of 7 under 500,000; a nest of 10 there took 10 s and 864 MB to list
MAX_DISCARDS = 1_000_000
DEFAULT_SAMPLES = 16     # layouts the two finalists are solved on
DEFAULT_CANDIDATES = 12  # options that enter the first round
DEFAULT_TOP = 5          # options shown
FIRST_ROUND = 2          # fewest layouts a round solves on: a standard error needs two
FINALISTS = 2            # the last round compares these many
QUICK_PER_TRUMP = 4      # best discards of each trump by the quick estimate that enter the pool
DEFAULT_MARGIN = 1.0     # standard errors the best option must lead the policy's choice by
MOST_SWITCH_LAYOUTS = 8  # switch_layouts' cap: by then the standard error itself is a fair guide
OBJECTIVES = ("mean", "p_make", "score")
_PROTECT = HeuristicPolicy()  # builds the discards that keep the losing counters ("protect")
# an option's figures that need a bid: left out of ``options`` without one, null in json, empty in csv
_BID_COLUMNS = ("p_make", "p_make_se", "p_make_lo", "p_make_hi", "score")


# ---------------------------------------------------------------- input
def check_nest(hand: Hand | str, nest: Hand | str, rules: Rules) -> tuple[Hand, Hand]:
    """The declarer's hand and the nest, checked against the rules: the right
    number of cards each, every card in the deck, no card twice; and rules
    with an auction, whose winner takes the nest."""
    rules = Rules.from_spec(rules)
    if not rules.has_auction:
        raise RulesError(f"rules {rules.spec()!r} have no bidding: nest advice is for the declarer who "
                         f"won the auction and takes the nest")
    hand, nest = hand_and_nest(hand, nest, rules)
    check_hand(hand, rules)
    check_cards(nest, "nest", rules, rules.nest_size, f"has a nest of {rules.nest_size}", DealError)
    return hand, nest


def allowed_trumps(rules: Rules | str, trumps: Sequence[str] | str | None = None) -> tuple[str, ...]:
    """The trumps to consider: ``trumps`` checked against the rules (one
    string is one trump: ``"B"``, not ``"BR"``), or with None every trump the
    rules allow (``none`` only without a bird)."""
    rules = Rules.from_spec(rules)
    if trumps is None:
        return rules.trumps
    if isinstance(trumps, str):
        trumps = [trumps]
    try:
        given = list(trumps)
    except TypeError:
        raise ConstraintError(f"trumps={shown(trumps)}: expected a trump or a list of trumps, "
                              f"e.g. ['B', 'R'] (None: every trump)") from None
    if not given:
        raise ConstraintError(f"trumps={shown(trumps)}: no trump given; choose among {', '.join(rules.trumps)} "
                              f"(None: every trump)")
    out = []
    for t in given:
        if not isinstance(t, str):
            raise ConstraintError(f"trump {shown(t)} in trumps={shown(trumps)}: expected a trump name, one of "
                                  f"{', '.join(rules.trumps)}")
        t = rules.check_trump(t)
        if t not in out:
            out.append(t)
    return tuple(out)


def _trump(trump: object, rules: Rules) -> str:
    """One trump name, checked against the rules."""
    if not isinstance(trump, str):
        raise ConstraintError(f"trump {shown(trump)}: choose one of {', '.join(rules.trumps)}")
    return rules.check_trump(trump)


# ------------------------------------------------------------ candidates
@dataclass(frozen=True)
class Candidate:
    """One option: the trump, the cards buried (the new nest), the hand kept,
    the quick estimate and where it came from (``choice``, the policy's own
    choice; ``policy``, ``bury``, ``protect``, ``void``, ``low``, ``quick``)."""

    trump: str
    discard: Hand
    keep: Hand
    quick: float
    sources: tuple[str, ...]

    def rdn(self, one_high: bool = False) -> str:
        return f"trump {self.trump}, discard {self.discard.rdn(one_high)}"


@dataclass(frozen=True)
class _Tables:
    """Per card index (64 slots), what the quick estimate needs for one
    trump: points, color lane (-1 for a trump), and whether the card is a
    sure winner (no unseen card of its color, trumps with the birds, ranks
    above it)."""

    points: np.ndarray
    lane: np.ndarray
    top: np.ndarray
    trump_mask: int
    side_masks: tuple[int, ...]
    unseen_trumps: int


def _tables(cards: Hand, trump: str, rules: Rules) -> _Tables:
    held = cards.mask
    unseen = rules.deck_mask & ~held
    tcolor = None if trump == "none" else trump
    points = np.zeros(64, np.float64)
    lane = np.full(64, -1, np.int64)
    top = np.zeros(64, bool)
    side_masks = []
    trump_mask = 0
    for color in COLORS:
        order = rules.color_order(tcolor, color)  # low to high, birds placed when trump
        mask = 0
        above_unseen = False
        for idx in reversed(order):
            points[idx] = rules.card_points(idx)
            lane[idx] = -1 if color == tcolor else COLORS.index(color)
            top[idx] = not above_unseen
            if unseen >> idx & 1:
                above_unseen = True
            mask |= 1 << idx
        if color == tcolor:
            trump_mask = mask
        else:
            side_masks.append(mask & ~BIRD_MASK)
    if tcolor is None:  # no trump (and no bird: 'none' is only allowed without one)
        trump_mask = 0
    return _Tables(points, lane, top, trump_mask, tuple(side_masks), (unseen & trump_mask).bit_count())


def _popcount(x: np.ndarray) -> np.ndarray:
    """Bits set per uint64 element."""
    x = x.copy()
    count = np.zeros(x.shape, np.int64)
    while x.any():
        count += (x & np.uint64(1)).astype(np.int64)
        x >>= np.uint64(1)
    return count


def _discard_masks(discards: Any, cards: Hand, rules: Rules) -> np.ndarray:
    """``discards`` as uint64 card masks, each ``nest_size`` cards of ``cards``:
    a float or a negative number read as a mask was a wrong card set, silently."""
    arr = np.asarray(discards) if isinstance(discards, (list, tuple, np.ndarray)) else None
    if arr is None or arr.ndim != 1 or not (arr.size == 0 or np.issubdtype(arr.dtype, np.integer)) \
            or (np.issubdtype(arr.dtype, np.signedinteger) and (arr < 0).any()):
        raise ConstraintError(f"discards {shown(discards)}: expected a list or 1-d array of card masks "
                              f"(whole numbers, bit i for card index i)")
    masks = arr.astype(np.uint64)
    stray = masks & ~np.uint64(cards.mask)
    sizes = _popcount(masks)
    bad = np.flatnonzero((stray != 0) | (sizes != rules.nest_size))
    if bad.size:
        m = int(masks[bad[0]])
        why = (f"cards not in {cards.rdn(rules.one_high)!r}" if stray[bad[0]] else
               f"{int(sizes[bad[0]])} cards, not the nest's {rules.nest_size}")
        raise ConstraintError(f"discards: mask {m} ({Hand(m & ((1 << 64) - 1)).rdn(rules.one_high)!r}) holds {why}")
    return masks


def quick_scores(cards: Hand, trump: str, rules: Rules, discards: np.ndarray) -> np.ndarray:
    """A quick static estimate of the declaring side's points for each
    discard (uint64 card masks) of ``cards`` under ``trump``.

    Rough by design, it only has to rank: points buried in the nest (all of
    them when the nest goes to the declarer; when it goes to the last trick,
    a share that grows with the trumps kept), the points of the kept sure
    winners and trumps, a share of the points of the kept losers, and an
    average trick's worth for each trick the hand should take (sure winners,
    trump length beyond the opponents' share, ruffs in voids and singletons)."""
    rules = Rules.from_spec(rules)
    cards = as_hand(cards, rules)
    trump = _trump(trump, rules)
    discards = _discard_masks(discards, cards, rules)
    t = _tables(cards, trump, rules)
    held = np.uint64(cards.mask)
    keep = held & ~discards
    n = len(discards)
    pts_d = np.zeros(n)
    safe_pts = np.zeros(n)
    trump_pts = np.zeros(n)
    loser_pts = np.zeros(n)
    sure = np.zeros(n)
    trumps = np.zeros(n)
    for idx in mask_indices(cards.mask):
        bit = np.uint64(1 << idx)
        kept = (keep & bit) != 0
        p = t.points[idx]
        pts_d += np.where(kept, 0.0, p)
        if (t.trump_mask >> idx) & 1:
            trumps += kept
            if t.top[idx]:
                sure += kept
                safe_pts += np.where(kept, p, 0.0)
            else:
                trump_pts += np.where(kept, p, 0.0)
        elif t.top[idx]:
            sure += kept
            safe_pts += np.where(kept, p, 0.0)
        else:
            loser_pts += np.where(kept, p, 0.0)
    voids = np.zeros(n)
    shorts = np.zeros(n)
    for m in t.side_masks:
        length = _popcount(keep & np.uint64(m))
        voids += length == 0
        shorts += length == 1
    # trump length beyond what one opponent is likely to hold
    opponents = max(rules.seats - 1, 1)
    long_trumps = np.maximum(trumps - sure - t.unseen_trumps / opponents, 0)
    spare = np.maximum(trumps - 2, 0)
    ruffs = np.minimum(voids + 0.5 * shorts, spare)
    tricks = np.minimum(sure + 0.6 * long_trumps + 0.8 * ruffs, rules.hand_size)
    per_trick = rules.total_points / max(rules.hand_size * rules.seats / 2, 1)  # a trick won: own + another's
    if rules.nest_to == "declarer":
        nest_share = 1.0
    else:
        nest_share = np.clip(0.15 * trumps, 0.1, 0.9)
    return nest_share * pts_d + safe_pts + 0.6 * trump_pts + 0.3 * loser_pts + per_trick * tricks


def _all_discards(cards: Hand, k: int, no_birds: bool, trump_mask: int) -> np.ndarray:
    """Every ``k``-card discard of ``cards`` as uint64 masks: of the side
    cards where there are ``k``; else of the side cards and trumps (any mix);
    else of every card, birds too."""
    idx = mask_indices(cards.mask)
    pool = [i for i in idx if not (no_birds and (1 << i) & BIRD_MASK)]
    side = [i for i in pool if not (trump_mask >> i) & 1]
    if len(side) >= k:
        pool = side
    elif len(pool) < k:
        pool = idx
    if k == 0:
        return np.zeros(1, np.uint64)
    ways = math.comb(len(pool), k)
    if ways > MAX_DISCARDS:  # listed before any solve: past this, minutes and gigabytes of lists
        raise ConstraintError(f"nest of {k} cards: {ways:,} ways to bury {k} of {len(pool)} cards, more than the "
                              f"nest advisor weighs ({MAX_DISCARDS:,} a trump)")
    bits = np.array([1 << i for i in pool], np.uint64)
    combos = np.array(list(itertools.combinations(range(len(pool)), k)), np.int64)
    out = np.zeros(len(combos), np.uint64)
    for j in range(k):
        out |= bits[combos[:, j]]
    return out


def equivalence_classes(cards: Hand, trump: str, rules: Rules) -> list[list[int]]:
    """The declarer's cards in groups that play alike: the same color (the
    birds with the trumps), worth the same points, and no card of anyone
    else's ranking between them. Burying one card of a group or another of
    it leaves equivalent hands, so the double-dummy points are the same on
    every layout; each group is listed lowest first."""
    rules = Rules.from_spec(rules)
    held = as_hand(cards, rules).mask
    trump = _trump(trump, rules)
    tcolor = None if trump == "none" else trump
    groups: list[list[int]] = []
    for color in COLORS:
        run: list[int] = []
        for idx in rules.color_order(tcolor, color):
            if held >> idx & 1 and run and rules.card_points(run[-1]) == rules.card_points(idx):
                run.append(idx)
                continue
            if run:
                groups.append(run)
            run = [idx] if held >> idx & 1 else []
        if run:
            groups.append(run)
    return groups


def canonical_discards(discards: np.ndarray, groups: Sequence[Sequence[int]]) -> np.ndarray:
    """Each discard (uint64 masks) with the cards it buries from every group
    replaced by that group's lowest: equal masks then play alike."""
    out = discards.copy()
    for g in groups:
        if len(g) < 2:
            continue
        gmask = np.uint64(sum(1 << i for i in g))
        count = _popcount(discards & gmask)
        acc = 0
        table = [0]
        for i in g:
            acc |= 1 << i
            table.append(acc)
        low = np.array(table, np.uint64)[count]
        out = (out & ~gmask) | low
    return out


def _rule_discards(cards: Hand, trump: str, rules: Rules, policy: NestPolicy) -> dict[int, list[str]]:
    """Discards built by rule, mask -> the rules that build it."""
    k = rules.nest_size
    out: dict[int, list[str]] = {}

    def add(mask: int, source: str) -> None:
        if mask.bit_count() == k and source not in out.setdefault(mask, []):
            out[mask].append(source)

    add(policy.discard(cards, trump, rules).mask, "policy")
    # bury the losing counters first: the policy under the declarer's nest rule
    if rules.nest_to != "declarer":
        add(policy.discard(cards, trump, rules.with_knobs(nest_to="declarer", hand_size=rules.hand_size)).mask,
            "bury")
    # or protect them: the heuristic's steps keeping the losing counters in hand where the discards allow
    add(_PROTECT.discard(cards, trump, rules, protect_counters=True).mask, "protect")
    if k == 0:
        return out
    t = _tables(cards, trump, rules)
    held = cards.mask
    sides = [i for i in mask_indices(held) if t.lane[i] >= 0 and not (1 << i) & BIRD_MASK]
    # lowest first; non-counters before counters
    low = sorted(sides, key=lambda i: (t.points[i] > 0, _rank(rules, trump, i)))
    # void each side color (and each pair) that fits, fill with the lowest
    for r in (1, 2):
        for colors in itertools.combinations(range(len(COLORS)), r):
            m = 0
            for c in colors:
                m |= held & (0x7FFE << (16 * c)) & ~t.trump_mask
            if not m or m.bit_count() > k:
                continue
            for i in low:
                if m.bit_count() >= k:
                    break
                m |= 1 << i
            add(m, "void")
    # the lowest side cards, counters or not
    m = 0
    for i in sorted(sides, key=lambda i: _rank(rules, trump, i))[:k]:
        m |= 1 << i
    add(m, "low")
    # the lowest non-counters
    m = 0
    for i in low[:k]:
        m |= 1 << i
    add(m, "low")
    return out


def _rank(rules: Rules, trump: str, idx: int) -> int:
    """A card's rank within its color, 0 for the lowest."""
    if (1 << idx) & BIRD_MASK:
        return 99
    color = COLORS[idx // 16]
    return rules.color_order(None if trump == "none" else trump, color).index(idx)


def nest_candidates(hand: Hand | str, nest: Hand | str, rules: Rules | str, limit: int = DEFAULT_CANDIDATES,
                    trumps: Sequence[str] | None = None, policy: NestPolicy = DEFAULT_POLICY,
                    per_trump: int = QUICK_PER_TRUMP) -> list[Candidate]:
    """The options worth solving (see the module docstring), best quick
    estimate first: at most ``limit``, of the ``trumps`` given (None: all),
    with each trump's ``per_trump`` best discards by the quick estimate in
    the pool. The own choice of ``policy`` is always among them when its
    trump is."""
    rules = Rules.from_spec(rules)
    hand, nest = check_nest(hand, nest, rules)
    trumps = allowed_trumps(rules, trumps)
    limit = whole("limit", limit, 1)
    per_trump = whole("per_trump", per_trump, 1)
    policy = check_policy(policy)
    cards = hand | nest
    k = rules.nest_size
    choice = policy.choose(cards, rules)

    # (trump, canonical mask) -> [quick, sources, the mask shown]; equivalent discards are one option
    pool: dict[tuple[str, int], list[Any]] = {}
    must: list[tuple[str, int]] = []
    policy_best: list[tuple[str, int]] = []
    quick_best: list[tuple[str, int]] = []

    def add(trump: str, mask: int, canon: int, quick: float, source: str) -> tuple[str, int]:
        entry = pool.setdefault((trump, canon), [quick, [], mask])
        entry[1].append(source)
        return (trump, canon)

    for trump in trumps:
        t = _tables(cards, trump, rules)
        groups = equivalence_classes(cards, trump, rules)
        # by rule first, so the policy's own cards are the ones shown for its option
        ruled = _rule_discards(cards, trump, rules, policy)
        masks = np.array(list(ruled), np.uint64)
        canon = canonical_discards(masks, groups)
        rs = quick_scores(cards, trump, rules, masks)
        for (mask, sources), c, q in zip(ruled.items(), canon, rs):
            for source in sources:
                key = add(trump, mask, int(c), float(q), source)
            if "policy" in sources:
                policy_best.append(key)  # each trump is solved at least once
                if trump == choice.trump and mask == choice.discard.mask:
                    must.append(key)
        every = np.unique(canonical_discards(_all_discards(cards, k, bool(rules.bird_count), t.trump_mask),
                                             groups))
        scores = quick_scores(cards, trump, rules, every)
        best = np.argsort(-scores, kind="stable")[:per_trump]  # ties to the mask order
        for j in best:
            add(trump, int(every[j]), int(every[j]), float(scores[j]), "quick")
        quick_best.append((trump, int(every[best[0]])))
    ranked = sorted(pool, key=lambda key: (-pool[key][0], trumps.index(key[0]), key[1]))
    # the forced ones first: the policy's choice, each trump's policy discard, each trump's quick best
    chosen: list[tuple[str, int]] = []
    for key in must + policy_best + quick_best + ranked:
        if key not in chosen and len(chosen) < limit:
            chosen.append(key)
    chosen.sort(key=lambda key: (-pool[key][0], trumps.index(key[0]), key[1]))
    out = []
    for key in chosen:
        quick, sources, mask = pool[key]
        if key in must:
            sources = ["choice"] + sources
        out.append(Candidate(key[0], Hand(mask), cards - Hand(mask), quick, tuple(dict.fromkeys(sources))))
    return out


# ------------------------------------------------------------- schedule
def halving_schedule(candidates: int, samples: int) -> list[tuple[int, int]]:
    """Successive halving: ``(options, layouts)`` per round. Each round keeps
    the better half of the options (at least ``FINALISTS``) and doubles the
    layouts, ending with the finalists on ``samples`` layouts; a round never
    solves on fewer than ``FIRST_ROUND`` layouts (nor more than ``samples``)."""
    candidates, samples = whole("candidates", candidates, 1), whole("samples", samples, 1)
    counts = [candidates]
    while counts[-1] > FINALISTS:
        counts.append(max(FINALISTS, math.ceil(counts[-1] / 2)))
    rounds = len(counts)
    layouts = [min(samples, max(FIRST_ROUND, math.ceil(samples / 2 ** (rounds - 1 - r)))) for r in range(rounds)]
    return list(zip(counts, layouts))


def planned_solves(schedule: Sequence[tuple[int, int]]) -> int:
    """The solves a schedule costs: each round's options on its new layouts."""
    if isinstance(schedule, (str, bytes)) or not isinstance(schedule, Sequence) or not all(
            isinstance(r, tuple) and len(r) == 2 and all(is_whole(x) and x >= 0 for x in r) for r in schedule):
        raise ConstraintError(f"schedule {shown(schedule)}: expected (options, layouts) pairs, "
                              f"as halving_schedule gives")
    total, before = 0, 0
    for n, layouts in schedule:
        total += n * (layouts - before)
        before = layouts
    return total


# --------------------------------------------------------------- report
@dataclass(frozen=True)
class NestRecommendation:
    """The advice: the trump, the cards to bury, and what it is worth.

    ``gap``/``gap_se``: its lead over the runner-up on their common layouts
    (negative when the policy's choice was kept over a better-measured
    option). ``policy``: whether it is the policy's own choice;
    ``best_trump``/``best_discard``: the best-measured option, and ``lead``/
    ``lead_se`` its lead over the policy's choice (None when they are the
    same), in the units of ``objective``; it replaces the policy's choice
    when ``lead > 0``, ``lead >= margin * lead_se`` and ``lead_differs``,
    the layouts of the ``lead_layouts`` it was measured on where the two
    score differently, are at least ``switch_layouts``. ``layouts``: None,
    or where a time limit came before every option had the ``FIRST_ROUND``
    layouts a standard error needs, how many it had (0 or 1): nothing was
    compared (not even on one layout), and the policy's choice stands (the
    best by the quick estimate where the trumps given leave it out), the
    ``best`` option too."""

    trump: str
    discard: Hand
    keep: Hand
    mean: float
    se: float
    p_make: float | None
    gap: float | None
    gap_se: float | None
    policy: bool = False
    best_trump: str | None = None
    best_discard: Hand | None = None
    lead: float | None = None
    lead_se: float | None = None
    margin: float = DEFAULT_MARGIN
    objective: str = "mean"
    one_high: bool = False  # the rules' one_high: how the cards are written (Hand.rdn)
    layouts: int | None = None  # set (0 or 1) where a time limit left too few layouts to compare options
    lead_layouts: int | None = None  # the layouts ``lead`` was measured on (None with it)
    lead_differs: int | None = None  # of those, the layouts where the two options score differently

    @property
    def switch_layouts(self) -> int:
        """The fewest layouts on which the two must differ for a lead to replace the policy's choice."""
        return switch_layouts(self.margin)

    def _lead(self) -> str:
        """The lead over the policy's choice with its standard error, in the objective's units."""
        if self.objective == "p_make":  # a difference of probabilities: 0.083 +- 0.149 is not 0.1 +- 0.1
            return f"P(make) {self.lead:.3f} +- {_fmt(self.lead_se, 3)}"
        # a score is not the points beside it (the gap to the runner-up stays in points): name it
        prefix = "score " if self.objective == "score" else ""
        return f"{prefix}{self.lead:.1f} +- {_fmt(self.lead_se)}"

    def text(self) -> str:
        """The advice in words, as the ``nest`` command prints it: the option
        (and whether it is the heuristic's choice), its mean +- se, P(make)
        with a bid, its lead over the runner-up and, where they differ, the
        lead between it and the heuristic's choice."""
        # what the option is comes first, so the remark about the heuristic
        # cannot be read as one about the runner-up
        s = _option_text(self.trump, self.discard, self.one_high)
        if self.policy and self.lead is not None:
            other = _option_text(self.best_trump, self.best_discard, self.one_high)
            if self.lead > 0:
                under = f"under {self.margin:g} se"
                if self.lead_differs is not None and self.lead_differs < self.switch_layouts:
                    few = (f"the two differ on {self.lead_differs} of {self.lead_layouts} layouts, fewer than "
                           f"the {self.switch_layouts} a switch needs")
                    # where both tests failed, both are named: the count alone would read as the only obstacle
                    why = (f"but {few} {under}" if self.lead >= self.margin * self.lead_se else
                           f"{under}, and {few}")
                else:
                    why = under
                s += f" (the heuristic's choice, kept: {other} measured {self._lead()} better, {why})"
            else:  # tied with it: no lead at all
                s += (f" (the heuristic's choice, kept: {other} measured no better, "
                      f"{self._lead()})")
        elif self.policy:
            s += " (the heuristic's choice)"
        if self.layouts is not None:
            s += "" if self.policy else " (the best by the quick estimate)"
            return s + (f": the time limit came before every option had {FIRST_ROUND} layouts, so none "
                        f"was compared" + (f" (it scored {self.mean:.0f} points on the one layout solved)"
                                           if self.layouts == 1 else " (no layout solved)"))
        s += f": {self.mean:.1f} +- {_fmt(self.se)} points"
        if self.p_make is not None:
            s += f", P(make) {self.p_make:.3f}"
        if self.gap is not None:
            # the policy's choice kept under the margin can trail the runner-up: say behind, not "-5.0 ahead"
            where = "ahead of" if self.gap >= 0 else "behind"
            s += f"; {abs(self.gap):.1f} +- {_fmt(self.gap_se)} {where} the runner-up"
        if not self.policy and self.lead is not None:
            s += f"; {self._lead()} better than the heuristic's choice"
        return s


def _option_text(trump: str, discard: Hand, one_high: bool = False) -> str:
    # without a nest (nest_size=0) nothing is buried: the option is its trump alone
    return f"trump {trump}, discard {discard.rdn(one_high)}" if len(discard) else f"trump {trump}"


def _fmt(x: float | None, digits: int = 1) -> str:
    return "nan" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


@dataclass(frozen=True, repr=False, eq=False)
class NestReport:
    """What ``analyze_nest`` found. ``options`` has one row per candidate,
    best first (the rank of successive halving: options that survived more
    rounds rank higher); ``schedule`` the rounds as run, ``(options,
    layouts reached)``: ``planned`` (``halving_schedule``'s), or fewer and
    the last cut short where ``time_limit`` ended them (``timed_out``);
    ``samples`` the layouts sampled; ``detail`` one row per solve (the option's rank,
    trump and discards, the layout's sample number and deal as dealt in
    RDN, the declaring side's points); ``layouts`` the sampled deals as
    dealt (before the discards)."""

    hand: Hand
    nest: Hand
    rules: Rules
    seat: str
    dealer: str
    leader: str
    bid: int | None
    samples: int
    seed: int
    objective: str
    top: int
    policy: str
    known: Mapping[str, Hand]
    constraints: tuple[Constraint, ...]
    schedule: tuple[tuple[int, int], ...]
    planned: tuple[tuple[int, int], ...]  # halving_schedule's rounds, which a time limit may cut
    solves: int
    options: pd.DataFrame
    recommendation: NestRecommendation
    detail: pd.DataFrame = field(repr=False)
    layouts: tuple[Deal, ...] = field(repr=False)
    time_limit: float | None = None
    timed_out: bool | None = None  # with time_limit: did it end the rounds before the schedule's last

    __eq__ = reports_equal  # its tables are DataFrames, which == cannot compare
    __hash__ = None

    def __repr__(self) -> str:
        # the tables are in .options, .detail and .layouts; a repr of them all is pages long
        high = self.rules.one_high
        return (f"NestReport(hand={self.hand.rdn(high)!r}, nest={self.nest.rdn(high)!r}, rules={self.rules.spec()!r}, "
                f"seat={self.seat!r}, bid={self.bid!r}, samples={self.samples}, seed={self.seed}, "
                f"recommendation={self.recommendation.text()!r})")

    def top_options(self, k: int | None = None) -> pd.DataFrame:
        """The best ``k`` options (default: ``top``)."""
        return self.options.head(self.top if k is None else whole("k", k, 1))

    def to_dict(self) -> dict[str, Any]:
        """The json document of CONTRACT.md, plus the extra fields."""
        rec = self.recommendation
        high = self.rules.one_high  # the 1 written first where it ranks above the 14
        options = []
        for row in json_records(self.top_options()):
            row["discard"] = row["discard"].split() if row["discard"] else []
            row["keep"] = row["keep"].split()
            row["sources"] = row["sources"].split(",")
            if "p_make" not in row:  # no bid: the fields are there all the same, null (CONTRACT.md names p_make)
                fields = list(row.items())
                after_se = list(row).index("se") + 1
                row = dict(fields[:after_se] + [(c, None) for c in _BID_COLUMNS] + fields[after_se:])
            options.append(row)
        return {
            "hand": self.hand.rdn(high),
            "nest": self.nest.rdn(high),
            "rules": self.rules.spec(),
            "seat": self.seat,
            "dealer": self.dealer,
            "leader": self.leader,
            "bid": self.bid,
            "samples": self.samples,
            "seed": self.seed,
            "objective": self.objective,
            "policy": self.policy,
            "known": {k: v.rdn(high) for k, v in self.known.items()},
            "constraints": [c.text() for c in self.constraints],
            "candidates": len(self.options),
            "schedule": [{"options": n, "layouts": m} for n, m in self.schedule],
            "planned": [{"options": n, "layouts": m} for n, m in self.planned],
            "solves": self.solves,
            "options": options,
            "recommendation": {
                "trump": rec.trump, "discard": rec.discard.rdn(high).split(), "keep": rec.keep.rdn(high).split(),
                "mean": _num(rec.mean), "se": _num(rec.se), "p_make": _num(rec.p_make),
                "gap": _num(rec.gap), "gap_se": _num(rec.gap_se), "policy": rec.policy,
                "best": {"trump": rec.best_trump,
                         "discard": rec.best_discard.rdn(high).split() if rec.best_discard is not None else None},
                "lead_over_policy": _num(rec.lead), "lead_over_policy_se": _num(rec.lead_se),
                "lead_over_policy_layouts": rec.lead_layouts, "lead_over_policy_differs": rec.lead_differs,
                # null where no lead was measured (the best is the policy's choice, or there is no yardstick)
                "switch_layouts": rec.switch_layouts if rec.lead is not None else None,
                "margin": rec.margin, "compared": rec.layouts is None,
            },
            "time_limit": self.time_limit,
            "timed_out": self.timed_out,
        }

    def to_frame(self) -> pd.DataFrame:
        """The top options and the recommendation in one table (for csv): a
        ``section`` column says which a row is."""
        rec = self.recommendation
        high = self.rules.one_high
        opts = self.top_options().assign(section="option")
        row = {"section": "recommendation", "trump": rec.trump, "discard": rec.discard.rdn(high),
               "keep": rec.keep.rdn(high), "mean": rec.mean, "se": rec.se, "gap": rec.gap, "gap_se": rec.gap_se}
        if self.bid is not None:
            row["p_make"] = rec.p_make
        # the rest of its figures as its option row has them (gap stays its lead over the runner-up)
        same = self.options[(self.options["trump"] == rec.trump) & (self.options["discard"] == rec.discard.rdn(high))]
        for col in ("rank", "p_make_se", "p_make_lo", "p_make_hi", "score", "samples", "rounds", "quick", "policy",
                    "sources"):
            if len(same) and col in same.columns and col not in row:
                row[col] = same.iloc[0][col]
        frame = pd.concat([opts, pd.DataFrame([row])], ignore_index=True)
        cols = ["section"] + [c for c in frame.columns if c != "section"]
        if self.bid is None:  # the same columns with or without a bid, empty without (as json's nulls)
            at = cols.index("se") + 1
            cols[at:at] = list(_BID_COLUMNS)
            frame = frame.assign(**{c: math.nan for c in _BID_COLUMNS})
        frame = frame[cols]
        frame["rank"] = frame["rank"].astype("Int64")
        frame["samples"] = frame["samples"].astype("Int64")
        return frame


def _num(v: Any) -> Any:
    if v is None:
        return None
    v = float(v)
    return v if math.isfinite(v) else None


# -------------------------------------------------------------- advisor
def switch_layouts(margin: float) -> int:
    """The fewest layouts on which the best option and the policy's choice
    must score differently before the best may replace it under ``margin``.
    The standard error alone can be met by chance: where every layout shows
    the same lead it is 0, and where one layout differs and the others tie
    the lead is exactly one standard error. So ask what a sign test asks
    (ties left out): that chance alone (each differing layout a coin toss,
    0.5 ** n for n alike) be no likelier than the margin's one-sided level
    (1 - Phi(margin): 16 % at 1). 1 at margin 0 (any lead), 2 up to 0.67,
    3 at 1, 6 at 2, and ``MOST_SWITCH_LAYOUTS`` from about 2.42 up."""
    margin = number("margin", margin, at_least=0, what="a number of standard errors", finite=True)  # as analyze_nest's
    tail = 0.5 * math.erfc(margin / math.sqrt(2.0))  # 1 - Phi(margin)
    if tail <= 0.5 ** MOST_SWITCH_LAYOUTS:
        return MOST_SWITCH_LAYOUTS
    return max(1, math.ceil(-math.log2(tail) - 1e-9))  # 1e-9: log2 of an exact power of 2 stays whole


def switch_earned(lead: float, lead_se: float, differs: float, margin: float) -> bool:
    """Whether the best-measured option replaces the policy's choice: a lead
    above 0 (a tie is no lead), of at least ``margin`` standard errors, on
    at least ``switch_layouts(margin)`` layouts where the two differ."""
    return lead > 0 and lead >= margin * lead_se and differs >= switch_layouts(margin)


def _values(points: np.ndarray, objective: str, bid: int | None) -> np.ndarray:
    """What the ranking maximises, per layout."""
    if objective == "mean":
        return points.astype(float)
    made = points >= bid
    if objective == "p_make":
        return made.astype(float)
    return np.where(made, points, -bid).astype(float)  # score: points if made, else minus the bid


def _figure(points: Sequence[int], objective: str, bid: int | None) -> float:
    """An option's figure by ``objective`` on the layouts solved; with none (a
    time limit before the first), below every measured one."""
    return _mean(_values(np.array(points), objective, bid)) if len(points) else -math.inf


def _mean(x: np.ndarray) -> float:
    return float(x.mean()) if len(x) else math.nan  # no layout: NaN without numpy's warning


def _se(x: np.ndarray) -> float:
    return float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else math.nan


def nest_sampler(hand: Hand, nest: Hand, rules: Rules, seat: str | int,
                 known: Mapping[str, str | Hand] | Sequence[str] | None = None,
                 constraints: Sequence[Constraint | str] = ()) -> DealSampler:
    """The layouts of the unseen cards: the declarer's hand at ``seat`` and the
    nest as dealt are known, everything else is dealt at random (to the other
    seats and, where the deck does not divide evenly, out of play)."""
    from .sampling import parse_known

    rules = Rules.from_spec(rules)
    hand, nest = check_nest(hand, nest, rules)
    places = parse_known(known, rules)
    if NEST in places:
        raise ConstraintError(f"known cards for the nest ({places[NEST].rdn(rules.one_high)!r}): the nest is given "
                              f"with the hand, it cannot also be known")
    for place, cards in places.items():
        if cards.mask & nest.mask:  # named here: the sampler would call the nest a known place
            dup = first_card(cards.mask & nest.mask, rules.one_high)
            raise DuplicateCardError(f"known card {dup!r} for {place} is in the nest ({nest.rdn(rules.one_high)!r})")
    given = {NEST: nest, **places}
    return DealSampler(rules, seat, hand, known=given, constraints=constraints, holder="declarer")


@dataclass
class _Halved:
    """What ``_halve`` solved: the layouts, each option's points on them
    (a list per option, the layouts' order), the rounds each option took
    part in, the rounds as run (options, layouts reached), the solves, and
    whether the time limit ended them (None without one)."""

    layouts: list[Deal]
    points: list[list[int]]
    rounds: list[int]
    ran: list[tuple[int, int]]
    solves: int
    timed_out: bool | None


def _halve(cands: Sequence[Candidate], control: int | None, schedule: Sequence[tuple[int, int]],
           sampler: DealSampler, seed: int, objective: str, bid: int | None, dealer_i: int, threads: int | None,
           progress: Callable[[int], None] | None, time_limit: float | None) -> _Halved:
    """Successive halving of the options ``cands`` on the sampler's layouts
    (``analyze_nest``): each round ranks its options by ``objective`` on
    the layouts solved so far and the next keeps the better part, the
    policy's choice ``control`` always; ``time_limit`` as in the module
    docstring."""
    declarer = sampler.seat
    layouts: list[Deal] = []
    points: list[list[int]] = [[] for _ in cands]
    alive = list(range(len(cands)))
    out_round = [len(schedule)] * len(cands)  # rounds an option took part in (the survivors' set below)
    ran: list[tuple[int, int]] = []  # (options, layouts reached) of each round as run
    solves = 0
    timed_out = None if time_limit is None else False
    # with a time limit a round is solved a few layouts at a time (one a thread), so the limit can end it part way;
    # the searches stop at it
    step = None if time_limit is None else (threads or default_threads())
    deadline = None if time_limit is None else time.monotonic() + time_limit
    for r, (count, want) in enumerate(schedule):
        if r > 0:
            if deadline is not None and time.monotonic() >= deadline:
                timed_out = True  # the last round's options stay: none is dropped for a round not run
                break
            survivors = alive[:count]
            if control in alive and control not in survivors and count >= 2:
                survivors = alive[:count - 1] + [control]  # the yardstick takes the last place
            previous, alive = alive, survivors
        reached = start = len(points[alive[0]])  # every survivor was solved on the same layouts
        while reached < want:
            if deadline is not None and time.monotonic() >= deadline:
                timed_out = True
                break
            upto = want if step is None else min(want, reached + step)
            while len(layouts) < upto:
                layouts.append(sampler.deal(len(layouts), seed))
            jobs, trumps_, owners, shared = [], [], [], []
            for c in alive:
                for i in range(reached, upto):
                    jobs.append(take_nest(layouts[i], declarer, cands[c].discard))
                    trumps_.append(cands[c].trump)
                    owners.append(c)
                    shared.append(i)
            # the options on one layout share most of their play: one table for them (same values, less time)
            pts = solve_batch(jobs, trumps_, declarer, None, dealer=dealer_i, threads=threads, progress=progress,
                              groups=shared, deadline=deadline)
            # a layout counts only once every option has it, and every layout before it
            complete = upto
            for i, p in zip(shared, pts):
                if p == UNSOLVED:
                    complete = min(complete, i)
            for c, i, p in zip(owners, shared, pts):
                if i < complete:
                    points[c].append(int(p))
            solves += len(alive) * (complete - reached)
            if complete < upto:
                del layouts[complete:]
                reached = complete
                timed_out = True
                break
            reached = upto
        if timed_out and reached == start and r > 0:
            alive = previous  # the limit left this round no layout: the last round's options stay
            break
        for c in previous if r > 0 else ():
            if c not in alive:
                out_round[c] = r
        ran.append((len(alive), reached))
        # rank the survivors on their common layouts; ties to the quick estimate, then the pool order
        means = {c: _figure(points[c], objective, bid) for c in alive}
        alive.sort(key=lambda c: (-means[c], -cands[c].quick, c))
        if timed_out:
            break
    for c in alive:
        out_round[c] = len(ran)

    return _Halved(layouts, points, out_round, ran, solves, timed_out)


def analyze_nest(hand: Hand | str, nest: Hand | str, rules: Rules | str, seat: str | int | None = None,
                 dealer: str | int | None = None, bid: int | None = None, samples: int = DEFAULT_SAMPLES,
                 seed: int | None = None, top: int = DEFAULT_TOP, candidates: int = DEFAULT_CANDIDATES,
                 trumps: Sequence[str] | None = None, objective: str = "mean",
                 known: Mapping[str, str | Hand] | Sequence[str] | None = None,
                 constraints: Sequence[Constraint | str] = (), threads: int | None = None,
                 policy: NestPolicy = DEFAULT_POLICY, margin: float = DEFAULT_MARGIN,
                 progress: Callable[[int], None] | None = None, time_limit: float | None = None) -> NestReport:
    """Trump and discards for the declarer at ``seat`` (default N, P1 at
    other tables) holding ``hand`` who takes ``nest``, ``dealer`` dealing
    (default W, the last seat at other tables; see the module docstring).

    ``samples``: layouts the finalists are solved on; ``candidates``: options
    that enter the first round; ``trumps``: only these trumps (one name or a
    list; None, the default: all);
    ``objective``: ``mean`` points, ``p_make`` (needs ``bid``) or ``score``
    (points if made, else minus the bid; needs ``bid``). ``known`` and
    ``constraints`` narrow the layouts as in ``analyze_hand``. ``margin``:
    the best-measured option replaces the policy's own choice only when it
    leads it (by more than 0) by at least ``margin`` standard errors of their
    paired difference, and the two differ on at least
    ``switch_layouts(margin)`` layouts (0: always the best-measured, the
    policy's choice among equals). ``top``: the options ``to_dict``, ``to_frame`` and
    ``top_options`` give (``options`` holds all). ``seed``, ``threads`` and
    ``policy`` as in ``analyze_hand``. ``progress(k)``
    is called as solves finish; ``planned_solves(halving_schedule(...))`` is
    the total. ``time_limit``: seconds after which no new layouts are
    solved (see the module docstring); the report's ``schedule`` gives the
    rounds that ran."""
    rules = Rules.from_spec(rules)
    hand, nest = check_nest(hand, nest, rules)
    samples = whole("samples", samples, FIRST_ROUND, most=MAX_SAMPLES,
                    small=f"at least {FIRST_ROUND} layouts are needed (a standard error needs two)")
    top = whole("top", top, 1, small="show at least one option")
    candidates = whole("candidates", candidates, 1, small="at least one option is needed")
    if not isinstance(objective, str) or objective not in OBJECTIVES:
        raise ConstraintError(f"objective {shown(objective)}: choose one of {', '.join(OBJECTIVES)}")
    margin = number("margin", margin, at_least=0, what="a number of standard errors", finite=True)
    if time_limit is not None:
        time_limit = number("time_limit", time_limit, above=0, what="seconds")  # a float: an int beyond floats is inf
    threads = threads_count(threads)
    policy = check_policy(policy)
    progress = callable_or_none("progress", progress)
    trumps = allowed_trumps(rules, trumps)  # checked before any sampling
    if bid is not None:
        bid = whole("bid", bid, 0)
        levels = rules.bid_levels()
        if bid not in levels:
            raise ConstraintError(f"bid {shown(bid)}: {rules.spec()!r} bids run from {levels[0]} to {levels[-1]} "
                                  f"in steps of 5")
    elif objective != "mean":
        raise ConstraintError(f"objective {shown(objective)} needs a bid")
    seat = rules.first_seat if seat is None else seat  # as analyze_hand: N, or P1 at other tables
    sampler = nest_sampler(hand, nest, rules, seat, known, constraints)
    declarer = sampler.seat
    dealer_i = rules.seat_index(rules.last_seat if dealer is None else dealer, "dealer")
    seed = resolve_seed(seed)

    cands = nest_candidates(hand, nest, rules, limit=candidates, trumps=trumps, policy=policy)
    # the policy's own choice (with one trump given, its discards for that trump; absent only when
    # --trump leaves its trump out and names several) stays to the last round
    control = next((c for c, cand in enumerate(cands) if "choice" in cand.sources), None)
    if control is None and len(trumps) == 1:
        # one trump named, not the policy's: the policy's discards for it are its choice with that trump
        control = next((c for c, cand in enumerate(cands) if "policy" in cand.sources), None)
    planned = halving_schedule(len(cands), samples)
    run = _halve(cands, control, planned, sampler, seed, objective, bid, dealer_i,
                 threads, progress, time_limit)
    layouts, points, out_round, solves = run.layouts, run.points, run.rounds, run.solves

    def figure(c: int) -> float:
        return _figure(points[c], objective, bid)

    # the later an option dropped out, the higher; then by its figure
    order = sorted(range(len(cands)), key=lambda c: (-out_round[c], -figure(c), -cands[c].quick, c))
    lead = lead_se = differ = None
    # the limit came before every option had the layouts a standard error needs: nothing is compared (not
    # even on the one layout some may have), the quick estimate ranks, and the policy's choice stands
    unmeasured = len(points[order[0]]) < FIRST_ROUND
    if unmeasured:
        order = sorted(range(len(cands)), key=lambda c: (-cands[c].quick, c))
        if control is not None:
            order.remove(control)
            order.insert(0, control)
    best = order[0]  # unmeasured: no option was measured better than the one recommended
    if not unmeasured and control is not None and best != control:
        n = len(points[control])
        diff = (_values(np.array(points[best][:n]), objective, bid)
                - _values(np.array(points[control]), objective, bid))
        lead, lead_se = float(diff.mean()), _se(diff)
        # switch from the policy's choice only on evidence: the best of many options measured on the
        # same layouts looks better than it is (the winner's curse). A lead of 0 is no lead: an option
        # tied with the policy's choice on every layout (lead_se 0) ranks first only by the tie-break;
        # and a few layouts that differ (a time limit's 2 or 3, or 1 of 16 where the rest tie) meet the
        # margin whatever chance did
        differ = int(np.count_nonzero(diff))
        if not switch_earned(lead, lead_se, differ, margin):  # n >= 2: lead_se is a number
            order.remove(control)
            order.insert(0, control)
    first = np.array(points[order[0]], float)
    high = rules.one_high  # the 1 written first where it ranks above the 14
    rows = []
    for rank, c in enumerate(order, start=1):
        p = np.array(points[c], float)
        n = min(len(p), len(first))
        diff = first[:n] - p[:n]
        made = _mean(p >= bid) if bid is not None else math.nan
        # no layout: no interval either (wilson's 0..1 for nothing counted would read as a measurement)
        made_lo, made_hi = wilson(made, len(p)) if bid is not None and len(p) else (math.nan, math.nan)
        rows.append({
            "rank": rank, "trump": cands[c].trump, "discard": cands[c].discard.rdn(high),
            "keep": cands[c].keep.rdn(high), "mean": _mean(p), "se": _se(p),
            "p_make": made, "p_make_se": math.sqrt(made * (1 - made) / len(p)) if len(p) else math.nan,
            "p_make_lo": made_lo, "p_make_hi": made_hi,
            "score": _mean(_values(p, "score", bid)) if bid is not None else math.nan,
            "samples": len(p), "rounds": out_round[c],
            "gap": _mean(diff), "gap_se": _se(diff) if rank > 1 else math.nan,
            "quick": cands[c].quick, "policy": c == control, "sources": ",".join(cands[c].sources),
        })
    options = pd.DataFrame(rows)
    if bid is None:
        options = options.drop(columns=list(_BID_COLUMNS))
    head = options.iloc[0]
    second = options.iloc[1] if len(options) > 1 else None
    rec = NestRecommendation(
        trump=str(head["trump"]), discard=cands[order[0]].discard, keep=cands[order[0]].keep,
        mean=float(head["mean"]), se=float(head["se"]),
        p_make=float(head["p_make"]) if bid is not None else None,
        gap=float(second["gap"]) if second is not None else None,
        gap_se=float(second["gap_se"]) if second is not None else None,
        policy=order[0] == control, best_trump=cands[best].trump, best_discard=cands[best].discard,
        lead=lead, lead_se=lead_se, margin=margin, objective=objective, one_high=high,
        layouts=len(points[order[0]]) if unmeasured else None,
        lead_layouts=len(points[control]) if lead is not None else None,
        lead_differs=differ,
    )
    names = rules.seat_names
    dealt = [d.rdn() for d in layouts]
    detail = pd.DataFrame(
        [{"option": rank, "trump": cands[c].trump, "discard": cands[c].discard.rdn(high), "sample": i,
          "deal": dealt[i], "points": v}
         for rank, c in enumerate(order, start=1) for i, v in enumerate(points[c])],
        columns=["option", "trump", "discard", "sample", "deal", "points"])
    return NestReport(
        hand=hand, nest=nest, rules=rules, seat=names[declarer], dealer=names[dealer_i],
        leader=names[rules.first_leader(declarer, dealer_i)], bid=bid, samples=len(layouts), seed=seed,
        objective=objective, top=top, policy=policy_label(policy),
        known={k: v for k, v in sampler.known.items() if k != NEST}, constraints=sampler.constraints,
        schedule=tuple(run.ran), planned=tuple(planned), solves=solves, options=options, recommendation=rec,
        detail=detail, layouts=tuple(layouts), time_limit=time_limit, timed_out=run.timed_out,
    )
