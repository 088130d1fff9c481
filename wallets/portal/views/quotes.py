"""The quote's confirmation page: what is sent, received and paid, Confirm (execute, stamped with
the session key kept for the person), a fresh quote for a lapsed one; while the payment waits for
Strong Customer Authentication, its current approval step (the step views are in `sca`)."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from payments.client import Quote, ServiceClient, ServiceClientError, ServiceError
from wallets.portal import sca_steps
from wallets.portal.auth import reauth_redirect, signed_in_service_view
from wallets.portal.custody import session_key_rejected, session_signer
from wallets.portal.forms import RequoteForm
from wallets.portal.http import go, no_store, page
from wallets.portal.money import fee_lines, rate_text
from wallets.portal.payees import payee_of
from wallets.portal.service import service_client, service_now
from wallets.portal.views.money import _account, _new_quote, _own_quote
from wallets.portal.wording import explain

log = logging.getLogger(__name__)

_QUOTE_SIDES = "portal_quote_sides"  # session: quote id → the side the person locked (for a re-quote)
# Quote statuses before the transfer starts; any other one means the quote was executed.
NOT_SENT = frozenset({"PENDING", "PENDING_AUTHORIZATION", "EXPIRED"})


def _remember_side(request: HttpRequest, quote: Quote, side: str) -> None:
    sides = dict(list(request.session.get(_QUOTE_SIDES, {}).items())[-19:])
    sides[quote.id] = side
    request.session[_QUOTE_SIDES] = sides


def _executed(quote: Quote) -> bool:
    return bool(quote.transaction_id) and quote.status not in NOT_SENT


def _status_url(quote: Quote) -> str:
    return reverse("portal:transaction-status", args=[quote.transaction_id])


# --- 7. quote confirmation ------------------------------------------------------------------------


def _quote_context(request: HttpRequest, quote: Quote, **extra: Any) -> dict[str, Any]:
    client = service_client()
    now = service_now(client)
    seconds_left = max(0, int((quote.expires_at - now).total_seconds()))
    lapsed = quote.status == "EXPIRED" or (quote.status == "PENDING" and seconds_left == 0)
    return {
        "quote": quote,
        "payee": payee_of(client, quote.destination),
        "rate": rate_text(quote.exchange_rate, quote.sending_currency, quote.receiving_currency),
        "fees": fee_lines(quote.fees_included, quote.platform_fees_included, quote.rate_details),
        "seconds_left": seconds_left,
        "lapsed": lapsed,
        # Before Confirm: what approving will ask of a person in an SCA region.
        "approval": (
            sca_steps.upcoming(
                request, client, _account(request).customer_id, quote.destination.get("accountId")
            )
            if quote.status == "PENDING" and not lapsed
            else None
        ),
        **sca_steps.sca_context(request, quote),  # the approval step while PENDING_AUTHORIZATION
        "locked_side": request.session.get(_QUOTE_SIDES, {}).get(quote.id, "SENDING"),
        **extra,
    }


def _execute(request: HttpRequest, client: ServiceClient, quote: Quote) -> Quote | HttpResponse | Exception:
    """Execute the quote; the quote after it, a response (sign in again), or what went wrong."""
    signer = session_signer(request)
    here = reverse("portal:quote-confirm", args=[quote.id])
    if signer is None:
        return reauth_redirect(request, here)
    try:
        return client.quotes.execute(
            quote,
            signer=signer,
            # The same key for every Confirm of this quote: a retry gets the first answer, never a
            # second transfer.
            idempotency_key=str(uuid.uuid5(uuid.NAMESPACE_URL, f"portal:{quote.id}")),
            sca_factor=sca_steps.preferred_factor(request),
        )
    except ServiceError as exc:
        if session_key_rejected(request, exc):
            return reauth_redirect(request, here)
        return exc
    except ServiceClientError as exc:  # no answer (dropped, timed out) or one we cannot read
        return exc


@require_http_methods(["GET", "POST"])
@signed_in_service_view
def quote_confirm_view(request: HttpRequest, quote_id: str) -> HttpResponse:
    template = "wallets/portal/quote_confirm.html"
    account = _account(request)
    client = service_client()
    quote = _own_quote(client, account, quote_id)
    if _executed(quote):
        return go(request, _status_url(quote))
    if request.method == "POST" and quote.status == "PENDING" and quote.expires_at > service_now(client):
        outcome = _execute(request, client, quote)
        if isinstance(outcome, HttpResponse):
            return outcome
        if isinstance(outcome, Exception):
            # Whatever the answer said, the payment may have gone through: ask the service what is
            # true before offering anything.
            quote = client.quotes.get(quote.id)
            if _executed(quote):
                log.warning("portal: execute of %s answered %r, yet it went through", quote.id, outcome)
                return go(request, _status_url(quote))
            if quote.status == "PENDING_AUTHORIZATION":  # it went through to its approval steps
                log.warning("portal: execute of %s answered %r, yet it waits for approval", quote.id, outcome)
                return no_store(
                    page(request, template, _quote_context(request, quote), partial="quote-panel")
                )
            error = explain(outcome)
            if quote.status == "PENDING":
                error += " Nothing was sent."
            context = _quote_context(request, quote, error=error)
            return no_store(page(request, template, context, partial="quote-panel", status=400))
        quote = outcome
        if _executed(quote):
            return go(request, _status_url(quote))
    return no_store(page(request, template, _quote_context(request, quote), partial="quote-panel"))


@require_POST
@signed_in_service_view
def quote_requote_view(request: HttpRequest, quote_id: str) -> HttpResponse:
    """A fresh quote for the same destination and locked amount as a lapsed one."""
    account = _account(request)
    client = service_client()
    old = _own_quote(client, account, quote_id)
    form = RequoteForm(request.POST)
    side = form.cleaned_data["locked_side"] if form.is_valid() else "SENDING"
    amount = old.total_sending_amount if side == "SENDING" else old.total_receiving_amount
    destination = {
        k: v for k, v in old.destination.items() if k in ("destinationType", "accountId", "umaAddress")
    }
    fields: dict[str, Any] = {}
    try:
        if destination.get("destinationType") == "UMA_ADDRESS":
            lookup = client.receivers.lookup_uma(destination["umaAddress"], customer_id=account.customer_id)
            fields["lookup_id"] = lookup.lookup_id
        quote = _new_quote(client, account, destination=destination, side=side, amount=amount, **fields)
    except ServiceError as exc:
        context = _quote_context(request, old, error=f"A new quote could not be made. {explain(exc)}")
        return no_store(page(request, "wallets/portal/quote_confirm.html", context, partial="quote-panel"))
    _remember_side(request, quote, side)
    return go(request, reverse("portal:quote-confirm", args=[quote.id]))
