"""Canonical JSON: one text per JSON value (sorted keys, no whitespace, UTF-8 as is), so two request
bodies that differ only in key order or whitespace compare equal, and any other difference (a value,
an added or a missing key) does not. Signed retries (`wallets.signed_retry`) and `Idempotency-Key`
(`payments.idempotency`) compare request bodies by it."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, cls=DjangoJSONEncoder)


def body_sha256(body: Any) -> str:
    """Hex SHA-256 of a request body's canonical JSON. No body counts as `{}`."""
    return hashlib.sha256(canonical_json(body if body is not None else {}).encode("utf-8")).hexdigest()
