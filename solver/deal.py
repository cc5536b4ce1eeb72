"""Deals in Rook deal notation and the seeded random dealer."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Iterator

import numpy as np

from .cards import Hand, _as_index, _check_text, first_card, mask_indices, shown
from .errors import DealError, DuplicateCardError, InvalidCardError, RookError, plural
from .rules import Rules

_PART_RE = re.compile(r"^\s*([A-Za-z0-9]+)\s*:\s*(.*?)\s*$", re.S)


@dataclass(frozen=True)
class Deal:
    """The hands of every seat (clockwise from N) and the nest, under some rules.

    A deal can also be a position at a trick boundary: every hand has the same
    number of cards, at most ``rules.hand_size``."""

    rules: Rules
    hands: tuple[Hand, ...]
    nest: Hand = Hand(0)

    def __post_init__(self) -> None:
        r = self.rules
        if not isinstance(r, Rules):
            if not isinstance(r, str):
                raise DealError(f"rules {shown(r)}: expected a Rules or a spec such as 'hasbro'")
            r = Rules.from_spec(r)  # a spec, as every function that takes rules accepts
            object.__setattr__(self, "rules", r)
        if type(self.hands) is not tuple:
            if not isinstance(self.hands, list):
                raise DealError(f"hands {shown(self.hands)}: expected a tuple of {r.seats} Hands, one a seat")
            object.__setattr__(self, "hands", tuple(self.hands))  # a list would make the deal unhashable
        if len(self.hands) != r.seats:
            raise DealError(f"hands {shown(self.hands)}: a deal under {r.spec()!r} has {r.seats} hands, "
                            f"not {len(self.hands)}")
        seen = 0
        for name, hand in zip(r.seat_names, self.hands):
            if not isinstance(hand, Hand):
                raise DealError(f"hand {name} {shown(hand)}: expected a Hand")
            self._check_cards(name, hand.mask, seen)
            seen |= hand.mask
        if not isinstance(self.nest, Hand):
            raise DealError(f"nest {shown(self.nest)}: expected a Hand")
        self._check_cards("nest", self.nest.mask, seen)
        sizes = {len(h) for h in self.hands}
        if len(sizes) > 1:
            detail = ", ".join(f"{n} {len(h)}" for n, h in zip(r.seat_names, self.hands))
            raise DealError(f"unequal hands ({detail}): every hand must hold the same number of cards")
        size = sizes.pop()
        if size > r.hand_size:
            first = shown(self.hands[0].rdn(r.one_high))
            raise DealError(f"hands of {plural(size, 'card')} ({r.seat_names[0]} {first}, ...): "
                            f"{r.spec()!r} deals {r.hand_size} a seat")
        if len(self.nest) > r.nest_size:
            raise DealError(f"nest {shown(self.nest.rdn(r.one_high))}: a nest of {plural(len(self.nest), 'card')}, "
                            f"where {r.spec()!r} has a nest of {r.nest_size}")

    def _check_cards(self, name: str, mask: int, seen: int) -> None:
        outside = mask & ~self.rules.deck_mask
        if outside:
            card = first_card(outside, self.rules.one_high)
            raise InvalidCardError(f"card {shown(card)} ({name}) is not in the {self.rules.spec()!r} deck")
        dup = mask & seen
        if dup:
            card = first_card(dup, self.rules.one_high)
            raise DuplicateCardError(f"duplicate card {shown(card)}: dealt twice (again in {name})")

    # -------------------------------------------------------------- parsing
    @classmethod
    def from_rdn(cls, text: str, rules: Rules | str, complete: bool = False) -> "Deal":
        """Parse ``N: ... / E: ... / S: ... / W: ... [/ nest: ...]``.

        With ``complete``, every hand must hold ``hand_size`` cards and the nest
        ``nest_size`` (a fresh deal rather than a position)."""
        if not isinstance(complete, bool):
            raise DealError(f"complete={shown(complete)}: expected True or False")
        rules = Rules.from_spec(rules)
        names = rules.seat_names
        hands: dict[str, Hand] = {}
        nest: Hand | None = None
        src = _check_text(text, "a deal", DealError).strip()
        if not src:
            raise DealError(f"empty deal: expected '{names[0]}: cards / {names[1]}: cards / ...'")
        for part in src.split("/"):
            if not part.strip():
                raise DealError(f"deal {shown(src)}: an empty part (a / at the start or the end, or two in a "
                                f"row); expected 'SEAT: cards' parts separated by /")
            m = _PART_RE.match(part)
            if not m:
                raise DealError(f"deal part {shown(part.strip())}: expected 'SEAT: cards' with SEAT one of "
                                f"{' '.join(names)} or nest")
            who, cards = m.group(1).upper(), m.group(2)
            if who == "NEST":
                if nest is not None:
                    raise DealError(f"the nest is given twice in {shown(src)}")
                nest = _parse_hand(cards, "nest")
            elif who in names:
                if who in hands:
                    raise DealError(f"seat {who} is given twice in {shown(src)}")
                hands[who] = _parse_hand(cards, who)
            else:
                raise DealError(f"unknown seat {m.group(1)!r} in deal part {shown(part.strip())}: "
                                f"seats are {' '.join(names)} and nest")
        missing = [n for n in names if n not in hands]
        if missing:
            raise DealError(f"deal {shown(src)} has no hand for {' '.join(missing)}")
        deal = cls(rules, tuple(hands[n] for n in names), nest or Hand(0))
        if complete:
            deal.check_complete()
        return deal

    def check_complete(self) -> None:
        """Raise a DealError unless every hand holds ``hand_size`` cards and the nest ``nest_size``."""
        r = self.rules
        for name, hand in zip(r.seat_names, self.hands):
            if len(hand) != r.hand_size:
                raise DealError(f"hand {name} {shown(hand.rdn(r.one_high))} has {plural(len(hand), 'card')}: "
                                f"{r.spec()!r} deals {r.hand_size}")
        if len(self.nest) != r.nest_size:
            raise DealError(f"nest {shown(self.nest.rdn(r.one_high))} has {plural(len(self.nest), 'card')}: "
                            f"{r.spec()!r} has a nest of {r.nest_size}")

    def rdn(self) -> str:
        """The deal in canonical RDN: ``N: ... / E: ... / S: ... / W: ... / nest: ...``."""
        # an empty part is 'nest:' (or 'N:' once every card is played), with no space after it
        high = self.rules.one_high  # the 1 written first where it ranks above the 14
        parts = [f"{n}: {h.rdn(high)}".rstrip() for n, h in zip(self.rules.seat_names, self.hands)]
        if self.rules.nest_size or len(self.nest):
            parts.append(f"nest: {self.nest.rdn(high)}".rstrip())
        return " / ".join(parts)

    def __str__(self) -> str:
        return self.rdn()

    def __repr__(self) -> str:
        # the spec where it rebuilds the rules, else the rules' own repr: never a preset's
        # name standing for rules that only share it
        rules = repr(self.rules.spec()) if self.rules.spec_rebuilds() else repr(self.rules)
        return f"Deal.from_rdn({self.rdn()!r}, {rules})"

    # ------------------------------------------------------------ accessors
    def hand(self, seat: str | int) -> Hand:
        """The hand of a seat, given as an index 0..n-1 clockwise or a name (N, e, P3, ...)."""
        return self.hands[self.rules.seat_index(seat)]

    @property
    def cards_per_hand(self) -> int:
        """Cards in each hand (every hand holds the same number)."""
        return len(self.hands[0])

    @property
    def in_play_mask(self) -> int:
        """The mask of every card in the hands and the nest."""
        m = self.nest.mask
        for h in self.hands:
            m |= h.mask
        return m

    @property
    def out_of_play(self) -> Hand:
        """The deck's cards in no hand and not in the nest."""
        return Hand(self.rules.deck_mask & ~self.in_play_mask)

    def total_points(self) -> int:
        """Points at stake in this position: counters in the hands and nest,
        trick points, the last-trick bonus and the most-tricks bonus where
        exactly one side always reaches it (an odd number of tricks left and
        N their majority). Where both sides may reach it, or neither need,
        the bonus is left out: the points are then not zero-sum (``solve``'s
        two sides may add up to more). With no card left to play, a nest
        that goes to the last trick goes to nobody."""
        r = self.rules
        tricks = self.cards_per_hand
        total = r.points_of_mask(self.in_play_mask) + r.trick_points * tricks
        if tricks:
            total += r.last_trick_bonus
        elif r.nest_to == "last_trick":
            total -= r.points_of_mask(self.nest.mask)
        if r.most_tricks is not None and most_tricks_always_awarded(r.most_tricks[0], tricks):
            total += r.most_tricks[1]
        return total

    def ending(self, cards: int) -> "Deal":
        """Each hand's first ``cards`` cards in canonical order (all of them
        when it holds fewer) and no nest: a small position of the same rules,
        which loads (or compiles) the solver in no time before a timing."""
        given, cards = cards, _as_index(cards)  # a numpy integer too
        if cards is None or cards < 0:
            raise DealError(f"cards={shown(given)}: expected a whole number of cards a hand, 0 or more")
        return self.with_hands([Hand(sum(1 << i for i in mask_indices(h.mask)[:cards])) for h in self.hands],
                               Hand(0))

    def with_hands(self, hands: Iterable[Hand], nest: Hand | None = None) -> "Deal":
        """The same rules with other hands and, when given, another nest (checked as a new deal)."""
        if isinstance(hands, (str, Hand)) or not hasattr(hands, "__iter__"):
            raise DealError(f"hands {shown(hands)}: expected {self.rules.seats} Hands, one a seat")
        try:
            hands = tuple(hands)
        except TypeError:  # has __iter__ but does not iterate: a numpy array of no dimension
            raise DealError(f"hands {shown(hands)}: expected {self.rules.seats} Hands, one a seat") from None
        return Deal(self.rules, hands, self.nest if nest is None else nest)


