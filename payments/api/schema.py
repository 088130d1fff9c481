"""`operations(tags, **defaults)`: the `extend_schema` of one module's views, with what they all share
(tags, a path parameter) given once and each view method naming its operationId first."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import extend_schema


def operations(tags: list[str], **defaults: Any) -> Callable[..., Callable[[Callable], Callable]]:
    def operation(operation_id: str, **kwargs: Any) -> Callable[[Callable], Callable]:
        return extend_schema(operation_id=operation_id, tags=tags, **(defaults | kwargs))

    return operation
