"""A plain-Python double-dummy reference, written from RULES.md alone.

Slow and simple on purpose: full minimax over every legal card with a
memo on the position, no pruning, no rank tricks. The Numba solver is held
to it on small endgames. It shares only the value types with the project
(``Card``, ``Hand``, ``Deal``, ``Rules``, ``rules.side_of``); legal plays,
trick winners and scoring are worked out here again from the rule text.

Positions: ``deal`` is the trick-boundary position (every hand the same
size); ``trick`` holds the cards already played to the current trick, in
order from ``leader``, and those cards are still in ``deal``'s hands.
"""

from __future__ import annotations

import sys
from functools import lru_cache
from typing import Sequence

from rook_analyze.solver import COLORS, Card, Deal, Rules

ROOK = 0     # card index of the Rook
ROOK2 = 15   # card index of the second Rook (double_bird)
BIRDS = (ROOK, ROOK2)


def _indices(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _or_none(fact, idx: int):
    try:
        return fact(idx)
    except ValueError:
        return None


class _Game:
    """The rules of one hand with a fixed trump and declarer, on card indices."""

    def __init__(self, rules: Rules, trump: str, declarer: int):
        self.rules = rules
        self.n = rules.seats
        self.trump = None if str(trump).lower() == "none" else str(trump).upper()
        if self.trump is not None and self.trump not in COLORS:
            raise ValueError(f"trump {trump!r}")
        self.declarer = declarer
        self.side = tuple(rules.side_of(s, declarer) for s in range(self.n))
        # counters straight from the rule table, not rules.card_points
        points = {}
        for number, pts in rules.counters:
            for c in range(4):
                points[c * 16 + number] = pts
        if rules.bird != "none":
            points[ROOK] = rules.bird_points
            if rules.double_bird:
                points[ROOK2] = rules.bird_points
        self.points = points
        # the same facts card by card, worked out once from the methods
        # below: the search asks for them millions of times, and list
        # indexing keeps the reference's tests fast. None where a method
        # rejects the card (a bird with no trump color or no bird rank):
        # the search asks the method again then, so it fails the same way
        self.follow_color = [_or_none(self.color, i) for i in range(64)]
        self.trump_ranks = [_or_none(self.trump_rank, i) if self.trump is not None
                            and self.follow_color[i] == self.trump else None for i in range(64)]
        self.number_ranks = [self.number_rank(i) for i in range(64)]
        self.worth = [self.card_points(i) for i in range(64)]
        self.birds_any_time = rules.bird_play == "any_time"

    # ----------------------------------------------------------- card facts
    def color(self, idx: int) -> str:
        """The color a card belongs to when following: a bird is of the trump color."""
        if idx in BIRDS:
            if self.trump is None:
                raise ValueError("a bird in play with no trump color")
            return self.trump
        return COLORS[idx // 16]

    def number_rank(self, idx: int) -> int:
        """Rank of a number card in its color, on a scale of 4 per step so the
        ten_and_half bird fits between 10 and 11."""
        n = idx % 16
        if self.rules.one_high and n == 1:
            n = 15  # the 1 ranks above the 14
        return 4 * n

    def trump_rank(self, idx: int) -> int:
        bird = self.rules.bird
        if idx in BIRDS:
            second = idx == ROOK2  # Rook2 just below the Rook
            if bird == "high":
                return 1000 - second
            if bird == "low":
                return -10 - second
            if bird == "ten_and_half":
                return 4 * 10 + 2 - second
            raise ValueError(f"a bird in play with bird={bird!r}")
        return self.number_rank(idx)

    def card_points(self, idx: int) -> int:
        return self.points.get(idx, 0)

    # ---------------------------------------------------------------- play
    def legal(self, hand: int, trick: tuple[int, ...]) -> list[int]:
        cards = _indices(hand)
        if not trick:
            return cards
        color = self.follow_color
        led = color[trick[0]]
        if led is None:
            self.color(trick[0])  # raises: a bird with no trump
        follow = [c for c in cards if color[c] == led]
        if not follow:
            return cards  # void: anything
        if self.birds_any_time:
            # the birds may come at any time; when trump is led they are
            # already in `follow`, so a lone bird trump must be played
            extra = [c for c in cards if c in BIRDS and c not in follow]
            return follow + extra
        return follow

    def winner_offset(self, trick: tuple[int, ...]) -> int:
        """Position in the trick of the winning card."""
        best = -1
        if self.trump is not None:
            ranks = self.trump_ranks
            for i, c in enumerate(trick):
                if c in BIRDS and ranks[c] is None:
                    self.trump_rank(c)  # raises: a bird with no bird rank
                if ranks[c] is not None and (best < 0 or ranks[c] > ranks[trick[best]]):
                    best = i
            if best >= 0:
                return best
        color = self.follow_color
        led = color[trick[0]]
        ranks = self.number_ranks
        for i, c in enumerate(trick):
            if color[c] is None:
                self.color(c)  # raises: a bird with no trump
            if color[c] == led and (best < 0 or ranks[c] > ranks[trick[best]]):
                best = i
        return best


def _setup(deal: Deal, trump, declarer, leader, trick):
    rules = deal.rules
    declarer = declarer if isinstance(declarer, int) else rules.check_seat(declarer)
    leader = leader if isinstance(leader, int) else rules.check_seat(leader)
    game = _Game(rules, trump, declarer)
    hands = [h.mask for h in deal.hands]
    sizes = {len(h) for h in deal.hands}
    if len(sizes) != 1:
        raise ValueError("the deal must be at a trick boundary")
    played = []
    for i, card in enumerate(trick):
        seat = (leader + i) % game.n
        idx = card.index
        if not hands[seat] & (1 << idx):
            raise ValueError(f"{card} is not in seat {seat}'s hand")
        if idx not in game.legal(hands[seat], tuple(played)):
            raise ValueError(f"{card} is not a legal play for seat {seat} after {played}")
        hands[seat] &= ~(1 << idx)
        played.append(idx)
    if len(played) >= game.n:
        raise ValueError("the trick is already complete")
    tricks = sizes.pop()
    return game, tuple(hands), leader, tuple(played), tricks


def _make_search(game: _Game, deal: Deal, tricks: int, counted: int, prune: bool = True):
    """A memoised minimax for the points of side ``counted`` (1: the declaring
    side, 0: the defenders); that side maximises, the other minimises.

    The value covers the tricks still to play in the position (the current
    trick included): their counters, trick points, the last-trick bonus, the
    nest when it goes to the last trick, and most_tricks over the ``tricks``
    tricks of the position. ``won`` counts the tricks the declaring side has
    taken since the position began (kept at 0 without most_tricks, where it
    does not matter).

    ``prune=False`` is the plainest possible search: every line, one memo
    entry per position. ``prune=True`` adds fail-soft alpha-beta with lower
    and upper bounds in the memo; tests check the two agree."""
    rules = game.rules
    n = game.n
    worth = game.worth
    nest_points = sum(worth[i] for i in _indices(deal.nest.mask))
    track_won = rules.most_tricks is not None
    # plain locals for what every trick asks (see _Game's card tables)
    side, legal, winner_offset = game.side, game.legal, game.winner_offset
    trick_points, last_trick_bonus = rules.trick_points, rules.last_trick_bonus
    nest_to_last = rules.nest_to == "last_trick"

    def finish(trick: tuple[int, ...], leader: int, hands: tuple[int, ...], won: int):
        """Score a complete trick: (points for `counted`, next leader, won, last?)."""
        w = (leader + winner_offset(trick)) % n
        wside = side[w]
        pts = trick_points
        for c in trick:
            pts += worth[c]
        if track_won and wside == 1:
            won += 1
        last = not any(hands)
        if last:
            pts += last_trick_bonus
            if nest_to_last:
                pts += nest_points
        mine = pts if wside == counted else 0
        if last and track_won:
            need, bonus = rules.most_tricks
            mine_tricks = won if counted == 1 else tricks - won
            if mine_tricks >= need:
                mine += bonus
        return mine, w, won, last

    @lru_cache(maxsize=None)
    def plain(hands: tuple[int, ...], leader: int, trick: tuple[int, ...], won: int) -> int:
        if len(trick) == n:
            mine, w, won, last = finish(trick, leader, hands, won)
            return mine if last else mine + plain(hands, w, (), won)
        seat = (leader + len(trick)) % n
        maximise = side[seat] == counted
        values = []
        for c in legal(hands[seat], trick):
            nh = list(hands)
            nh[seat] &= ~(1 << c)
            values.append(plain(tuple(nh), leader, trick + (c,), won))
        return max(values) if maximise else min(values)

    memo: dict = {}
    INF = 1 << 30

    def pruned(hands, leader, trick, won, alpha, beta) -> int:
        if len(trick) == n:
            mine, w, won, last = finish(trick, leader, hands, won)
            if last:
                return mine
            return mine + pruned(hands, w, (), won, alpha - mine, beta - mine)
        key = (hands, leader, trick, won)
        lo, hi = memo.get(key, (-INF, INF))
        if lo >= beta or lo == hi:
            return lo
        if hi <= alpha:
            return hi
        a, b = max(alpha, lo), min(beta, hi)
        seat = (leader + len(trick)) % n
        maximise = side[seat] == counted
        g = -INF if maximise else INF
        for c in legal(hands[seat], trick):
            nh = list(hands)
            nh[seat] &= ~(1 << c)
            v = pruned(tuple(nh), leader, trick + (c,), won, a, b)
            if maximise:
                g = max(g, v)
                a = max(a, g)
            else:
                g = min(g, v)
                b = min(b, g)
            if a >= b:
                break
        # fail-soft: g is exact inside the window, a bound outside it
        a0, b0 = max(alpha, lo), min(beta, hi)
        if g <= a0:
            hi = min(hi, g)
        elif g >= b0:
            lo = max(lo, g)
        else:
            lo = hi = g
        memo[key] = (lo, hi)
        return g

    def top(hands, leader, trick) -> int:
        base = 0
        if rules.nest_to == "declarer" and counted == 1:
            base = nest_points
        if tricks == 0:
            return base
        if prune:
            return base + pruned(hands, leader, trick, 0, -INF, INF)
        return base + plain(hands, leader, trick, 0)

    return top


def _with_recursion():
    # one level per card: 6 seats x 10 cards stays far below this
    if sys.getrecursionlimit() < 5000:
        sys.setrecursionlimit(5000)


def naive_value(deal: Deal, trump: str, declarer, leader, trick: Sequence[Card] = (),
                prune: bool = True) -> int:
    """The declaring side's double-dummy points from this position."""
    _with_recursion()
    game, hands, leader, played, tricks = _setup(deal, trump, declarer, leader, trick)
    return _make_search(game, deal, tricks, 1, prune)(hands, leader, played)


def naive_defender_value(deal: Deal, trump: str, declarer, leader, trick: Sequence[Card] = (),
                         prune: bool = True) -> int:
    """The defenders' own double-dummy points: they maximise them, the
    declaring side minimises them (differs from total - declarer value only
    when the game is not zero-sum, e.g. most_tricks that nobody may reach)."""
    _with_recursion()
    game, hands, leader, played, tricks = _setup(deal, trump, declarer, leader, trick)
    return _make_search(game, deal, tricks, 0, prune)(hands, leader, played)


def naive_card_values(deal: Deal, trump: str, declarer, leader, trick: Sequence[Card] = (),
                      prune: bool = True) -> dict[Card, int]:
    """Every legal card of the seat to play -> the declaring side's points
    when that card is played and both sides play perfectly after."""
    _with_recursion()
    game, hands, leader, played, tricks = _setup(deal, trump, declarer, leader, trick)
    search = _make_search(game, deal, tricks, 1, prune)
    seat = (leader + len(played)) % game.n
    out = {}
    for c in game.legal(hands[seat], played):
        nh = list(hands)
        nh[seat] &= ~(1 << c)
        out[Card.from_index(c)] = search(tuple(nh), leader, played + (c,))
    return out


def naive_legal(deal: Deal, trump: str, declarer, leader, trick: Sequence[Card] = ()) -> list[Card]:
    """The legal cards of the seat to play (for building test positions)."""
    game, hands, leader, played, tricks = _setup(deal, trump, declarer, leader, trick)
    seat = (leader + len(played)) % game.n
    return [Card.from_index(c) for c in game.legal(hands[seat], played)]


def naive_trick_winner(rules: Rules, trump: str, leader: int, trick: Sequence[Card]) -> int:
    """The seat that wins a complete trick led by ``leader``."""
    game = _Game(rules, trump, 0)
    return (leader + game.winner_offset(tuple(c.index for c in trick))) % game.n


# ------------------------------------------------------------ test positions
def random_endgame(rules: Rules, k: int, rng, nest_cards: int | None = None) -> Deal:
    """A random position with ``k`` cards a seat: deal a random full hand,
    keep ``k`` random cards of each seat and a random part of the nest (up
    to ``nest_size`` cards, or exactly ``nest_cards``)."""
    from rook_analyze.solver import Hand, random_deal

    full = random_deal(rules, rng.randrange(1 << 31))
    hands = []
    for h in full.hands:
        cards = h.cards()
        rng.shuffle(cards)
        hands.append(Hand.from_cards(cards[:k]))
    nest = full.nest.cards()
    rng.shuffle(nest)
    keep = rng.randint(0, len(nest)) if nest_cards is None else nest_cards
    return Deal(rules, tuple(hands), Hand.from_cards(nest[:keep]))


def random_trick(deal: Deal, trump: str, declarer: int, leader: int, rng, length: int) -> tuple[Card, ...]:
    """``length`` random legal cards played to the current trick from ``leader``."""
    trick: tuple[Card, ...] = ()
    for _ in range(length):
        trick += (rng.choice(naive_legal(deal, trump, declarer, leader, trick)),)
    return trick
