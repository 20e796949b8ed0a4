"""Argument converters of the ``symbiosis`` command line.

Each converter turns one flag's text into a value or raises
``InputError`` with a one-line message that names the flag, says what is
wrong and gives a valid example; ``Parser`` reports that message as
``symbiosis <command>: error: ...`` with exit status 2. Every subcommand
takes its converters from here, so that a flag means the same everywhere.
"""

from __future__ import annotations

import argparse
from typing import Callable, List

from symbiosis import _native
from symbiosis.units import format_bytes, parse_bytes, parse_count, parse_seconds

# The largest block (and entry) a study simulates, and the most splits of
# one study: each multiplies the work (docs/decisions/input-limits.md).
MAX_BLOCK = 64 << 20  # kMaxBlockBytes in block.h
MAX_POINTS = 1025


def size(what: str, high: int = (1 << 64) - 1) -> Callable[[str], int]:
    """A byte size ("64MiB", "4096") no larger than `high`."""
    def parse(text: str) -> int:
        value = parse_bytes(text, what)
        if value > high:
            raise _native.InputError(f"{what}: {text} is larger than {format_bytes(high)}, "
                                     "the most this flag takes")
        return value
    parse.__name__ = "size"
    return parse


def count(what: str) -> Callable[[str], int]:
    """A count ("5M", "200k", "1e6")."""
    def parse(text: str) -> int:
        return parse_count(text, what)
    parse.__name__ = "count"
    return parse


def plot_path(text: str) -> str:
    """A PNG path: the only format the plots are written in."""
    if not text.lower().endswith(".png"):
        raise _native.InputError(f"--plot: '{text}' does not end in .png; plots are PNG files")
    return text


def number_in(what: str, low: float, high: float, low_open: bool, high_open: bool,
              example: str = "") -> Callable[[str], float]:
    """A number between `low` and `high`, each end open where asked."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            hint = f"; give e.g. {example}" if example else ""
            raise _native.InputError(f"{what}: '{text}' is not a number{hint}") from None
        low_ok = value > low if low_open else value >= low
        high_ok = value < high if high_open else value <= high
        if not (low_ok and high_ok):
            interval = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
            raise _native.InputError(f"{what}: {text} is outside {interval}")
        return value
    parse.__name__ = "number"
    return parse


def fraction(what: str, low_open: bool, high_open: bool) -> Callable[[str], float]:
    """A number in [0, 1], each end open where asked."""
    return number_in(what, 0, 1, low_open, high_open)


def nonnegative(what: str) -> Callable[[str], float]:
    """A finite number >= 0 (a cost)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise _native.InputError(f"{what}: '{text}' is not a number; give e.g. 3") from None
        if not (value >= 0) or value == float("inf"):
            raise _native.InputError(f"{what}: {text} must be a finite number >= 0")
        return value
    parse.__name__ = "cost"
    return parse


def int_in(what: str, low: int, high: int) -> Callable[[str], int]:
    """A whole number in [low, high]."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise _native.InputError(f"{what}: '{text}' is not a whole number") from None
        if not low <= value <= high:
            raise _native.InputError(f"{what}: {text} must be a whole number from {low} to {high}")
        return value
    parse.__name__ = "int"
    return parse


def positive_int(what: str, high: int = (1 << 32) - 1) -> Callable[[str], int]:
    """A whole number in [1, high]."""
    return int_in(what, 1, high)


def seed(text: str) -> int:
    """--seed: a 64-bit unsigned number."""
    return int_in("--seed", 0, (1 << 64) - 1)(text)


def threads(text: str) -> int:
    """--threads of the simulators: 0 (one per core) to 1024."""
    return int_in("--threads", 0, 1024)(text)


def block_size(text: str) -> int:
    """A block size, or 'trace' (0): each key's block is the largest size
    the trace gives it."""
    return 0 if text == "trace" else size("--block-size", MAX_BLOCK)(text)


def words(what: str, example: str) -> Callable[[str], List[str]]:
    """A comma-separated list of at least one non-empty word."""
    def parse(text: str) -> List[str]:
        items = [w.strip() for w in text.split(",") if w.strip()]
        if not items:
            raise _native.InputError(f"{what}: '{text}' names nothing; give e.g. {example}")
        return items
    parse.__name__ = "list"
    return parse


def numbers_in(what: str, low: float, high: float, example: str) -> Callable[[str], List[float]]:
    """A comma-separated list of numbers in (low, high]."""
    one = number_in(what, low, high, True, False, example)
    listed = words(what, example)

    def parse(text: str) -> List[float]:
        return [one(w) for w in listed(text)]
    parse.__name__ = "list"
    return parse


class Parser(argparse.ArgumentParser):
    """argparse that reports our InputError from type converters as one
    line, and every other error as one line with exit status 2."""

    def _get_value(self, action, arg_string):  # type: ignore[override]
        try:
            return super()._get_value(action, arg_string)
        except argparse.ArgumentError as e:
            cause = e.__context__
            if isinstance(cause, _native.InputError):
                raise argparse.ArgumentError(None, str(cause)) from None
            raise

    def error(self, message: str) -> None:  # type: ignore[override]  # one line, exit 2
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())}\n")


def seconds(what: str, positive: bool = False) -> Callable[[str], str]:
    """A duration ("30s", "500ms", "2m", "45"), checked and kept as text
    for the engine drivers, which parse it the same way."""
    def parse(text: str) -> str:
        value = parse_seconds(text, what)
        if positive and value <= 0:
            raise _native.InputError(f"{what}: {text} must be longer than 0, e.g. 1s")
        return text
    parse.__name__ = "duration"
    return parse
