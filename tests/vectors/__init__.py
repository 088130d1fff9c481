"""Fixed test vectors, copied from the shared docs so the suite stands on its own."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

_DIR = Path(__file__).resolve().parent


@cache
def _load(name: str) -> str:
    return (_DIR / name).read_text(encoding="utf-8")


def wallet_wire_vectors() -> dict[str, Any]:
    """The embedded-wallet wire vectors (a fresh copy each call, so tests cannot share edits)."""
    return json.loads(_load("wallet-wire-vectors.json"))
