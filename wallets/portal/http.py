"""Small helpers the portal's views share: page-or-partial rendering, redirects that work for htmx,
JSON answers for the WebAuthn shim, one place that turns an unreachable service into a page, and the
404 for what is not the signed-in person's."""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.cache import add_never_cache_headers, patch_vary_headers
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from payments.client import NotFound, ServiceClientError, ServiceError, json_input
from wallets.portal import wording

log = logging.getLogger(__name__)


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def owned_or_404[T](
    get: Callable[[str], T], resource_id: str, *, owner: str, of: Callable[[T], Any], what: str
) -> T:
    """The service's resource `resource_id` (read with `get`) when `of` it names `owner` (the signed-in
    person's customer or wallet); 404 otherwise, so another person's is never shown."""
    try:
        found = get(resource_id)
    except NotFound:
        raise Http404(f"No such {what}") from None
    if not owner or of(found) != owner:
        raise Http404(f"No such {what}")
    return found


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
    """The JSON object the shim posted (form data as a dict). A body json_input refuses raises
    JsonRefused, which `service_errors` answers with a 400."""
    if request.content_type != "application/json":
        return request.POST.dict()
    return json_input.loads_object(request.body or b"{}")


def no_store(response: HttpResponse) -> HttpResponse:
    add_never_cache_headers(response)
    return response


def service_errors[**P](view: Callable[P, HttpResponse]) -> Callable[P, HttpResponse]:
    """A service that cannot be reached (or a portal without credentials) becomes a page (or JSON)
    saying so; service errors a view did not expect become the same page, in words
    (`wording.explain`; the service's own message goes to the log); a request body that cannot be
    read, a 400 in the same shape."""

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
        except json_input.JsonRefused as exc:
            log.info("portal: unreadable JSON body: %s", exc.message)
            message = (
                "Your browser sent something the portal cannot read. Please reload the page and try again."
            )
            status = 400
        if wants_json(request):
            return JsonResponse({"error": message}, status=status)
        return no_store(
            render(request, "wallets/portal/unavailable.html", {"message": message}, status=status)
        )

    return wrapper  # type: ignore[return-value]
