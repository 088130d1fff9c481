"""The one clock. Everything reads time here so tests and the sandbox can move it."""

from __future__ import annotations

import datetime as dt

_offset = dt.timedelta(0)


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC) + _offset


def advance(delta: dt.timedelta) -> None:
    """Move the clock forward (tests and sandbox simulations only)."""
    global _offset
    _offset += delta


def reset() -> None:
    global _offset
    _offset = dt.timedelta(0)
