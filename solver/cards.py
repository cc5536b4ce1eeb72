"""Cards and hands in Rook deal notation (RDN).

A card has a stable index 0..63 used for bit masks everywhere above the
solver kernels: number cards sit at ``color * 16 + number`` (numbers 1..14),
the Rook at 0 and the second Rook (``Rook2``) at 15, the two lane slots that
number cards never use. The solver re-maps these indices to rank order per
trump; nothing else depends on rank.
"""

from __future__ import annotations

import operator

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Iterable, Iterator

import numpy as np

from .errors import DuplicateCardError, IllegalActionError, InvalidCardError, NotationError

COLORS = ("B", "R", "Y", "G")
COLOR_NAMES = {"B": "black", "R": "red", "Y": "yellow", "G": "green"}
ROOK_INDEX = 0
ROOK2_INDEX = 15
BIRD_MASK = (1 << ROOK_INDEX) | (1 << ROOK2_INDEX)
# every bit that is a card: numbers 1..14 in each color's lane of 16, and the birds
CARD_BITS = BIRD_MASK | sum(0x7FFE << (16 * c) for c in range(len(COLORS)))
# the bits that are not; a negative int has infinitely many of them, so one
# ``mask & _NOT_CARD_BITS`` rejects negative masks and stray bits alike
_NOT_CARD_BITS = ~CARD_BITS

# ASCII digits only: \d would accept other scripts' digits (Arabic-Indic and so on)
_CARD_RE = re.compile(r"([BRYG])([0-9]{1,2})")
_COLOR_INDEX = {c: i for i, c in enumerate(COLORS)}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _as_index(value: object) -> int | None:
    """A whole number as a plain int, a numpy integer too (indices and masks
    often come from arrays); None for anything else, bools included."""
    if type(value) is int:
        return value
    # numpy's bool by name: numpy before 2.3 (the newest for Python 3.10) reads it as 0 or 1
    if isinstance(value, (bool, np.bool_)) or not hasattr(value, "__index__"):
        return None
    try:
        return operator.index(value)
    except TypeError:  # an array of several
        return None


def ascii_upper(text: str) -> str:
    """``text.upper()`` for ASCII text; other text as it is. Case is ignored in
    names, but Unicode's case rules map other letters onto ASCII ones
    (``'\u017f'.upper()`` is ``'S'``, the Kelvin sign's lower case is ``'k'``):
    no such letter may pass for a seat, a card or a knob."""
    return text.upper() if text.isascii() else text


def ascii_lower(text: str) -> str:
    """``text.lower()`` for ASCII text; other text as it is (see ``ascii_upper``)."""
    return text.lower() if text.isascii() else text


def _check_text(text: object, what: str, error: type[NotationError] = InvalidCardError) -> str:
    """``text`` itself when it is a str, else an error saying what was expected."""
    if not isinstance(text, str):
        raise error(f"expected RDN text for {what}, got {shown(text)}")
    return text


def _color_index(color: object) -> int:
    """Lane 0..3 of a color letter B, R, Y or G, case ignored."""
    if isinstance(color, str):
        i = _COLOR_INDEX.get(color)
        if i is None:
            i = _COLOR_INDEX.get(ascii_upper(color.strip()))
        if i is not None:
            return i
    raise InvalidCardError(f"color {shown(color)}: must be one of B, R, Y, G (case ignored)")


