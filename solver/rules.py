"""The rule model: an immutable ``Rules`` value, the presets of RULES.md and
knob overrides written as ``full,bird=low,nest_size=6``."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from functools import cached_property
from typing import Any

import numpy as np

from .cards import (COLORS, ROOK2_INDEX, ROOK_INDEX, Card, Hand, _as_index, _is_int, ascii_lower, ascii_upper,
                    _hex, mask_indices, number_runs, shown)
from .errors import RulesError

BIRD_RANKS = ("high", "ten_and_half", "low", "none")
FIRST_LEADS = ("declarer", "left_of_declarer", "left_of_dealer")
BIRD_PLAYS = ("trump_suit", "any_time")
NEST_TO = ("declarer", "last_trick")
ALL_PASS = ("redeal", "dealer_forced")

# The knobs of CONTRACT.md, in the order ``spec()`` writes them, after the
# table's own two: how many seats and who plays with whom.
KNOBS = (
    "seats", "teams", "numbers", "hand_size", "nest_size", "bird", "double_bird", "one_high", "first_lead", "bird_play",
    "nest_to", "trick_points", "last_trick_bonus", "most_tricks", "min_bid", "bid_step",
    "max_bid", "all_pass", "target",
)
_BOOL_KNOBS = ("double_bird", "one_high")
_INT_KNOBS = ("seats", "hand_size", "nest_size", "trick_points", "last_trick_bonus", "min_bid", "bid_step",
              "max_bid", "target")
_BID_KNOBS = ("min_bid", "bid_step", "max_bid")
_CHOICE_KNOBS = {"bird": BIRD_RANKS, "first_lead": FIRST_LEADS, "bird_play": BIRD_PLAYS,
                 "nest_to": NEST_TO, "all_pass": ALL_PASS}
# the knobs that may change how many cards each seat gets, so the hand size is
# derived again (bird and double_bird only where the number of birds changes)
_DECK_KNOBS = ("seats", "numbers", "nest_size")
# the solver's table keeps bounds in 15 bits; Rook hands hold 100 to 180 points
MAX_HAND_POINTS = 10_000
ALONE = "alone"  # teams=alone: the declarer plays alone against everyone else (cutthroat)


def seat_names(seats: int) -> tuple[str, ...]:
    """Seat names clockwise: N E S W at a four-player table, P1..Pn otherwise."""
    if seats == 4:
        return ("N", "E", "S", "W")
    return tuple(f"P{i + 1}" for i in range(seats))


@dataclass(frozen=True)
class Rules:
    """Everything that decides how a hand is dealt, played and scored.

    Build one with ``Rules.preset(name)`` or ``Rules.from_spec(text)``; change
    knobs with ``with_knobs(...)``, which re-derives ``hand_size`` from the
    deck unless it is given."""

    name: str
    numbers: tuple[int, ...]                 # the numbers in each color
    counters: tuple[tuple[int, int], ...]    # (number, points) of the counters
    bird: str = "high"
    double_bird: bool = False
    one_high: bool = False
    hand_size: int = 13
    nest_size: int = 5
    bird_points: int = 20
    first_lead: str = "declarer"
    bird_play: str = "trump_suit"
    nest_to: str = "declarer"
    trick_points: int = 0
    last_trick_bonus: int = 0
    most_tricks: tuple[int, int] | None = None
    min_bid: int | None = 70
    bid_step: int | None = 5
    max_bid: int | None = 120
    all_pass: str = "redeal"
    target: int = 300
    no_trump: bool = False                   # may trump be 'none' (bridge only)
    seats: int = 4
    teams: tuple[int, ...] | None = (0, 1, 0, 1)  # None: the declarer plays alone

    # ----------------------------------------------------------- construction
    @classmethod
    def preset(cls, name: str) -> "Rules":
        """A preset of RULES.md by name (case and surrounding spaces ignored)."""
        if not isinstance(name, str):
            raise RulesError(f"rules preset {shown(name)}: expected a name, one of {', '.join(PRESETS)}")
        try:
            return PRESETS[ascii_lower(name.strip())]
        except KeyError:
            raise RulesError(
                f"unknown rules preset {shown(name)}: choose one of {', '.join(PRESETS)}"
            ) from None

    @classmethod
    def from_spec(cls, spec: "str | Rules") -> "Rules":
        """Parse ``preset[,knob=value...]``, e.g. ``full,bird=low,nest_size=6``."""
        if isinstance(spec, Rules):
            return spec
        if not isinstance(spec, str):
            raise RulesError(f"rules {shown(spec)}: expected a Rules or a spec such as 'full,bird=low'")
        parts = [p.strip() for p in spec.split(",")]
        if not parts or not parts[0]:
            raise RulesError(f"rules {shown(spec)}: expected a preset name, e.g. 'full'")
        base = cls.preset(parts[0])
        knobs: dict[str, Any] = {}
        for part in parts[1:]:
            if not part:
                continue
            if "=" not in part:
                raise RulesError(f"rules knob {shown(part)} in {shown(spec)}: expected knob=value")
            key, value = (s.strip() for s in part.split("=", 1))
            key = ascii_lower(key)
            if key in knobs:
                raise RulesError(f"rules knob {shown(key)} given twice in {shown(spec)}")
            knobs[key] = _parse_knob(key, value)
        return base.with_knobs(**knobs)

    def with_knobs(self, **knobs: Any) -> "Rules":
        """A copy with the given knobs changed, validated. Changing ``seats``,
        ``numbers`` or ``nest_size``, or the number of birds (``bird=none``,
        ``double_bird``), derives ``hand_size`` again from the deck unless it
        is given too; other knobs keep it."""
        for key, value in knobs.items():
            if key not in KNOBS:
                raise RulesError(f"unknown rules knob {shown(key)}: knobs are {', '.join(KNOBS)}")
            if isinstance(value, np.ndarray) and value.ndim == 0:
                value = knobs[key] = value.item()  # a numpy scalar in an array: the Python value it holds
            if isinstance(value, str):
                # the same text the spec takes: with_knobs(bird="low", nest_size="6", teams="alone")
                knobs[key] = _parse_knob(key, value)
            elif key == "numbers" and isinstance(value, (list, tuple, range, set, frozenset, np.ndarray)):
                knobs[key] = _number_set(value)
            elif key in ("most_tricks", "teams") and isinstance(value, (list, tuple, range, np.ndarray)):
                knobs[key] = tuple(_whole_or_as_is(x) for x in value)
            elif key in _INT_KNOBS:
                knobs[key] = _whole_or_as_is(value)
            elif key in _CHOICE_KNOBS:  # before == "none" below: an array's == compares every element
                raise RulesError(f"rules knob {key}={shown(value)}: expected one of "
                                 f"{', '.join(_CHOICE_KNOBS[key])}")
            elif key in _BOOL_KNOBS and isinstance(value, np.bool_):  # numpy's bool as Python's, as ints are
                knobs[key] = bool(value)
            elif key in _BOOL_KNOBS and not isinstance(value, bool):
                raise RulesError(f"rules knob {key}={shown(value)}: expected true or false")
        seats = knobs.get("seats", self.seats)
        if _is_int(seats) and not 2 <= seats <= 6:
            raise RulesError(f"seats={shown(seats)}: must be 2..6")
        if "seats" in knobs and "teams" not in knobs and self.teams is not None and _is_int(seats) \
                and len(self.teams) != seats:
            example = "".join(str(i % 2) for i in range(max(seats, 2)))
            raise RulesError(f"seats={seats}: say who plays with whom, teams={ALONE} (the declarer plays "
                             f"alone) or one side, 0 or 1, a seat clockwise (e.g. teams={example})")
        bird = knobs.get("bird", self.bird)
        birds = 0 if bird == "none" else (2 if knobs.get("double_bird", self.double_bird) else 1)
        if "hand_size" not in knobs and (any(k in knobs for k in _DECK_KNOBS) or birds != self.bird_count):
            # the hands take what the nest leaves; any remainder is out of play
            numbers = knobs.get("numbers", self.numbers)
            deck = 4 * len(numbers) + birds if isinstance(numbers, tuple) else 0
            nest = knobs.get("nest_size", self.nest_size)
            if _is_int(nest) and _is_int(seats) and seats > 0:  # else validation says what is wrong
                knobs["hand_size"] = max(deck - nest, 0) // seats
        rules = replace(self, **knobs)
        # a preset's max_bid may outrun a knob that takes points away (it only
        # adds bids nobody makes); a max_bid asked for must be reachable, now
        # or in an earlier call: spec() writes it, and from_spec checks it
        base = PRESETS.get(rules.name)
        asked = knobs.get("max_bid") is not None or (base is not None and rules.max_bid != base.max_bid)
        if asked and rules.max_bid is not None and rules.max_bid > rules.total_points:
            raise RulesError(f"rules {rules.spec_unchecked()!r}: max_bid={rules.max_bid} is above the "
                             f"{rules.total_points} points a hand has to take")
        return rules

    def __post_init__(self) -> None:
        self._validate()

    def _validate(self) -> None:
        self._check_types()

        def bad(msg: str) -> RulesError:
            return RulesError(f"rules {self.spec_unchecked()!r}: {msg}")

        for number, points in self.counters:
            if number not in range(1, 15) or points < 0:
                raise bad(f"counter ({number}, {points}): a number 1..14 worth 0 points or more")
        if self.bird not in BIRD_RANKS:
            raise bad(f"bird={shown(self.bird)} must be one of {', '.join(BIRD_RANKS)}")
        for key, choices in _CHOICE_KNOBS.items():
            if getattr(self, key) not in choices:
                raise bad(f"{key}={shown(getattr(self, key))} must be one of {', '.join(choices)}")
        if self.double_bird and self.bird == "none":
            raise bad("double_bird=true needs a Rook in the deck (bird is none)")
        if not self.numbers:
            raise bad("numbers=(): each color needs at least one number")
        if list(self.numbers) != sorted(set(self.numbers)):
            raise bad(f"numbers={_format_knob('numbers', self.numbers)}: each number once, from low to high")
        if not 1 <= self.numbers[0] <= self.numbers[-1] <= 14:
            raise bad(f"numbers={_format_knob('numbers', self.numbers)}: each color's numbers must lie in 1..14")
        if self.one_high and 1 not in self.numbers:
            raise bad("one_high=true but this deck has no 1s")
        if not 2 <= self.seats <= 6:
            raise bad(f"seats={self.seats} must be 2..6")
        if self.teams is not None:
            if len(self.teams) != self.seats or set(self.teams) != {0, 1}:
                raise bad(f"teams={_format_knob('teams', self.teams)} must give each of {self.seats} seats "
                          f"side 0 or 1, both sides used")
        if self.nest_size < 0:
            raise bad(f"nest_size={self.nest_size} must be 0 or more")
        if self.hand_size < 1 and self.hand_size != self.derived_hand_size:
            raise bad(f"hand_size={self.hand_size} must be 1 or more")
        if self.hand_size < 1:
            raise bad(f"the {self.deck_size}-card deck leaves no cards for the hands with nest_size={self.nest_size}")
        need = self.hand_size * self.seats + self.nest_size
        if need > self.deck_size:
            raise bad(
                f"hand_size={self.hand_size} x {self.seats} seats + nest_size={self.nest_size} = {need} cards, "
                f"but the deck has {self.deck_size}"
            )
        if self.hand_size * self.seats > 64:
            raise bad("more than 64 cards in the hands")
        for key in ("trick_points", "last_trick_bonus", "bird_points"):
            if getattr(self, key) < 0:
                raise bad(f"{key}={getattr(self, key)} must be 0 or more")
        if self.most_tricks is not None:
            n, p = self.most_tricks
            if self.teams is None and self.seats > 2:
                # the defenders are one side for the double-dummy value but score
                # seat by seat: whether two of them reaching N together earns it is not defined
                raise bad(f"most_tricks={n}:{p} needs two sides: with teams={ALONE} the defenders "
                          f"score seat by seat (add most_tricks=none to play without the bonus)")
            # the side that wins at least N tricks gets P: with N at most half the
            # tricks both sides may (a 5-5 split of dixie40's ten tricks without a nest)
            if not 1 <= n <= self.hand_size:
                raise bad(f"most_tricks={n}:{p}: N must be 1 to {self.hand_size}, the tricks of a hand")
            if p < 0:
                raise bad(f"most_tricks={n}:{p}: the bonus must be 0 or more")
        if self.total_points == 0:
            # every value would be 0 and every report empty: a game with nothing to win
            raise bad("no points to play for: the deck has no counters, and trick_points, "
                      "last_trick_bonus and most_tricks add none")
        if self.total_points > MAX_HAND_POINTS:
            raise bad(f"a hand would hold {self.total_points} points: at most {MAX_HAND_POINTS} "
                      f"(counters, trick points and bonuses together)")
        bids = (self.min_bid, self.bid_step, self.max_bid)
        if any(b is None for b in bids):
            if not all(b is None for b in bids):
                raise bad("min_bid, bid_step and max_bid are given together or not at all")
        else:
            for key in ("min_bid", "bid_step", "max_bid"):
                v = getattr(self, key)
                if v <= 0 or v % 5:
                    raise bad(f"{key}={v} must be a positive multiple of 5")
            if self.min_bid > self.max_bid:
                raise bad(f"min_bid={self.min_bid} is above max_bid={self.max_bid}")
            most = self.total_points
            if self.min_bid > most:
                raise bad(f"min_bid={self.min_bid} is above the {most} points a hand has to take")
            if self.min_bid < self.max_bid and self.bid_step > self.max_bid - self.min_bid:
                raise bad(f"bid_step={self.bid_step} is more than max_bid - min_bid = "
                          f"{self.max_bid - self.min_bid}: no bid could be raised")
        if self.target <= 0:
            raise bad(f"target={self.target} must be positive")

    def _check_types(self) -> None:
        """Knob values of the wrong type (e.g. from ``with_knobs``), before anything formats them."""
        def wrong(key: str, expected: str) -> RulesError:
            return RulesError(f"rules knob {key}={shown(getattr(self, key))}: expected {expected}")

        def is_int(x: Any) -> bool:
            # a number too long for str() (over 4,300 digits) could not be
            # written in spec() or in the message that refuses it
            return _is_int(x) and x.bit_length() <= _MAX_KNOB_BITS

        for key in _BOOL_KNOBS + ("no_trump",):
            if not isinstance(getattr(self, key), bool):
                raise wrong(key, "true or false")
        for key, choices in _CHOICE_KNOBS.items():
            if not isinstance(getattr(self, key), str):
                raise wrong(key, f"one of {', '.join(choices)}")
        for key in _INT_KNOBS + ("seats", "bird_points"):
            v = getattr(self, key)
            if not is_int(v) and not (v is None and key in _BID_KNOBS):
                raise wrong(key, "a whole number" + (" of at most 4,200 digits" if _is_int(v) else ""))
        if not -2**63 <= self.target < 2**63:  # the only knob with no bound of its own below
            raise wrong("target", "a positive whole number below 2^63 (a signed 64-bit integer)")
        if not isinstance(self.name, str) or not self.name.strip():
            raise wrong("name", "a name: a preset's, or one's own")
        if not (isinstance(self.counters, tuple) and all(
                isinstance(c, tuple) and len(c) == 2 and all(is_int(x) for x in c) for c in self.counters)):
            raise wrong("counters", "a tuple of (number, points) pairs")
        mt = self.most_tricks
        if mt is not None and not (isinstance(mt, tuple) and len(mt) == 2 and all(is_int(x) for x in mt)):
            raise wrong("most_tricks", "a pair (N, P) of whole numbers, or None")
        if not (isinstance(self.numbers, tuple) and all(is_int(x) for x in self.numbers)):
            raise wrong("numbers", "a tuple of card numbers")
        if self.teams is not None and not (isinstance(self.teams, tuple) and all(is_int(x) for x in self.teams)):
            raise wrong("teams", "a tuple of sides 0/1, one per seat, or None")

    # ------------------------------------------------------------- text form
    def spec_unchecked(self) -> str:
        """The text form as ``spec()`` writes it, for rules not (yet) validated:
        the error messages of the checks quote it."""
        base = PRESETS.get(self.name)
        parts = [self.name]
        for key in KNOBS:
            value = getattr(self, key)
            if key == "hand_size":
                # from_spec re-derives hand_size from the deck, so only a different size is written
                if value != self.derived_hand_size:
                    parts.append(f"hand_size={value}")
                continue
            if base is not None and getattr(base, key) == value:
                continue
            parts.append(f"{key}={_format_knob(key, value)}")
        return ",".join(parts)

    def spec(self) -> str:
        """The canonical text form: the preset and the knobs that differ from it."""
        return self.spec_unchecked()

    def __str__(self) -> str:
        return self.spec()

    def spec_rebuilds(self) -> bool:
        """Whether ``Rules.from_spec(self.spec())`` gives these rules back: true
        of every preset and knob; false where a field that is no knob
        (``counters``, ``bird_points``, a name of one's own) was changed."""
        try:
            return Rules.from_spec(self.spec()) == self
        except RulesError:
            return False

    def __repr__(self) -> str:
        # python-chess style where the text form rebuilds these rules; the fields otherwise
        if self.spec_rebuilds():
            return f"Rules.from_spec({self.spec()!r})"
        return "Rules(" + ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)) + ")"

    # ---------------------------------------------------------------- decks
    @property
    def derived_hand_size(self) -> int:
        """The hand size the deck gives when it is not set: what the nest leaves, per seat."""
        return max(self.deck_size - self.nest_size, 0) // max(self.seats, 1)

    @property
    def bird_count(self) -> int:
        """Birds in the deck: 0, 1 (the Rook) or 2 (with Rook2)."""
        if self.bird == "none":
            return 0
        return 2 if self.double_bird else 1

    @property
    def deck_size(self) -> int:
        """Cards in the deck: the numbers of four colors and the birds."""
        return 4 * len(self.numbers) + self.bird_count

    @cached_property
    def deck_mask(self) -> int:
        """The deck's cards as a bit mask over card indices."""
        m = 0
        for c in range(4):
            for n in self.numbers:
                m |= 1 << (c * 16 + n)
        if self.bird_count >= 1:
            m |= 1 << ROOK_INDEX
        if self.bird_count == 2:
            m |= 1 << ROOK2_INDEX
        return m

    def deck(self) -> list[Card]:
        """Every card of the deck, in canonical order."""
        return [Card.from_index(i) for i in mask_indices(self.deck_mask)]

    @property
    def tricks(self) -> int:
        """Tricks a hand has: one a card of each seat's hand."""
        return self.hand_size

    @property
    def out_of_play(self) -> int:
        """Cards left over after the deal, out of play and unseen."""
        return self.deck_size - self.hand_size * self.seats - self.nest_size

    @property
    def seat_names(self) -> tuple[str, ...]:
        """N E S W at four seats, P1..Pn otherwise."""
        return seat_names(self.seats)

    @property
    def trumps(self) -> tuple[str, ...]:
        """The trump choices: the four colors, and 'none' where allowed (never
        with a Rook in the deck: it is always a trump)."""
        return COLORS + (("none",) if self.no_trump and not self.bird_count else ())

    @cached_property
    def _points_by_index(self) -> tuple[int, ...]:
        table = [0] * 64
        for number, points in self.counters:
            if number in self.numbers:
                for c in range(4):
                    table[c * 16 + number] = points
        if self.bird_count >= 1:
            table[ROOK_INDEX] = self.bird_points
        if self.bird_count == 2:
            table[ROOK2_INDEX] = self.bird_points
        return tuple(table)

    def card_points(self, card: Card | int | str) -> int:
        """What one card counts: a Card, its index or its RDN text."""
        if isinstance(card, str):
            card = Card.from_rdn(card)
        index = card.index if isinstance(card, Card) else _as_index(card)
        if index is None:
            raise RulesError(f"card {shown(card)}: expected a Card, a card index or card text such as 'B14'")
        if not 0 <= index < 64 or not self.deck_mask >> index & 1:
            raise RulesError(f"card {shown(card)}: not a card of the {self.spec()!r} deck")
        return self._points_by_index[index]

    def points_of_mask(self, mask: int | Hand) -> int:
        """What the cards of a bit mask (or a Hand) count together; every card
        must be in the deck."""
        m = mask.mask if isinstance(mask, Hand) else _as_index(mask)
        if m is None:
            raise RulesError(f"mask {shown(mask)}: expected an int bit mask of card indices or a Hand")
        if m < 0 or m & ~self.deck_mask:
            raise RulesError(f"mask {_hex(m)}: has bits that are no card of the {self.spec()!r} deck")
        table = self._points_by_index
        total = 0
        while m:
            low = m & -m
            total += table[low.bit_length() - 1]
            m ^= low
        return total

    @property
    def counter_total(self) -> int:
        """Points in the counters of the whole deck."""
        return self.points_of_mask(self.deck_mask)

    @property
    def total_points(self) -> int:
        """Points a hand distributes when no counter is out of play: counters,
        trick points, the last-trick bonus and the most-tricks bonus (the most
        one side can take; where N is at most half the tricks, a split that
        gives both sides the bonus distributes it twice)."""
        total = self.counter_total + self.trick_points * self.tricks + self.last_trick_bonus
        if self.most_tricks is not None:
            total += self.most_tricks[1]
        return total

    @property
    def has_auction(self) -> bool:
        """Whether these rules bid (bridge does not)."""
        return self.min_bid is not None

    def bid_levels(self) -> list[int]:
        """Every bid the rules allow, from min_bid to max_bid in steps of 5."""
        if not self.has_auction:
            raise RulesError(f"rules {self.spec()!r} have no bidding")
        return list(range(self.min_bid, self.max_bid + 1, 5))

    # ------------------------------------------------------------- rank order
    def color_order(self, trump: str | None = None, color: str | None = None) -> list[int]:
        """Card indices of one color from low to high rank. In the trump color the
        birds are placed per ``bird``; the birds belong to no other color.
        ``trump`` is a color, ``none`` or None (no trump), case ignored;
        ``color`` (B, R, Y or G, case ignored) must be given, though it comes
        second: ``color_order(None, "B")``, not ``color_order("B")``."""
        given = color
        color = ascii_upper(color.strip()) if isinstance(color, str) else color
        if not isinstance(color, str) or color not in COLORS:
            raise RulesError(f"color {shown(given)}: choose one of {' '.join(COLORS)}")
        if trump is not None:  # a trump color or none (no trump), case ignored, as check_trump reads it
            t = ascii_upper(trump.strip()) if isinstance(trump, str) else trump
            if not isinstance(t, str) or (t != "NONE" and t not in COLORS):
                raise RulesError(f"trump {shown(trump)}: expected a trump color ({' '.join(COLORS)}), "
                                 f"none or None")
            trump = None if t == "NONE" else t
        cidx = COLORS.index(color)
        nums = sorted(self.numbers)
        if self.one_high and 1 in nums:
            nums = nums[1:] + [1]
        order = [cidx * 16 + n for n in nums]
        if trump == color and self.bird_count:
            birds = [ROOK2_INDEX, ROOK_INDEX] if self.double_bird else [ROOK_INDEX]  # Rook2 just below
            if self.bird == "high":
                order = order + birds
            elif self.bird == "low":
                order = birds + order
            else:  # ten_and_half: just above every trump that ranks at or below 10
                def rank(idx: int) -> int:
                    n = idx - cidx * 16
                    return 15 if (self.one_high and n == 1) else n
                pos = next((i for i, idx in enumerate(order) if rank(idx) > 10), len(order))
                order = order[:pos] + birds + order[pos:]
        return order

    def check_trump(self, trump: str) -> str:
        """Normalise a trump name (B, R, Y, G or none) or raise."""
        if not isinstance(trump, str):  # str(None) would read as 'none'
            raise RulesError(f"trump {shown(trump)}: expected a trump name ({', '.join(self.trumps)})")
        t = trump.strip()
        t = "none" if ascii_lower(t) == "none" else ascii_upper(t)
        if t not in self.trumps:
            allowed = ", ".join(self.trumps)
            if t not in COLORS and t != "none":  # no trump name at all
                raise RulesError(f"trump {shown(trump)}: choose {allowed}")
            why = (" (the Rook is always a trump, so a trump color must be named)"
                   if t == "none" and self.bird_count else "")
            raise RulesError(f"trump {shown(trump)} is not allowed under {self.spec()!r}: choose {allowed}{why}")
        return t

    def check_seat(self, seat: str) -> int:
        """Index of a seat name (case ignored) or raise."""
        if not isinstance(seat, str):  # str(None) would be read as a name, str(b'N') as "b'N'"
            raise RulesError(f"seat {shown(seat)}: expected a seat name, one of {' '.join(self.seat_names)}")
        s = ascii_upper(seat.strip())
        names = self.seat_names
        if s not in names:
            raise RulesError(f"seat {shown(seat)}: choose one of {' '.join(names)}")
        return names.index(s)

    def side_of(self, seat: int | str, declarer: int | str) -> int:
        """1 for the declaring side, 0 for the defenders (seats as indices or names)."""
        seat, declarer = self.seat_index(seat), self.seat_index(declarer)
        if self.teams is None:
            return 1 if seat == declarer else 0
        return 1 if self.teams[seat] == self.teams[declarer] else 0

    def seat_index(self, seat: int | str, role: str | None = None) -> int:
        """A seat given as an index (0 is the first seat) or a name, checked.
        ``role`` (``"dealer"``, ...) heads the error: ``dealer seat 9: ...``
        names the argument at fault, where a bare ``seat 9`` would not."""
        if role is not None:
            try:
                return self.seat_index(seat)
            except RulesError as e:
                raise RulesError(f"{role} {e}") from None
        if isinstance(seat, str):
            return self.check_seat(seat)
        index = _as_index(seat)  # a numpy integer too, not numpy's bool
        if index is not None:
            seat = index
        if not _is_int(seat) or not 0 <= seat < self.seats:
            raise RulesError(f"seat {shown(seat)}: the rules have seats 0..{self.seats - 1} "
                             f"({' '.join(self.seat_names)})")
        return seat

    @property
    def first_seat(self) -> str:
        """The default bidder and declarer: N, or P1 at other tables."""
        return self.seat_names[0]

    @property
    def last_seat(self) -> str:
        """The default dealer: W, or the last seat at other tables (the first
        seat is then left of the dealer)."""
        return self.seat_names[-1]

    def left_of(self, seat: int | str) -> int:
        """The next seat clockwise (an index; the seat as an index or a name)."""
        seat = self.seat_index(seat)
        return (seat + 1) % self.seats

    def first_leader(self, declarer: int | str, dealer: int | str) -> int:
        """The seat that leads the first trick, by ``first_lead``."""
        declarer, dealer = self.seat_index(declarer), self.seat_index(dealer)
        if self.first_lead == "declarer":
            return declarer
        if self.first_lead == "left_of_declarer":
            return self.left_of(declarer)
        return self.left_of(dealer)


