"""A plain-Python game engine: the auction, the nest, trump, the tricks, the
score of a hand and a match to the target, written from RULES.md.

Clarity lives here, speed in the solver: nothing in this module depends on
the Numba kernels, so the two can be checked against each other.

    >>> from rook_analyze.solver import Rules
    >>> from rook_analyze.solver.game import Round
    >>> rnd = Round.new("hasbro", seed=1)         # rules or their text; W deals by default
    >>> rnd.dealer, rnd.to_act, rnd.phase         # bidding starts left of the dealer
    (3, 0, 'auction')
    >>> rnd = Round.new(Rules.preset("hasbro"), dealer="W", seed=1)
    >>> rnd.to_act, rnd.phase
    (0, 'auction')
    >>> rnd.call(70); rnd.call("pass"); rnd.call("pass"); rnd.call("pass")
    >>> rnd.declarer, rnd.bid, rnd.phase
    (0, 70, 'exchange')

``Auction`` is the bidding alone; ``Round`` one hand of play from the deal to
its ``HandResult`` (a round, to keep the name ``Hand`` for a set of cards);
``Match`` the running totals to ``rules.target``. Every action that the rules
do not allow raises ``IllegalActionError`` saying what was tried and why it
is illegal. ``legal_plays`` and ``trick_winner`` are the rules of the play as
plain functions.

Rules are a ``Rules`` or their text (``"hasbro,bird=low"``); seats a name or
an index; the dealer defaults to ``rules.last_seat`` (W), as in the solver
and the command line; a seed is a whole number 0 to 2**64 - 1, None or a numpy
``Generator``. Bad input raises a ``RookError`` that quotes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

import numpy as np

from .cards import BIRD_MASK, COLOR_NAMES, COLORS, Card, Hand, as_card, as_cards, mask_of, shown, trick_cards
from .deal import Deal, random_deal, seeded_rng
from .errors import DealError, IllegalActionError, InvalidCardError, RookError, RulesError, plural
from .rules import Rules

__all__ = [
    "PHASES", "suit_of", "legal_plays", "trick_winner", "party_of", "party_count", "match_winner",
    "Call", "Auction", "Trick", "Position", "HandResult", "Round", "Match",
]

PHASES = ("auction", "redeal", "exchange", "play", "done")


# ------------------------------------------------------------------ inputs
def _dealer(rules: Rules, dealer: int | str | None) -> int:
    """The dealer's index; None: ``rules.last_seat``, as everywhere else."""
    return rules.seat_index(rules.last_seat if dealer is None else dealer)


def _hand(value: Hand | str) -> Hand:
    if isinstance(value, Hand):
        return value
    if isinstance(value, str):
        return Hand.from_rdn(value)
    raise InvalidCardError(f"hand {shown(value)}: expected a Hand or its text, e.g. 'B14 B5 R10'")


# ------------------------------------------------------------------ the play
def suit_of(card: Card, trump: str) -> str:
    """The color a card belongs to when following: the birds belong to the trump color."""
    return trump if card.is_bird else card.color


@lru_cache(maxsize=512)
def _rank_table(rules: Rules, trump: str) -> tuple[int, ...]:
    """Rank of each card index inside its own color (birds: inside trump), low = 0."""
    table = [-1] * 64
    for color in COLORS:
        for pos, idx in enumerate(rules.color_order(trump, color)):
            table[idx] = pos
    return tuple(table)


def _check_trump(rules: Rules, trump: str) -> str:
    """``rules.check_trump``, refused as an illegal action of the game."""
    try:
        return rules.check_trump(trump)
    except RulesError as e:
        raise IllegalActionError(str(e)) from None


def _suit_mask(hand: Hand, suit: str, trump: str) -> int:
    mask = hand.color_mask(suit)
    if suit == trump:
        mask |= hand.mask & BIRD_MASK
    return mask