@dataclass(frozen=True, order=False)
class Card:
    """One card: ``color`` is B, R, Y or G and ``number`` 1..14; the birds
    have ``color`` None and ``number`` 1 (Rook) or 2 (Rook2)."""

    color: str | None
    number: int

    def __post_init__(self) -> None:
        if type(self.number) is not int:
            number = _as_index(self.number)
            if number is None:
                raise InvalidCardError(f"card number {shown(self.number)}: must be an int, "
                                       f"not {type(self.number).__name__}")
            object.__setattr__(self, "number", number)  # a numpy integer as a plain int
        if self.color is None:
            if self.number not in (1, 2):
                raise InvalidCardError(f"bird number {shown(self.number)}: must be 1 (Rook) or 2 (Rook2)")
        elif not isinstance(self.color, str) or self.color not in COLORS:
            raise InvalidCardError(f"color {shown(self.color)}: must be one of B, R, Y, G")
        elif not 1 <= self.number <= 14:
            raise InvalidCardError(f"number {shown(self.number)}: must be 1..14")

    @classmethod
    def rook(cls, second: bool = False) -> "Card":
        """The Rook, or with ``second`` the second Rook (Rook2)."""
        if not isinstance(second, bool):
            raise InvalidCardError(f"second={shown(second)}: expected True or False")
        return cls(None, 2 if second else 1)

    @classmethod
    def from_rdn(cls, token: str) -> "Card":
        """Parse one card, ignoring case: ``B14``, ``r5``, ``Rook``, ``Rook2``."""
        text = _check_text(token, "a card").strip()
        low = ascii_lower(text)
        if low == "rook":
            return cls(None, 1)
        if low == "rook2":
            return cls(None, 2)
        m = _CARD_RE.fullmatch(ascii_upper(text))
        if not m and ":" in text:
            # a hand copied from a deal line ("N: B14 ...") keeps its seat's label
            raise InvalidCardError(
                f"unknown card {shown(token)}: a seat's label such as 'N:' is not a card (a deal line "
                f"separates the seats' cards with ' / '; a hand is its cards alone)"
            )
        if not m:
            raise InvalidCardError(
                f"unknown card {shown(token)}: expected a color B/R/Y/G and a number 1-14 (e.g. B14), or Rook"
            )
        number = int(m.group(2))
        if not 1 <= number <= 14:
            raise InvalidCardError(f"unknown card {shown(token)}: numbers run from 1 to 14")
        return cls(m.group(1), number)

    @classmethod
    def from_index(cls, index: int) -> "Card":
        """The card at a card index (``Card.index``): 0 the Rook, 15 Rook2, else color * 16 + number."""
        if type(index) is not int:
            given, index = index, _as_index(index)
            if index is None:
                raise InvalidCardError(f"card index {shown(given)}: must be an int, not {type(given).__name__}")
        if index == ROOK_INDEX:
            return cls(None, 1)
        if index == ROOK2_INDEX:
            return cls(None, 2)
        color, number = divmod(index, 16)
        if not (0 <= color < 4 and 1 <= number <= 14):
            raise InvalidCardError(f"card index {shown(index)} is not a card")
        return cls(COLORS[color], number)

    @property
    def is_bird(self) -> bool:
        """True for the Rook and Rook2."""
        return self.color is None

    @property
    def index(self) -> int:
        """The card's index 0..63 in bit masks: color * 16 + number, the Rook 0, Rook2 15."""
        if self.color is None:
            return ROOK_INDEX if self.number == 1 else ROOK2_INDEX
        return COLORS.index(self.color) * 16 + self.number

    @property
    def bit(self) -> int:
        """The card's bit in a mask: ``1 << index``."""
        return 1 << self.index

    def rdn(self) -> str:
        """The card in RDN: ``B14``, ``R5``, ``Rook``, ``Rook2``."""
        if self.color is None:
            return "Rook" if self.number == 1 else "Rook2"
        return f"{self.color}{self.number}"

    def __str__(self) -> str:
        return self.rdn()

    def __repr__(self) -> str:
        return f"Card.from_rdn({self.rdn()!r})"


def canonical_key(index: int, one_high: bool = False) -> tuple[int, int]:
    """Sort key of RDN's canonical order: birds first, then B, R, Y, G, high to
    low; with ``one_high`` (rules where the 1 ranks above the 14) the 1 first."""
    if index == ROOK_INDEX:
        return (-1, 0)
    if index == ROOK2_INDEX:
        return (-1, 1)
    color, number = divmod(index, 16)
    if one_high and number == 1:
        number = 15
    return (color, -number)


def mask_indices(mask: int, one_high: bool = False) -> list[int]:
    """Card indices of a mask, in canonical order (``one_high``: each color's 1 first)."""
    if mask < 0:  # else the loop below never ends
        raise InvalidCardError(f"mask {_hex(mask)} is negative: a mask of cards has bits 0..63 only")
    out = []
    m = mask
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    out.sort(key=(lambda i: canonical_key(i, True)) if one_high else canonical_key)
    return out


def first_card(mask: int, one_high: bool = False) -> str:
    """The first card of a non-empty mask in canonical order (with
    ``one_high``, each color's 1 first), as RDN text: the card an error
    message names."""
    return Card.from_index(mask_indices(mask, one_high)[0]).rdn()


def mask_of(cards: Iterable[Card]) -> int:
    """The bit mask of some cards."""
    m = 0
    for c in cards:
        m |= as_card(c).bit
    return m