_MAX_KNOB_BITS = 14_000  # about 4,200 decimal digits: str() writes up to 4,300


def _whole_or_as_is(value: Any) -> Any:
    """A numpy integer as a plain int (knobs often come from arrays); any
    other value as it is, for validation to judge (a bool is not 1)."""
    if type(value) is int or isinstance(value, bool):
        return value
    index = _as_index(value)
    return value if index is None else index


def _number_set(value: Any) -> tuple[Any, ...]:
    """The ``numbers`` knob given as numbers (a list, set, range, ...): a set
    of numbers, so in any order, as the text form takes them (``10-14+5``),
    each once, sorted; anything else as it is, for validation to judge."""
    items = tuple(_whole_or_as_is(x) for x in value)
    if not all(_is_int(x) for x in items):
        return items
    twice = sorted(n for n in set(items) if items.count(n) > 1)
    if twice:
        raise RulesError(f"rules knob numbers={shown(value)}: {', '.join(map(str, twice))} given twice")
    return tuple(sorted(items))


def _parse_knob(key: str, value: str) -> Any:
    v = ascii_lower(value.strip())
    if key == "teams":
        if v in (ALONE, "none"):
            return None
        if not v or set(v) - {"0", "1"}:
            raise RulesError(f"rules knob teams={shown(value)}: expected {ALONE} or one side, 0 or 1, "
                             f"a seat clockwise (e.g. 0101)")
        return tuple(int(x) for x in v)
    if key in _BOOL_KNOBS:
        if v in ("true", "yes", "1", "on"):
            return True
        if v in ("false", "no", "0", "off"):
            return False
        raise RulesError(f"rules knob {key}={shown(value)}: expected true or false (or yes/no, on/off, 1/0)")
    if key in _BID_KNOBS and v == "none":
        return None  # no bidding: min_bid, bid_step and max_bid all none (as bridge)
    if key in _INT_KNOBS:
        if not re.fullmatch(r"[+-]?[0-9]+", v):  # int() would also take 7_0 and other scripts' digits
            raise RulesError(f"rules knob {key}={shown(value)}: expected a whole number")
        return int(v)
    if key in _CHOICE_KNOBS:
        if v not in _CHOICE_KNOBS[key]:
            raise RulesError(f"rules knob {key}={shown(value)}: expected one of {', '.join(_CHOICE_KNOBS[key])}")
        return v
    if key == "numbers":
        # runs joined by +: 4-14, or 1+5-14 (commas separate the knobs)
        numbers: list[int] = []
        try:
            for run in v.split("+"):
                low, dash, high = run.partition("-")
                # a number, or low-high with both ends (5- is no run); as the whole-number
                # knobs: no 1_0, no other scripts' digits
                if not re.fullmatch(r"\s*[0-9]+\s*", low) or not re.fullmatch(r"\s*[0-9]+\s*" if dash else "", high):
                    raise ValueError
                first, last = int(low), int(high or low)
                if last < first:
                    raise ValueError
                if first < 1 or last > 14:
                    raise RulesError(f"rules knob numbers={shown(value)}: each color's numbers must lie in 1..14")
                numbers.extend(range(first, last + 1))
        except RulesError:
            raise
        except ValueError:
            raise RulesError(f"rules knob numbers={shown(value)}: expected runs of numbers, low-high, joined "
                             f"by +, e.g. 4-14 or 1+5-14") from None
        if len(set(numbers)) != len(numbers):
            twice = sorted(n for n in set(numbers) if numbers.count(n) > 1)
            raise RulesError(f"rules knob numbers={shown(value)}: {', '.join(map(str, twice))} given twice")
        return tuple(sorted(numbers))
    if key == "most_tricks":
        if v == "none":
            return None
        try:
            parts = v.split(":")
            if not all(re.fullmatch(r"\s*[+-]?[0-9]+\s*", x) for x in parts):
                raise ValueError  # as the whole-number knobs: no 2_0, no other scripts' digits
            n, p = (int(x) for x in parts)
        except ValueError:
            raise RulesError(f"rules knob most_tricks={shown(value)}: expected N:P (e.g. 5:20) or none") from None
        return (n, p)
    raise RulesError(f"unknown rules knob {shown(key)}: knobs are {', '.join(KNOBS)}")


