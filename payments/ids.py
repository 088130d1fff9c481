"""Public identifiers: `Type:<uuid>` on the wire, a time-ordered UUID (version 7) in the database."""

from __future__ import annotations

import os
import threading
import time
import uuid

from payments.errors import ResourceNotFound

# A UUID as `render` writes it (parse also takes other spellings uuid.UUID reads).
UUID_PATTERN = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"

_lock = threading.Lock()
_last_ms = 0
_counter = 0


def uuid7() -> uuid.UUID:
    """RFC 9562 UUIDv7 with a 12-bit counter, so ids made in the same millisecond still sort in order."""
    global _last_ms, _counter
    with _lock:
        ms = time.time_ns() // 1_000_000
        if ms > _last_ms:
            _last_ms = ms
            _counter = int.from_bytes(os.urandom(2)) & 0x7FF  # leave headroom before overflow
        else:
            _counter += 1
            if _counter > 0xFFF:
                _last_ms += 1
                _counter = 0
        ms = _last_ms
        counter = _counter
    rand = int.from_bytes(os.urandom(8)) & ((1 << 62) - 1)
    value = (ms & ((1 << 48) - 1)) << 80 | 0x7 << 76 | counter << 64 | 0b10 << 62 | rand
    return uuid.UUID(int=value)


def render(kind: str, value: uuid.UUID) -> str:
    return f"{kind}:{value}"


def parse_or_none(kind: str, value: object) -> uuid.UUID | None:
    if isinstance(value, str) and value.startswith(kind + ":"):
        try:
            return uuid.UUID(value[len(kind) + 1 :])
        except ValueError:
            return None
    return None


def parse(kind: str, value: object) -> uuid.UUID:
    """Parse `Kind:<uuid>`; anything else names no record of that kind, so it is a 404."""
    parsed = parse_or_none(kind, value)
    if parsed is None:
        raise ResourceNotFound(kind)
    return parsed
