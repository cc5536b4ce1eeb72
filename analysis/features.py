"""Features of a dealt hand, as a bidder sees it before the nest.

Everything here is a plain count over the hand's cards under some rules:
the points in counters, the birds, and per color the length, the highest
card and the unbroken run of top cards. The simulation stores them next to
the double-dummy results and the report fits a hand count on them."""

from __future__ import annotations

from rook_analyze.solver.cards import COLORS, ROOK2_INDEX, ROOK_INDEX, Hand
from rook_analyze.solver.rules import Rules

from .inputs import as_hand

# Column names in the order the dataset stores them (see README, "simulate").
FEATURE_COLUMNS: tuple[str, ...] = (
    "counters", "rook",
    *(f"len_{c}" for c in COLORS),
    *(f"top_{c}" for c in COLORS),
    *(f"run_{c}" for c in COLORS),
    "longest", "longest_color", "tops", "high", "voids", "singletons",
)


def color_ranks(rules: Rules) -> tuple[int, ...]:
    """The numbers of one color from the highest rank down (1 first of all under one_high)."""
    rules = Rules.from_spec(rules)
    nums = sorted(rules.numbers, reverse=True)
    if rules.one_high and 1 in nums:
        nums = [1] + [n for n in nums if n != 1]
    return tuple(nums)


def _rank_value(rules: Rules, number: int) -> int:
    """A card's rank in its color as a number: its number, or 15 for a high 1."""
    return 15 if (rules.one_high and number == 1) else number


def hand_features(rules: Rules, hand: Hand | int) -> dict[str, int | str]:
    """The features of one hand.

    - ``counters``: points in the hand's counters (the birds included);
      ``rook``: birds held (0, 1, or 2 with ``double_bird``).
    - ``len_X``: cards of color X (birds belong to no color before trump is named);
      ``top_X``: rank of the highest card of X, 0 when void (a high 1 counts 15);
      ``run_X``: unbroken run of X's top cards from the color's highest (B14 B13 -> 2).
    - ``longest``: length of the longest color; ``longest_color``: that color,
      ties going to the higher top card, then to B R Y G order.
    - ``tops``: sum of the runs (cards that win their color's tricks from the top);
      ``high``: cards ranked 12 or above (a high 1 included);
      ``voids`` and ``singletons``: colors with no card and with one.
    """
    rules = Rules.from_spec(rules)
    mask = as_hand(hand, rules, "hand", masks=True).mask  # a card the deck lacks is refused there
    ranks = color_ranks(rules)
    out: dict[str, int | str] = {
        "counters": rules.points_of_mask(mask),
        "rook": int(bool(mask >> ROOK_INDEX & 1)) + int(bool(mask >> ROOK2_INDEX & 1)),
    }
    lengths, tops, runs = {}, {}, {}
    high = 0
    for ci, color in enumerate(COLORS):
        base = ci * 16
        held = [n for n in ranks if mask >> (base + n) & 1]
        lengths[color] = len(held)
        tops[color] = _rank_value(rules, held[0]) if held else 0
        run = 0
        for n in ranks:
            if not mask >> (base + n) & 1:
                break
            run += 1
        runs[color] = run
        high += sum(1 for n in held if _rank_value(rules, n) >= 12)
    for color in COLORS:
        out[f"len_{color}"] = lengths[color]
    for color in COLORS:
        out[f"top_{color}"] = tops[color]
    for color in COLORS:
        out[f"run_{color}"] = runs[color]
    longest_color = max(COLORS, key=lambda c: (lengths[c], tops[c], -COLORS.index(c)))
    out["longest"] = lengths[longest_color]
    out["longest_color"] = longest_color
    out["tops"] = sum(runs.values())
    out["high"] = high
    out["voids"] = sum(1 for c in COLORS if lengths[c] == 0)
    out["singletons"] = sum(1 for c in COLORS if lengths[c] == 1)
    return out

