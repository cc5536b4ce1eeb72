"""Seeded random deals around what one player knows: their own hand, cards
known to lie elsewhere, and constraints on the other hands.

The bidder sees ``hand``; every other card of the deck is *unseen* unless
``known`` places it (a card another seat showed, the nest turned up). The
unseen cards are dealt uniformly at random to the free places of the other
seats, the nest and, where the deck does not divide evenly, out of play.
``Constraint`` values narrow the deals, as a bridge dealer's would, e.g.
from the auction so far::

    E:B>=3          East holds at least three black cards
    W:counters<=10  West holds at most 10 points in counters
    S:rook=0        South does not hold the Rook
    nest:R=0        no red card in the nest

Features are a color letter (number cards of that color; the Rook is in no
color), ``counters`` (points in counters held) and ``rook`` (how many birds
are held). Operators are ``>= <= = == > <``; several constraints all hold.

Deals that break a constraint are rejected and dealt again (rejection
sampling, so the accepted deals are uniform among the deals that meet every
constraint). Constraints that cannot hold, judged one feature at a time
(each range against the least and most a place can hold, the lower bounds
together against what the unseen cards hold, and the upper bounds, with what
the unconstrained places can take, against the same) are a
``ConstraintError`` up front. How rare the rest are is judged once per
sampler, at its first deal, by a pilot run of a fixed generator of its own
(never the seed). Those the pilot meets ``PILOT_HITS`` times in
``max_tries`` tries are rejected as above: a sample may take 50 times the
tries a pilot hit took (at least ``max_tries``), so a rare combination does
not stop part way through a run. Rarer ones are dealt exactly
(``_ExactDealer``: the deals that meet them counted kind of card by kind of
card, and drawn in proportion, uniform as rejection's are), and a
combination impossible in subtler ways (``E:rook=1`` with
``E:counters<20``) is found so for certain: an error before the first
sample, never a hang. Only where that count would grow too big (several
places constrained at once, past ``_ExactDealer.MAX_WORK`` splits tried)
does a rare set keep to rejection, and one no pilot deal meets stop with
an error.

Reproducible: sample ``i`` of seed ``s`` is dealt from its own generator,
``numpy.random.default_rng(SeedSequence(s, spawn_key=(i,)))`` (the ``i``-th
child of ``SeedSequence(s).spawn``), so a sample does not depend on how many
samples came before it, on batching or on the number of workers.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from rook_analyze.solver.cards import (BIRD_MASK, COLORS, Hand, ascii_lower, ascii_upper, first_card, mask_indices,
                                        shown)
from rook_analyze.solver.deal import FRESH_SEEDS, MAX_SEED, Deal
from rook_analyze.solver.errors import (ConstraintError, DealError, DuplicateCardError, InvalidCardError, RookError,
                                         plural)
from rook_analyze.solver.rules import Rules

from .inputs import as_hand, is_whole, items as as_items, whole

FEATURES = COLORS + ("counters", "rook")
NEST = "nest"
OUT = "out"

_OPS = (">=", "<=", "==", "=", ">", "<")
_CONSTRAINT_RE = re.compile(r"^\s*([A-Za-z0-9]+)\s*:\s*([A-Za-z]+)\s*(>=|<=|==|=|>|<)\s*(-?[0-9]+)\s*$", re.ASCII)

# Deals tried together when constraints must be checked: fixed, so which deal
# a sample gets never depends on anything but its seed and index.
BLOCK = 64
MAX_TRIES = 200_000
# The pilot that judges, once per sampler, how rare the constraints are: a
# fixed generator of its own, stopped at PILOT_HITS hits or max_tries tries.
PILOT_ENTROPY = 0x524F4F4B  # any fixed number; never the user's seed
PILOT_HITS = 16
PILOT_SAFETY = 50  # a sample may take this many times the tries a pilot hit took


@dataclass(frozen=True)
class Constraint:
    """One condition on the cards a place (a seat, or the nest) is dealt:
    ``feature op value``, e.g. ``Constraint("E", "B", ">=", 3)``."""

    place: str
    feature: str
    op: str
    value: int

    def __post_init__(self) -> None:
        # as parse checks the text: built directly, the same checks on the values, and the same
        # normal forms (place upper case or 'nest', feature B R Y G counters rook, '==' as '=')
        given = f"Constraint({shown(self.place)}, {shown(self.feature)}, {shown(self.op)}, {shown(self.value)})"
        if not isinstance(self.place, str) or not re.fullmatch(r"\s*[A-Za-z0-9]+\s*", self.place):
            raise ConstraintError(f"constraint {given}: place {shown(self.place)} must be a seat name "
                                  f"(e.g. 'E', 'P2') or 'nest'")
        place = self.place.strip()
        place = place.lower() if place.lower() in (NEST, OUT) else place.upper()
        feature = self.feature
        if isinstance(feature, str):
            feature = feature.strip()
            feature = ascii_lower(feature) if ascii_lower(feature) in ("counters", "rook") else ascii_upper(feature)
        if not isinstance(feature, str) or feature not in FEATURES:
            raise ConstraintError(f"constraint {given}: feature {shown(self.feature)} must be one of "
                                  f"{', '.join(FEATURES)}")
        op = self.op.strip() if isinstance(self.op, str) else self.op
        if not isinstance(op, str) or op not in _OPS:
            raise ConstraintError(f"constraint {given}: operator {shown(self.op)} must be one of "
                                  f"{' '.join(_OPS)}")
        if not is_whole(self.value):
            raise ConstraintError(f"constraint {given}: value {shown(self.value)} must be a whole number")
        if int(self.value) < 0:
            raise ConstraintError(f"constraint {given}: value {shown(self.value)}: counts are 0 or more")
        try:
            str(int(self.value))  # text() writes it: Python writes at most 4,300 digits in decimal
        except ValueError:
            raise ConstraintError(f"constraint {given}: value {shown(self.value)} is too large") from None
        object.__setattr__(self, "place", place)
        object.__setattr__(self, "feature", feature)
        object.__setattr__(self, "op", "=" if op == "==" else op)
        object.__setattr__(self, "value", int(self.value))

    @classmethod
    def parse(cls, text: str, rules: Rules | str | None = None) -> "Constraint":
        """Parse ``SEAT:FEATURE OP N`` (case ignored), e.g. ``E:B>=3``, ``W:counters<=10``.
        With ``rules``, a text that does not parse is answered with examples
        that name that table's seats (``P2:B>=3`` at three seats)."""
        m = _CONSTRAINT_RE.match(text) if isinstance(text, str) else None  # str() of any object is no constraint
        if not m:
            a, b, c = _example_seats(rules)
            # an unquoted -c E:B>=3 reaches us as 'E:B': the shell took '>=3' for a redirection
            shell = (f"; quote it on a command line, -c '{a}:B>=3': unquoted, the shell reads > and < as "
                     "redirections" if isinstance(text, str) and not any(ch in text for ch in "<>=") else "")
            raise ConstraintError(
                f"constraint {shown(text)}: expected SEAT:FEATURE OP N, e.g. '{a}:B>=3', '{b}:counters<=10', "
                f"'{c}:rook=0'{shell}"
            )
        place, feature, op, value = m.groups()
        try:
            number = int(value)
        except ValueError:  # more digits than Python reads in decimal (4,300): no count is that big
            why = "below 0 (counts are 0 or more)" if value.startswith("-") else "too large"
            raise ConstraintError(f"constraint {shown(text)}: a count of {len(value.lstrip('-')):,} digits is "
                                  f"{why}") from None
        if number < 0:
            raise ConstraintError(f"constraint {shown(text)}: a count cannot be {shown(number)} "
                                  f"(counts are 0 or more)")
        feature = feature.lower() if feature.lower() in ("counters", "rook") else feature.upper()
        if feature not in FEATURES:
            raise ConstraintError(f"constraint {shown(text)}: feature {shown(m.group(2))} must be a color "
                                  f"(B, R, Y, G), counters or rook")
        made = cls(place, feature, op, number)  # __post_init__ writes the place and '==' in their normal forms
        if rules is not None:  # the place checked here too, so an error names the text as typed
            _check_place(made, Rules.from_spec(rules), shown(text))
        return made

    def text(self) -> str:
        """The constraint as ``parse`` reads it, canonical: ``E:B>=3``, ``nest:counters<=10``."""
        return f"{self.place}:{self.feature}{self.op}{self.value}"

    def __str__(self) -> str:
        return self.text()

    @property
    def bounds(self) -> tuple[float, float]:
        """The values that meet the constraint, as an inclusive range."""
        v = self.value
        return {
            ">=": (v, np.inf), ">": (v + 1, np.inf), "<=": (-np.inf, v), "<": (-np.inf, v - 1), "=": (v, v),
        }[self.op]

    def holds(self, hand: Hand | int, rules: Rules) -> bool:
        """Whether a hand (or a card mask, or cards in Rook deal notation) meets the constraint."""
        rules = Rules.from_spec(rules)
        lo, hi = self.bounds
        return lo <= feature_value(self.feature, hand, rules) <= hi


