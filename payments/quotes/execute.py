"""Executing a quote: the execute call, the execution SCA held back (`quote_release`), and the
realtime-funding step (`quote_funds_received`) that starts a realtime-funded quote's payout."""

from __future__ import annotations

import datetime as dt
from uuid import UUID

from django.db import transaction

from payments import clock, wallet_seam
from payments.errors import BadRequest, Conflict, ResourceNotFound
from payments.ledger import ledger_internal_account_by_id, ledger_post_transaction
from payments.limits import limits_count_daily, usd_cents
from payments.models import InternalAccount, LedgerJournal, Platform, Quote, Transaction
from payments.ownership import ownership_usable_check
from payments.query_plans import plan_first
from payments.quotes.request import SourceKind
from payments.quotes.resolve import check_customer
from payments.rails import Pull, RailEvent, rail_adapter
from payments.sca.payment_challenges import sca_quote_hold
from payments.sca.region import sca_required
from payments.transactions import (
    debit_legs,
    funding_legs,
    payout_events,
    steps_from_events,
    transaction_apply_due,
    transaction_fail,
    transaction_lock,
    transaction_transition_with_steps,
)
from payments.wire.time import utc_timestamp


def _already(quote: Quote) -> Quote:
    """A quote that is no longer PENDING: a 409 saying why."""
    if quote.status == Quote.Status.EXPIRED:
        message = f"Quote {quote.public_id} expired at {utc_timestamp(quote.expires_at)}; create a new quote"
    elif quote.executed_at is not None:
        message = f"Quote {quote.public_id} was already executed"
    elif quote.status == Quote.Status.PENDING_AUTHORIZATION:
        message = (
            f"Quote {quote.public_id} was executed and waits for Strong Customer Authentication: "
            "authorize its scaChallenge with POST /quotes/{quoteId}/authorize"
        )
    else:
        message = f"Quote {quote.public_id} is {quote.status} and cannot be executed"
    raise Conflict(
        message, quoteId=quote.public_id, status=quote.status, transactionId=quote.transaction.public_id
    )


def _execute_rows(platform_id: UUID, quote_id: UUID):
    """The quote and its transaction, both locked in one statement (an inner join, so PostgreSQL
    re-reads both rows after waiting for a concurrent execute), with the quote's payee.

    The platform is checked on the quote only (its transaction always has the same one): with the
    transaction's platform in the condition too, PostgreSQL may read a platform's transactions by
    a platform index until it meets the quote's, when its statistics underrate that platform."""
    return (
        Transaction.objects.select_for_update(of=("self", "quote"))
        .select_related(
            "quote",
            "quote__destination_external_account",
            "quote__source_internal_account",
            "quote__customer",
        )
        .filter(quote_id=quote_id, quote__platform_id=platform_id)[:1]
    )


def quote_execute(
    *,
    platform: Platform,
    quote_id: UUID,
    wallet_signature: str | None = None,
    sca_factor: str | None = None,
) -> Quote:
    """Start the transfer a PENDING quote locked: debit the source (or start the pull), hand the
    payout to the rail, move quote and transaction to PROCESSING. 50 concurrent calls start exactly
    one transfer: each takes the row lock of the quote's transaction, and the first to get it moves
    the quote on; the others get 409.

    Raises 401 WALLET_SIGNATURE_* (embedded-wallet source without a valid stamp over its
    payloadToSign), 409 CONFLICT (expired — the quote is marked EXPIRED — or already executed),
    400 INSUFFICIENT_FUNDS, 429 DAILY_VOLUME_LIMIT_EXCEEDED, 400 for a realtime-funded quote.
    Nothing changes when it raises, except that an expired quote is recorded EXPIRED.
    """
    expired = False
    with transaction.atomic():
        txn = plan_first("quote-execute", _execute_rows, platform.pk, quote_id)
        if txn is None:
            raise ResourceNotFound("Quote")
        quote, txn.platform = txn.quote, platform
        quote.transaction = txn
        if quote.status != Quote.Status.PENDING:
            return _already(quote)
        if quote.source_kind == SourceKind.REALTIME:
            raise BadRequest(
                "A realtime-funded quote starts when its paymentInstructions are paid (sandbox: POST /sandbox/send)",
                quoteId=quote.public_id,
            )
        if quote.is_embedded_wallet_source:
            wallet_seam.wallet_stamp_verify(
                internal_account_id=quote.source_internal_account_id,
                payload=quote.payload_to_sign,
                header=wallet_signature,
            )
        _check_still_usable(platform, quote)
        now = clock.now()
        if quote.expires_at <= now:
            transaction_apply_due(quote, txn, now)  # EXPIRED is committed before the refusal below
            expired = True
        elif sca_required(quote):  # no query: the customer came with the locked rows
            sca_quote_hold(quote, txn, factor=sca_factor)
        else:
            execute_locked(quote, txn)
    if expired:
        return _already(quote)
    return quote


