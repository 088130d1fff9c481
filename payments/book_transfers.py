"""Book transfers: money a quote delivers into an internal account of the same platform (from another
internal account, the platform's own included, or from realtime funding), and UMA addresses of the
platform's own customers, which are paid the same way.

- The sender's side is the quote's OUTGOING transaction. When it settles, the receiving account's
  owner gets an INCOMING transaction (direction CREDIT) in the same database transaction: created
  PROCESSING, credited by its own journal (SETTLEMENT of the receiving currency → the account), then
  COMPLETED, which records `INCOMING_PAYMENT.COMPLETED`. The platform started the transfer itself, so
  nobody is asked to approve it (no `INCOMING_PAYMENT.PENDING`).
- Both sides carry the same `reference` (the one reconciliation code of the transfer), so
  `GET /transactions?reference=…` finds the pair; `customerId` and `type` tell them apart.
- A UMA address is ours when its domain is the platform's `umaDomain` or the sandbox UMA domain and
  a customer of this platform has it (not one of the sandbox's magic counterparties, which keep their
  scripted outcomes). It is paid into that customer's active internal account in the quote's
  currency, priced and settled as a book transfer, never over a rail. Addresses of another
  platform's customers are not ours: they go to the rail like any other.
"""

from __future__ import annotations

from typing import Any

from payments import clock
from payments.customers import SANDBOX_UMA_DOMAIN
from payments.errors import BadRequest, ResourceNotFound
from payments.ledger import Leg, ledger_internal_account, ledger_post_transaction, ledger_system_account
from payments.models import (
    Customer,
    InternalAccount,
    LedgerAccount,
    LedgerJournal,
    Platform,
    Quote,
    Transaction,
)
from payments.rails import rail_adapter, uma_parse

Status = Transaction.Status


# --- the receiving side ---------------------------------------------------------------------------


def book_transfer_settlement_account(quote: Quote) -> LedgerAccount:
    """Where a settling book transfer parks the received amount until the receiving side takes it."""
    return ledger_system_account(
        platform_id=quote.platform_id, kind=LedgerAccount.Kind.SETTLEMENT, currency=quote.receiving_currency
    )


def _incoming_source(quote: Quote, txn: Transaction) -> dict[str, Any]:
    """The sender as the receiver sees it: its UMA address when the transfer was addressed by UMA and
    the sender has one, else the outgoing transaction's own source."""
    if quote.destination_kind == Quote.DestinationKind.UMA and quote.customer_id:
        address = Customer.objects.filter(pk=quote.customer_id).values_list("uma_address", flat=True).first()
        if address:
            return {"sourceType": "UMA_ADDRESS", "umaAddress": address, "currency": quote.sending_currency}
    return dict(txn.source)


def book_transfer_receive(quote: Quote, txn: Transaction) -> Transaction:
    """The receiving side of a settling book transfer: its INCOMING transaction, credited and still
    PROCESSING (the caller, which settles the sending side, completes it). Call it with the outgoing
    transaction locked, in the database transaction that settles it, once the received amount sits in
    the receiving currency's SETTLEMENT account (put there by the delivery, or by the debit alone when
    nothing had to be converted; see `book_transfer_settlement_account`)."""
    account = InternalAccount.objects.select_related("customer").get(pk=txn.destination_internal_account_id)
    incoming = Transaction.new(
        type=Transaction.Type.INCOMING,
        customer=account.customer,
        source=_incoming_source(quote, txn),
        destination={
            "destinationType": "ACCOUNT",
            "accountId": account.public_id,
            "currency": account.currency,
        },
        at=clock.now(),
        platform=txn.platform,
        status=Status.PROCESSING,
        source_internal_account_id=txn.source_internal_account_id,
        destination_internal_account=account,
        reference=txn.reference,
        description=txn.description,
        **quote.transaction_amounts(),
    )
    incoming.save(force_insert=True)
    ledger_post_transaction(
        incoming,
        kind=LedgerJournal.Kind.INCOMING,
        legs=[
            Leg(book_transfer_settlement_account(quote), -quote.total_receiving_amount),
            Leg(ledger_internal_account(account), quote.total_receiving_amount),
        ],
        description=f"book transfer from transaction {txn.public_id}",
    )
    return incoming


# --- UMA addresses of the platform's own customers -------------------------------------------------


def uma_own_accounts(platform: Platform, address: str) -> list[InternalAccount] | None:
    """The accounts that can receive a payment to `address` when it belongs to one of the platform's
    customers (see the module docstring), oldest first; None when the address is not ours.

    404 UMA_NOT_FOUND for an address at the platform's own `umaDomain` that no customer has, or whose
    customer has no active account to receive into (the sandbox domain's unknown addresses are left
    to the rail, which answers the same)."""
    parsed = uma_parse(address)
    if parsed is None:
        return None
    domain = parsed[1]
    platform_domain = (platform.uma_domain or "").strip().lower()
    if domain not in {SANDBOX_UMA_DOMAIN, platform_domain}:
        return None
    if rail_adapter().uma_sender_currency(address) is not None:
        return None  # one of the sandbox's simulated counterparties
    customer = (
        Customer.objects.for_platform(platform)
        .filter(uma_address__iexact=address.strip(), deleted_at__isnull=True)
        .first()
    )
    accounts = (
        list(
            InternalAccount.objects.for_platform(platform)
            .filter(customer=customer, status=InternalAccount.Status.ACTIVE)
            .exclude(type=InternalAccount.Type.EMBEDDED_WALLET)
            .order_by("pk")
        )
        if customer is not None
        else []
    )
    if accounts:
        return accounts
    if customer is None and domain != platform_domain:
        return None
    raise ResourceNotFound("Uma", f"No receiver exists at {address}")


def uma_own_account(
    platform: Platform, address: str, *, currency: str | None, sending: str
) -> InternalAccount | None:
    """The account a quote to our own `address` pays into: the one in `currency` when given (400
    INVALID_CURRENCY naming what the customer takes when it has none), else the one in the sending
    currency, else the oldest. None when the address is not ours."""
    accounts = uma_own_accounts(platform, address)
    if accounts is None:
        return None
    by_currency: dict[str, InternalAccount] = {}
    for account in accounts:
        by_currency.setdefault(account.currency, account)
    if currency and currency not in by_currency:
        raise BadRequest(
            f"{address} receives {', '.join(by_currency)}, not {currency}",
            code="INVALID_CURRENCY",
            field="destination.currency",
        )
    return by_currency.get(currency or sending) or accounts[0]
