"""The send page: who gets the money (a saved account, a new bank account or an UMA address) and
how much, checked as it is typed; Continue creates the destination (if new) and the quote, then
goes to the quote's confirmation (`quotes`)."""

from __future__ import annotations

import logging
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from payments.client import Conflict, ExternalAccount, InternalAccount, Quote, ServiceClient, ServiceError
from wallets.portal import sca_steps
from wallets.portal.auth import portal_login_required, signed_in_service_view
from wallets.portal.forms import BANK_FIELD_NAMES, NEW_BANK, NEW_UMA, SendForm
from wallets.portal.http import go, no_store, page
from wallets.portal.models import PortalAccount
from wallets.portal.money import minor_units
from wallets.portal.payees import payee_of_account, saved_match
from wallets.portal.service import service_client
from wallets.portal.views.money import _account, _new_quote, _saved_accounts, _wallet
from wallets.portal.views.quotes import _remember_side
from wallets.portal.views.trust import trust_begin
from wallets.portal.wording import explain

log = logging.getLogger(__name__)


def _destination_currency_decimals(client: ServiceClient, source: str, destination: str) -> int:
    rates = client.exchange_rates.list(source_currency=source, destination_currencies=[destination])
    for rate in rates:
        if rate.destination_currency.code == destination and rate.destination_currency.decimals is not None:
            return rate.destination_currency.decimals
    return 2


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
@signed_in_service_view
def send_view(request: HttpRequest) -> HttpResponse:
    template = "wallets/portal/send.html"
    account = _account(request)
    client = service_client()
    wallet = _wallet(client, account)
    saved = _saved_accounts(client, account)
    form = _send_form(request, saved, wallet)
    # People in an SCA region may trust a bank account they pay (then it needs no approval step).
    context = {"form": form, "wallet": wallet, "trust_offered": sca_steps.sca_region(request)}
    if wallet is None or wallet.balance is None:
        return no_store(page(request, template, context))
    if form.is_bound and form.is_valid():
        quote = _quote_from_form(request, client, account, wallet, form, saved)
        if quote is not None:
            _remember_side(request, quote, form.cleaned_data["locked_side"])
            url = reverse("portal:quote-confirm", args=[quote.id])
            payee_id = quote.destination.get("accountId")
            if context["trust_offered"] and form.cleaned_data.get("trust") and payee_id:
                label = payee_of_account(client.external_accounts.get(payee_id)).label
                url = trust_begin(request, client, account_id=payee_id, label=label, next_url=url)
            return go(request, url)
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
        return _new_quote(client, account, destination=destination, side=side, amount=amount, **fields)
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
    return page(request, "wallets/portal/send.html", context, partial="bank-errors")
