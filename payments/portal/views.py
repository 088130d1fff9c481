"""The portal's money pages. An integrator of the service: everything goes through the client, and
every record shown is checked to belong to the signed-in person (the portal's platform sees all of
its customers, so the service alone would not stop one user from reading another's quote).

Service errors reach people through `wallets.portal.wording.explain`, never as the service's words."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from payments.client import (
    Conflict,
    ExternalAccount,
    InternalAccount,
    NotFound,
    Quote,
    ServiceClient,
    ServiceClientError,
    ServiceError,
    Transaction,
)
from payments.portal import sca_steps
from payments.portal.forms import BANK_FIELD_NAMES, NEW_BANK, NEW_UMA, RequoteForm, SendForm
from payments.portal.money import TERMINAL_STATUSES, fee_lines, minor_units, rate_text
from payments.portal.payees import Payee, payee_of, payee_of_account, saved_match
from wallets.portal.auth import current_account, portal_login_required, reauth_redirect
from wallets.portal.custody import session_key_rejected, session_signer
from wallets.portal.http import go, no_store, page, service_errors
from wallets.portal.models import PortalAccount
from wallets.portal.service import service_client
from wallets.portal.wording import explain

log = logging.getLogger(__name__)

HISTORY_PAGE_SIZE = 10
SANDBOX_FUND_UNITS = 100  # "Add test funds" adds 100 whole units of the wallet's currency
POLL_SECONDS = 3
SAVED_ACCOUNTS_SHOWN = 50
_QUOTE_SIDES = "portal_quote_sides"  # session: quote id → the side the person locked (for a re-quote)
# Quote statuses before the transfer starts; any other one means the quote was executed.
NOT_SENT = frozenset({"PENDING", "PENDING_AUTHORIZATION", "EXPIRED"})


def _remember_side(request: HttpRequest, quote: Quote, side: str) -> None:
    sides = dict(list(request.session.get(_QUOTE_SIDES, {}).items())[-19:])
    sides[quote.id] = side
    request.session[_QUOTE_SIDES] = sides


# --- helpers --------------------------------------------------------------------------------------


def _account(request: HttpRequest) -> PortalAccount:
    account = current_account(request)
    assert account is not None  # portal_login_required ran first
    return account


def _wallet(client: ServiceClient, account: PortalAccount) -> InternalAccount | None:
    page_ = client.internal_accounts.list(customer_id=account.customer_id, type="EMBEDDED_WALLET")
    return next((a for a in page_.data if a.id == account.wallet_account_id), None)


def _own_quote(client: ServiceClient, account: PortalAccount, quote_id: str) -> Quote:
    """The quote, if its source is this person's wallet; otherwise 404 (as if it did not exist)."""
    try:
        quote = client.quotes.get(quote_id)
    except NotFound:
        raise Http404("No such quote") from None
    if not account.wallet_account_id or quote.source.get("accountId") != account.wallet_account_id:
        raise Http404("No such quote")
    return quote


def _own_transaction(client: ServiceClient, account: PortalAccount, transaction_id: str) -> Transaction:
    try:
        txn = client.transactions.get(transaction_id)
    except NotFound:
        raise Http404("No such transaction") from None
    if txn.customer_id != account.customer_id:
        raise Http404("No such transaction")
    return txn


def _saved_accounts(client: ServiceClient, account: PortalAccount) -> dict[str, ExternalAccount]:
    saved = client.external_accounts.list(customer_id=account.customer_id, limit=SAVED_ACCOUNTS_SHOWN)
    return {e.id: e for e in saved.data if e.status == "ACTIVE"}


def _destination_currency_decimals(client: ServiceClient, source: str, destination: str) -> int:
    rates = client.exchange_rates.list(source_currency=source, destination_currencies=[destination])
    for rate in rates:
        if rate.destination_currency.code == destination and rate.destination_currency.decimals is not None:
            return rate.destination_currency.decimals
    return 2


def _executed(quote: Quote) -> bool:
    return bool(quote.transaction_id) and quote.status not in NOT_SENT


def _status_url(quote: Quote) -> str:
    return reverse("payments:transaction-status", args=[quote.transaction_id])


# --- 6. home --------------------------------------------------------------------------------------


def _activity_row(client: ServiceClient, txn: Transaction, known: dict[str, ExternalAccount]) -> dict:
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
        "live": any(t.status not in TERMINAL_STATUSES for t in history.data),
        "poll_seconds": POLL_SECONDS,
    }


@require_GET
@portal_login_required
@service_errors
def money_home_view(request: HttpRequest) -> HttpResponse:
    account = _account(request)
    client = service_client()
    cursor = request.GET.get("cursor") or None
    context: dict[str, Any] = {"account": account, **_history(client, account, cursor)}
    if getattr(request, "htmx", False) and request.GET.get("part") == "history":
        return no_store(page(request, "payments/portal/home.html", context, partial="history"))
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
    return no_store(page(request, "payments/portal/home.html", context))


