"""The declarer's nest policy: trump and discards from the declarer's own
cards alone (hand + nest), never from the hidden hands.

The Monte Carlo advisors need a declarer who plays the nest the same way in
every sampled deal without peeking, so the sampled points are points a real
declarer could earn. ``HeuristicPolicy`` is that declarer; it is
deterministic (the same cards and rules always give the same choice).

Trump. For each color, with the cards of that color among hand + nest::

    strength = 5 x length + honours + counters / 10

where honours counts 4, 3, 2, 1 for the color's four highest cards of the
deck (14, 13, 12, 11; with ``one_high`` the 1 first). The birds belong to
every trump alike, so they do not vote. The strongest color is trump; ties
go to the longer color, then to B, R, Y, G order. Length weighs 5 (3 until
revision 3): where the two weights name different trumps, 5 took more
points on fresh layouts (``benchmarks/bench_policy.py --variant short``:
+0.23 +- 0.06 points a hand in ``hasbro`` over 800 spots, +0.11 +- 0.10 in
``dixie40`` over 400, +0.32 +- 0.18 in ``kentucky`` over 200; of the
weights 2, 4, 5, 6 and 8 tried on other spots, 5 and 6 did best).

Discards (``nest_size`` cards, given the trump):

1. Never the birds, never a trump unless the side colors run out (step 6).
2. A side card is a *winner* when it and every card above it in its color
   are the declarer's (14, 13, ... from the top): winners are kept.
3. ``nest_to = declarer``: bury the losing counters first, most points first
   (buried points are banked; in play they are likely lost).
4. Void side colors that hold no winner, shortest first, when the whole
   color fits in the discards left (a void lets the declarer trump in).
5. Fill up with the remaining losers: those of colors without a winner
   first, and only then the small cards under a winner (kept, they follow
   the winners out and may win once the color's higher cards have fallen;
   stripped, the winner stands alone). Within each: counters first, most
   points first, then the shortest color, then the lowest card. The
   order of colors is what the nest advisor taught (where it overruled
   the policy, it mostly kept those small cards): on fresh layouts +0.34 +-
   0.06 points a hand in ``hasbro`` (400 spots), +0.11 +- 0.07 in
   ``dixie40`` (200), +0.62 +- 0.17 in ``kentucky`` (150) against filling
   by counters and length alone (``HeuristicPolicy(guard_winners=False)``,
   ``benchmarks/bench_policy.py``).
   Counters first under ``nest_to = last_trick`` too: a losing counter
   kept in hand is mostly captured by the defenders, while in the nest it
   goes to whoever wins the last trick, most often the declaring side that
   holds the trumps (measured on fresh layouts against keeping them:
   +0.85 +- 0.09 points a hand in ``hasbro``, +0.89 +- 0.21 in
   ``dixie40``, +0.34 +- 0.19 and +0.64 +- 0.24 in two sets of 150 spots
   in ``kentucky``). Under ``nest_to =
   declarer`` step 3 has already buried them.
6. Short of losers: the lowest winners, then the lowest trumps (in
   each, non-counters first); the birds only when nothing else is left (hands
   of a card or two).

``discard(cards, trump, rules)`` applies steps 1-6 for any trump, so an
advisor can compare trumps each with its own discards;
``protect_counters=True`` gives the other way with the counters, for the
nest advisor to weigh: no step 3, and step 5 fills with non-counters
before counters, whatever their color (keep the points in hand, out of a
nest the last trick may give to the defenders). A policy made with
``guard_winners=False`` fills step 5 without regard to winners (the rule
before it kept the guards; for comparisons).
"""

from __future__ import annotations

import inspect
import types
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

import numpy as np

from rook_analyze.solver.cards import COLORS, ROOK2_INDEX, ROOK_INDEX, Card, Hand, shown
from rook_analyze.solver.deal import Deal
from rook_analyze.solver.errors import ConstraintError, IllegalActionError, RookError
from rook_analyze.solver.rules import Rules

from .inputs import as_hand, number


@dataclass(frozen=True)
class NestChoice:
    """What the declarer does with the nest: the trump, the cards discarded
    (the new nest) and the hand kept for play."""

    trump: str
    discard: Hand
    keep: Hand

    def rdn(self, one_high: bool = False) -> str:
        """A one-line text of the choice: ``trump Y, discard R10 R7 G8 G7 G5`` (the kept hand left out;
        with ``one_high`` each color's 1 first, as the rules that rank it high write it)."""
        return f"trump {self.trump}, discard {self.discard.rdn(one_high)}"


