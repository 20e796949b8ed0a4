"""Human-readable sizes, and parsing that defers to the native parser."""

from __future__ import annotations

from symbiosis import _native


def parse_bytes(text: str, what: str) -> int:
    """Parses "4096", "64KiB", "1.5GiB" ...; raises InputError naming `what`."""
    return _native.parse_bytes(text, what)


def parse_count(text: str, what: str) -> int:
    """Parses "5M", "200k", "1e6" ...; raises InputError naming `what`."""
    return _native.parse_count(text, what)


def parse_seconds(text: str, what: str) -> float:
    """Parses "30s", "500ms", "2m", "45" (seconds), as the drivers do;
    raises InputError naming `what`."""
    return _native.parse_seconds(text, what)


def format_bytes(n: float) -> str:
    """1536 -> '1.5 KiB'; exact powers print without decimals."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            if unit == "B" or float(n).is_integer():
                return f"{n:.0f} {unit}"
            return f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")
