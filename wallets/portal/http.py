"""Small helpers the portal's views share: page-or-partial rendering, redirects that work for htmx,
JSON answers for the WebAuthn shim, and one place that turns an unreachable service into a page."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.cache import add_never_cache_headers, patch_vary_headers
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from payments.client import ServiceClientError, ServiceError
from wallets.portal import wording

log = logging.getLogger(__name__)


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def page(
    request: HttpRequest,
    template: str,
    context: dict[str, Any] | None = None,
    *,
    partial: str | None = None,
    status: int = 200,
) -> HttpResponse:
    """The whole page, or only its `partial` for htmx (always 200 then: htmx swaps only 2xx)."""
    htmx = bool(getattr(request, "htmx", False))
    name = f"{template}#{partial}" if partial and htmx else template
    response = render(request, name, context or {}, status=200 if htmx else status)
    patch_vary_headers(response, ["HX-Request"])
    return response


def go(request: HttpRequest, url: str) -> HttpResponse:
    """Redirect; htmx requests get `HX-Redirect` so the whole page changes."""
    response = HttpResponseClientRedirect(url) if getattr(request, "htmx", False) else redirect(url)
    patch_vary_headers(response, ["HX-Request"])
    return response


def wants_json(request: HttpRequest) -> bool:
    return request.content_type == "application/json" or "application/json" in request.headers.get(
        "Accept", ""
    )


def json_body(request: HttpRequest) -> dict[str, Any]:
    """The JSON object the shim posted ({} when the body is form data or not an object)."""
    if request.content_type != "application/json":
        return request.POST.dict()
    try:
        body = json.loads(request.body or b"{}")
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def no_store(response: HttpResponse) -> HttpResponse:
    add_never_cache_headers(response)
    return response


def service_errors[**P](view: Callable[P, HttpResponse]) -> Callable[P, HttpResponse]:
    """A service that cannot be reached (or a portal without credentials) becomes a page (or JSON)
    saying so; service errors a view did not expect become the same page, in words
    (`wording.explain`; the service's own message goes to the log)."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: P.args, **kwargs: P.kwargs) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except ImproperlyConfigured as exc:
            log.warning("portal: not configured: %s", exc)
            message, status = wording.UNREACHABLE, 503
        except ServiceError as exc:
            log.warning("portal: unexpected service answer %s %s", exc.status, exc.code)
            message, status = wording.explain(exc), 502
        except ServiceClientError as exc:
            message, status = wording.explain(exc), 503
        if wants_json(request):
            return JsonResponse({"error": message}, status=status)
        return no_store(
            render(request, "wallets/portal/unavailable.html", {"message": message}, status=status)
        )

    return wrapper  # type: ignore[return-value]