@require_POST
@portal_login_required
@service_errors
def sandbox_fund_view(request: HttpRequest) -> HttpResponse:
    account = _account(request)
    client = service_client()
    wallet = _wallet(client, account) if settings.SANDBOX else None
    if wallet is None or wallet.balance is None:
        messages.error(request, "Test funds are available only for a ready wallet in the sandbox.")
        return go(request, reverse("payments:home"))
    currency = wallet.balance.currency
    try:
        client.sandbox.fund(wallet.id, SANDBOX_FUND_UNITS * 10 ** (currency.decimals or 0))
    except ServiceError as exc:
        messages.error(request, f"Test funds could not be added. {explain(exc)}")
    else:
        messages.success(request, f"Added {SANDBOX_FUND_UNITS} {currency.code} of test funds.")
    return go(request, reverse("payments:home"))


# --- 7. send --------------------------------------------------------------------------------------


def _send_form(
    request: HttpRequest, saved: dict[str, ExternalAccount], wallet: InternalAccount | None
) -> SendForm:
    """The send form: bound on Continue; on a change of choice (`step=choose`, htmx or the no-script
    button) unbound with what was entered so far, so only the fields of the new choice show, without
    errors for fields not filled in yet."""
    payees = {account_id: payee_of_account(e) for account_id, e in saved.items()}
    currency = wallet.balance.currency.code if wallet and wallet.balance else ""
    kwargs: dict[str, Any] = {"saved": payees, "sending_currency": currency}
    if request.method == "POST" and request.POST.get("step") != "choose":
        return SendForm(request.POST, **kwargs)
    source = request.POST if request.method == "POST" else request.GET
    initial = {name: value for name, value in source.items() if name in SendForm.base_fields}
    if "to" in request.GET:
        initial["destination"] = request.GET["to"]
    if not initial.get("destination") and not saved:
        initial["destination"] = NEW_BANK
    return SendForm(initial=initial, **kwargs)


@require_http_methods(["GET", "POST"])
@portal_login_required
@service_errors
def send_view(request: HttpRequest) -> HttpResponse:
    template = "payments/portal/send.html"
    account = _account(request)
    client = service_client()
    wallet = _wallet(client, account)
    saved = _saved_accounts(client, account)
    form = _send_form(request, saved, wallet)
    context = {"form": form, "wallet": wallet}
    if wallet is None or wallet.balance is None:
        return no_store(page(request, template, context))
    if form.is_bound and form.is_valid():
        quote = _quote_from_form(request, client, account, wallet, form, saved)
        if quote is not None:
            _remember_side(request, quote, form.cleaned_data["locked_side"])
            return go(request, reverse("payments:quote-confirm", args=[quote.id]))
    status = 400 if form.is_bound and form.errors else 200
    return no_store(page(request, template, context, partial="send-form", status=status))


def _new_bank_destination(
    request: HttpRequest, client: ServiceClient, account: PortalAccount, form: SendForm
) -> ExternalAccount:
    """The new bank account, created; when it is already saved (the service answers 409), the saved
    one. Raises what the service raised otherwise."""
    currency, info = form.account_info()
    try:
        return client.external_accounts.create(
            currency=currency, account_info=info, customer_id=account.customer_id
        )
    except Conflict as exc:
        saved = saved_match(client, account.customer_id, currency, info)
        if saved is None:
            raise
        log.info("portal: %s is already saved as %s (%s); using it", info["accountType"], saved.id, exc.code)
        payee = payee_of_account(saved)
        messages.info(request, f"You had already saved this account ({payee.label}), so we used it.")
        return saved


