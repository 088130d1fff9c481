"""The portal's money pages: home (balances, receiving, history, sandbox test funds), a payment's
live status and its receipt; and the helpers the send, quote and SCA pages share. An integrator of
the service: everything goes through the client, and every record shown is checked to belong to the
signed-in person (the portal's platform sees all of its customers, so the service alone would not
stop one user from reading another's quote).

Service errors reach people through `wallets.portal.wording.explain`, never as the service's words."""

from __future__ import annotations

import uuid
from operator import attrgetter
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from payments.client import (
    ExternalAccount,
    InternalAccount,
    Quote,
    ServiceClient,
    ServiceError,
    Transaction,
)
from wallets.portal.auth import current_account, signed_in_service_view
from wallets.portal.http import go, no_store, owned_or_404, page
from wallets.portal.models import PortalAccount
from wallets.portal.money import TERMINAL_STATUSES, fee_lines, rate_text
from wallets.portal.payees import Payee, payee_of
from wallets.portal.service import service_client
from wallets.portal.wording import explain

HISTORY_PAGE_SIZE = 10
SANDBOX_FUND_UNITS = 100  # "Add test funds" adds 100 whole units of the wallet's currency
POLL_SECONDS = 3
SAVED_ACCOUNTS_SHOWN = 50


# --- helpers --------------------------------------------------------------------------------------


def _account(request: HttpRequest) -> PortalAccount:
    account = current_account(request)
    assert account is not None  # signed_in_service_view ran first
    return account


def _wallet(client: ServiceClient, account: PortalAccount) -> InternalAccount | None:
    page_ = client.internal_accounts.list(customer_id=account.customer_id, type="EMBEDDED_WALLET")
    return next((a for a in page_.data if a.id == account.wallet_account_id), None)


def _own_quote(client: ServiceClient, account: PortalAccount, quote_id: str) -> Quote:
    """The quote, if its source is this person's wallet; otherwise 404 (as if it did not exist)."""
    return owned_or_404(
        client.quotes.get, quote_id, owner=account.wallet_account_id, of=_source_account, what="quote"
    )


def _source_account(quote: Quote) -> str | None:
    return quote.source.get("accountId")


def _new_quote(
    client: ServiceClient,
    account: PortalAccount,
    *,
    destination: dict[str, Any],
    side: str,
    amount: int,
    **fields: Any,
) -> Quote:
    """A quote paying from this person's wallet; a fresh idempotency key, since every call asks for a
    new quote (a send, a requote)."""
    return client.quotes.create(
        source={"sourceType": "ACCOUNT", "accountId": account.wallet_account_id},
        destination=destination,
        locked_currency_side=side,
        locked_currency_amount=amount,
        idempotency_key=str(uuid.uuid4()),
        **fields,
    )


def _own_transaction(client: ServiceClient, account: PortalAccount, transaction_id: str) -> Transaction:
    return owned_or_404(
        client.transactions.get,
        transaction_id,
        owner=account.customer_id,
        of=attrgetter("customer_id"),
        what="transaction",
    )


def _saved_accounts(client: ServiceClient, account: PortalAccount) -> dict[str, ExternalAccount]:
    saved = client.external_accounts.list(customer_id=account.customer_id, limit=SAVED_ACCOUNTS_SHOWN)
    return {e.id: e for e in saved.data if e.status == "ACTIVE"}


# --- 6. home --------------------------------------------------------------------------------------


def _activity_row(client: ServiceClient, txn: Transaction, known: dict[str, ExternalAccount]) -> dict:
    if txn.type == "CARD":  # a card payment: the merchant and the amount authorized
        return {"txn": txn, "card_merchant": str((txn.merchant or {}).get("descriptor") or "Card payment")}
    outgoing = txn.type != "INCOMING"
    return {
        "txn": txn,
        "payee": payee_of(client, txn.destination, known) if outgoing else None,
        "rate": rate_text(
            txn.exchange_rate,
            txn.sent_amount.currency if txn.sent_amount else None,
            txn.received_amount.currency if txn.received_amount else None,
        ),
    }


