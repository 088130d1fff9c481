"""Creating a quote: resolve, price, store the quote with its PENDING transaction (an outgoing one
reports OUTGOING_PAYMENT.PENDING), and hold it for SCA or execute it at once when asked."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from payments import clock, ids, pricing, rates
from payments.account_info.enums import PAYMENT_RAILS
from payments.counterparty import counterparty_information
from payments.limits import limits_check_size
from payments.models import Platform, Quote, ReceiverLookup, Transaction
from payments.ownership import ownership_usable_check
from payments.quotes.execute import execute_locked
from payments.quotes.price import quote_price
from payments.quotes.request import DestinationKind, Ends, QuoteRequest, SourceKind
from payments.quotes.resolve import resolve_ends
from payments.quotes.wire_pieces import (
    instructions_for,
    quote_destination,
    quote_source,
    receiver_lookup_get,
    stored_rate_details,
    transaction_ends,
)
from payments.sca.payment_challenges import sca_quote_hold
from payments.sca.region import sca_required
from payments.transactions import expiry_step, steps_set, transaction_emit, transaction_reference
from payments.webhook_types import WebhookType


def quote_create(*, platform: Platform, request: QuoteRequest) -> Quote:
    """Price and lock a transfer; with `immediately_execute` also execute it (all or nothing).

    Raises InvalidInput (every field problem of both ends at once), 400 AMOUNT_OUT_OF_RANGE when the
    fees would swallow the amount (with the smallest amount that works), 400
    TRANSACTION_SIZE_LIMIT_EXCEEDED, 400 EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED (a wallet whose ownership is
    not verified, over the threshold), 403 USER_NOT_READY / END_USER_TERMS_NOT_ACCEPTED, 404
    UMA_NOT_FOUND / LOOKUP_REQUEST_NOT_FOUND, and what execution raises.
    """
    ends = resolve_ends(platform, request)
    lookup = receiver_lookup_get(platform, request.lookup_id)
    price = quote_price(platform, request, ends)
    limits_check_size(platform=platform, amount=price.total_sending_amount, currency=ends.sending)
    for account, field in (
        (ends.source.external, "source.accountId"),
        (ends.destination.external, "destination.accountId"),
    ):
        ownership_usable_check(account, amount=price.total_sending_amount, currency=ends.sending, field=field)
    counterparty = _counterparty(platform, ends)
    with transaction.atomic():
        quote = _store(platform, request, ends, price, lookup, counterparty)
        realtime = ends.source.kind == SourceKind.REALTIME
        if (request.immediately_execute or realtime) and sca_required(quote):
            sca_quote_hold(quote, quote.transaction, factor=request.sca_factor)
        elif request.immediately_execute and ends.source.kind != SourceKind.REALTIME:
            execute_locked(quote, quote.transaction)
    return quote


def _counterparty(platform: Platform, ends: Ends) -> dict[str, Any] | None:
    """What the receiver's side tells about the receiver, as the platform asks (UMA addresses only)."""
    if ends.destination.kind != DestinationKind.UMA:
        return None
    payee = ends.destination.internal  # the account of our own customer's UMA address
    return counterparty_information(
        platform=platform,
        currency=ends.sending,
        uma_address=ends.uma_address,
        customer=payee.customer if payee is not None else None,
    )


def _store(
    platform: Platform,
    request: QuoteRequest,
    ends: Ends,
    price: pricing.Price,
    lookup: ReceiverLookup | None,
    counterparty: dict[str, Any] | None,
) -> Quote:
    now = clock.now()
    lifetime = rates.quote_lifetime(ends.rail)
    if ends.funding_rail:
        lifetime = min(lifetime, rates.quote_lifetime(ends.funding_rail))
    expires_at = now + lifetime
    quote_id, txn_id = ids.uuid7(), ids.uuid7()
    reference = transaction_reference(txn_id)
    destination = quote_destination(request, ends)
    instructions, payload = instructions_for(quote_id, ends, price, reference, expires_at, destination)
    quote = Quote.objects.create(
        id=quote_id,
        platform=platform,
        status=Quote.Status.PENDING,
        expires_at=expires_at,
        source=quote_source(request, ends),
        destination=destination,
        **ends.columns(),
        locked_side=request.locked_side,
        locked_amount=request.locked_amount,
        total_sending_amount=price.total_sending_amount,
        total_receiving_amount=price.total_receiving_amount,
        fees_included=price.fees_included,
        platform_fees_included=price.platform_fees_included,
        converted_amount=price.converted_amount,
        counterparty_fee=price.rate_details["counterpartyFixedFee"],
        exchange_rate=str(price.exchange_rate),
        rate_details=stored_rate_details(price.rate_details),
        payment_instructions=instructions,
        payload_to_sign=payload,
        **request.texts(),
        sender_customer_info=dict(request.sender_customer_info),
        lookup=lookup,
        immediately_execute=request.immediately_execute,
        created_at=now,
        updated_at=now,
    )
    source, destination_wire = transaction_ends(ends)
    incoming = ends.source.kind == SourceKind.EXTERNAL
    txn = Transaction.new(
        type=Transaction.Type.INCOMING if incoming else Transaction.Type.OUTGOING,
        customer=ends.customer,
        source=source,
        destination=destination_wire,
        at=now,
        id=txn_id,
        platform=platform,
        status=Transaction.Status.PENDING,
        quote=quote,
        source_internal_account=ends.source.internal,
        destination_internal_account=ends.destination.internal,
        **quote.transaction_amounts(),
        platform_fees=price.platform_fees_included,
        rate_details=quote.rate_details,
        payment_rail=ends.rail
        if ends.rail in PAYMENT_RAILS and ends.destination.kind == DestinationKind.EXTERNAL
        else "",
        rail_selection_mode=ends.rail_mode,
        reference=reference,
        **request.texts(),
        counterparty_information=counterparty,
    )
    steps_set(txn, [expiry_step(expires_at)])
    txn.save(force_insert=True)
    if txn.is_outgoing:  # a pull is incoming, and INCOMING_PAYMENT.PENDING asks for a decision
        transaction_emit(txn, WebhookType.OUTGOING_PAYMENT_PENDING)
    return quote
