"""Identifiers on the wire: `Kind:<uuid>` (rendered by `payments.ids`)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from payments import ids


@extend_schema_field(OpenApiTypes.STR)
class PublicIdField(serializers.Field):
    """Renders a model's UUID key as `Kind:<uuid>`."""

    def __init__(self, kind: str, **kwargs) -> None:
        self.kind = kind
        # drf-spectacular lists every read-only field as required; an optional id must not be one.
        kwargs.setdefault("read_only", kwargs.get("required", True))
        kwargs.setdefault("source", "pk")
        super().__init__(**kwargs)

    def to_representation(self, value) -> str:
        return ids.render(self.kind, value)