def legal_plays(hand: Hand | str, trick: Sequence[Card | str] | str, trump: str, rules: Rules | str) -> Hand:
    """The cards of ``hand`` that may be played to ``trick`` (the cards played so
    far, the lead first; cards or their text, e.g. ``"R5 R9"``).

    A seat holding a card of the led color must play one (a bird led is trump
    led; the birds are trumps); a void seat may play anything. Under
    ``bird_play=any_time`` the birds may also be played when the seat could
    follow."""
    rules = Rules.from_spec(rules)
    trump = _check_trump(rules, trump)
    hand = _hand(hand)
    trick = _trick(rules, trick, rules.seats - 1)
    high = rules.one_high  # the 1 written first where it ranks above the 14
    if hand.mask & ~rules.deck_mask:
        raise InvalidCardError(f"hand {hand.rdn(high)!r}: {Hand(hand.mask & ~rules.deck_mask).rdn(high)} "
                               f"not in the deck")
    if hand.mask & mask_of(trick):
        raise IllegalActionError(f"hand {hand.rdn(high)!r} holds {Hand(hand.mask & mask_of(trick)).rdn(high)}, "
                                 f"already played to the trick")
    if not trick:
        return hand
    led = suit_of(trick[0], trump)
    follow = _suit_mask(hand, led, trump)
    if not follow:
        return hand
    if rules.bird_play == "any_time":
        follow |= hand.mask & BIRD_MASK
    return Hand(follow)


def _trick(rules: Rules, value, most: int) -> list[Card]:
    """The cards of a trick, checked: at most ``most``, each once, all in the deck."""
    trick = trick_cards(value)
    if len(trick) > most:
        raise IllegalActionError(f"trick {' '.join(c.rdn() for c in trick[:8])}{' ...' if len(trick) > 8 else ''}: "
                                 f"{len(trick)} cards, at most {most} at {rules.seats} seats")
    if len({c.index for c in trick}) != len(trick):
        raise IllegalActionError(f"trick {' '.join(c.rdn() for c in trick)}: a card played twice")
    outside = mask_of(trick) & ~rules.deck_mask
    if outside:
        raise InvalidCardError(f"trick {' '.join(c.rdn() for c in trick)}: {Hand(outside).rdn(rules.one_high)} "
                               f"not in the deck")
    return trick


def trick_winner(trick: Sequence[Card | str] | str, trump: str, rules: Rules | str) -> int:
    """Position in ``trick`` (0 = the lead) of the winning card: the highest
    trump (birds placed per ``rules.bird``), else the highest card of the led
    color (``rules.color_order`` decides ranks, so ``one_high`` is honoured)."""
    rules = Rules.from_spec(rules)
    given, trick = trick, _trick(rules, trick, rules.seats)
    if not trick:
        raise IllegalActionError(f"trick {shown(given)}: an empty trick has no winner")
    trump = _check_trump(rules, trump)
    ranks = _rank_table(rules, trump)
    led = suit_of(trick[0], trump)
    best, best_key = 0, (-1, -1)
    for pos, card in enumerate(trick):
        suit = suit_of(card, trump)
        if suit == trump:
            key = (2, ranks[card.index])
        elif suit == led:
            key = (1, ranks[card.index])
        else:
            continue
        if key > best_key:
            best, best_key = pos, key
    return best


# ------------------------------------------------------------------ parties
def party_of(rules: Rules | str, seat: int | str) -> int:
    """The scoring party of a seat: its team, or the seat itself when every
    player scores alone (``rules.teams`` is None, e.g. three-player cutthroat)."""
    rules = Rules.from_spec(rules)
    seat = rules.seat_index(seat)
    return rules.teams[seat] if rules.teams is not None else seat


def party_count(rules: Rules | str) -> int:
    """How many parties score: 2 teams, or every seat when each plays alone."""
    rules = Rules.from_spec(rules)
    return 2 if rules.teams is not None else rules.seats


def match_winner(totals: Sequence[int], target: int) -> int | None:
    """The party that has won a match with these running totals, or None.

    Every party at ``target`` or more is a candidate; the highest total among
    them wins; a tie for the highest means another hand is played."""
    if isinstance(target, bool) or not isinstance(target, (int, np.integer)) or target <= 0:
        raise RookError(f"target {shown(target)}: expected a whole number above 0")
    if isinstance(totals, (str, bytes)):
        raise RookError(f"totals {shown(totals)}: expected a sequence of whole numbers, one per party")
    try:
        totals = list(totals)
    except TypeError:
        raise RookError(f"totals {shown(totals)}: expected a sequence of whole numbers, one per party") from None
    if not all(isinstance(t, (int, np.integer)) and not isinstance(t, bool) for t in totals):
        raise RookError(f"totals {shown(totals)}: expected a sequence of whole numbers, one per party")
    over = [t for t in totals if t >= target]
    if not over:
        return None
    top = max(over)
    if over.count(top) > 1:
        return None
    return list(totals).index(top)


