"""The sandbox's own operations (`/sandbox/...`, 403 in production mode): funding an internal account
and paying a realtime-funded quote. The simulated rails are `payments/rails/sandbox.py`."""

from __future__ import annotations

from typing import Final
from uuid import UUID

from django.conf import settings
from django.db import transaction

from payments import ids
from payments.errors import BadRequest, FieldError, Forbidden, InvalidInput, first_or_404
from payments.ledger import Leg, ledger_internal_account, ledger_post, ledger_system_account
from payments.models import InternalAccount, LedgerAccount, LedgerJournal, Platform, Quote, Transaction
from payments.quotes.execute import quote_funds_received
from payments.transactions import transaction_advance

MAX_FUND_AMOUNT: Final = 10**11


def sandbox_only() -> None:
    """403 FORBIDDEN in production mode: sandbox operations do not exist there."""
    if settings.PRODUCTION:
        raise Forbidden("Sandbox endpoints are not available in production mode")


@transaction.atomic
def sandbox_fund(*, platform: Platform, account_id: UUID, amount: int) -> InternalAccount:
    """Credit an internal account from outside (WORLD), as a bank deposit would."""
    sandbox_only()
    account = first_or_404(
        InternalAccount.objects.for_platform(platform).filter(pk=account_id), "InternalAccount"
    )
    if account.status != InternalAccount.Status.ACTIVE:
        raise BadRequest(f"The account is {account.status}; only an ACTIVE account can be funded")
    if isinstance(amount, bool) or not 0 < amount <= MAX_FUND_AMOUNT:
        raise InvalidInput(
            errors=[FieldError("amount", f"must be between 1 and {MAX_FUND_AMOUNT}", {"minimum": 1})]
        )
    world = ledger_system_account(
        platform_id=platform.pk, kind=LedgerAccount.Kind.WORLD, currency=account.currency
    )
    ledger_post(
        platform_id=platform.pk,
        kind=LedgerJournal.Kind.FUNDING,
        key=f"fund:{ids.uuid7()}",
        legs=[Leg(world, -amount), Leg(ledger_internal_account(account), amount)],
        description="sandbox fund",
    )  # the ledger records INTERNAL_ACCOUNT.BALANCE_UPDATED
    return account


def sandbox_send(*, platform: Platform, quote_id: UUID, currency: str, amount: int | None) -> Transaction:
    """The payer pays a realtime-funded quote's paymentInstructions: the money arrives (WORLD → the
    quote's SETTLEMENT, fees taken) and the payout starts, as an execute would. An amount other
    than the quote's totalSendingAmount fails the transaction (FUNDING_AMOUNT_MISMATCH, money
    returned to the payer, nothing posted). Returns the transaction."""
    sandbox_only()
    quotes = Quote.objects.for_platform(platform).select_related("transaction").filter(pk=quote_id)
    quote = first_or_404(quotes, "Quote")
    if quote.source_kind != Quote.SourceKind.REALTIME:
        raise BadRequest(
            "Only a quote with a REALTIME_FUNDING source is paid through /sandbox/send; "
            "fund an internal account with /sandbox/internal-accounts/{accountId}/fund instead",
            quoteId=quote.public_id,
        )
    if currency != quote.sending_currency:
        raise InvalidInput(
            errors=[
                FieldError(
                    "currencyCode", f"must be {quote.sending_currency}", {"enum": [quote.sending_currency]}
                )
            ]
        )
    txn = transaction_advance(transaction_id=quote.transaction.pk)  # expiry first
    return quote_funds_received(amount=amount, transaction_id=txn.pk)
