from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from wallets.portal.auth import current_account


@require_GET
def home_view(request: HttpRequest) -> HttpResponse:
    """The site root: a welcome for visitors; for signed-in people, a start page that the money
    pages (balances, send, history) take over."""
    return render(request, "wallets/portal/home.html", {"account": current_account(request)})