# ------------------------------------------------------------------ auction
@dataclass(frozen=True)
class Call:
    """One call of the auction: a bid, or a pass (``bid`` None)."""

    seat: int
    bid: int | None

    @property
    def is_pass(self) -> bool:
        """True for a pass."""
        return self.bid is None


def _parse_bid(value: int | str | None) -> int | None:
    """None or 'pass' for a pass, else the bid as an int."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("pass", "p"):
            return None
        if not re.fullmatch(r"[0-9]+", text):  # int() would also take other scripts' digits
            raise IllegalActionError(f"call {shown(value)}: expected a bid (a number) or pass")
        try:
            return int(text)
        except ValueError:  # over Python's 4,300 digits: no bid is near that
            raise IllegalActionError(f"call {shown(value)}: a bid of {len(text):,} digits, above any "
                                     f"max_bid") from None
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    raise IllegalActionError(f"call {shown(value)}: expected a bid (a number) or pass")


class Auction:
    """The bidding of one hand, as a state machine.

    Bidding starts left of the dealer and goes clockwise; each call is a pass
    or a bid (the first at least ``min_bid``, each later one at least
    ``bid_step`` above the high bid, multiples of 5, at most ``max_bid``); a
    seat that passed is out. The auction ends when, after a bid, every seat
    but one has passed (the last bidder declares), or when every seat has
    passed: then ``all_pass=redeal`` asks for a new deal (``redeal``) and
    ``dealer_forced`` makes the dealer declarer at ``min_bid`` (``forced``).
    ``dealer`` defaults to ``rules.last_seat`` (W)."""

    def __init__(self, rules: Rules | str, dealer: int | str | None = None):
        rules = Rules.from_spec(rules)
        if not rules.has_auction:
            raise RulesError(f"rules {rules.spec()!r} have no bidding: name the declarer instead")
        self.rules = rules
        self.dealer = _dealer(rules, dealer)
        self.calls: list[Call] = []
        self._passed: set[int] = set()
        self._high: Call | None = None
        self._to_call: int | None = rules.left_of(self.dealer)
        self.forced = False
        self.redeal = False

    # ------------------------------------------------------------ state
    @property
    def to_call(self) -> int | None:
        """The seat whose call it is, None once the auction is over."""
        return self._to_call

    @property
    def is_over(self) -> bool:
        """True once the auction has ended (a declarer, or a redeal)."""
        return self._to_call is None

    @property
    def passed(self) -> frozenset[int]:
        """The seats that have passed (and are out)."""
        return frozenset(self._passed)

    @property
    def high_bid(self) -> int | None:
        """The highest bid so far, None before any bid."""
        return self._high.bid if self._high else None

    @property
    def high_bidder(self) -> int | None:
        """The seat of the highest bid so far, None before any bid."""
        return self._high.seat if self._high else None

    @property
    def declarer(self) -> int | None:
        """The declarer once the auction is over (None while bidding and after a redeal)."""
        if not self.is_over or self.redeal:
            return None
        return self.dealer if self.forced else self._high.seat

    @property
    def bid(self) -> int | None:
        """The contract once the auction is over."""
        if self.declarer is None:
            return None
        return self.rules.min_bid if self.forced else self._high.bid

    def min_next_bid(self) -> int | None:
        """The lowest bid the seat to call may make, None when only a pass is left."""
        if self.is_over:
            return None
        r = self.rules
        low = r.min_bid if self._high is None else self._high.bid + r.bid_step
        low = -(-low // 5) * 5  # bids are multiples of 5
        return low if low <= r.max_bid else None

    def legal_calls(self) -> list[int | None]:
        """Every call the seat to call may make: None (pass) and the allowed bids."""
        if self.is_over:
            return []
        low = self.min_next_bid()
        bids = [] if low is None else list(range(low, self.rules.max_bid + 1, 5))
        return [None] + bids

    # ---------------------------------------------------------- actions
    def _name(self, seat: int) -> str:
        return self.rules.seat_names[seat]

    def call(self, bid: int | str | None, seat: int | str | None = None) -> None:
        """Make the next call: a bid (int or its text) or a pass (None or 'pass').
        With ``seat``, it must be that seat's turn."""
        amount = _parse_bid(bid)
        r = self.rules
        if self.is_over:
            how = ("every seat passed: redeal" if self.redeal else
                   f"{self._name(self.declarer)} declares at {self.bid}")
            raise IllegalActionError(f"call {shown(bid)}: the auction is over ({how})")
        who = self._to_call
        if seat is not None:
            s = r.seat_index(seat)
            if s in self._passed:
                raise IllegalActionError(f"{self._name(s)} has passed and is out of the auction")
            if s != who:
                raise IllegalActionError(f"it is {self._name(who)}'s turn to call, not {self._name(s)}")
        if amount is not None:
            what = f"bid {shown(amount)} by {self._name(who)}"  # shown: an int too long to write
            if amount % 5:
                raise IllegalActionError(f"{what}: bids are multiples of 5")
            if amount > r.max_bid:
                raise IllegalActionError(f"{what}: above max_bid {r.max_bid}")
            if self._high is None and amount < r.min_bid:
                raise IllegalActionError(f"{what}: the first bid must be at least min_bid {r.min_bid}")
            if self._high is not None and amount < self._high.bid + r.bid_step:
                raise IllegalActionError(
                    f"{what}: must be at least {self._high.bid + r.bid_step} (the high bid "
                    f"{self._high.bid} by {self._name(self._high.seat)} plus bid_step {r.bid_step})"
                )
        call = Call(who, amount)
        self.calls.append(call)
        if amount is None:
            self._passed.add(who)
        else:
            self._high = call
        self._advance()

    def pass_(self, seat: int | str | None = None) -> None:
        """Pass (``call(None, seat)``)."""
        self.call(None, seat)

    def _advance(self) -> None:
        r = self.rules
        active = [s for s in range(r.seats) if s not in self._passed]
        if self._high is not None and len(active) == 1:
            self._to_call = None
            return
        if not active:
            self._to_call = None
            if r.all_pass == "redeal":
                self.redeal = True
            else:
                self.forced = True
            return
        s = r.left_of(self._to_call)
        while s in self._passed:
            s = r.left_of(s)
        self._to_call = s


