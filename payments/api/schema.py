"""`operations(tags, **defaults)`: the `extend_schema` of one module's views, with what they all share
(tags, a path parameter) given once and each view method naming its operationId first; and the
OpenAPI shapes the views name (path parameters, discriminated oneOfs)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from drf_spectacular.utils import (
    OpenApiParameter,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_view,
)
from rest_framework import serializers


def operations(tags: list[str], **defaults: Any) -> Callable[..., Callable[[Callable], Callable]]:
    def operation(operation_id: str, **kwargs: Any) -> Callable[[Callable], Callable]:
        return extend_schema(operation_id=operation_id, tags=tags, **(defaults | kwargs))

    return operation


def post_view[V](
    name: str,
    base: type[V],
    operation: Callable[..., Callable],
    operation_id: str,
    schema: dict,
    **attrs: Any,
) -> type[V]:
    """The view class `name`: `base` with `attrs`, its POST documented as `operation_id` (`schema`:
    `request` and `responses`). For views that differ from a sibling only by a flag and a name."""
    view = type(name, (base,), {"__module__": base.__module__, **attrs})
    return extend_schema_view(post=operation(operation_id, **schema))(view)


def path_parameter(name: str, description: str = "") -> OpenApiParameter:
    """A string path parameter of the OpenAPI document (ids are checked by the view, not the router)."""
    return OpenApiParameter(name, str, OpenApiParameter.PATH, description=description)


def one_of(
    name: str, by_type: Mapping[str, type[serializers.Serializer]], *, discriminator: str
) -> PolymorphicProxySerializer:
    """The oneOf component `name`: its `discriminator` field's value chooses the shape (`by_type`)."""
    return PolymorphicProxySerializer(
        component_name=name, serializers=by_type, resource_type_field_name=discriminator
    )


def list_of(one: PolymorphicProxySerializer) -> PolymorphicProxySerializer:
    """An array of the oneOf `one` (a list response's `data`)."""
    return PolymorphicProxySerializer(
        component_name=one.component_name,
        serializers=one.serializers,
        resource_type_field_name=one.resource_type_field_name,
        many=True,
    )
