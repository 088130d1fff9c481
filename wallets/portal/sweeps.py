"""Housekeeping that deletes rows no read returns any more (ended rate-limit windows, expired
session keys): a node does each at most once a minute, on the next request that writes such a row,
instead of on every one."""

from __future__ import annotations

import threading
import time


class Sweep:
    def __init__(self, seconds: float = 60.0) -> None:
        self.seconds = seconds
        self._last = -seconds
        self._lock = threading.Lock()

    def due(self) -> bool:
        """True at most once every `seconds` (per process): the caller sweeps then."""
        with self._lock:
            now = time.monotonic()
            if now - self._last < self.seconds:
                return False
            self._last = now
            return True
