"""Request bodies on the wire: strict JSON types, and every invalid field reported at once with its constraint.

The API views, the hosted onboarding pages and bulk import parse the same request shapes with these;
the query-string and raw-body readers of the HTTP interface are in `payments.api.parsing`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.validators import MaxValueValidator, MinValueValidator
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail
from rest_framework.utils.formatting import lazy_format

from payments.client.json_input import TEXT_CONSTRAINT
from payments.errors import FieldError, InvalidInput

_JSON_TYPES: list[tuple[type, str, tuple[type, ...]]] = [
    (serializers.BooleanField, "boolean", (bool,)),
    (serializers.IntegerField, "integer", (int,)),
    (serializers.FloatField, "number", (int, float)),
    (serializers.DecimalField, "number", (int, float, str)),
    (serializers.ChoiceField, "string", (str,)),
    (serializers.CharField, "string", (str,)),
    (serializers.DateField, "string", (str,)),
    (serializers.DateTimeField, "string", (str,)),
    (serializers.ListField, "array", (list,)),
    (serializers.ListSerializer, "array", (list,)),
    (serializers.Serializer, "object", (dict,)),
]


def _json_type(field: serializers.Field) -> tuple[str, tuple[type, ...]] | None:
    for cls, name, accepted in _JSON_TYPES:
        if isinstance(field, cls):
            return name, accepted
    return None


def _type_error(field: serializers.Field, value: Any) -> ErrorDetail | None:
    expected = _json_type(field)
    if expected is None or value is None:
        return None
    name, accepted = expected
    ok = isinstance(value, accepted) and not (isinstance(value, bool) and bool not in accepted)
    return None if ok else ErrorDetail(f"Must be a JSON {name}.", code="type")


# What an integer column stores (BigIntegerField): the bounds of an integer field that declares none, so a
# value no column can hold is a 400 at parsing rather than a 500 at the INSERT.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _bound_integers(field: serializers.Field) -> None:
    if isinstance(field, serializers.ListField):
        _bound_integers(field.child)
    elif isinstance(field, serializers.IntegerField):
        if field.max_value is None:
            field.max_value = INT64_MAX
            message = lazy_format(field.error_messages["max_value"], max_value=INT64_MAX)
            field.validators.append(MaxValueValidator(INT64_MAX, message=message))
        if field.min_value is None:
            field.min_value = INT64_MIN
            message = lazy_format(field.error_messages["min_value"], min_value=INT64_MIN)
            field.validators.append(MinValueValidator(INT64_MIN, message=message))


class ApiSerializer(serializers.Serializer):
    """Rejects values of the wrong JSON type instead of coercing them (DRF turns 12 into "12"), and integers
    beyond what an integer column stores where a field declares no tighter bounds."""

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        for field in fields.values():
            _bound_integers(field)
        return fields

    def to_internal_value(self, data: Any) -> Any:
        type_errors: dict[str, Any] = {}
        if isinstance(data, Mapping):
            for name, field in self.fields.items():
                if field.read_only or field.source == "*" or name not in data:
                    continue
                value = data[name]
                error = _type_error(field, value)
                if error is None and isinstance(field, serializers.ListField) and isinstance(value, list):
                    items = {i: [e] for i, v in enumerate(value) if (e := _type_error(field.child, v))}
                    if items:
                        type_errors[name] = items
                elif error is not None:
                    type_errors[name] = [error]
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            detail = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
            raise serializers.ValidationError({**detail, **type_errors}) from None
        if type_errors:
            raise serializers.ValidationError(type_errors)
        return value


class CrossCheckedSerializer(ApiSerializer):
    """Adds rules that span fields (`cross_field_errors`) and reports them together with the field
    errors, so one response lists every problem. The rules read the raw input, as field errors may
    have left no validated value to read."""

    def cross_field_errors(self, data: Mapping[str, Any]) -> dict[str, str]:
        return {}

    def to_internal_value(self, data: Any) -> Any:
        errors: dict[str, Any] = {}
        value = None
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            errors = dict(exc.detail) if isinstance(exc.detail, Mapping) else {"non_field_errors": exc.detail}
        if isinstance(data, Mapping):
            for name, message in self.cross_field_errors(data).items():
                errors.setdefault(name, [ErrorDetail(message, code="invalid")])
        if errors:
            raise serializers.ValidationError(errors)
        return value


def parse_body(serializer_class: type[serializers.Serializer], data: Any, *, partial: bool = False, **kwargs):
    serializer = serializer_class(data=data, partial=partial, **kwargs)
    if not serializer.is_valid():
        raise InvalidInput(errors=field_errors(serializer, serializer.errors))
    return serializer.validated_data


def constraint_for(field: serializers.Field | None, code: str) -> dict[str, Any]:
    if field is None:
        return {}
    constraint: dict[str, Any] = dict(getattr(field, "constraint", None) or {})
    if code in ("required", "null", "blank"):
        constraint["required"] = True
    if code in ("null_characters_not_allowed", "surrogate_characters_not_allowed"):
        constraint.update(TEXT_CONSTRAINT)
    expected = _json_type(field)
    if code == "type" and expected:
        constraint["type"] = expected[0]
    if isinstance(field, serializers.ChoiceField):
        constraint["enum"] = [str(k) for k in field.choices]
    elif isinstance(field, serializers.ListField) and isinstance(field.child, serializers.ChoiceField):
        constraint["enum"] = [str(k) for k in field.child.choices]
    if isinstance(field, serializers.EmailField):
        constraint["format"] = "email"
    elif isinstance(field, serializers.URLField):
        constraint["format"] = "uri"
    elif isinstance(field, serializers.DateTimeField):
        constraint["format"] = "date-time"
    elif isinstance(field, serializers.DateField):
        constraint["format"] = "date"
    elif isinstance(field, serializers.RegexField):
        constraint["pattern"] = field.validators[-1].regex.pattern
    if isinstance(field, serializers.CharField):
        if field.max_length is not None:
            constraint["maxLength"] = field.max_length
        if field.min_length is not None:
            constraint["minLength"] = field.min_length
    if isinstance(field, serializers.IntegerField | serializers.FloatField | serializers.DecimalField):
        if field.min_value is not None:
            constraint["minimum"] = field.min_value
        if field.max_value is not None:
            constraint["maximum"] = field.max_value
    return constraint


def _child(field: Any, key: Any) -> Any:
    if isinstance(field, serializers.ListSerializer | serializers.ListField):
        return field.child
    if isinstance(field, serializers.Serializer):
        return field.fields.get(key)
    return None


def field_errors(field: Any, errors: Any, path: str = "") -> list[FieldError]:
    """Flatten DRF's nested error tree into dot-path FieldErrors, each with its field's constraint."""
    out: list[FieldError] = []
    if isinstance(errors, Mapping):
        for key, sub in errors.items():
            if key == "non_field_errors":
                out += field_errors(field, sub, path)
                continue
            if isinstance(key, int):
                sub_path = f"{path}[{key}]"
            else:
                sub_path = f"{path}.{key}" if path else str(key)
            out += field_errors(_child(field, key), sub, sub_path)
    elif isinstance(errors, list):
        if errors and all(isinstance(e, ErrorDetail) for e in errors):
            for e in errors:
                out.append(FieldError(path or "body", str(e), constraint_for(field, e.code)))
        else:  # a list of per-item error trees (ListSerializer)
            for i, sub in enumerate(errors):
                if sub:
                    out += field_errors(_child(field, i), sub, f"{path}[{i}]")
    elif isinstance(errors, ErrorDetail):
        out.append(FieldError(path or "body", str(errors), constraint_for(field, errors.code)))
    return out