def most_tricks_always_awarded(n: int, tricks: int) -> bool:
    """True when, over ``tricks`` tricks, exactly one side always reaches ``n``
    (so the bonus goes to one side whatever happens)."""
    return tricks % 2 == 1 and n == (tricks + 1) // 2


def _parse_hand(text: str, who: str) -> Hand:
    try:
        return Hand.from_rdn(text)
    except (InvalidCardError, DuplicateCardError) as e:
        raise type(e)(f"{e} (in {who})") from None


# The largest seed: 64 bits, as a seed is stored (a simulate plan, a report's
# json) and read back by other programs; a seed of thousands of digits was
# taken and then could not be written out (Python's int-to-text limit)
MAX_SEED = 2 ** 64 - 1
# fresh seeds (none given) are drawn below 2^53: a JSON reader that takes numbers as
# doubles (JavaScript, jq 1.6) reads one back unchanged, so it reruns the report
FRESH_SEEDS = 2 ** 53


def seeded_rng(seed: int | np.random.Generator | None) -> np.random.Generator:
    """The generator a seed stands for: None (fresh), a whole number 0 to
    ``MAX_SEED``, a numpy Generator (used as it is), SeedSequence or BitGenerator."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, (np.random.SeedSequence, np.random.BitGenerator)):
        return np.random.default_rng(seed)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                             or not 0 <= seed <= MAX_SEED):
        raise RookError(f"seed {shown(seed)}: expected a whole number 0 or more, at most 2**64 - 1 (or a numpy "
                        "Generator, or None)")
    return np.random.default_rng(seed)


def random_deal(rules: Rules | str, seed: int | np.random.Generator | None = None) -> Deal:
    """One uniformly random deal: ``hand_size`` cards a seat, ``nest_size`` to
    the nest, any remainder out of play. ``seed``: None (fresh randomness), a
    whole number 0 to 2**64 - 1 (the same deal for the same seed and rules), or a
    numpy Generator, SeedSequence or BitGenerator."""
    rules = Rules.from_spec(rules)
    rng = seeded_rng(seed)
    deck = np.array(mask_indices(rules.deck_mask), dtype=np.int64)
    order = rng.permutation(len(deck))
    cards = deck[order]
    k = rules.hand_size
    hands = []
    for s in range(rules.seats):
        m = 0
        for idx in cards[s * k:(s + 1) * k]:
            m |= 1 << int(idx)
        hands.append(Hand(m))
    nest = 0
    start = rules.seats * k
    for idx in cards[start:start + rules.nest_size]:
        nest |= 1 << int(idx)
    return Deal(rules, tuple(hands), Hand(nest))


def random_deals(rules: Rules | str, count: int, seed: int | None = None) -> Iterator[Deal]:
    """``count`` random deals from one seeded stream (``seed`` as ``random_deal``'s)."""
    # checked here, not at the first next(): a generator function would check late
    rules = Rules.from_spec(rules)
    given, count = count, _as_index(count)  # a numpy integer too, as the seed
    if count is None or count < 0:
        raise RookError(f"count {shown(given)}: expected a whole number 0 or more")
    rng = seeded_rng(seed)
    return (random_deal(rules, rng) for _ in range(count))
