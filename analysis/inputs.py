"""Checks of the values the analysis functions take from their callers.

Every check raises a ``RookError`` subclass (``ConstraintError`` unless the
caller names another) whose message quotes the value and says what was
expected, e.g. ``samples=2.9: expected a whole number, 1 or more``. Nothing
is coerced silently: ``2.9`` is not 2, ``True`` is not 1, ``"3"`` is not 3.
Also ``reports_equal``, the equality the analysis reports share: this is
the one module ``hand``, ``nest`` and ``report`` all import."""

from __future__ import annotations

import dataclasses
import errno
import math
import numbers
import os
import tempfile
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from rook_analyze.solver.api import most_threads
from rook_analyze.solver.cards import Hand, first_card, shown
from rook_analyze.solver.errors import ConstraintError, DuplicateCardError, InvalidCardError, RookError
from rook_analyze.solver.rules import Rules


def is_whole(value: Any) -> bool:
    """An int or a numpy integer, not a bool (nor a float, even a whole one)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


# The most samples (or layouts) one run of hand or nest takes: about three
# days of `hasbro` on two cores at the solver's present speed. Every sample
# is kept for the report's detail, so a typo's 10**11 would fill the memory
# before the first solve; more than this is simulate's work.
MAX_SAMPLES = 1_000_000


def whole(name: str, value: Any, least: int = 0, *, error: type[RookError] = ConstraintError,
          small: str | None = None, most: int | None = None) -> int:
    """``value`` as an int: a whole number (not a bool, not a float), ``least``
    or more (and ``most`` or less when given). ``small`` replaces the
    message's reason when the number is a whole number below ``least``."""
    if is_whole(value):
        value = int(value)
        if value >= least:
            if most is None or value <= most:
                return value
            raise error(f"{name}={shown(value)}: at most {most:,}")
        if small is not None:
            raise error(f"{name}={shown(value)}: {small}")
    raise error(f"{name}={shown(value)}: expected a whole number, {least} or more")


def optional_whole(name: str, value: Any, least: int = 0, *, error: type[RookError] = ConstraintError,
                   most: int | None = None) -> int | None:
    """None, or ``whole(name, value, least, most=most)``."""
    return None if value is None else whole(name, value, least, error=error, most=most)


def threads_count(value: Any, name: str = "threads", *, error: type[RookError] = ConstraintError,
                  most: bool = True) -> int | None:
    """Threads (or workers): None for the default, else a whole number, 1 or
    more and, with ``most``, at most ``most_threads()``."""
    count = optional_whole(name, value, 1, error=error)
    if most and count is not None and count > most_threads():
        raise error(f"{name}={count}: at most {most_threads()} on this machine (each solver thread keeps a table "
                    f"of its own)")
    return count


def number(name: str, value: Any, *, above: float | None = 0.0, at_least: float | None = None,
           what: str = "a number", error: type[RookError] = ConstraintError, finite: bool = False) -> float:
    """``value`` as a float: an int or a float (not a bool, not a string, not
    NaN; with ``finite`` not infinite either) above ``above`` (or, with
    ``at_least``, at least that)."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if ok:
        try:
            x = float(value)
        except OverflowError:  # a whole number beyond any float: infinite, as float("1e400") reads
            x = math.inf if value > 0 else -math.inf
        if math.isnan(x) or (finite and math.isinf(x)):
            ok = False
        elif at_least is not None:
            ok = x >= at_least
        elif above is not None:
            ok = x > above
    if not ok:
        bound = f"{at_least:g} or more" if at_least is not None else f"above {above:g}" if above is not None else ""
        if finite:
            bound = f"{bound} and finite" if bound else "finite"
        raise error(f"{name}={shown(value)}: expected {what}, {bound}".rstrip(", "))
    return x


def items(name: str, value: Any, *, error: type[RookError] = ConstraintError) -> list[Any]:
    """A list from ``value``: None is no item, one string (or one non-sequence
    item such as a ``Constraint``) is one item, a list or tuple its items."""
    if value is None:
        return []
    if isinstance(value, (str, bytes)):
        return [value]
    if isinstance(value, Mapping):
        raise error(f"{name}={shown(value)}: expected a list, not a mapping")
    try:
        return list(value)
    except TypeError:
        return [value]


def folder(name: str, value: Any, *, error: type[RookError]) -> str | os.PathLike:
    """A folder path: a string or a path object."""
    if isinstance(value, (str, os.PathLike)) and str(value).strip() and "\0" not in str(value):
        return value
    raise error(f"{name}={shown(value)}: expected a folder path (a string or a pathlib.Path, not blank)")


def as_hand(value: Any, rules: Rules, what: str = "cards", masks: bool = False) -> Hand:
    """Cards given as a ``Hand`` or Rook deal notation (``"B14 R5 Rook"``),
    with ``masks`` also a card mask (an int); text is read against the rules' deck."""
    if isinstance(value, str):
        try:
            return Hand.from_rdn(value, rules.deck_mask)
        except RookError as e:
            raise type(e)(f"{what} {shown(value.strip())}: {e}") from None
    if isinstance(value, Hand):
        hand = value
    elif masks and is_whole(value) and int(value) >= 0:
        try:
            hand = Hand(int(value))
        except RookError as e:
            raise type(e)(f"{what} {shown(value)}: {e}") from None
    else:
        raise InvalidCardError(f"{what} {shown(value)}: expected a Hand or cards in Rook deal notation, "
                               f"e.g. 'B14 R5 Rook'")
    stray = hand.mask & ~rules.deck_mask
    if stray:  # as text is read: a card the deck lacks is an error, not a card dealt from nowhere
        high = rules.one_high  # the 1 first where it ranks above the 14
        raise InvalidCardError(f"{what} {hand.rdn(high)!r}: card {first_card(stray, high)!r} is not in the "
                               f"{rules.spec()!r} deck")
    return hand


