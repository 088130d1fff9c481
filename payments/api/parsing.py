"""Request parsing of the HTTP interface: query strings, the raw JSON body, and the fields a kind of body requires.

The strict body parsing (`ApiSerializer`, `parse_body`, `field_errors`) is part of the wire layer,
`payments.wire.parsing`, because the hosted pages and bulk import parse the same request shapes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers

from payments.errors import InvalidInput
from payments.wire.parsing import ApiSerializer, CrossCheckedSerializer, field_errors, parse_body

__all__ = [
    "ApiSerializer",
    "DiscriminatedSerializer",
    "field_errors",
    "parse_body",
    "parse_query",
    "request_json",
]


# A body whose `discriminator` field names its kind, where some kinds require more fields:
# `required_for = {kind: {field: message}}`, each missing field reported with its message.
# (A comment, not a docstring: the OpenAPI document takes a serializer's nearest docstring as the
# description of its component.)
class DiscriminatedSerializer(CrossCheckedSerializer):
    discriminator: str
    required_for: dict[str, dict[str, str]]

    def cross_field_errors(self, data: Mapping[str, Any]) -> dict[str, str]:
        kind = data.get(self.discriminator)
        required = self.required_for.get(kind, {}) if isinstance(kind, str) else {}
        return {field: message for field, message in required.items() if data.get(field) is None}


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