def _example_seats(rules: Rules | str | None) -> tuple[str, str, str]:
    """Three seats for the examples of a message: E, W and S at four seats
    (or without rules), else the table's own (the second, the last, the
    third or the second again)."""
    if rules is None:
        return "E", "W", "S"
    names = Rules.from_spec(rules).seat_names
    return names[1], names[-1], names[min(2, len(names) - 1)]


def feature_value(feature: str, hand: Hand | int, rules: Rules) -> int:
    """The value of a constraint feature for a hand: a color's length, the
    points in counters, or the number of birds."""
    if not isinstance(feature, str) or feature not in FEATURES:
        raise ConstraintError(f"feature {shown(feature)}: choose one of {', '.join(FEATURES)}")
    rules = Rules.from_spec(rules)  # a spec too, as Constraint.holds takes it; None is refused there
    mask = as_hand(hand, rules, "hand", masks=True).mask  # a mask too is checked against the deck
    if feature == "counters":
        return rules.points_of_mask(mask)
    if feature == "rook":
        return (mask & BIRD_MASK).bit_count()
    return Hand(mask).count(feature)


def _feature_table(feature: str, rules: Rules) -> np.ndarray:
    """Per card index, what that card adds to a feature."""
    table = np.zeros(64, dtype=np.int64)
    for i in mask_indices(rules.deck_mask):
        table[i] = feature_value(feature, 1 << i, rules)
    return table


