"""`component(name, fields)`: a serializer class named `name` in the OpenAPI document, built from a
mapping of its fields, for shapes declared as data (a table of fields) rather than as a class."""

from __future__ import annotations

from collections.abc import Mapping

from rest_framework import serializers


def component(
    name: str,
    fields: Mapping[str, serializers.Field],
    *,
    base: type[serializers.Serializer] = serializers.Serializer,
) -> type[serializers.Serializer]:
    """The serializer class `<name>Serializer` with `fields`, shown as the component `name`."""
    meta = type("Meta", (), {"ref_name": name})
    return type(f"{name}Serializer", (base,), {**fields, "Meta": meta})
