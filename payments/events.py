"""Webhook events for customer, verification and internal-account status and balance changes.

Called inside the transaction that makes the change (the outbox row commits with it). `data` is rendered
by the wire layer (`payments.wire`), as a GET of the resource renders it."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Mapping
from uuid import UUID

from django.db import transaction

from payments.models import Card, CardTransaction, Customer, CustomerStatus, InternalAccount, Verification
from payments.query_plans import plan_first
from payments.webhook_types import WebhookType
from payments.webhooks import webhook_emit, webhook_rewrite
from payments.wire.accounts import render_internal_account
from payments.wire.cards import render_card, render_card_transaction
from payments.wire.customers import render_customer
from payments.wire.verifications import VerificationSerializer

_CUSTOMER_EVENTS = {
    (False, CustomerStatus.APPROVED): WebhookType.CUSTOMER_KYC_APPROVED,
    (False, CustomerStatus.REJECTED): WebhookType.CUSTOMER_KYC_REJECTED,
    (False, CustomerStatus.PENDING): WebhookType.CUSTOMER_KYC_PENDING,
    (True, CustomerStatus.APPROVED): WebhookType.CUSTOMER_KYB_APPROVED,
    (True, CustomerStatus.REJECTED): WebhookType.CUSTOMER_KYB_REJECTED,
    (True, CustomerStatus.PENDING): WebhookType.CUSTOMER_KYB_PENDING,
}


def customer_status_changed(customer: Customer) -> None:
    """UNVERIFIED and HOLD have no event type in the reference; every other status has one."""
    event = _CUSTOMER_EVENTS.get((customer.is_business, customer.status))
    if event is None:
        return
    webhook_emit(platform=customer.platform, type=event, data=render_customer(customer))


def verification_status_changed(verification: Verification) -> None:
    webhook_emit(
        platform=verification.platform,
        type=WebhookType(f"VERIFICATION.{verification.status}"),
        data=dict(VerificationSerializer(verification).data),
    )


# --- internal accounts ---------------------------------------------------------------------------


def internal_account_status_changed(account: InternalAccount, *, balance: int) -> None:
    """`INTERNAL_ACCOUNT.STATUS_UPDATED` with the account as GET shows it (`payments.accounts`)."""
    _internal_account_event(account, WebhookType.INTERNAL_ACCOUNT_STATUS_UPDATED, balance=balance)


def internal_account_funding_instructions_changed(account: InternalAccount, *, balance: int) -> None:
    """`INTERNAL_ACCOUNT.FUNDING_INSTRUCTIONS_UPDATED`: its `fundingPaymentInstructions` came or went."""
    _internal_account_event(
        account, WebhookType.INTERNAL_ACCOUNT_FUNDING_INSTRUCTIONS_UPDATED, balance=balance
    )


def _internal_account_event(account: InternalAccount, event: WebhookType, *, balance: int) -> None:
    webhook_emit(
        platform=account.platform, type=event, data=render_internal_account(account, balance=balance)
    )


# --- internal account balances --------------------------------------------------------------------


class _BalanceEvents:
    """The BALANCE_UPDATED events written in the open database transaction, by internal account id.

    It is registered with `transaction.on_commit`, and only Django's list of commit callbacks holds it:
    Django drops it when the transaction (or savepoint) that registered it rolls back and calls it
    (which empties it) then drops it on commit. `_current` refers to it weakly, so it answers the
    collector exactly while the transaction that registered it can still commit; that is how a later
    balance change knows it belongs to the same transaction."""

    def __init__(self) -> None:
        self.events: dict[UUID, UUID] = {}

    def __call__(self) -> None:
        self.events.clear()


_current = threading.local()  # .collector: weakref to this thread's (its connection's) _BalanceEvents


def _balance_events() -> dict[UUID, UUID]:
    """The open transaction's BALANCE_UPDATED event ids by account (callers keep the dict, never the
    collector, so an exception's traceback cannot keep a dropped collector alive)."""
    ref = getattr(_current, "collector", None)
    pending = ref() if ref is not None else None
    if pending is None:
        pending = _BalanceEvents()
        transaction.on_commit(pending)
        _current.collector = weakref.ref(pending)
    return pending.events


def _account_rows(account_id: UUID):
    return InternalAccount.objects.select_related("platform").filter(pk=account_id)[:1]


def internal_account_balances_changed(
    balances: Mapping[UUID, tuple[int, int]], *, accounts: Iterable[InternalAccount] = ()
) -> None:
    """`INTERNAL_ACCOUNT.BALANCE_UPDATED` with the account as GET shows it, once per account per
    database transaction (`balances`: the new (balance, held) of each): a second change in the same transaction rewrites the event the first wrote,
    so the event carries the balance that commits. Called by the ledger with the new balance of every
    internal account a posting changed, also when the platform has no webhook endpoint: the outbox
    records those as FAILED. An account not among `accounts` (loaded with their platform) is read
    with one precompiled query."""
    event_type = WebhookType.INTERNAL_ACCOUNT_BALANCE_UPDATED
    known = {account.pk: account for account in accounts}
    pending: dict[UUID, UUID] | None = None
    for account_id, (balance, held) in sorted(balances.items()):
        account = known.get(account_id) or plan_first("balance-event-account", _account_rows, account_id)
        if account is None:
            continue
        if pending is None:
            pending = _balance_events()
        data = render_internal_account(account, balance=balance, held=held)
        earlier = pending.get(account.pk)
        if earlier is not None and webhook_rewrite(event_id=earlier, type=event_type, data=data):
            continue
        pending[account.pk] = webhook_emit(platform=account.platform, type=event_type, data=data).pk


# --- cards ---------------------------------------------------------------------------------------


def card_state_changed(card: Card) -> None:
    """`CARD.STATE_CHANGE` with the card as GET shows it."""
    webhook_emit(platform=card.platform, type=WebhookType.CARD_STATE_CHANGE, data=render_card(card))


def card_funding_sources_changed(card: Card) -> None:
    """`CARD.FUNDING_SOURCE_CHANGE` with the card and its new ordered `fundingSources`."""
    webhook_emit(platform=card.platform, type=WebhookType.CARD_FUNDING_SOURCE_CHANGE, data=render_card(card))


def card_transaction_changed(txn: CardTransaction, *, event: str) -> None:
    """`CARD_TRANSACTION.<event>` (AUTHORIZED, PARTIALLY_SETTLED, SETTLED, REFUNDED, EXCEPTION) with the
    card transaction as the reference renders it."""
    webhook_emit(
        platform=txn.platform,
        type=WebhookType(f"CARD_TRANSACTION.{event}"),
        data=render_card_transaction(txn),
    )