def _history(client: ServiceClient, account: PortalAccount, cursor: str | None) -> dict[str, Any]:
    history = client.transactions.list(
        customer_id=account.customer_id, limit=HISTORY_PAGE_SIZE, cursor=cursor
    )
    known = _saved_accounts(client, account) if history.data else {}
    return {
        "activity": [_activity_row(client, t, known) for t in history.data],
        "next_cursor": history.next_cursor if history.has_more else None,
        "cursor": cursor or "",
        # A card payment changes only when its merchant clears or returns it (days): nothing to poll for.
        "live": any(t.status not in TERMINAL_STATUSES and t.type != "CARD" for t in history.data),
        "poll_seconds": POLL_SECONDS,
    }


@require_GET
@signed_in_service_view
def money_home_view(request: HttpRequest) -> HttpResponse:
    account = _account(request)
    client = service_client()
    cursor = request.GET.get("cursor") or None
    context: dict[str, Any] = {"account": account, **_history(client, account, cursor)}
    if getattr(request, "htmx", False) and request.GET.get("part") == "history":
        return no_store(page(request, "wallets/portal/money.html", context, partial="history"))
    accounts = client.internal_accounts.list(customer_id=account.customer_id, limit=50).data
    wallet = next((a for a in accounts if a.id == account.wallet_account_id), None)
    others = [a for a in accounts if a.id != account.wallet_account_id and a.balance and a.balance.amount]
    context.update(
        wallet=wallet,
        other_accounts=others,
        customer=client.customers.get(account.customer_id),
        sandbox=settings.SANDBOX,
        fund_units=SANDBOX_FUND_UNITS,
    )
    return no_store(page(request, "wallets/portal/money.html", context))


@require_POST
@signed_in_service_view
def sandbox_fund_view(request: HttpRequest) -> HttpResponse:
    account = _account(request)
    client = service_client()
    wallet = _wallet(client, account) if settings.SANDBOX else None
    if wallet is None or wallet.balance is None:
        messages.error(request, "Test funds are available only for a ready wallet in the sandbox.")
        return go(request, reverse("portal:money-home"))
    currency = wallet.balance.currency
    try:
        client.sandbox.fund(wallet.id, SANDBOX_FUND_UNITS * 10 ** (currency.decimals or 0))
    except ServiceError as exc:
        messages.error(request, f"Test funds could not be added. {explain(exc)}")
    else:
        messages.success(request, f"Added {SANDBOX_FUND_UNITS} {currency.code} of test funds.")
    return go(request, reverse("portal:money-home"))


# --- 7. live status and the receipt ---------------------------------------------------------------


def _payment_context(client: ServiceClient, txn: Transaction) -> dict[str, Any]:
    sent = txn.sent_amount
    received = txn.received_amount
    payee: Payee | None = payee_of(client, txn.destination) if txn.type != "INCOMING" else None
    return {
        "txn": txn,
        "payee": payee,
        "incoming": txn.type == "INCOMING",
        "rate": rate_text(
            txn.exchange_rate, sent.currency if sent else None, received.currency if received else None
        ),
        "fees": fee_lines(txn.fees, txn.platform_fees, txn.raw.get("rateDetails")),
        "sending_currency": sent.currency if sent else None,
        "reference": (txn.raw.get("reconciliationInstructions") or {}).get("reference", ""),
        "terminal": txn.status in TERMINAL_STATUSES,
    }


@require_GET
@signed_in_service_view
def transaction_status_view(request: HttpRequest, transaction_id: str) -> HttpResponse:
    client = service_client()
    txn = _own_transaction(client, _account(request), transaction_id)
    context = {
        **_payment_context(client, txn),
        "live": txn.status not in TERMINAL_STATUSES,
        "poll_seconds": POLL_SECONDS,
    }
    return no_store(page(request, "wallets/portal/transaction_status.html", context, partial="status"))


@require_GET
@signed_in_service_view
def transaction_receipt_view(request: HttpRequest, transaction_id: str) -> HttpResponse:
    """A printable record of one payment: who, how much, fees, rate, when, and its reference."""
    client = service_client()
    txn = _own_transaction(client, _account(request), transaction_id)
    context = {**_payment_context(client, txn), "printed_at": timezone.now()}
    return no_store(page(request, "wallets/portal/receipt.html", context))