class NestPolicy(Protocol):
    """A declarer that sees hand + nest only: what ``policy=`` takes
    (``HeuristicPolicy`` is one). ``name``, where it has one, labels it in
    reports; without it the class name does. A policy of one's own has its
    answers checked (``CheckedPolicy``): a wrong one is an
    ``IllegalActionError`` naming the policy."""

    name: str

    def trump(self, cards: Hand, rules: Rules) -> str:
        """The trump for ``cards`` (hand + nest): one of ``rules.trumps``, any case."""
        ...

    def discard(self, cards: Hand, trump: str, rules: Rules) -> Hand:
        """The ``rules.nest_size`` cards of ``cards`` (hand + nest) to discard
        with ``trump``: a Hand, or text in RDN."""
        ...

    def choose(self, cards: Hand, rules: Rules) -> NestChoice:
        """Trump and discards together, as a ``NestChoice``."""
        ...


def color_ranks(rules: Rules, color: str) -> list[int]:
    """Card indices of a color's number cards, highest rank first."""
    rules = Rules.from_spec(rules)
    return list(_ranks(rules)[0][_color(color)])


def _color(color: object) -> str:
    """A color name, any case (as ``Hand.count`` and the discards take it)."""
    if isinstance(color, str) and color.upper() in COLORS:
        return color.upper()
    raise IllegalActionError(f"color {shown(color)}: choose one of {', '.join(COLORS)}")


@lru_cache(maxsize=64)
def _ranks(rules: Rules) -> tuple[dict[str, tuple[int, ...]], dict[int, int]]:
    """Per color the card indices highest first, and per card index its place
    from the top of its color (0 for the highest)."""
    by_color = {c: tuple(rules.color_order(None, c)[::-1]) for c in COLORS}
    from_top = {idx: k for v in by_color.values() for k, idx in enumerate(v)}
    return by_color, from_top