def parse_known(items: Mapping[str, str | Hand] | Sequence[str] | str | None, rules: Rules | str) -> dict[str, Hand]:
    """Known cards by place: ``{"E": "B14 R5", "nest": ...}`` or texts like
    ``"E: B14 R5"`` (one text alone is one item). Places are seat names,
    ``nest`` and ``out`` (out of play: ``DealSampler`` refuses more known
    cards there than the deck leaves out, none in most presets)."""
    rules = Rules.from_spec(rules)
    if items is None:
        return {}
    pairs: list[tuple[str, str | Hand]] = []
    if isinstance(items, Mapping):
        pairs = list(items.items())
    else:
        seat = _example_seats(rules)[0]
        if isinstance(items, Hand):  # a Hand iterates over its cards: say what is missing instead
            raise ConstraintError(f"known cards {items.rdn(rules.one_high)!r}: expected PLACE:CARDS, "
                                  f"e.g. '{seat}:B14 R5' or {{'{seat}': 'B14 R5'}}")
        for text in as_items("known", items):
            if not isinstance(text, str) or ":" not in text:
                raise ConstraintError(f"known cards {shown(text)}: expected PLACE:CARDS, e.g. '{seat}:B14 R5' "
                                      f"or 'nest:G1'")
            place, cards = str(text).split(":", 1)
            pairs.append((place, cards))
    out: dict[str, Hand] = {}
    for place, cards in pairs:
        name = _place_name(place, rules)
        if isinstance(cards, Hand):
            hand = cards
            bad = hand.mask & ~rules.deck_mask
            if bad:
                raise InvalidCardError(f"known card {first_card(bad, rules.one_high)!r} "
                                       f"is not in the {rules.spec()!r} deck")
        elif not isinstance(cards, str):
            raise InvalidCardError(f"known cards for {name} ({shown(cards)}): expected a Hand or cards in Rook "
                                   f"deal notation, e.g. 'B14 R5'")
        else:
            try:
                hand = Hand.from_rdn(cards, rules.deck_mask)
            except RookError as e:
                raise type(e)(f"known cards for {name} ({shown(cards.strip())}): {e}") from None
            if not hand.mask:  # 'E:' names a place and no card: a slip, not a statement
                raise ConstraintError(f"known cards for {name}: none given (expected PLACE:CARDS, e.g. "
                                      f"'{name}:B14 R5')")
        for other, held in out.items():
            if held.mask & hand.mask:
                dup = first_card(held.mask & hand.mask, rules.one_high)
                raise DuplicateCardError(f"known card {shown(dup)} is given twice for {name}" if other == name else
                                         f"known card {shown(dup)} is given for both {other} and {name}")
        out[name] = (out[name] | hand) if name in out else hand
    return out


def _check_place(c: "Constraint", rules: Rules, text: str) -> str:
    """The name of constraint ``c``'s place at ``rules``' table (a seat or
    the nest), or a ConstraintError quoting ``text``."""
    try:
        name = _place_name(c.place, rules)
    except ConstraintError:
        raise ConstraintError(f"constraint {text}: place {shown(c.place)} must be a seat "
                              f"({' '.join(rules.seat_names)}) or nest") from None
    if name == OUT:
        raise ConstraintError(f"constraint {text}: out-of-play cards take no constraints")
    return name


