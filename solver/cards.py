"""Cards and hands in Rook deal notation (RDN).

A card has a stable index 0..63 used for bit masks everywhere above the
solver kernels: number cards sit at ``color * 16 + number`` (numbers 1..14),
the Rook at 0 and the second Rook (``Rook2``) at 15, the two lane slots that
number cards never use. The solver re-maps these indices to rank order per
trump; nothing else depends on rank.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Iterator

from .errors import DuplicateCardError, InvalidCardError

COLORS = ("B", "R", "Y", "G")
COLOR_NAMES = {"B": "black", "R": "red", "Y": "yellow", "G": "green"}
ROOK_INDEX = 0
ROOK2_INDEX = 15
BIRD_MASK = (1 << ROOK_INDEX) | (1 << ROOK2_INDEX)

_CARD_RE = re.compile(r"^([BRYG])(\d{1,2})$")


@dataclass(frozen=True, order=False)
class Card:
    """One card: ``color`` is B, R, Y or G and ``number`` 1..14; the birds
    have ``color`` None and ``number`` 1 (Rook) or 2 (Rook2)."""

    color: str | None
    number: int

    def __post_init__(self) -> None:
        if self.color is None:
            if self.number not in (1, 2):
                raise InvalidCardError(f"bird number {self.number!r}: must be 1 (Rook) or 2 (Rook2)")
        elif self.color not in COLORS:
            raise InvalidCardError(f"color {self.color!r}: must be one of B, R, Y, G")
        elif not 1 <= self.number <= 14:
            raise InvalidCardError(f"number {self.number!r}: must be 1..14")

    @classmethod
    def rook(cls, second: bool = False) -> "Card":
        return cls(None, 2 if second else 1)

    @classmethod
    def from_rdn(cls, token: str) -> "Card":
        """Parse one card, ignoring case: ``B14``, ``r5``, ``Rook``, ``Rook2``."""
        text = token.strip()
        low = text.lower()
        if low == "rook":
            return cls(None, 1)
        if low == "rook2":
            return cls(None, 2)
        m = _CARD_RE.match(text.upper())
        if not m:
            raise InvalidCardError(
                f"unknown card {token!r}: expected a color B/R/Y/G and a number 1-14 (e.g. B14), or Rook"
            )
        number = int(m.group(2))
        if not 1 <= number <= 14:
            raise InvalidCardError(f"unknown card {token!r}: numbers run from 1 to 14")
        return cls(m.group(1), number)

    @classmethod
    def from_index(cls, index: int) -> "Card":
        if index == ROOK_INDEX:
            return cls(None, 1)
        if index == ROOK2_INDEX:
            return cls(None, 2)
        color, number = divmod(index, 16)
        if not (0 <= color < 4 and 1 <= number <= 14):
            raise InvalidCardError(f"card index {index!r} is not a card")
        return cls(COLORS[color], number)

    @property
    def is_bird(self) -> bool:
        return self.color is None

    @property
    def index(self) -> int:
        if self.color is None:
            return ROOK_INDEX if self.number == 1 else ROOK2_INDEX
        return COLORS.index(self.color) * 16 + self.number

    @property
    def bit(self) -> int:
        return 1 << self.index

    def rdn(self) -> str:
        if self.color is None:
            return "Rook" if self.number == 1 else "Rook2"
        return f"{self.color}{self.number}"

    def __str__(self) -> str:
        return self.rdn()

    def __repr__(self) -> str:
        return f"Card.from_rdn({self.rdn()!r})"


def canonical_key(index: int) -> tuple[int, int]:
    """Sort key of RDN's canonical order: birds first, then B, R, Y, G, high to low."""
    if index == ROOK_INDEX:
        return (-1, 0)
    if index == ROOK2_INDEX:
        return (-1, 1)
    color, number = divmod(index, 16)
    return (color, -number)


def mask_indices(mask: int) -> list[int]:
    """Card indices of a mask, in canonical order."""
    out = []
    m = mask
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    out.sort(key=canonical_key)
    return out


def mask_of(cards: Iterable[Card]) -> int:
    m = 0
    for c in cards:
        m |= c.bit
    return m


_SPLIT_RE = re.compile(r"[\s,]+")


@dataclass(frozen=True)
class Hand:
    """An unordered set of cards, held as a bit mask of card indices.

    Iteration and ``rdn()`` use the canonical order of RDN."""

    mask: int = 0

    @classmethod
    def from_cards(cls, cards: Iterable[Card]) -> "Hand":
        m = 0
        for c in cards:
            if m & c.bit:
                raise DuplicateCardError(f"duplicate card {c.rdn()!r}")
            m |= c.bit
        return cls(m)

    @classmethod
    def from_rdn(cls, text: str, deck_mask: int | None = None) -> "Hand":
        """Parse cards separated by spaces or commas. With ``deck_mask``, every
        card must be in that deck."""
        tokens = [t for t in _SPLIT_RE.split(text.strip()) if t]
        m = 0
        for tok in tokens:
            card = Card.from_rdn(tok)
            if m & card.bit:
                raise DuplicateCardError(f"duplicate card {card.rdn()!r} in {text.strip()!r}")
            if deck_mask is not None and not deck_mask & card.bit:
                raise InvalidCardError(f"card {tok!r} is not in this deck")
            m |= card.bit
        return cls(m)

    def rdn(self) -> str:
        return " ".join(Card.from_index(i).rdn() for i in mask_indices(self.mask))

    def cards(self) -> list[Card]:
        return [Card.from_index(i) for i in mask_indices(self.mask)]

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards())

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __contains__(self, card: object) -> bool:
        return isinstance(card, Card) and bool(self.mask & card.bit)

    def __or__(self, other: "Hand") -> "Hand":
        return Hand(self.mask | other.mask)

    def __and__(self, other: "Hand") -> "Hand":
        return Hand(self.mask & other.mask)

    def __sub__(self, other: "Hand") -> "Hand":
        return Hand(self.mask & ~other.mask)

    def add(self, card: Card) -> "Hand":
        return Hand(self.mask | card.bit)

    def remove(self, card: Card) -> "Hand":
        return Hand(self.mask & ~card.bit)

    def color_mask(self, color: str) -> int:
        """Number cards of one color (the birds are never in a color mask)."""
        return self.mask & (0x7FFE << (16 * COLORS.index(color)))

    def count(self, color: str) -> int:
        return self.color_mask(color).bit_count()

    def has_bird(self) -> bool:
        return bool(self.mask & BIRD_MASK)

    def __str__(self) -> str:
        return self.rdn()

    def __repr__(self) -> str:
        return f"Hand.from_rdn({self.rdn()!r})"