# ------------------------------------------------------------------- tricks
@dataclass(frozen=True)
class Trick:
    """A finished trick: who led, the cards in play order, who won it."""

    leader: int
    cards: tuple[Card, ...]
    winner: int

    def seat_of(self, position: int, seats: int) -> int:
        """The seat that played the card at ``position`` (0 = the lead) at a table of ``seats``."""
        return (self.leader + position) % seats

    def points(self, rules: Rules) -> int:
        """Counters in the trick plus ``trick_points`` (bonuses are the hand's)."""
        return rules.points_of_mask(mask_of(self.cards)) + rules.trick_points


@dataclass(frozen=True)
class Position:
    """The hand as the solver sees it: ``deal`` holds the hands at the start of
    the current trick (the cards of ``trick`` still in them) and the nest as it
    lies (the declarer's discards). Points captured in finished tricks are not
    part of it."""

    deal: Deal
    trump: str
    declarer: int
    leader: int
    trick: tuple[Card, ...]


@dataclass(frozen=True)
class HandResult:
    """The score of one hand. Tuples are indexed by party (``party_of``): the
    two teams, or each seat when every player scores alone."""

    rules: Rules
    dealer: int
    declarer: int
    bid: int | None
    trump: str
    forced: bool
    tricks_won: tuple[int, ...]
    captured: tuple[int, ...]     # counters, trick points, bonuses and the nest, per party
    score: tuple[int, ...]        # what each party writes down

    @property
    def declaring_party(self) -> int:
        """The party of the declarer."""
        return party_of(self.rules, self.declarer)

    @property
    def declaring_points(self) -> int:
        """Points the declaring side captured (what the double-dummy value counts)."""
        return self.captured[self.declaring_party]

    @property
    def defending_points(self) -> int:
        """Points the other parties captured."""
        return sum(self.captured) - self.declaring_points

    @property
    def made(self) -> bool | None:
        """Whether the declaring side reached its bid (None without a bid)."""
        return None if self.bid is None else self.declaring_points >= self.bid

    @property
    def points_in_play(self) -> int:
        """Every point captured in the hand."""
        return sum(self.captured)