def shown(value: object) -> str:
    """``repr(value)`` for an error message, cut short when long. A whole
    number too long for ``repr`` (Python refuses to write an int of more than
    4,300 digits in decimal, with a ValueError) is shown by its size; any
    other value whose ``repr`` fails (a list of such numbers, an object
    whose ``__repr__`` raises), by its type: the message about the bad
    input is raised, not the error of writing it."""
    try:
        text = repr(value)
    except Exception:
        if isinstance(value, int):
            digits = len(format(abs(value), "x")) * 4 * 0.30103  # about: decimal digits of a hex length
            text = f"an int of about {int(digits):,} digits"
        else:
            text = f"a {type(value).__name__} that cannot be written out"
    return _cut_short(text)


def _cut_short(text: str) -> str:
    """``text`` for an error message: at most 200 characters."""
    return text if len(text) <= 200 else text[:197] + "..."


def as_card(card: object) -> Card:
    """A Card, or card text parsed with ``Card.from_rdn``; else an InvalidCardError."""
    if isinstance(card, Card):
        return card
    if isinstance(card, str):
        return Card.from_rdn(card)
    raise InvalidCardError(f"card {shown(card)}: expected a Card or card text such as 'B14'")


_SPLIT_RE = re.compile(r"[\s,]+")


def as_cards(value: object, what: str = "cards") -> list[Card]:
    """Cards in order: a sequence of Cards or card texts, one Card, or one text
    of cards separated by spaces or commas (``"R5 R9"``); None is no card."""
    if value is None:
        return []
    if isinstance(value, str):
        return [Card.from_rdn(t) for t in _SPLIT_RE.split(value.strip()) if t]
    if isinstance(value, Card):
        return [value]
    if isinstance(value, (bytes, bytearray)):  # they iterate as numbers
        raise InvalidCardError(f"{what} {shown(value)}: expected cards as text (str), not bytes")
    try:
        items = list(value)  # type: ignore[call-overload]
    except TypeError:
        raise InvalidCardError(f"{what} {shown(value)}: expected cards, e.g. ['R5', 'R9'] or 'R5 R9'") from None
    return [as_card(c) for c in items]


def trick_cards(value: object) -> list[Card]:
    """The cards of a trick in the order they were played, read as
    ``as_cards`` reads them; a set or a mapping, which has no such order, is
    refused before its cards are read."""
    if isinstance(value, (set, frozenset)):  # its order would follow the hash seed
        raise IllegalActionError(f"trick {shown(value)}: a set has no order; give the cards from the lead")
    if isinstance(value, Mapping):  # list() would take its keys for the cards, whatever its values say
        raise IllegalActionError(f"trick {shown(value)}: expected the cards from the lead, e.g. ['R5', 'R9'] "
                                 f"or 'R5 R9', not a mapping")
    return as_cards(value, "trick")


