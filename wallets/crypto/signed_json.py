"""JSON inside signed material (`Service-Wallet-Signature` stamps, OIDC ID-token segments).

Read with `json_input` (depth cap, no NaN or Infinity, no NUL or lone surrogates), and a repeated key
is refused: parsers disagree on which of two duplicates wins, so signed bytes must mean one thing.
"""

from __future__ import annotations

from typing import Any

from payments.client import json_input


def signed_json_loads(raw: bytes) -> Any:
    """The parsed value; a ValueError (a `json_input.JsonRefused`) when it is not such JSON."""
    return json_input.loads(raw, object_pairs_hook=_unique_keys)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        raise ValueError("duplicate key")
    return value