# -------------------------------------------------------------------- round
class Round:
    """One hand of play, from a complete deal to its ``HandResult``.

    Phases (``phase``): ``auction`` (``call``), then ``redeal`` when every seat
    passed under ``all_pass=redeal`` (the round ends there), else
    ``exchange``: the declarer has taken the nest and must ``name_trump`` and
    ``discard`` nest_size cards (either order); then ``play`` (``play``,
    ``legal_plays``) and ``done`` (``result``). Give ``declarer`` (and
    optionally ``bid``) to skip the auction, as rules without bidding need.
    ``deal`` is a complete ``Deal`` (``Deal.from_rdn(text, rules)``, or
    ``Round.new`` deals one); ``dealer`` defaults to ``rules.last_seat`` (W).
    The state machine is mutable; its results (``Trick``, ``HandResult``,
    ``Position``) are frozen values."""

    def __init__(self, deal: Deal, dealer: int | str | None = None, *,
                 declarer: int | str | None = None, bid: int | None = None):
        if not isinstance(deal, Deal):
            raise DealError(f"deal {shown(deal)}: expected a Deal; build one with Deal.from_rdn(text, rules), "
                            f"or deal one with Round.new(rules, seed=...)")
        deal.check_complete()
        r = deal.rules
        self.rules = r
        self.deal = deal
        self.dealer = _dealer(r, dealer)
        self.hands: list[Hand] = list(deal.hands)
        self.nest: Hand = deal.nest
        self.auction: Auction | None = None
        self.declarer: int | None = None
        self.bid: int | None = None
        self.forced = False
        self.trump: str | None = None
        self.discards: Hand | None = None
        self.tricks: list[Trick] = []
        self.trick: list[Card] = []
        self.leader: int | None = None
        if declarer is None:
            if bid is not None:
                raise IllegalActionError(f"bid {shown(bid)} without a declarer: name the declarer too")
            self.auction = Auction(r, self.dealer)
        else:
            if bid is not None:
                amount = _parse_bid(bid)
                if r.has_auction and amount not in r.bid_levels():
                    raise IllegalActionError(
                        f"bid {shown(bid)}: bids run from min_bid {r.min_bid} to max_bid {r.max_bid} in 5s"
                    )
                bid = amount
            self._set_declarer(r.seat_index(declarer), bid)

    @classmethod
    def new(cls, rules: Rules | str, dealer: int | str | None = None,
            seed: int | np.random.Generator | None = None, **kwargs) -> "Round":
        """Deal a fresh random hand (``random_deal``, reproducible per seed)."""
        rules = Rules.from_spec(rules)
        return cls(random_deal(rules, seed), dealer, **kwargs)

    # ------------------------------------------------------------ state
    @property
    def phase(self) -> str:
        """The current phase, one of ``PHASES``."""
        if self.declarer is None:
            return "redeal" if self.auction.redeal else "auction"
        if self.trump is None or self.discards is None:
            return "exchange"
        if len(self.tricks) < self.rules.tricks:
            return "play"
        return "done"

    @property
    def is_over(self) -> bool:
        """True once the hand is done or must be dealt again."""
        return self.phase in ("redeal", "done")

    @property
    def to_act(self) -> int | None:
        """The seat to call, exchange or play; None when the round is over."""
        phase = self.phase
        if phase == "auction":
            return self.auction.to_call
        if phase == "exchange":
            return self.declarer
        if phase == "play":
            return (self.leader + len(self.trick)) % self.rules.seats
        return None

    def _name(self, seat: int) -> str:
        return self.rules.seat_names[seat]

    def _need(self, phase: str, action: str) -> None:
        now = self.phase
        if now == phase:
            return
        why = {
            "auction": "the auction is not over",
            "redeal": "every seat passed: the hand is dealt again",
            "exchange": f"the declarer {self._name(self.declarer) if self.declarer is not None else ''} "
                        f"has not yet {'named trump' if self.trump is None else 'discarded'}",
            "play": "the play of the tricks has begun",
            "done": "the hand is over",
        }[now]
        raise IllegalActionError(f"cannot {action} now: {why}")

    # ---------------------------------------------------------- auction
    def call(self, bid: int | str | None, seat: int | str | None = None) -> None:
        """A call of the auction (see ``Auction.call``)."""
        self._need("auction", f"call {shown(bid)}")
        self.auction.call(bid, seat)
        if self.auction.declarer is not None:
            self.forced = self.auction.forced
            self._set_declarer(self.auction.declarer, self.auction.bid)

    def _set_declarer(self, declarer: int, bid: int | None) -> None:
        self.declarer = declarer
        self.bid = bid
        # the declarer takes the nest into hand
        self.hands[declarer] = self.hands[declarer] | self.nest
        self.nest = Hand(0)
        if self.rules.nest_size == 0:
            self.discards = Hand(0)
        self._maybe_start_play()

    # --------------------------------------------------------- exchange
    def name_trump(self, trump: str, seat: int | str | None = None) -> None:
        """The declarer names trump: a color, or 'none' where the rules allow it."""
        self._need("exchange", f"name trump {shown(trump)}")
        self._check_declarer(seat, "name trump")
        if self.trump is not None:
            raise IllegalActionError(f"cannot name trump {shown(trump)}: trump is already {self.trump}")
        self.trump = _check_trump(self.rules, trump)
        self._maybe_start_play()

    def discard(self, cards: Iterable[Card | str] | str, seat: int | str | None = None) -> None:
        """The declarer lays ``nest_size`` cards away as the new nest (any cards, counters included)."""
        self._need("exchange", "discard")
        self._check_declarer(seat, "discard")
        name = self._name(self.declarer)
        if self.discards is not None:
            why = "there is no nest" if self.rules.nest_size == 0 else "already discarded"
            raise IllegalActionError(f"{name} cannot discard {shown(cards)}: {why}")
        chosen: list[Card] = []
        for card in as_cards(cards, "discard"):
            if card in chosen:
                raise IllegalActionError(f"{name} cannot discard {card} twice")
            if card not in self.hands[self.declarer]:
                raise IllegalActionError(f"{name} cannot discard {card}: not in {name}'s hand")
            chosen.append(card)
        k = self.rules.nest_size
        if len(chosen) != k:
            raise IllegalActionError(
                f"{name} discards {plural(len(chosen), 'card')} ({' '.join(map(str, chosen)) or 'none'}): "
                f"the declarer must discard exactly {k} (nest_size)"
            )
        self.discards = Hand.from_cards(chosen)
        self.hands[self.declarer] = self.hands[self.declarer] - self.discards
        self.nest = self.discards
        self._maybe_start_play()

    def _check_declarer(self, seat: int | str | None, action: str) -> None:
        if seat is not None and self.rules.seat_index(seat) != self.declarer:
            raise IllegalActionError(
                f"{self._name(self.rules.seat_index(seat))} cannot {action}: "
                f"{self._name(self.declarer)} is the declarer"
            )

    def _maybe_start_play(self) -> None:
        if self.trump is not None and self.discards is not None and self.leader is None:
            self.leader = self.rules.first_leader(self.declarer, self.dealer)

    # ------------------------------------------------------------- play
    def legal_plays(self) -> Hand:
        """The cards the seat to play may play."""
        self._need("play", "list legal plays")
        return legal_plays(self.hands[self.to_act], self.trick, self.trump, self.rules)

    def play(self, card: Card | str, seat: int | str | None = None) -> Trick | None:
        """Play a card for the seat to play; returns the ``Trick`` when it completes one."""
        card = as_card(card)
        self._need("play", f"play {card}")
        r = self.rules
        who = self.to_act
        name = self._name(who)
        if seat is not None and r.seat_index(seat) != who:
            raise IllegalActionError(f"it is {name}'s turn to play, not {self._name(r.seat_index(seat))}")
        hand = self.hands[who]
        if card not in hand:
            raise IllegalActionError(f"{name} cannot play {card}: {name} does not hold it")
        legal = legal_plays(hand, self.trick, self.trump, r)
        if card not in legal:
            led = suit_of(self.trick[0], self.trump)
            what = f"trump ({COLOR_NAMES[led]})" if led == self.trump else COLOR_NAMES[led]
            follow = Hand(_suit_mask(hand, led, self.trump))
            raise IllegalActionError(
                f"{name} cannot play {card}: {self.trick[0]} led {what} and {name} must follow "
                f"with {follow.rdn(r.one_high)}; legal: {legal.rdn(r.one_high)}"
            )
        self.hands[who] = hand.remove(card)
        self.trick.append(card)
        if len(self.trick) < r.seats:
            return None
        pos = trick_winner(self.trick, self.trump, r)
        done = Trick(self.leader, tuple(self.trick), (self.leader + pos) % r.seats)
        self.tricks.append(done)
        self.trick = []
        self.leader = done.winner
        return done

    def position(self) -> Position:
        """The current position at its trick boundary, for the solver."""
        self._need("play", "take the position")
        r = self.rules
        hands = list(self.hands)
        for pos, card in enumerate(self.trick):
            seat = (self.leader + pos) % r.seats
            hands[seat] = hands[seat].add(card)
        deal = Deal(r, tuple(hands), self.nest)
        return Position(deal, self.trump, self.declarer, self.leader, tuple(self.trick))

    # ------------------------------------------------------------ score
    def result(self) -> HandResult:
        """The score of the finished hand (RULES.md, One hand of play, 7-8)."""
        self._need("done", "score the hand")
        r = self.rules
        parties = party_count(r)
        captured = [0] * parties
        tricks_won = [0] * parties
        for t in self.tricks:
            p = party_of(r, t.winner)
            captured[p] += t.points(r)
            tricks_won[p] += 1
        last = party_of(r, self.tricks[-1].winner)
        captured[last] += r.last_trick_bonus
        nest_party = party_of(r, self.declarer) if r.nest_to == "declarer" else last
        captured[nest_party] += r.points_of_mask(self.nest.mask)
        if r.most_tricks is not None:
            n, bonus = r.most_tricks
            # every party that reaches n gets the bonus: two sides may, when n is at most half the tricks
            for p in range(parties):
                if tricks_won[p] >= n:
                    captured[p] += bonus
        score = list(captured)
        dp = party_of(r, self.declarer)
        if self.bid is not None and captured[dp] < self.bid:
            score[dp] = -self.bid
        return HandResult(r, self.dealer, self.declarer, self.bid, self.trump, self.forced,
                          tuple(tricks_won), tuple(captured), tuple(score))