def hand_and_nest(hand: Any, nest: Any, rules: Rules) -> tuple[Hand, Hand]:
    """The declarer's hand and the nest (Hands or Rook deal notation, as
    ``as_hand`` reads them), with no card in both."""
    hand, nest = as_hand(hand, rules, "hand"), as_hand(nest, rules, "nest")
    both = hand.mask & nest.mask
    if both:
        raise DuplicateCardError(f"card {first_card(both, rules.one_high)!r} is in both the hand and the nest")
    return hand, nest


def callable_or_none(name: str, value: Any, *, error: type[RookError] = ConstraintError) -> Callable[..., Any] | None:
    """None, or a function (a progress or an on-chunk callback)."""
    if value is not None and not callable(value):
        raise error(f"{name}={shown(value)}: expected a function (or None)")
    return value


def json_ready(value: Any) -> Any:
    """``value`` as json takes it: numpy scalars as Python's, NaN and the
    infinities as None (json has no such number), dicts and lists item by item."""
    if isinstance(value, Mapping):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    return value


def json_records(df: Any) -> list[dict[str, Any]]:
    """A DataFrame's rows as json-ready dicts (``json_ready``)."""
    return [json_ready(row) for row in df.to_dict(orient="records")]


def output_file(path: Any, kind: str, extensions: Sequence[str], error: type[RookError] = ConstraintError) -> str:
    """The extension (without its dot) of a file a command will write, from
    ``extensions``; raise ``error`` when the name ends otherwise, its folder
    does not exist or cannot be written to, or the path is a folder: checked
    before a long run, not after it. ``kind`` names the file in messages
    (``"plot file"``)."""
    lower = str(path).lower()
    if "\0" in lower:  # no system takes one: the save would fail after the work
        raise error(f"{kind} {str(path)!r}: a file name cannot hold a NUL character")
    for ext in extensions:
        if lower.endswith(ext):
            folder = Path(path).parent
            try:
                if not folder.is_dir():
                    what = "is a file, not a folder" if folder.exists() else "does not exist"
                    raise error(f"{kind} {str(path)!r}: the folder {str(folder)!r} {what}")
                if Path(path).is_dir():
                    raise error(f"{kind} {str(path)!r} is a folder")
            except OSError as e:  # a name the system refuses to look up (too long): it would refuse the write
                raise error(f"{kind} {str(path)!r}: {e.strerror or e}") from None
            try:  # a file of our own made and gone at once: what the system will let the write do
                with tempfile.TemporaryFile(dir=folder):
                    pass
            except OSError as e:
                # a folder that exists but takes no files (/proc) answers "no such file"
                why = "it takes no new files" if e.errno == errno.ENOENT else (e.strerror or str(e))
                raise error(f"{kind} {str(path)!r}: cannot write in the folder {str(folder)!r} "
                            f"({why})") from None
            return ext[1:]
    names = list(extensions)
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    raise error(f"{kind} {str(path)!r}: the name must end in {listed}")


def reports_equal(a: Any, b: Any) -> Any:
    """``a == b`` for reports, dataclasses whose fields hold DataFrames:
    field by field, a DataFrame equal to another by ``DataFrame.equals``
    (the same values and dtypes, NaN equal to NaN) where ``==`` would raise.
    Such a report is not hashable (``__hash__ = None``), as DataFrames are not."""
    if type(a) is not type(b):
        return NotImplemented
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if hasattr(x, "equals") or hasattr(y, "equals"):  # DataFrames, Series
            if type(x) is not type(y) or not x.equals(y):
                return False
        elif x != y:
            return False
    return True