@dataclass(frozen=True)
class Hand:
    """An unordered set of cards, held as a bit mask of card indices.

    Iteration and ``rdn()`` use the canonical order of RDN."""

    mask: int = 0

    def __post_init__(self) -> None:
        # Hand(mask) is built in sampling loops: two cheap tests on the good path
        mask = self.mask
        if type(mask) is not int:
            mask = _as_index(mask)  # a numpy integer from an array of masks: as a plain int
            if mask is None:
                _bad_mask(self.mask)
            object.__setattr__(self, "mask", mask)
        if mask & _NOT_CARD_BITS:
            _bad_mask(mask)

    @classmethod
    def from_cards(cls, cards: Iterable[Card]) -> "Hand":
        """A hand of the given cards (Card objects, or card texts such as 'B14'); each at most once."""
        if isinstance(cards, (str, bytes, bytearray)):
            raise InvalidCardError(f"cards {shown(cards)}: expected Cards; parse text with Hand.from_rdn")
        try:
            it = iter(cards)
        except TypeError:
            raise InvalidCardError(f"cards {shown(cards)}: expected an iterable of Cards") from None
        m = 0
        for c in it:
            c = as_card(c)
            if m & c.bit:
                raise DuplicateCardError(f"duplicate card {c.rdn()!r}")
            m |= c.bit
        return cls(m)

    @classmethod
    def from_rdn(cls, text: str, deck_mask: int | None = None) -> "Hand":
        """Parse cards separated by spaces or commas. With ``deck_mask``, every
        card must be in that deck (an int bit mask, such as ``rules.deck_mask``)."""
        tokens = [t for t in _SPLIT_RE.split(_check_text(text, "a hand").strip()) if t]
        if deck_mask is not None:
            given, deck_mask = deck_mask, _as_index(deck_mask)  # a numpy integer too
            if deck_mask is None or deck_mask < 0:
                raise InvalidCardError(f"deck_mask={shown(given)}: expected an int bit mask of the deck's "
                                       f"cards, such as rules.deck_mask")
        m = 0
        for tok in tokens:
            card = Card.from_rdn(tok)
            if m & card.bit:
                raise DuplicateCardError(f"duplicate card {card.rdn()!r} in {shown(text.strip())}")
            if deck_mask is not None and not deck_mask & card.bit:
                raise InvalidCardError(f"card {shown(tok)} is not in this deck ({_deck_text(deck_mask)})")
            m |= card.bit
        return cls(m)

    def rdn(self, one_high: bool = False) -> str:
        """The hand in RDN: its cards in canonical order, separated by spaces.
        ``one_high``: as written under rules where the 1 ranks above the 14
        (``rules.one_high``), each color's 1 first."""
        return " ".join(Card.from_index(i).rdn() for i in mask_indices(self.mask, one_high))

    def cards(self) -> list[Card]:
        """The cards, in canonical order (birds first, then B, R, Y, G, high to low)."""
        return [Card.from_index(i) for i in mask_indices(self.mask)]

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards())

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __contains__(self, card: object) -> bool:
        """``card in hand`` for a Card or card text (``"R5" in hand``)."""
        return bool(self.mask & as_card(card).bit)

    def __or__(self, other: "Hand") -> "Hand":
        if not isinstance(other, Hand):
            return NotImplemented
        return Hand(self.mask | other.mask)

    def __and__(self, other: "Hand") -> "Hand":
        if not isinstance(other, Hand):
            return NotImplemented
        return Hand(self.mask & other.mask)

    def __sub__(self, other: "Hand") -> "Hand":
        if not isinstance(other, Hand):
            return NotImplemented
        return Hand(self.mask & ~other.mask)

    def add(self, card: Card | str) -> "Hand":
        """This hand with a card (a Card or card text) added."""
        return Hand(self.mask | as_card(card).bit)

    def remove(self, card: Card | str) -> "Hand":
        """This hand without a card (a Card or card text); the same hand if it lacks it."""
        return Hand(self.mask & ~as_card(card).bit)

    def color_mask(self, color: str) -> int:
        """Number cards of one color, B, R, Y or G, case ignored (the birds are never in a color mask)."""
        return self.mask & (0x7FFE << (16 * _color_index(color)))

    def count(self, color: str) -> int:
        """How many number cards of one color (B, R, Y or G, case ignored) the hand holds."""
        return self.color_mask(color).bit_count()

    def has_bird(self) -> bool:
        """True when the hand holds the Rook or Rook2."""
        return bool(self.mask & BIRD_MASK)

    def __str__(self) -> str:
        return self.rdn()

    def __repr__(self) -> str:
        return f"Hand.from_rdn({self.rdn()!r})"


def number_runs(numbers: Iterable[int]) -> str:
    """Numbers, low to high, as runs joined by +, as the ``numbers`` knob
    writes them: ``1+5-14``."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return "+".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _deck_text(deck_mask: int) -> str:
    """What a deck holds, for an error that says which cards may be written:
    'it holds the numbers 5-14 in each color, and the Rook'."""
    per_color = [number_runs(n for n in range(1, 15) if deck_mask >> (16 * c + n) & 1) or "none"
                 for c in range(len(COLORS))]
    if len(set(per_color)) == 1:
        numbers = f"the numbers {per_color[0]} in each color"
    else:
        numbers = ", ".join(f"{c} {r}" for c, r in zip(COLORS, per_color))
    birds = [name for bit, name in ((ROOK_INDEX, "the Rook"), (ROOK2_INDEX, "Rook2")) if deck_mask >> bit & 1]
    return f"it holds {numbers}" + (", and " + " and ".join(birds) if birds else ", and no Rook")


def _bad_mask(mask: object) -> None:
    """Raise the InvalidCardError that says what is wrong with a Hand's mask."""
    if not _is_int(mask):
        raise InvalidCardError(f"hand mask {shown(mask)}: must be an int bit mask of card indices, "
                               f"not {type(mask).__name__}")
    if mask < 0:
        raise InvalidCardError(f"hand mask {_hex(mask)} is negative: a hand's mask has card bits only")
    stray = mask & _NOT_CARD_BITS
    if stray:
        low = (stray & -stray).bit_length() - 1
        raise InvalidCardError(f"hand mask {_hex(mask)}: bit {low} is no card (card indices are 0 Rook, "
                               f"15 Rook2 and color * 16 + 1..14)")


def _hex(mask: int) -> str:
    """A mask in hexadecimal for an error message, cut short when long."""
    return _cut_short(f"{mask:#x}")