def _check_still_usable(platform: Platform, quote: Quote) -> None:
    """What was checked when the quote was made may have changed since: the source account's status,
    the customer's (APPROVED, not deleted) and the ownership verification of an external end."""
    source = quote.source_internal_account
    if source is not None and source.status != InternalAccount.Status.ACTIVE:
        raise BadRequest(
            f"The source account is {source.status}; only an ACTIVE account can send",
            accountId=source.public_id,
        )
    check_customer(platform, quote.customer)
    # The payee came with the locked rows; a pulled-from source is a bank account (no ownership check).
    ownership_usable_check(
        quote.destination_external_account,
        amount=quote.total_sending_amount,
        currency=quote.sending_currency,
        field="destination.accountId",
    )


def execute_locked(quote: Quote, txn: Transaction) -> None:
    """The execution itself, with the quote and its transaction locked (or just created)."""
    now = clock.now()
    value = usd_cents(quote.total_sending_amount, quote.sending_currency)
    internal = quote.source_kind == SourceKind.INTERNAL
    if internal:
        source = ledger_internal_account_by_id(quote.source_internal_account_id)
        quote.source_internal_account.platform = txn.platform  # the quote's own platform
        ledger_post_transaction(
            txn,
            kind=LedgerJournal.Kind.DEBIT,
            legs=debit_legs(quote, source),
            accounts=[quote.source_internal_account],
        )
    # After the debit: balance rows are locked before the volume row (see payments.limits).
    limits_count_daily(platform=txn.platform, customer_id=quote.customer_id, usd_value=value)
    if internal:
        events = payout_events(quote, txn)
    else:
        # The instruction's (transaction, rail, currency, amount): the quote's sending side.
        sending = (txn.pk, quote.funding_rail, quote.sending_currency, quote.total_sending_amount)
        events = rail_adapter().pull(Pull(*sending, external_account=quote.source_external_account))
    _processing(quote, txn, events, now=now, usd_value=value)


def _processing(
    quote: Quote, txn: Transaction, events: list[RailEvent], *, now: dt.datetime, usd_value: int
) -> None:
    """Schedule what the rail will report and move the transaction (and its quote) to PROCESSING."""
    transaction_transition_with_steps(
        txn,
        Transaction.Status.PROCESSING,
        quote=quote,
        steps=steps_from_events(events, start=now),
        quote_changes={"executed_at": now},
        executed_at=now,
        usd_value=usd_value,
    )


def quote_release(quote: Quote, txn: Transaction) -> None:
    """Run the execution SCA held back, once every challenge is authorized (`payments.sca.payment_challenges`; the
    transaction's row lock held). Rechecks what may have changed while the customer authorized."""
    _check_still_usable(txn.platform, quote)
    execute_locked(quote, txn)


def quote_funds_received(*, amount: int | None, transaction_id: UUID) -> Transaction:
    """A realtime-funded quote's payer paid (sandbox `/sandbox/send`): start the payout, or fail the
    transaction when the amount does not match (FUNDING_AMOUNT_MISMATCH; the money goes back)."""
    with transaction.atomic():
        quote, txn = transaction_lock(transaction_id)
        if quote.status != Quote.Status.PENDING:
            raise Conflict(
                f"Quote {quote.public_id} is {quote.status}; it no longer takes funds",
                quoteId=quote.public_id,
                status=quote.status,
            )
        if amount is not None and amount != quote.total_sending_amount:
            return transaction_fail(
                quote,
                txn,
                failure_reason="FUNDING_AMOUNT_MISMATCH",
                detail=f"received {amount}, expected {quote.total_sending_amount}; returned to the payer",
            )
        value = usd_cents(quote.total_sending_amount, quote.sending_currency)
        limits_count_daily(platform=txn.platform, customer_id=quote.customer_id, usd_value=value)
        now = clock.now()
        # the payer's money arrived
        ledger_post_transaction(txn, kind=LedgerJournal.Kind.FUNDING, legs=funding_legs(quote))
        _processing(quote, txn, payout_events(quote, txn), now=now, usd_value=value)
    return txn