def _quote_from_form(
    request: HttpRequest,
    client: ServiceClient,
    account: PortalAccount,
    wallet: InternalAccount,
    form: SendForm,
    saved: dict[str, ExternalAccount],
) -> Quote | None:
    """Create the destination (if new) and the quote; on failure the form carries the errors."""
    data = form.cleaned_data
    source_currency = wallet.balance.currency  # type: ignore[union-attr]
    fields: dict[str, Any] = {}
    chosen = data["destination"]
    try:
        if chosen == NEW_UMA:
            lookup = client.receivers.lookup_uma(data["uma_address"], customer_id=account.customer_id)
            if not lookup.supported_currencies:
                form.add_error("uma_address", "This receiver does not accept payments right now.")
                return None
            currency = lookup.supported_currencies[0]["currency"]["code"]
            destination = {"destinationType": "UMA_ADDRESS", "umaAddress": data["uma_address"]}
            fields["lookup_id"] = lookup.lookup_id
        else:
            external = (
                saved[chosen] if chosen != NEW_BANK else _new_bank_destination(request, client, account, form)
            )
            destination = {"destinationType": "ACCOUNT", "accountId": external.id}
            currency = external.currency
    except ServiceError as exc:
        if not form.add_service_errors(exc.field_errors):
            form.add_error("uma_address" if chosen == NEW_UMA else None, explain(exc))
        return None
    side = data["locked_side"]
    decimals = (
        source_currency.decimals or 0
        if side == "SENDING"
        else _destination_currency_decimals(client, source_currency.code, currency)
    )
    amount = minor_units(data["amount"], decimals)
    if amount is None or amount <= 0:
        form.add_error("amount", f"Use at most {decimals} decimal places.")
        return None
    try:
        return client.quotes.create(
            source={"sourceType": "ACCOUNT", "accountId": wallet.id},
            destination=destination,
            locked_currency_side=side,
            locked_currency_amount=amount,
            idempotency_key=str(uuid.uuid4()),
            **fields,
        )
    except ServiceError as exc:
        if not form.add_service_errors(exc.field_errors):
            form.add_error("amount", explain(exc))
        return None


@require_POST
@portal_login_required
def send_validate_view(request: HttpRequest) -> HttpResponse:
    """htmx, on change: the destination's fields checked as they are filled in (only the fields that
    have a value show errors). The service checks them again, authoritatively, on Continue."""
    form = SendForm({**request.POST.dict(), "destination": NEW_BANK})
    form.is_valid()
    for name in list(form.errors):
        if name != "__all__" and not request.POST.get(name, "").strip():
            del form.errors[name]
    context = {"form": form, "bank_fields": [form[name] for name in BANK_FIELD_NAMES]}
    return page(request, "payments/portal/send.html", context, partial="bank-errors")


# --- 7. quote confirmation ------------------------------------------------------------------------


def _quote_context(request: HttpRequest, quote: Quote, **extra: Any) -> dict[str, Any]:
    client = service_client()
    now = timezone.now()
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
            sca_steps.upcoming(request, client, _account(request).customer_id)
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
    here = reverse("payments:quote-confirm", args=[quote.id])
    if signer is None:
        return reauth_redirect(request, here)
    try:
        return client.quotes.execute(
            quote,
            signer=signer,
            # The same key for every Confirm of this quote: a retry gets the first answer, never a
            # second transfer.
            idempotency_key=f"portal:{quote.id}",
            sca_factor=sca_steps.preferred_factor(request),
        )
    except ServiceError as exc:
        if session_key_rejected(request, exc):
            return reauth_redirect(request, here)
        return exc
    except ServiceClientError as exc:  # no answer (dropped, timed out) or one we cannot read
        return exc


@require_http_methods(["GET", "POST"])
@portal_login_required
@service_errors
def quote_confirm_view(request: HttpRequest, quote_id: str) -> HttpResponse:
    template = "payments/portal/quote_confirm.html"
    account = _account(request)
    client = service_client()
    quote = _own_quote(client, account, quote_id)
    if _executed(quote):
        return go(request, _status_url(quote))
    if request.method == "POST" and quote.status == "PENDING" and quote.expires_at > timezone.now():
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
@portal_login_required
@service_errors
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
        quote = client.quotes.create(
            source={"sourceType": "ACCOUNT", "accountId": account.wallet_account_id},
            destination=destination,
            locked_currency_side=side,
            locked_currency_amount=amount,
            idempotency_key=str(uuid.uuid4()),
            **fields,
        )
    except ServiceError as exc:
        context = _quote_context(request, old, error=f"A new quote could not be made. {explain(exc)}")
        return no_store(page(request, "payments/portal/quote_confirm.html", context, partial="quote-panel"))
    _remember_side(request, quote, side)
    return go(request, reverse("payments:quote-confirm", args=[quote.id]))


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
@portal_login_required
@service_errors
def transaction_status_view(request: HttpRequest, transaction_id: str) -> HttpResponse:
    client = service_client()
    txn = _own_transaction(client, _account(request), transaction_id)
    context = {
        **_payment_context(client, txn),
        "live": txn.status not in TERMINAL_STATUSES,
        "poll_seconds": POLL_SECONDS,
    }
    return no_store(page(request, "payments/portal/transaction_status.html", context, partial="status"))


@require_GET
@portal_login_required
@service_errors
def transaction_receipt_view(request: HttpRequest, transaction_id: str) -> HttpResponse:
    """A printable record of one payment: who, how much, fees, rate, when, and its reference."""
    client = service_client()
    txn = _own_transaction(client, _account(request), transaction_id)
    context = {**_payment_context(client, txn), "printed_at": timezone.now()}
    return no_store(page(request, "payments/portal/receipt.html", context))