@dataclass(frozen=True)
class HeuristicPolicy:
    """Trump by color strength, discards by the rules of the module docstring."""

    name: str = "heuristic"
    length_weight: float = 5  # a trump's worth per card of length (``strength``)
    guard_winners: bool = True  # step 5 keeps the small cards under a winner (False: revision 2's fill)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise IllegalActionError(f"name={shown(self.name)}: expected the policy's name, a non-empty text")
        number("length_weight", self.length_weight, above=None, at_least=0, finite=True, error=IllegalActionError)
        if not isinstance(self.guard_winners, bool):
            raise IllegalActionError(f"guard_winners={shown(self.guard_winners)}: expected True or False")

    def strength(self, cards: Hand, color: str, rules: Rules) -> float:
        """The trump strength of one color among ``cards``."""
        rules = Rules.from_spec(rules)
        held = as_hand(cards, rules).mask
        color = _color(color)
        cards = Hand(held)
        length = honours = 0
        for k, idx in enumerate(_ranks(rules)[0][color]):
            if held >> idx & 1:
                length += 1
                honours += max(4 - k, 0)
        points = rules.points_of_mask(cards.color_mask(color))
        return self.length_weight * length + honours + points / 10

    def trump(self, cards: Hand, rules: Rules) -> str:
        """The trump color for hand + nest: the strongest (``strength``), then
        the longest, then the first in B, R, Y, G order, so colors that tie in
        every way (a hand with no number card) give B."""
        rules = Rules.from_spec(rules)
        cards = as_hand(cards, rules)
        best = max(COLORS, key=lambda c: (self.strength(cards, c, rules), cards.count(c), -COLORS.index(c)))
        return best

    def discard(self, cards: Hand, trump: str, rules: Rules, *, protect_counters: bool = False) -> Hand:
        """The ``nest_size`` cards to discard from ``cards`` (hand + nest) with
        this trump (``none``: no trump, where the rules allow it).
        ``protect_counters``: keep the losing counters in hand where the
        discards allow (no step 3; step 5 fills with non-counters first,
        whatever the colors)."""
        if not isinstance(protect_counters, (bool, np.bool_)):  # "False" or 0.5 would read as True
            raise IllegalActionError(f"protect_counters={shown(protect_counters)}: expected True or False")
        rules = Rules.from_spec(rules)
        cards = as_hand(cards, rules)
        trump = rules.check_trump(trump) if isinstance(trump, str) else trump
        if not isinstance(trump, str) or trump not in rules.trumps:
            raise IllegalActionError(f"trump {shown(trump)}: choose one of {', '.join(rules.trumps)}")
        need = rules.nest_size
        if len(cards) != rules.hand_size + need:
            raise IllegalActionError(
                f"cards {cards.rdn(rules.one_high)!r}: the declarer holds hand + nest = {rules.hand_size + need} cards "
                f"under {rules.spec()!r}, not {len(cards)}"
            )
        if need == 0:
            return Hand(0)
        trump_color = None if trump == "none" else trump
        held = cards.mask
        points = rules.card_points
        chosen: list[int] = []

        # side colors: per color, held cards highest first, split into winners and losers
        winners: list[int] = []
        losers: dict[str, list[int]] = {}
        for color in COLORS:
            if color == trump_color:
                continue
            top = True
            for idx in _ranks(rules)[0][color]:
                if held >> idx & 1:
                    (winners if top else losers.setdefault(color, [])).append(idx)
                else:
                    top = False
        left = {c: list(v) for c, v in losers.items()}

        def take(idx: int) -> None:
            chosen.append(idx)
            for v in left.values():
                if idx in v:
                    v.remove(idx)

        # 3. bank losing counters
        if rules.nest_to == "declarer" and not protect_counters:
            counters = sorted((i for v in losers.values() for i in v if points(i) > 0),
                              key=lambda i: (-points(i), -_rank_from_top(rules, i)))
            for idx in counters[:need]:
                take(idx)

        # 4. void colors without winners, shortest first
        winner_colors = {Card.from_index(i).color for i in winners}
        for color in sorted(left, key=lambda c: (len(left[c]), sum(points(i) for i in left[c]), COLORS.index(c))):
            rest = left[color]
            if color in winner_colors or not rest:
                continue
            if len(rest) <= need - len(chosen):
                for idx in list(rest):
                    take(idx)

        # 5. fill with losers: counters first (most points first), or last when protecting them
        if len(chosen) < need:
            pool = [(c, i) for c, v in left.items() for i in v]
            # colors without a winner first: the small cards under a winner stay as its guards
            pool.sort(key=lambda ci: (self.guard_winners and not protect_counters and ci[0] in winner_colors,
                                      points(ci[1]) > 0 if protect_counters else -points(ci[1]), len(left[ci[0]]),
                                      -_rank_from_top(rules, ci[1]), COLORS.index(ci[0])))
            for _, idx in pool[:need - len(chosen)]:
                take(idx)

        # 6. short of losers: lowest winners, then lowest trumps, non-counters first in each
        if len(chosen) < need:
            spare = sorted(winners, key=lambda i: (points(i) > 0, -_rank_from_top(rules, i)))
            chosen += spare[:need - len(chosen)]
        if len(chosen) < need and trump_color is not None:
            trumps = [i for i in color_ranks(rules, trump_color) if held >> i & 1]
            trumps.sort(key=lambda i: (points(i) > 0, -_rank_from_top(rules, i)))
            chosen += trumps[:need - len(chosen)]
        if len(chosen) < need:  # a hand of one or two cards: nothing but birds is left
            birds = [i for i in (ROOK2_INDEX, ROOK_INDEX) if held >> i & 1]
            chosen += birds[:need - len(chosen)]
        mask = 0
        for idx in chosen:
            mask |= 1 << idx
        return Hand(mask)

    def choose(self, cards: Hand, rules: Rules) -> NestChoice:
        """Trump and discards for hand + nest."""
        rules = Rules.from_spec(rules)
        cards = as_hand(cards, rules)
        trump = self.trump(cards, rules)
        discard = self.discard(cards, trump, rules)
        return NestChoice(trump, discard, cards - discard)


def take_nest(deal: Deal, declarer: int | str, discard: Hand | str) -> Deal:
    """The deal as played: the declarer (a seat index or name) holds hand +
    nest less ``discard``, and ``discard`` is the nest (whose points go per
    ``nest_to``)."""
    if not isinstance(deal, Deal):
        raise IllegalActionError(f"deal {shown(deal)}: expected a Deal (e.g. Deal.from_rdn(text, rules))")
    declarer = deal.rules.seat_index(declarer, "declarer")
    discard = as_hand(discard, deal.rules, "discard")
    if len(discard) != len(deal.nest):
        raise IllegalActionError(f"discard {discard.rdn(deal.rules.one_high)!r}: the declarer discards "
                                 f"{len(deal.nest)} cards (the nest's size), not {len(discard)}")
    cards = deal.hands[declarer] | deal.nest
    if discard.mask & ~cards.mask:
        high = deal.rules.one_high
        raise IllegalActionError(f"discard {discard.rdn(high)!r}: the declarer holds only {cards.rdn(high)!r}")
    hands = list(deal.hands)
    hands[declarer] = cards - discard
    return Deal(deal.rules, tuple(hands), discard)


