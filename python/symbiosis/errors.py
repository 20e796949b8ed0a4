"""The two ways a command ends in error, each reported as one line.

``InputError`` (from the native library, a ValueError): the input is bad;
the command says what is wrong and what to do, and exits with status 2,
before any work where it can. ``CommandFailed``: the input was good but the
work failed (a benchmark run whose requests failed, an engine that would
not open); the command exits with status 1.
"""

from symbiosis._native import InputError


class CommandFailed(Exception):
    """The work failed; the message is the one line that says how."""


__all__ = ["CommandFailed", "InputError"]