# -------------------------------------------------------------------- match
class Match:
    """Hands to ``rules.target``: running totals per party (they may go
    negative), the deal passing clockwise, the same dealer again after a
    redeal. After each hand the first party at or over the target wins; when
    several are, the highest total wins, and a tie for it means another hand.
    The first dealer defaults to ``rules.last_seat`` (W)."""

    def __init__(self, rules: Rules | str, seed: int | np.random.Generator | None = None,
                 dealer: int | str | None = None):
        self.rules = Rules.from_spec(rules)
        self._rng = seeded_rng(seed)
        self.dealer = _dealer(self.rules, dealer)
        self.totals: list[int] = [0] * party_count(self.rules)
        self.results: list[HandResult] = []
        self.redeals = 0
        self.winner: int | None = None

    @property
    def is_over(self) -> bool:
        """True once a party has won."""
        return self.winner is not None

    def new_round(self, **kwargs) -> Round:
        """Deal the next hand from the match's seeded stream, by the current dealer."""
        if self.is_over:
            raise IllegalActionError(f"the match is over: party {self.winner} won with {self.totals}")
        if "dealer" in kwargs:
            raise IllegalActionError(f"new_round(dealer={shown(kwargs['dealer'])}): the match passes the deal "
                                     f"itself (now {self.rules.seat_names[self.dealer]})")
        return Round(random_deal(self.rules, self._rng), self.dealer, **kwargs)

    def record(self, played: Round | HandResult) -> int | None:
        """Add a finished hand (a ``Round`` or its ``HandResult``); returns the
        winner, if the match is now decided. A redealt round only keeps the dealer."""
        if self.is_over:
            raise IllegalActionError(f"the match is over: party {self.winner} won with {self.totals}")
        if isinstance(played, Round):
            if played.phase == "redeal":
                self.redeals += 1
                return None
            result = played.result()
        elif isinstance(played, HandResult):
            result = played
        else:
            raise IllegalActionError(f"record {shown(played)}: expected a finished Round or its HandResult")
        if result.rules != self.rules:
            theirs, ours = result.rules.spec(), self.rules.spec()
            why = "" if theirs != ours else " (the same knobs, another deck or counters)"
            raise IllegalActionError(f"a hand under {shown(theirs)} cannot count in a match under {shown(ours)}{why}")
        for p, s in enumerate(result.score):
            self.totals[p] += s
        self.results.append(result)
        self.dealer = self.rules.left_of(self.dealer)
        self.winner = match_winner(self.totals, self.rules.target)
        return self.winner

