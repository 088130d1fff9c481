"""The `Idempotency-Key` header on the views that take it: read it, and `@idempotent` on the view
method, which answers a replay with the first answer's bytes or performs the request and keeps its
answer (rules in `payments.idempotency`)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework.request import Request
from rest_framework.response import Response

from payments.api.parsing import request_json
from payments.api.renderers import JsonRenderer
from payments.canonical import body_sha256
from payments.errors import FieldError, InvalidInput, ServiceError
from payments.idempotency import (
    HEADER,
    Answer,
    KeyedRequest,
    answer_kept,
    idempotency_claim,
    idempotency_key_parse,
    idempotency_record,
    idempotency_release,
)

REPLAYED_HEADER = "Idempotent-Replayed"


def idempotency_parameter(*, required: bool = False) -> OpenApiParameter:
    """The `Idempotency-Key` header parameter (`required` where the operation requires it)."""
    return OpenApiParameter(
        HEADER,
        OpenApiTypes.UUID,
        OpenApiParameter.HEADER,
        required=required,
        description="A unique key for the request: a UUID (any case; anything else is a 400), kept 24 hours, "
        "one namespace per platform. A repeat with the same key returns the first answer, byte for byte and "
        "with its status (header `Idempotent-Replayed: true`); the same key with another request is a 422 "
        "IDEMPOTENCY_KEY_REUSED. Validation errors, 401, 409, 423, 424, 429 and 5xx answers are not kept."
        + (" Required: without it, 400 INVALID_INPUT." if required else ""),
    )


IDEMPOTENCY_KEY = idempotency_parameter()
IDEMPOTENCY_KEY_REQUIRED = idempotency_parameter(required=True)


def idempotency_key(request: Request) -> str:
    """The request's Idempotency-Key (a UUID, lower-cased), or "" without the header; 400 for a value
    that is not a UUID (`payments.idempotency.idempotency_key_parse`)."""
    value = request.headers.get(HEADER) or ""
    return idempotency_key_parse(value) if value else ""


def idempotent(view_method: Callable[..., Response] | None = None, *, required: bool = False) -> Any:
    """Decorate a view method whose operation takes `Idempotency-Key` (`@idempotent`, or
    `@idempotent(required=True)` where the header is required: without it, 400 naming it). Without
    the header the method runs as is; with it, see `payments.idempotency`."""
    if view_method is None:
        return functools.partial(idempotent, required=required)

    @functools.wraps(view_method)
    def wrapper(view: Any, request: Request, *args: Any, **kwargs: Any) -> HttpResponse | Response:
        key = idempotency_key(request)
        if not key and required:
            raise InvalidInput(errors=[FieldError(HEADER, "Required for this operation", {"required": True})])
        if not key:
            return view_method(view, request, *args, **kwargs)
        return _keyed(request, key, lambda: view_method(view, request, *args, **kwargs))

    return wrapper


def _keyed(request: Request, key: str, perform: Callable[[], Response]) -> HttpResponse:
    keyed = KeyedRequest(request.method, request.path, body_sha256(request_json(request)))
    refused: ServiceError | None = None
    with transaction.atomic():
        claim = idempotency_claim(platform_id=request.auth.platform.pk, key=key, request=keyed)
        if isinstance(claim, Answer):
            response = _http(claim)
            response[REPLAYED_HEADER] = "true"
            return response
        try:
            result = perform()
            answer = Answer(result.status_code, _render(result.data))
        except ServiceError as exc:
            if exc.status >= 500:
                raise  # rolls the operation and the key back together
            if answer_kept(exc):
                answer = Answer(exc.status, _render(exc.body()))
            else:
                idempotency_release(claim)  # what the operation committed without a key stays
                refused = exc
        if refused is None:
            idempotency_record(claim, answer)
    if refused is not None:
        raise refused
    return _http(answer)


def _render(data: Any) -> bytes:
    return JsonRenderer().render(data)


def _http(answer: Answer) -> HttpResponse:
    return HttpResponse(answer.content, status=answer.status, content_type="application/json")
