"""The one exception handler: every API error body is `{status, code, message, details}`."""

from __future__ import annotations

import logging
import math

from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions as drf
from rest_framework.response import Response

from payments import errors
from payments.api.parsing import field_errors

log = logging.getLogger(__name__)


def as_service_error(exc: Exception) -> errors.ServiceError:
    if isinstance(exc, errors.ServiceError):
        return exc
    if isinstance(exc, drf.ParseError):
        return errors.InvalidInput(f"Malformed request body: {exc.detail}")
    if isinstance(exc, drf.UnsupportedMediaType):
        return errors.UnsupportedMediaType(f"{exc.detail} Send application/json.")
    if isinstance(exc, drf.NotAuthenticated | drf.AuthenticationFailed):
        error = errors.Unauthorized(str(exc.detail))
        error.challenge = getattr(exc, "auth_header", None) or error.challenge  # the view's scheme
        return error
    if isinstance(exc, drf.PermissionDenied):
        return errors.Forbidden()
    if isinstance(exc, drf.MethodNotAllowed):
        return errors.MethodNotAllowed(str(exc.detail))
    if isinstance(exc, drf.NotAcceptable):
        return errors.NotAcceptable()
    if isinstance(exc, drf.Throttled):
        return errors.RateLimited(retry_after=math.ceil(exc.wait or 1))  # a second early is refused again
    if isinstance(exc, drf.ValidationError):
        return errors.InvalidInput(errors=field_errors(None, exc.detail))
    if isinstance(exc, drf.NotFound | Http404):
        return errors.ResourceNotFound("Resource")
    if isinstance(exc, RequestDataTooBig):
        return errors.PayloadTooLarge()
    return errors.ServiceError()


def exception_handler(exc: Exception, context: dict) -> Response:
    error = as_service_error(exc)
    if error.status >= 500:
        log.exception("unhandled error in %s", context.get("view").__class__.__name__, exc_info=exc)
    return Response(error.body(), status=error.status, headers=error.headers())


def error_response(error: errors.ServiceError) -> JsonResponse:
    response = JsonResponse(error.body(), status=error.status)
    for name, value in error.headers().items():
        response[name] = value
    return response


@csrf_exempt  # the API authenticates every request itself; an unknown path is a 404 for any method
def api_not_found(request: HttpRequest, *args, **kwargs) -> JsonResponse:
    return error_response(errors.ResourceNotFound("Resource", f"No API operation at {request.path}"))
