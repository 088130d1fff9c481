"""The hosted LIVENESS page of a wallet's ownership verification (`/onboarding/wallet/<token>/`, the
`verificationLink` of `POST .../external-accounts/{id}/challenge` with `method: LIVENESS`).

The service has no biometric provider: the page exists in the sandbox only, where it simulates the
check's outcome ("pass" or "fail"), which completes the challenge as a provider's callback would
(`payments.ownership.ownership_liveness_complete`)."""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from payments.errors import ServiceError
from payments.external_accounts import external_account_primary_identifier
from payments.hosted.views import PAGES, _private
from payments.ownership import OwnershipLinkClosed, ownership_liveness_complete, ownership_liveness_open

PAGE = f"{PAGES}/wallet_liveness.html"


@require_http_methods(["GET", "POST"])
def liveness_view(request: HttpRequest, token: str) -> HttpResponse:
    if not settings.SANDBOX:
        raise Http404
    try:
        challenge = ownership_liveness_open(token)
        account = challenge.external_account
        if request.method == "POST":
            passed = request.POST.get("outcome") == "pass"
            account = ownership_liveness_complete(token, passed=passed)
            outcome = "approved" if passed else "rejected"
            return _private(render(request, PAGE, _context(account, outcome=outcome)))
    except ServiceError as exc:
        closed = isinstance(exc, OwnershipLinkClosed)
        context = {
            "title": "This link is no longer active" if closed else "This link does not work",
            "text": "Go back to the app that sent you here and start the wallet verification again.",
            "status": exc.status,
        }
        return _private(render(request, f"{PAGES}/link_error.html", context, status=exc.status))
    response = render(request, PAGE, _context(account, outcome=""))
    response.headers["Referrer-Policy"] = "same-origin"  # a form post needs its Origin (see `_private`)
    return _private(response)


def _context(account, *, outcome: str) -> dict:
    return {
        "page_title": "Wallet verification",
        "platform_name": account.platform.name,
        "customer": account.customer,
        "address": external_account_primary_identifier(account),
        "outcome": outcome,
    }
