"""Request parsing of the HTTP interface: query strings and the raw JSON body.

The strict body parsing (`ApiSerializer`, `parse_body`, `field_errors`) is part of the wire layer,
`payments.wire.parsing`, because the hosted pages and bulk import parse the same request shapes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers

from payments.errors import InvalidInput
from payments.wire.parsing import ApiSerializer, field_errors, parse_body

__all__ = ["ApiSerializer", "field_errors", "parse_body", "parse_query", "request_json"]


def parse_query(serializer_class: type[serializers.Serializer], params: Mapping[str, Any]) -> dict[str, Any]:
    """Query parameters are strings by nature, so they skip the strict JSON type check."""
    serializer = serializer_class(data={k: params.get(k) for k in params})
    if not serializer.is_valid():
        raise InvalidInput(errors=field_errors(serializer, serializer.errors))
    return serializer.validated_data


def request_json(request) -> Any:
    """The whole JSON body as the client sent it (what signed retries and Idempotency-Key compare);
    no body counts as `{}` (the parser answers 400 to `null` and every other non-object)."""
    data = request.data
    return {} if data is None or (hasattr(data, "dict") and not data) else data