def _place_name(place: str, rules: Rules) -> str:
    p = str(place).strip()
    if ascii_lower(p) in (NEST, OUT):
        return ascii_lower(p)
    if ascii_upper(p) in rules.seat_names:  # case ignored in ASCII only: no long s for S
        return ascii_upper(p)
    raise ConstraintError(f"place {shown(place)}: choose a seat ({' '.join(rules.seat_names)}), nest or out")


class DealSampler:
    """Uniform random deals consistent with one seat's hand, known cards and
    constraints.

    ``sampler.deal(i, seed)`` is sample ``i`` of ``seed``: a complete
    ``Deal`` (every hand, the nest) in which ``seat`` holds ``hand``. With
    neither ``seat`` nor ``hand`` (both None) no hand is given: a dealer of
    deals that meet the known cards and constraints alone (``rook-analyze
    deal --constraint``). ``holder`` names whose hand it is in messages
    ("bidder", or "declarer" for the nest advisor's hand and nest)."""

    def __init__(self, rules: Rules | str, seat: str | int | None = None, hand: Hand | str | None = None,
                 known: Mapping[str, str | Hand] | Sequence[str] | str | None = None,
                 constraints: Sequence[Constraint | str] | Constraint | str | None = (),
                 max_tries: int = MAX_TRIES, holder: str = "bidder") -> None:
        rules = Rules.from_spec(rules)
        self.rules = rules
        self.holder = holder  # who holds ``hand``, in messages: the bidder's (hand), the declarer's (nest)
        if seat is not None and hand is None:
            raise InvalidCardError(f"hand None: expected the cards of seat {shown(seat)}, a Hand or Rook deal notation "
                                   f"(or neither a seat nor a hand, for deals with no bidder)")
        if seat is None and hand is not None:
            raise ConstraintError(f"seat=None, hand={shown(hand)}: give the seat that holds the hand "
                                  f"(or neither, for deals with no bidder)")
        self.seat = None if seat is None else rules.seat_index(seat)
        self.hand = Hand() if hand is None else as_hand(hand, rules, "hand")
        if seat is not None:
            check_hand(self.hand, rules)
        self.max_tries = whole("max_tries", max_tries, 1)
        self.known = parse_known(known, rules)
        self.constraints = tuple(c if isinstance(c, Constraint) else Constraint.parse(c, rules)
                                 for c in as_items("constraints", constraints))

        # places: the seats, the nest, out of play; each with its fixed cards and free slots
        names = list(rules.seat_names) + [NEST, OUT]
        self._names = names
        sizes = [rules.hand_size] * rules.seats + [rules.nest_size, rules.out_of_play]
        fixed = [0] * len(names)
        if self.seat is not None:
            fixed[self.seat] = self.hand.mask
        seen = self.hand.mask
        for name, cards in self.known.items():
            p = names.index(name)
            if p == self.seat:
                raise ConstraintError(f"known cards for {name} ({cards.rdn(rules.one_high)!r}): that is the "
                                      f"{self.holder}'s own hand")
            dup = cards.mask & self.hand.mask  # the places' known cards are apart (parse_known)
            if dup:
                raise DuplicateCardError(f"known card {first_card(dup, rules.one_high)!r} for {name} is already in the "
                                         f"{self.holder}'s hand")
            if len(cards) > sizes[p]:
                raise ConstraintError(f"{plural(len(cards), 'known card')} for {name} ({cards.rdn(rules.one_high)!r}), "
                                      f"but {name} holds {sizes[p]} under {rules.spec()!r}")
            fixed[p] = cards.mask
            seen |= cards.mask
        self._fixed = fixed
        self._free = [s - f.bit_count() for s, f in zip(sizes, fixed)]
        self.unseen = Hand(rules.deck_mask & ~seen)
        self._pool = np.array(mask_indices(self.unseen.mask), dtype=np.int64)
        assert len(self._pool) == sum(self._free)
        self._starts = np.cumsum([0] + self._free)
        self._checks = self._prepare_checks()
        self._tries: int | None = None  # the per-sample budget, set by the pilot (_budget)
        self._pilot: tuple[int, int] = (1, 1)
        self._exact: _ExactDealer | None = None  # for constraints too rare to reject (_budget)

    # ------------------------------------------------------------ feasibility
    def _prepare_checks(self) -> list[tuple[int, np.ndarray, float, float]]:
        """Merge constraints per place and feature into ranges, reject the
        impossible ones, and return (place, card table, lo, hi) checks on the
        randomly dealt part."""
        rules = self.rules
        ranges: dict[tuple[int, str], tuple[float, float, list[str]]] = {}
        for c in self.constraints:
            p = self._names.index(_check_place(c, rules, shown(c.text())))
            lo, hi = c.bounds
            key = (p, c.feature)
            if key in ranges:
                lo0, hi0, texts = ranges[key]
                lo, hi, texts = max(lo, lo0), min(hi, hi0), texts + [c.text()]
                if lo > hi:
                    raise ConstraintError(f"contradictory constraints {' and '.join(shown(t) for t in texts)}: "
                                          f"no {c.feature} count meets them all")
            else:
                texts = [c.text()]
            ranges[key] = (lo, hi, texts)

        tables: dict[str, np.ndarray] = {}
        pool_values: dict[str, np.ndarray] = {}  # each feature's values of the unseen cards, highest first
        # each range less what the place's known cards already hold: the bounds on its unseen share
        unseen: dict[tuple[int, str], tuple[float, float]] = {}
        for (p, feature), (lo, hi, texts) in ranges.items():
            if feature not in tables:
                tables[feature] = _feature_table(feature, rules)
                pool_values[feature] = np.sort(tables[feature][self._pool])[::-1]
            table, vals = tables[feature], pool_values[feature]
            fixed_value = int(table[mask_indices(self._fixed[p])].sum()) if self._fixed[p] else 0
            k = self._free[p]
            least = fixed_value + int(vals[len(vals) - k:].sum()) if k else fixed_value
            most = fixed_value + int(vals[:k].sum())
            what = self._names[p] + (f" (the {self.holder}'s hand)" if p == self.seat else "")
            impossible = f"impossible constraint {' and '.join(shown(t) for t in texts)}"
            if hi < least or lo > most:
                raise ConstraintError(
                    f"{impossible}: {what} can only hold "
                    f"{_span(least, most)} {feature_label(feature, most if least == most else None)} here"
                )
            if feature == "counters" and k and not any(lo <= fixed_value + s <= hi for s in _sums_of(vals, k)):
                # within the span yet out of reach: counters come in steps (5s, 10s, ...)
                worth = ", ".join(str(v) for v in sorted({int(v) for v in vals if v}))
                raise ConstraintError(
                    f"{impossible}: no hand {what} can be dealt here holds "
                    f"{_span(int(max(lo, least)), int(min(hi, most)))} points in counters (the unseen "
                    f"counters are worth {worth})"
                )
            unseen[(p, feature)] = (lo - fixed_value, hi - fixed_value)

        # across places: a feature's total is fixed, so the lower bounds must fit in it
        for feature, vals in pool_values.items():
            total = int(vals.sum())
            need = sum(max(lo, 0) for (_, f), (lo, _) in unseen.items() if f == feature)
            texts = [t for (p, f), (_, _, ts) in ranges.items() if f == feature for t in ts]
            if need > total:
                raise ConstraintError(
                    f"contradictory constraints {', '.join(shown(t) for t in texts)}: together they need "
                    f"{int(need)} {feature_label(feature)} among the unseen cards, which hold {total}"
                )
            # and the upper bounds, with what the unconstrained places can take, must make room for it
            room = 0.0
            for p, k in enumerate(self._free):
                if not k:
                    continue
                most = float(vals[:k].sum())
                if (p, feature) in unseen:
                    cap = unseen[(p, feature)][1]
                    if feature == "counters" and cap < most:
                        # counters come in steps: the most a hand can hold within the bound
                        cap = max((t for t in _sums_of(vals, k) if t <= cap), default=0)
                    most = min(most, cap)
                room += most
            if room < total:
                raise ConstraintError(
                    f"contradictory constraints {', '.join(shown(t) for t in texts)}: the unseen cards hold "
                    f"{total} {feature_label(feature, total)}, but with these constraints the places they go to "
                    f"can take only {int(room)}"
                )
        return [(p, tables[feature], lo, hi) for (p, feature), (lo, hi) in unseen.items()]

    # ---------------------------------------------------------------- dealing
    def __repr__(self) -> str:
        known = {k: v.rdn(self.rules.one_high) for k, v in self.known.items()}
        seat = None if self.seat is None else self.rules.seat_names[self.seat]
        hand = None if self.seat is None else self.hand.rdn(self.rules.one_high)
        return (f"DealSampler(rules={self.rules.spec()!r}, seat={seat!r}, hand={hand!r}, known={known!r}, "
                f"constraints={[c.text() for c in self.constraints]!r})")

    @staticmethod
    def generator(seed: int, index: int) -> np.random.Generator:
        """The random generator of sample ``index`` of ``seed``."""
        seed, index = whole("seed", seed, 0, most=MAX_SEED), whole("index", index, 0)
        return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index,)))

    def deal(self, index: int, seed: int) -> Deal:
        """Sample ``index`` of ``seed``: a complete deal that meets every constraint."""
        rng = self.generator(seed, index)
        order = self._draw(rng)
        return self._assemble(order)

    def deals(self, count: int, seed: int, start: int = 0) -> list[Deal]:
        """Samples ``start .. start + count - 1`` of ``seed``."""
        count, start = whole("count", count, 0), whole("start", start, 0)
        return [self.deal(i, seed) for i in range(start, start + count)]

    def _draw(self, rng: np.random.Generator) -> np.ndarray:
        pool = self._pool
        if not self._checks:
            return pool[rng.permutation(len(pool))]
        budget = self._budget()
        if self._exact is not None:
            return self._exact.draw(rng)
        tries = 0
        block = np.broadcast_to(pool, (BLOCK, len(pool)))
        while tries < budget:
            cards = rng.permuted(block, axis=1)
            hit = self._hits(cards)
            if len(hit):
                return cards[hit[0]]
            tries += BLOCK
        raise ConstraintError(
            f"constraints {', '.join(shown(c.text()) for c in self.constraints)}: no deal in {tries:,} tries "
            f"met them all (about 1 deal in {self._rate_text()} does); they are too rare to sample reliably"
        )

    def _hits(self, cards: np.ndarray) -> np.ndarray:
        """The rows of a block of dealt pools that meet every constraint."""
        starts = self._starts
        ok = np.ones(len(cards), dtype=bool)
        for p, table, lo, hi in self._checks:
            v = table[cards[:, starts[p]:starts[p + 1]]].sum(axis=1)
            ok &= (v >= lo) & (v <= hi)
        return np.flatnonzero(ok)

    def _budget(self) -> int:
        """Tries one sample may take before it gives up. Judged once per
        sampler, from a pilot run of its own fixed generator, so how the
        constraints are sampled depends on them alone, never on the seed, the
        sample's index or how many samples are asked for. When the pilot meets
        them ``PILOT_HITS`` times within ``max_tries`` tries, a sample may take
        ``PILOT_SAFETY`` times the tries a hit took (at least ``max_tries``).
        Rarer ones go to the exact dealer (``_ExactDealer``): it deals them
        directly, and finds for certain when nothing meets them (an error
        before the first sample); only where it would grow too big (several
        places constrained at once) does a rare set keep to rejection, or,
        with no pilot hit, stop with an error."""
        if self._tries is None:
            rng = np.random.default_rng(np.random.SeedSequence(PILOT_ENTROPY))
            block = np.broadcast_to(self._pool, (BLOCK, len(self._pool)))
            hits = tries = 0
            while tries < self.max_tries and hits < PILOT_HITS:
                hits += len(self._hits(rng.permuted(block, axis=1)))
                tries += BLOCK
            if hits < PILOT_HITS:
                exact = _ExactDealer.build(self._pool, self._free, self._checks)
                if exact is not None:
                    if exact.deals == 0:
                        raise ConstraintError(
                            f"impossible constraints {', '.join(shown(c.text()) for c in self.constraints)}: "
                            f"no deal meets them all"
                        )
                    self._exact = exact
            if not hits and self._exact is None:
                raise ConstraintError(
                    f"constraints {', '.join(shown(c.text()) for c in self.constraints)}: no deal in {tries:,} "
                    f"tries met them all; they are impossible together or too rare to sample "
                    f"(fewer than 1 deal in {tries:,} meets them)"
                )
            self._pilot = (max(hits, 1), tries)
            need = -(-PILOT_SAFETY * tries // max(hits, 1))
            self._tries = max(self.max_tries, -(-need // BLOCK) * BLOCK)
        return self._tries

    def _rate_text(self) -> str:
        hits, tries = self._pilot
        return f"{max(round(tries / hits), 1):,}"

    def _assemble(self, order: np.ndarray) -> Deal:
        masks = list(self._fixed)
        starts = self._starts
        idx = order.tolist()
        for p in range(len(masks)):
            m = masks[p]
            for i in idx[starts[p]:starts[p + 1]]:
                m |= 1 << i
            masks[p] = m
        r = self.rules
        return Deal(r, tuple(Hand(m) for m in masks[:r.seats]), Hand(masks[r.seats]))


class _ExactDealer:
    """Deals that meet the constraints, drawn directly: uniform among them,
    as rejection's are, for constraints too rare to reject.

    The unseen cards fall into kinds, cards alike in every constrained
    feature (a color's cards of one counter value, the Rook). A deal's worth
    to the constraints is how many cards of each kind go to each constrained
    place, and the deals giving one such table number the product over kinds
    of the multinomial ways to split that kind. A dynamic program over the
    kinds counts, for each partial table, the deals that complete it within
    the constraints (exact integers); a sample then chooses each kind's split
    with probability proportional to its deals, deals each kind's cards at
    random among its places, and the rest at random among the unconstrained
    places.
    """

    # past this many splits tried the program is too slow in Python (a few seconds): keep to
    # rejection. Counted, not timed, so the choice never depends on the machine.
    MAX_WORK = 1_000_000

    def __init__(self, pool: np.ndarray, free: list[int], checks) -> None:
        self.free = free
        self.places = places = sorted({p for p, _, _, _ in checks})
        self.rest_room = sum(k for p, k in enumerate(free) if p not in places)
        # kinds: cards alike in every checked feature, grouped in card order
        keys: dict[tuple, list[int]] = {}
        for c in pool.tolist():
            keys.setdefault(tuple(int(t[c]) for _, t, _, _ in checks), []).append(c)
        self.kinds = [(key, cards) for key, cards in sorted(keys.items(), key=lambda kv: kv[1][0])]
        # a check's sum is settled after the last kind that adds to it: then judged and dropped
        self._last = [max((i for i, (key, _) in enumerate(self.kinds) if key[j]), default=-1)
                      for j in range(len(checks))]
        self._col = [places.index(p) for p, _, _, _ in checks]
        self._lows = [lo for _, _, lo, _ in checks]
        self._highs = [hi for _, _, _, hi in checks]
        self._dealt_before = np.cumsum([0] + [len(c) for _, c in self.kinds]).tolist()
        self._start = (tuple(0 for _ in places), tuple(0 for _ in checks))
        self._memo: dict = {}
        self._splits_of: dict = {}
        self._work = 0
        self.deals = 0  # deals that meet the constraints (build)

    @classmethod
    def build(cls, pool: np.ndarray, free: list[int], checks) -> "_ExactDealer | None":
        """The dealer with its count made, or None where the count is too big to make."""
        dealer = cls(pool, free, checks)
        # checks no card adds to are settled at the start
        if any(x == -1 and not lo <= 0 <= hi for x, lo, hi in zip(dealer._last, dealer._lows, dealer._highs)):
            return dealer
        try:
            count = dealer._count(0, dealer._start)
        except _TooBig:
            return None
        # the hands of the constrained places, times the ways to split the rest among the others
        rest_ways = math.factorial(dealer.rest_room)
        for p, k in enumerate(free):
            if p not in dealer.places:
                rest_ways //= math.factorial(k)
        dealer.deals = count * rest_ways
        return dealer

    def _splits(self, count: int, room: tuple[int, ...], rest: int) -> list[tuple[tuple[int, ...], int]]:
        """Every way to send ``count`` cards of a kind to the constrained places within their
        room and the rest to the unconstrained ones, with its multinomial count."""
        key = (count, room, rest)
        if key not in self._splits_of:
            out = []
            # what the places after the k-th (and the unconstrained ones) can still take: each
            # step takes at least what they cannot, so every branch ends in a split (the walk
            # costs what it yields, which MAX_WORK counts, not the dead ends around it)
            after = [rest] * (len(room) + 1)
            for k in range(len(room) - 1, -1, -1):
                after[k] = after[k + 1] + room[k]

            def walk(k: int, left: int, taken: tuple[int, ...], ways: int) -> None:
                if k == len(room):
                    out.append((taken, ways))
                    return
                for m in range(max(0, left - after[k + 1]), min(left, room[k]) + 1):
                    walk(k + 1, left - m, taken + (m,), ways * math.comb(left, m))
            walk(0, count, (), 1)
            self._splits_of[key] = out
        return self._splits_of[key]

    def _moves(self, i: int, state: tuple) -> list[tuple[tuple[int, ...], int, tuple]]:
        """The splits of kind ``i`` from ``state`` (the constrained places' cards so far and the
        checks' open sums) that keep every check possible: (split, its ways, the next state)."""
        used, sums = state
        kind_key, cards = self.kinds[i]
        room = tuple(self.free[p] - u for p, u in zip(self.places, used))
        rest = self.rest_room - (self._dealt_before[i] - sum(used))
        lows, highs, col, last = self._lows, self._highs, self._col, self._last
        out = []
        for taken, ways in self._splits(len(cards), room, rest):
            new = list(sums)
            ok = True
            for j in range(len(new)):
                if kind_key[j]:
                    v = new[j] + kind_key[j] * taken[col[j]]
                    if v > highs[j]:
                        ok = False
                        break
                    # a sum with no upper bound matters only up to its lower one
                    new[j] = int(min(v, lows[j])) if highs[j] == np.inf else v
                if last[j] == i:
                    if not lows[j] <= new[j] <= highs[j]:
                        ok = False
                        break
                    new[j] = 0
            if ok:
                out.append((taken, ways, (tuple(u + t for u, t in zip(used, taken)), tuple(new))))
        return out

    def _count(self, i: int, state: tuple) -> int:
        """The ways to deal kinds ``i`` onwards from ``state`` within the constraints."""
        key = (i, state)
        got = self._memo.get(key)
        if got is not None:
            return got
        if i == len(self.kinds):
            total = 1
        else:
            moves = self._moves(i, state)
            self._work += len(moves)
            if self._work > self.MAX_WORK:
                raise _TooBig
            total = sum(ways * self._count(i + 1, nxt) for _, ways, nxt in moves)
        self._memo[key] = total
        return total

    def draw(self, rng: np.random.Generator) -> np.ndarray:
        """One deal as ``DealSampler`` lays it out: the unseen cards place by place."""
        places, free = self.places, self.free
        state = self._start
        hands: list[list[int]] = [[] for _ in free]
        rest_cards: list[int] = []
        for i, (_, cards) in enumerate(self.kinds):
            options = [(ways * self._memo.get((i + 1, nxt), 0), taken, nxt)
                       for taken, ways, nxt in self._moves(i, state)]
            pick = _below(sum(w for w, _, _ in options), rng)
            for w, taken, nxt in options:
                if pick < w:
                    break
                pick -= w
            order = [cards[k] for k in rng.permutation(len(cards))]
            at = 0
            for p, m in zip(places, taken):
                hands[p] += order[at:at + m]
                at += m
            rest_cards += order[at:]
            state = nxt
        rest_cards = [rest_cards[k] for k in rng.permutation(len(rest_cards))]
        at = 0
        for p, k in enumerate(free):
            if p not in places:
                hands[p] = rest_cards[at:at + k]
                at += k
        return np.array([c for h in hands for c in h], dtype=np.int64)


class _TooBig(Exception):
    pass


def _below(total: int, rng: np.random.Generator) -> int:
    """A uniform whole number in [0, total), exact for totals past 2**64."""
    bits = total.bit_length()
    while True:
        x = int.from_bytes(rng.bytes((bits + 7) // 8), "little") >> (-bits % 8)
        if x < total:
            return x


def resolve_seed(seed: int | None) -> int:
    """The seed a report uses: the one given, or fresh entropy (then reported)."""
    if seed is None:
        return int(np.random.SeedSequence().entropy % FRESH_SEEDS)
    return whole("seed", seed, 0, most=MAX_SEED)


def check_cards(cards: Hand, what: str, rules: Rules, size: int, size_text: str,
                outside_error: type[Exception] = InvalidCardError) -> None:
    """``cards`` (a hand, the nest: ``what``) must be ``size`` cards of the
    deck; ``size_text`` says how many the rules want, ``outside_error`` is
    raised for a card not in the deck."""
    bad = cards.mask & ~rules.deck_mask
    if bad:
        raise outside_error(f"card {first_card(bad, rules.one_high)!r} in {what} {cards.rdn(rules.one_high)!r} "
                            f"is not in the {rules.spec()!r} deck")
    if len(cards) != size:
        raise DealError(f"{what} {cards.rdn(rules.one_high)!r} has {plural(len(cards), 'card')}: "
                        f"{rules.spec()!r} {size_text}")


def check_hand(hand: Hand, rules: Rules) -> None:
    """A dealt hand must hold exactly ``hand_size`` cards of the deck."""
    check_cards(hand, "hand", rules, rules.hand_size, f"deals {rules.hand_size} a seat")


def feature_label(feature: str, count: int | None = None) -> str:
    label = {"counters": "points in counters", "rook": "birds"}.get(feature, f"{feature} cards")
    return label[:-1] if count == 1 and feature != "counters" else label


def _sums_of(values: np.ndarray, k: int) -> set[int]:
    """Every total that ``k`` of ``values`` (one per card) can come to: the
    nonzero values by a small subset-sum over how many are taken, the zeros
    filling the rest of the ``k``."""
    worth = [int(v) for v in values if v]
    zeros = len(values) - len(worth)
    reach: list[set[int]] = [{0}] + [set() for _ in range(k)]  # reach[c]: totals of c nonzero cards
    for v in worth:
        for c in range(min(k, len(worth)), 0, -1):
            reach[c] |= {s + v for s in reach[c - 1]}
    return set().union(*(reach[c] for c in range(max(0, k - zeros), k + 1)))


def _span(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo} or {hi}" if hi == lo + 1 else f"{lo} to {hi}"
