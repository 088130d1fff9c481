"""Request parsing of the HTTP interface: query strings, the raw JSON body, ids in fields, and the fields a kind of
body requires.

The strict body parsing (`ApiSerializer`, `parse_body`, `field_errors`) is part of the wire layer,
`payments.wire.parsing`, because the hosted pages and bulk import parse the same request shapes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from uuid import UUID

from django.core.validators import MaxLengthValidator, MinLengthValidator, ProhibitNullCharactersValidator
from rest_framework import serializers
from rest_framework.fields import empty
from rest_framework.validators import ProhibitSurrogateCharactersValidator

from payments import ids
from payments.errors import FieldError, InvalidInput
from payments.wire.parsing import ApiSerializer, CrossCheckedSerializer, field_errors, parse_body

__all__ = [
    "ApiSerializer",
    "DiscriminatedSerializer",
    "field_errors",
    "id_filters",
    "parse_body",
    "parse_id_field",
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
    """Query parameters are strings by nature, so they skip the strict JSON type check. Parameters the
    serializer does not declare are ignored."""
    plain = _plain_query(serializer_class, params)
    if plain is not None:
        return plain
    serializer = serializer_class(data={k: params.get(k) for k in params})
    if not serializer.is_valid():
        raise InvalidInput(errors=field_errors(serializer, serializer.errors))
    return serializer.validated_data


# --- the plain query's short way ------------------------------------------------------------------
# A list's query string is read on every page, and a serializer's validation (a deep copy of its
# fields, then each field's run) cost more than the rest of the list's parsing. Values that are
# already in their plainest valid form (a choice as spelt, a trimmed non-empty text, an integer in
# range in digits) are read here to exactly what the serializer returns; anything else, errors
# included, goes through the serializer, so the answers stay its own.

_Reader = Callable[[str], Any]  # returns the value, or _NOT_PLAIN
_NOT_PLAIN = object()
_TEXT_VALIDATORS = (
    MaxLengthValidator,
    MinLengthValidator,
    ProhibitNullCharactersValidator,
    ProhibitSurrogateCharactersValidator,
)
_readers: dict[type, dict[str, tuple[_Reader | None, Any]] | None] = {}


def _text_reader(field: serializers.CharField) -> _Reader | None:
    if field.allow_blank or not field.trim_whitespace:
        return None
    if any(not isinstance(v, _TEXT_VALIDATORS) for v in field.validators):
        return None
    low, high = field.min_length or 0, field.max_length

    def read(value: str) -> Any:
        if not value or value != value.strip() or "\x00" in value or len(value) < low:
            return _NOT_PLAIN
        if high is not None and len(value) > high:
            return _NOT_PLAIN
        try:
            value.encode()  # a surrogate cannot be encoded
        except UnicodeEncodeError:
            return _NOT_PLAIN
        return value

    return read


def _integer_reader(field: serializers.IntegerField) -> _Reader | None:
    if len(field.validators) != (field.min_value is not None) + (field.max_value is not None):
        return None
    low, high = field.min_value, field.max_value

    def read(value: str) -> Any:
        if not (value.isascii() and value.isdigit() and len(value) <= field.MAX_STRING_LENGTH):
            return _NOT_PLAIN
        number = int(value)
        if (low is not None and number < low) or (high is not None and number > high):
            return _NOT_PLAIN
        return number

    return read


def _choice_reader(field: serializers.ChoiceField) -> _Reader | None:
    if field.validators:
        return None
    choices = dict(field.choice_strings_to_values)
    return lambda value: choices.get(value, _NOT_PLAIN)


_READER_MAKERS: dict[type, Callable[[Any], _Reader | None]] = {
    serializers.CharField: _text_reader,
    serializers.IntegerField: _integer_reader,
    serializers.ChoiceField: _choice_reader,
}


def _field_readers(
    serializer_class: type[serializers.Serializer],
) -> dict[str, tuple[_Reader | None, Any]] | None:
    """Per field: its reader (None: only the serializer reads it) and what it is when absent (its
    default; `empty`: left out; _NOT_PLAIN: for the serializer to say). None when the serializer
    validates more than its fields (its own `validate` methods or validators)."""
    if serializer_class in _readers:
        return _readers[serializer_class]
    serializer = serializer_class()
    base = serializers.Serializer
    readers: dict[str, tuple[_Reader | None, Any]] | None = {}
    if serializer.validators or any(
        getattr(serializer_class, m) is not getattr(base, m)
        for m in ("validate", "to_internal_value", "run_validation")
    ):
        readers = None
    else:
        for name, field in serializer.fields.items():
            if field.read_only or field.source != name or hasattr(serializer, f"validate_{name}"):
                readers = None
                break
            make = _READER_MAKERS.get(type(field))  # the exact kinds: a subclass may check more
            reader = make(field) if make is not None else None
            computed = field.default is not empty and callable(field.default)
            absent = _NOT_PLAIN if field.required or computed else field.default
            readers[name] = (reader, absent)
    _readers[serializer_class] = readers
    return readers


def _plain_query(serializer_class: type[serializers.Serializer], params: Mapping[str, Any]) -> dict | None:
    """What the serializer would return for `params`, when every value is plain; None otherwise."""
    readers = _field_readers(serializer_class)
    if readers is None:
        return None
    out: dict[str, Any] = {}
    for name, (reader, absent) in readers.items():
        if name not in params:
            if absent is _NOT_PLAIN:
                return None
            if absent is not empty:
                out[name] = absent
            continue
        value = params.get(name)
        if reader is None or not isinstance(value, str):
            return None
        value = reader(value)
        if value is _NOT_PLAIN:
            return None
        out[name] = value
    return out


def parse_id_field(kind: str, value: Any, field: str) -> UUID:
    """`value` as a `kind:<uuid>` id, or 400 naming `field`."""
    parsed = ids.parse_or_none(kind, value)
    if parsed is None:
        raise InvalidInput(errors=[FieldError(field, f"Must be a {kind}:<uuid> id", {"type": "string"})])
    return parsed


class ChangedBetweenQuery(serializers.Serializer):
    """The list filters on when records were created and updated (inclusive); CHANGED_BETWEEN names
    the domain's filters they become."""

    createdAfter = serializers.DateTimeField(required=False)
    createdBefore = serializers.DateTimeField(required=False)
    updatedAfter = serializers.DateTimeField(required=False)
    updatedBefore = serializers.DateTimeField(required=False)


CHANGED_BETWEEN = {  # createdAfter: created_after, ...
    f"{what}{bound}": f"{what}_{bound.lower()}"
    for what in ("created", "updated")
    for bound in ("After", "Before")
}


def id_filters(query: Mapping[str, Any], kinds: Mapping[str, tuple[str, str]]) -> dict[str, UUID]:
    """The ids of `query` as filters: `kinds` maps a query parameter to (its id kind, the filter's
    name); each present one is parsed (400 naming it when it is no such id)."""
    return {
        name: parse_id_field(kind, query[wire], wire) for wire, (kind, name) in kinds.items() if wire in query
    }


def request_json(request) -> Any:
    """The whole JSON body as the client sent it (what signed retries and Idempotency-Key compare);
    no body counts as `{}` (the parser answers 400 to `null` and every other non-object)."""
    data = request.data
    return {} if data is None or (hasattr(data, "dict") and not data) else data


def body_unused(request) -> None:
    """For a write that takes no body: one sent that cannot be read is still refused (400), as on
    every write."""
    request_json(request)
