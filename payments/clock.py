"""The one clock. Everything reads time here so tests and the sandbox can move it.

Two offsets move it: the process's own (`advance`, `reset`: tests and simulations), under every
platform's time, and the sandbox clock of the platform being served (payments/sandbox_clock.py),
which the code serving one platform sets for its work (`platform_offset`, `enter_platform_offset`).
`now()` is the served platform's time; `base_now()` the time every platform's clock is measured from,
for work that serves no single platform (sweeps, leases, the webhook retry schedule)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

ZERO = dt.timedelta(0)

_offset = ZERO
_platform_offset: ContextVar[dt.timedelta] = ContextVar("platform_clock_offset", default=ZERO)


def base_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC) + _offset


def now() -> dt.datetime:
    return base_now() + _platform_offset.get()


def advance(delta: dt.timedelta) -> None:
    """Move the clock forward (tests and sandbox simulations only)."""
    global _offset
    _offset += delta


def reset() -> None:
    global _offset
    _offset = ZERO


@contextmanager
def platform_offset(offset: dt.timedelta) -> Iterator[None]:
    """Inside: `now()` is a platform's time, `offset` ahead of `base_now()`."""
    token = _platform_offset.set(offset)
    try:
        yield
    finally:
        _platform_offset.reset(token)


def enter_platform_offset(offset: dt.timedelta) -> None:
    """`platform_offset` until the enclosing `served()` ends (a request, once it knows its platform)."""
    _platform_offset.set(offset)


@contextmanager
def served() -> Iterator[None]:
    """A unit of work (a request) that may enter a platform's time: left on real time afterwards."""
    token = _platform_offset.set(ZERO)
    try:
        yield
    finally:
        _platform_offset.reset(token)
