"""The error hierarchy. Every error is a ValueError whose message quotes the bad input."""


def plural(n: int, word: str) -> str:
    """``1 card``, ``2 cards``: counts in messages read as English."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


class RookError(ValueError):
    """Base class for every error rook-analyze raises on bad input or illegal actions."""


class RulesError(RookError):
    """A rules specification that is unknown, malformed or makes no sense for the deck."""


class NotationError(RookError):
    """Text that is not valid Rook deal notation (RDN)."""


class InvalidCardError(NotationError):
    """A token that is not a card, or a card that is not in this deck."""


class DuplicateCardError(NotationError):
    """The same card given twice."""


class DealError(NotationError):
    """Hands of the wrong size, unequal hands, unknown seats and other malformed deals."""


class IllegalActionError(RookError):
    """A bid, discard, trump or play that the rules do not allow."""


class ConstraintError(RookError):
    """Sampling constraints that are malformed or cannot be satisfied."""
