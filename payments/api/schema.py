"""`operations(tags, **defaults)`: the `extend_schema` of one module's views, with what they all share
(tags, a path parameter) given once and each view method naming its operationId first."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema


def operations(tags: list[str], **defaults: Any) -> Callable[..., Callable[[Callable], Callable]]:
    def operation(operation_id: str, **kwargs: Any) -> Callable[[Callable], Callable]:
        return extend_schema(operation_id=operation_id, tags=tags, **(defaults | kwargs))

    return operation


def path_parameter(name: str, description: str = "") -> OpenApiParameter:
    """A string path parameter of the OpenAPI document (ids are checked by the view, not the router)."""
    return OpenApiParameter(name, str, OpenApiParameter.PATH, description=description)
