"""The Rook model and its double-dummy solver.

Cards, hands, deals and rules (the model every other layer shares) and the
Numba-compiled solver on top of them."""

from .cards import COLORS, Card, Hand
from .deal import Deal, random_deal, random_deals
from .errors import (ConstraintError, DealError, DuplicateCardError, IllegalActionError,
                     InvalidCardError, NotationError, RookError, RulesError)
from .rules import PRESETS, Rules

__all__ = [
    "COLORS", "Card", "Hand", "Deal", "random_deal", "random_deals", "Rules", "PRESETS",
    "RookError", "RulesError", "NotationError", "InvalidCardError", "DuplicateCardError",
    "DealError", "IllegalActionError", "ConstraintError",
]

from .api import (LinePlay, SolveResult, Solver, card_values, needs_compile, play_line,  # noqa: E402
                  release_tables, solve, solve_batch)

__all__ += ["SolveResult", "Solver", "solve", "card_values", "play_line", "LinePlay", "solve_batch",
            "release_tables", "needs_compile"]
