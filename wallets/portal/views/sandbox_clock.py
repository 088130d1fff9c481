"""The sandbox banner's clock control: move the portal's platform's sandbox clock forward 10 minutes,
for demos (a 003 payout completes, a quote lapses). Sandbox mode only."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_POST

from payments.client.errors import ServiceError
from wallets.portal.auth import safe_next, signed_in_service_view
from wallets.portal.http import go
from wallets.portal.service import service_client
from wallets.portal.wording import explain

DEMO_STEP = "PT10M"


@require_POST
@signed_in_service_view
def sandbox_clock_advance_view(request: HttpRequest) -> HttpResponse:
    if not settings.SANDBOX:
        raise Http404
    back = safe_next(request, request.POST.get("next"), reverse("portal:money-home"))
    try:
        service_client().sandbox.advance_clock(by=DEMO_STEP)
    except ServiceError as exc:
        messages.error(request, f"The sandbox clock could not be moved. {explain(exc)}")
    else:
        messages.success(request, "The sandbox clock moved 10 minutes forward.")
    return go(request, back)