def _format_knob(key: str, value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None and key in _BID_KNOBS:
        return "none"
    if key == "most_tricks":
        return "none" if value is None else f"{value[0]}:{value[1]}"
    if key == "teams":
        return ALONE if value is None else "".join(str(x) for x in value)
    if key == "numbers":
        return number_runs(value)
    return str(value)


_STANDARD_COUNTERS = ((5, 5), (10, 10), (14, 10))

PRESETS: dict[str, Rules] = {
    "full": Rules(
        name="full", numbers=tuple(range(1, 15)), counters=_STANDARD_COUNTERS,
        hand_size=13, nest_size=5, first_lead="declarer", bird_play="trump_suit", nest_to="declarer",
    ),
    "hasbro": Rules(
        name="hasbro", numbers=tuple(range(5, 15)), counters=_STANDARD_COUNTERS,
        hand_size=9, nest_size=5, first_lead="left_of_dealer", bird_play="any_time", nest_to="last_trick",
    ),
    "kentucky": Rules(
        name="kentucky", numbers=(1,) + tuple(range(5, 15)), counters=((1, 15),) + _STANDARD_COUNTERS,
        one_high=True, hand_size=10, nest_size=5, first_lead="left_of_dealer", bird_play="any_time",
        nest_to="last_trick", min_bid=100, max_bid=180, all_pass="dealer_forced", target=500,
    ),
    "dixie40": Rules(
        name="dixie40", numbers=tuple(range(5, 15)), counters=((5, 5), (10, 10), (13, 10)),
        bird="none", hand_size=9, nest_size=4, first_lead="left_of_dealer", bird_play="trump_suit",
        nest_to="last_trick", most_tricks=(5, 20), min_bid=65, max_bid=120, all_pass="dealer_forced",
    ),
    "bridge": Rules(
        name="bridge", numbers=tuple(range(2, 15)), counters=(), bird="none", hand_size=13, nest_size=0,
        first_lead="left_of_declarer", bird_play="trump_suit", nest_to="declarer", trick_points=1,
        min_bid=None, bid_step=None, max_bid=None, no_trump=True,
    ),
}
