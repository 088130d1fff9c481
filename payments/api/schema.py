"""`operations(tags, **defaults)`: the `extend_schema` of one module's views, with what they all share
(tags, a path parameter) given once and each view method naming its operationId first, and the
parsing of the query or body it documents; and the OpenAPI shapes the views name (path parameters,
discriminated oneOfs)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from drf_spectacular.utils import (
    OpenApiParameter,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_view,
)
from rest_framework import serializers

from payments.api.pagination import PAGE_PARAMETERS
from payments.api.parsing import parse_body, parse_query

type Parser = type[serializers.Serializer]


def operations(tags: list[str], **defaults: Any) -> Callable[..., Callable[[Callable], Callable]]:
    def operation(
        operation_id: str, *, query: Parser | None = None, body: Parser | None = None, **kwargs: Any
    ) -> Callable[[Callable], Callable]:
        """The view method documented as `operation_id` (`kwargs`: the rest of its `extend_schema`).
        `query`, the query string's serializer, is its first parameter and is parsed into the
        method's `query` argument; `body`, the body's serializer, is its `request` (a form where the
        view's parser is multipart) and is parsed into the method's `body` argument. Bad input is a
        400 before the method runs. A page response (`page_of`) brings the page parameters that
        `paginate` reads. Parsing needs the decorator on the method itself: `extend_schema_view`
        keeps only the documentation."""
        schema = defaults | kwargs
        parameters = [*([query] if query else []), *schema.get("parameters", [])]
        if getattr(schema.get("responses"), "paginated", False):
            parameters += PAGE_PARAMETERS
        if parameters:
            schema["parameters"] = parameters
        if body is not None:
            schema["request"] = body
        document = extend_schema(operation_id=operation_id, tags=tags, **schema)
        if query is None and body is None:
            return document

        def parsing(method: Callable) -> Callable:
            @functools.wraps(method)
            def parsed(view: Any, request: Any, *args: Any, **arguments: Any) -> Any:
                if query is not None:
                    arguments["query"] = parse_query(query, request.query_params)
                if body is not None:
                    arguments["body"] = parse_body(body, request.data)
                return method(view, request, *args, **arguments)

            return document(parsed)

        return parsing

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
