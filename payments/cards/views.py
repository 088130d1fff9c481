"""The page a reveal link opens (the reference's `panEmbedUrl`): the card's number, expiry and CVV,
for REVEAL_TTL after the reveal, never cached; made to be shown in an iframe (by any page: the link
itself is the secret)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csp import csp_override
from django.views.decorators.http import require_GET

from payments.cards.issuing import card_reveal_open
from payments.errors import ResourceNotFound


@require_GET
@never_cache
@xframe_options_exempt
@csp_override({**settings.SECURE_CSP, "frame-ancestors": ["*"]})  # any platform's page may frame it
def card_reveal_view(request: HttpRequest, token: str) -> HttpResponse:
    try:
        card, secrets = card_reveal_open(token)
    except ResourceNotFound as exc:
        return HttpResponse(exc.message, status=404, content_type="text/plain")
    pan = secrets["pan"]
    context = {
        "pan": " ".join(pan[i : i + 4] for i in range(0, len(pan), 4)),
        "cvv": secrets["cvv"],
        "exp_month": f"{card.exp_month:02d}",
        "exp_year": card.exp_year,
    }
    response = render(request, "payments/cards/reveal.html", context)
    response["Referrer-Policy"] = "no-referrer"
    return response