def _rank_from_top(rules: Rules, idx: int) -> int:
    """0 for a color's highest card, 1 for the next, ..."""
    return _ranks(rules)[1][idx]


DEFAULT_POLICY = HeuristicPolicy()
# the default policy's revision, stored in a simulate dataset's plan: a change
# to its choices changes the points, so a resume must not mix two revisions
# (1: losing counters kept under nest_to = last_trick; 2: buried there too;
# 3: length weighs 5 in the trump's strength, not 3, and the fill takes colors
# without a winner before the small cards under one)
POLICY_REVISION = "heuristic 3"


def policy_label(policy: object) -> str:
    """How a report names the declarer's policy: the default one by its
    revision (``POLICY_REVISION``, as datasets name it), another by its name."""
    if isinstance(policy, CheckedPolicy):
        return policy_label(policy.policy)
    if policy == DEFAULT_POLICY:
        return POLICY_REVISION
    return getattr(policy, "name", type(policy).__name__)


def check_policy(policy: Any) -> Any:
    """A nest policy: an object with ``trump``, ``discard`` and ``choose``
    (e.g. ``HeuristicPolicy()``). A policy of the caller's own comes back
    wrapped in ``CheckedPolicy``, so a bad answer is an error at once."""
    if type(policy) is HeuristicPolicy or isinstance(policy, CheckedPolicy):  # a subclass may answer otherwise
        return policy
    if isinstance(policy, type) and any(isinstance(inspect.getattr_static(policy, m, None), types.FunctionType)
                                        for m in ("trump", "discard", "choose")):
        # the class where an instance was meant (policy=HeuristicPolicy): its methods would take the
        # cards for self, a bare TypeError at the first sample; static and class methods work as they are
        raise ConstraintError(f"policy={shown(policy)}: a class, not a policy; pass an instance, "
                              f"e.g. {policy.__name__}()")
    if not all(callable(getattr(policy, m, None)) for m in ("trump", "discard", "choose")):
        raise ConstraintError(f"policy={shown(policy)}: expected a nest policy with trump, discard and choose "
                              f"methods, e.g. HeuristicPolicy()")
    return CheckedPolicy(policy)


@dataclass(frozen=True)
class CheckedPolicy:
    """A caller's policy whose every answer is checked before the advisors
    use it: a trump the rules allow (any case, as ``Rules.check_trump``
    reads it) and discards (a ``Hand`` or Rook deal notation) of the nest's
    size from the cards it was given. Without the check a bad answer
    surfaced as a bare Python error, some only after every sample was
    solved, and ``nest`` dropped a discard of the wrong size without a word."""

    policy: Any

    @property
    def name(self) -> str:
        return policy_label(self.policy)

    def _fault(self, method: str, answer: object, why: str) -> IllegalActionError:
        return IllegalActionError(f"policy {self.name!r}: {method}() gave {shown(answer)}: {why}")

    def _trump(self, method: str, answer: object, rules: Rules) -> str:
        try:
            return rules.check_trump(answer)  # type: ignore[arg-type]
        except RookError as e:
            raise self._fault(method, answer, str(e)) from None

    def _discard(self, method: str, answer: object, cards: Hand, rules: Rules) -> Hand:
        try:
            discard = as_hand(answer, rules, "discard")
        except RookError as e:
            raise self._fault(method, answer, str(e)) from None
        if len(discard) != rules.nest_size:
            raise self._fault(method, answer, f"the declarer discards {rules.nest_size} cards (the nest's size), "
                                              f"not {len(discard)}")
        if discard.mask & ~cards.mask:
            raise self._fault(method, answer, f"the declarer holds only {cards.rdn(rules.one_high)!r}")
        return discard

    def trump(self, cards: Hand, rules: Rules) -> str:
        return self._trump("trump", self.policy.trump(cards, rules), rules)

    def discard(self, cards: Hand, trump: str, rules: Rules) -> Hand:
        return self._discard("discard", self.policy.discard(cards, trump, rules), cards, rules)

    def choose(self, cards: Hand, rules: Rules) -> NestChoice:
        choice = self.policy.choose(cards, rules)
        if not isinstance(choice, NestChoice):
            raise self._fault("choose", choice, "expected a NestChoice")
        trump = self._trump("choose", choice.trump, rules)
        discard = self._discard("choose", choice.discard, cards, rules)
        return NestChoice(trump, discard, cards - discard)
