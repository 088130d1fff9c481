"""Operations of the reference this service does not offer yet: routed and documented, each answers
501 NOT_IMPLEMENTED in the error shape, naming itself, instead of pretending to work."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rest_framework.views import APIView

from payments.errors import NotImplementedByService


def _refusal(operation_id: str) -> Callable[..., Any]:
    def refuse(view: APIView, request: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedByService(
            f"{operation_id} is not supported by this service", operation=operation_id
        )

    return refuse


def unsupported_view(
    name: str, operation: Callable[..., Callable], methods: Mapping[str, str], base: type[APIView] = APIView
) -> type[APIView]:
    """The view class `name` (a `base`, which authenticates as usual) whose methods (`methods`: HTTP
    method in lower case to operationId) each answer 501; `operation` is the module's `operations(...)`."""
    attrs = {
        method: operation(operation_id, request=None, responses={501: None})(_refusal(operation_id))
        for method, operation_id in methods.items()
    }
    return type(name, (base,), {"__module__": __name__, **attrs})
