"""Internal accounts: provisioning for approved customers and for platforms, listing, status
changes, and the one balance function.

Status (the reference's InternalAccountStatus), changed only by `internal_account_status_transition`:

    PENDING ──▶ ACTIVE ◀──▶ FROZEN        (the operator freezes and unfreezes, admin)
       │          │           │
       ├──▶ FAILED└───────────┴──▶ CLOSED (the customer was deleted)

Only an ACTIVE account sends or receives. Every change sends INTERNAL_ACCOUNT.STATUS_UPDATED, and
INTERNAL_ACCOUNT.FUNDING_INSTRUCTIONS_UPDATED when it gives or withdraws the account's deposit
coordinates (`fundingPaymentInstructions`, served while ACTIVE).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

from django.db import transaction
from django.db.models import QuerySet

from payments import currencies, events
from payments.models import Customer, InternalAccount, Platform
from payments.state_machines import StateMachine
from payments.wire.accounts import internal_account_funding_instructions, render_internal_account

# The currency an embedded (self-custodial) Global Account wallet holds.
EMBEDDED_WALLET_CURRENCY = "USDC"
GLOBAL_ACCOUNT_NAME = "Global Account"


def platform_currency_codes(platform: Platform) -> list[str]:
    """The platform's supported currencies that the service knows, in configuration order."""
    codes = [entry.get("currencyCode") for entry in platform.supported_currencies or []]
    return [code for code in dict.fromkeys(codes) if code and currencies.get(code)]


def _holding_type(code: str) -> str:
    currency = currencies.get(code)
    return (
        InternalAccount.Type.INTERNAL_CRYPTO
        if currency and currency.crypto
        else InternalAccount.Type.INTERNAL_FIAT
    )


def _ensure(*, platform: Platform, customer: Customer | None, wanted: Iterable[tuple[str, str, str]]) -> None:
    for account_type, code, name in wanted:
        InternalAccount.objects.get_or_create(
            platform=platform,
            customer=customer,
            type=account_type,
            currency=code,
            defaults={"name": name, "status": InternalAccount.Status.ACTIVE},
        )


@transaction.atomic
def internal_accounts_provision(customer: Customer) -> list[InternalAccount]:
    """Give an approved customer its accounts; safe to repeat (existing accounts are kept as they are).

    One holding account per currency the customer asked for (`currencies`), or per currency the
    platform supports when it asked for none, limited to what the platform supports; individuals
    also get an embedded-wallet Global Account. Called by the status machine on approval, with the
    customer row locked, so two approvals cannot provision twice.
    """
    platform = customer.platform
    supported = platform_currency_codes(platform)
    requested = [code for code in customer.currencies or [] if code in supported]
    wanted = [(_holding_type(code), code, "") for code in (requested or supported)]
    if not customer.is_business:
        wanted.append((InternalAccount.Type.EMBEDDED_WALLET, EMBEDDED_WALLET_CURRENCY, GLOBAL_ACCOUNT_NAME))
    _ensure(platform=platform, customer=customer, wanted=wanted)
    return list(InternalAccount.objects.for_platform(platform).filter(customer=customer).order_by("pk"))


@transaction.atomic
def platform_internal_accounts_provision(platform: Platform) -> None:
    """One platform-owned holding account per supported currency; safe to repeat.

    Run on every read of the platform's accounts, so a currency added to the configuration has its
    account by the time anyone can see the list."""
    _ensure(
        platform=platform,
        customer=None,
        wanted=[(_holding_type(code), code, "") for code in platform_currency_codes(platform)],
    )


def customer_internal_account_list(
    *,
    platform: Platform,
    customer_id=None,
    currency: str | None = None,
    account_type: str | None = None,
) -> QuerySet[InternalAccount]:
    accounts = InternalAccount.objects.for_platform(platform).filter(
        customer__isnull=False, customer__deleted_at__isnull=True
    )
    if customer_id is not None:
        accounts = accounts.filter(customer_id=customer_id)
    if currency:
        accounts = accounts.filter(currency=currency)
    if account_type:
        accounts = accounts.filter(type=account_type)
    return accounts


def platform_internal_account_list(
    *, platform: Platform, currency: str | None = None, account_type: str | None = None
) -> list[InternalAccount]:
    platform_internal_accounts_provision(platform)
    accounts = InternalAccount.objects.for_platform(platform).filter(customer__isnull=True)
    if currency:
        accounts = accounts.filter(currency=currency)
    if account_type:
        accounts = accounts.filter(type=account_type)
    return list(accounts.order_by("pk"))


def account_balance(account: InternalAccount) -> int:
    """The account's balance in the smallest unit of its currency: the ONE place balances come from.

    It is the sum of the account's ledger postings, read from the balance row the ledger keeps equal
    to that sum (`payments/ledger.py`); callers must not compute balances any other way.
    """
    from payments.ledger import ledger_balance

    return ledger_balance(account)


def account_balances(account: InternalAccount) -> tuple[int, int]:
    """The account's (balance, held): what card authorizations hold of its balance is not available
    to spend (`payments.ledger.ledger_hold`)."""
    from payments.ledger import ledger_balances

    return ledger_balances(account)


def account_rendered(account: InternalAccount) -> dict:
    """The account as GET shows it, with its balances read now."""
    balance, held = account_balances(account)
    return render_internal_account(account, balance=balance, held=held)


Status = InternalAccount.Status

INTERNAL_ACCOUNT_TRANSITIONS = StateMachine(
    "internal account",
    {
        Status.PENDING: {Status.ACTIVE, Status.FAILED, Status.CLOSED},
        Status.ACTIVE: {Status.FROZEN, Status.CLOSED},
        Status.FROZEN: {Status.ACTIVE, Status.CLOSED},
        Status.FAILED: {Status.CLOSED},
    },
    final=(Status.CLOSED,),
    noun="An internal account",
    id_detail="accountId",
)


@transaction.atomic
def internal_account_status_transition(account: InternalAccount, to: str) -> InternalAccount:
    """Move an internal account along INTERNAL_ACCOUNT_TRANSITIONS (row lock; a repeat is a no-op, a
    move outside the table 409) and send INTERNAL_ACCOUNT.STATUS_UPDATED with the account as GET
    shows it (and FUNDING_INSTRUCTIONS_UPDATED when its deposit coordinates come or go). Its balance
    stays where it is: a CLOSED or FROZEN account's money waits for an operator."""
    moved = INTERNAL_ACCOUNT_TRANSITIONS.move(account, Status(to))
    if moved.from_status is not None:
        moved.row.platform = account.platform
        balance = account_balance(moved.row)
        events.internal_account_status_changed(moved.row, balance=balance)
        before = copy.copy(moved.row)
        before.status = moved.from_status
        if internal_account_funding_instructions(moved.row) != internal_account_funding_instructions(before):
            events.internal_account_funding_instructions_changed(moved.row, balance=balance)
    account.status, account.updated_at = moved.row.status, moved.row.updated_at
    return moved.row


def internal_accounts_close(customer: Customer) -> None:
    """Close every account of a customer (it was deleted), each with its STATUS_UPDATED."""
    for account in customer.internal_accounts.exclude(status=Status.CLOSED).order_by("pk"):
        internal_account_status_transition(account, Status.CLOSED)
