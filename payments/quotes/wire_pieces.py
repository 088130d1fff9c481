"""The wire pieces stored with a quote and its transaction at creation: both ends as the wire
shows them, the payment instructions (or the payloadToSign), rate details, the receiver lookup."""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Mapping
from decimal import Decimal
from typing import Any
from uuid import UUID

from payments import ids, money, pricing
from payments.errors import ResourceNotFound
from payments.models import Platform, ReceiverLookup
from payments.payment_instructions import (
    FUNDING_ACCOUNT_TYPE,
    NETWORK_WALLET_TYPES,
    STABLECOIN_NETWORKS,
    account_or_wallet_info,
    embedded_wallet_payload,
    payment_instruction,
)
from payments.quotes.request import DestinationKind, Ends, QuoteRequest, SourceKind
from payments.wire.time import utc_timestamp


def quote_source(request: QuoteRequest, ends: Ends) -> dict[str, Any]:
    if ends.source.kind == SourceKind.REALTIME:
        wire: dict[str, Any] = {"sourceType": "REALTIME_FUNDING", "currency": ends.sending}
        if ends.customer is not None:
            wire["customerId"] = ends.customer.public_id
        if request.source.get("cryptoNetwork"):
            wire["cryptoNetwork"] = request.source["cryptoNetwork"]
        return wire
    account = ends.source.account
    wire = {"sourceType": "ACCOUNT", "accountId": account.public_id}
    if request.source.get("customerId") is not None and ends.customer is not None:
        wire["customerId"] = ends.customer.public_id
    return wire


def quote_destination(request: QuoteRequest, ends: Ends) -> dict[str, Any]:
    if ends.destination.kind == DestinationKind.UMA:
        return {"destinationType": "UMA_ADDRESS", "umaAddress": ends.uma_address, "currency": ends.receiving}
    account = ends.destination.account
    wire = {"destinationType": "ACCOUNT", "accountId": account.public_id}
    if ends.rail_mode == "MANUAL":
        wire["paymentRail"] = ends.rail
    return wire


def transaction_ends(ends: Ends) -> tuple[dict[str, Any], dict[str, Any]]:
    if ends.source.kind == SourceKind.REALTIME:
        source: dict[str, Any] = {"sourceType": "REALTIME_FUNDING", "currency": ends.sending}
        if ends.customer is not None:
            source["customerId"] = ends.customer.public_id
    else:
        account = ends.source.account
        source = {"sourceType": "ACCOUNT", "accountId": account.public_id, "currency": ends.sending}
    if ends.destination.kind == DestinationKind.UMA:
        destination = {
            "destinationType": "UMA_ADDRESS",
            "umaAddress": ends.uma_address,
            "currency": ends.receiving,
        }
    else:
        account = ends.destination.account
        destination = {
            "destinationType": "ACCOUNT",
            "accountId": account.public_id,
            "currency": ends.receiving,
        }
    return source, destination


def _amount(amount: int, currency: str) -> dict[str, Any]:
    return {"amount": amount, "currency": currency}


def instructions_for(
    quote_id: UUID,
    ends: Ends,
    price: pricing.Price,
    reference: str,
    expires_at: dt.datetime,
    destination: dict,
) -> tuple[list[dict[str, Any]], str]:
    """(paymentInstructions, payloadToSign) as issued."""
    if ends.source.internal is not None and ends.source.internal.is_embedded_wallet:
        payload = embedded_wallet_payload(
            quote_id=ids.render("Quote", quote_id),
            source_account_id=ends.source.internal.public_id,
            destination=destination,
            sending=_amount(price.total_sending_amount, ends.sending),
            receiving=_amount(price.total_receiving_amount, ends.receiving),
            expires_at=utc_timestamp(expires_at),
            nonce=secrets.token_bytes(12),
        )
        info = {"accountType": "EMBEDDED_WALLET", "payloadToSign": payload}
        notes = (
            "Stamp payloadToSign exactly as given with an active session key of the source wallet and send "
            "the stamp as Service-Wallet-Signature on POST /quotes/{quoteId}/execute"
        )
        return [payment_instruction(info, notes=notes, is_platform_account=False)], payload
    if ends.source.kind != SourceKind.REALTIME:
        return [], ""
    if ends.network:
        account_type = NETWORK_WALLET_TYPES[ends.network]
        asset = (
            ends.sending
            if ends.sending in STABLECOIN_NETWORKS
            else ("BTC" if ends.network == "SPARK" else None)
        )
        msat = price.total_sending_amount * 1000 if ends.sending == "BTC" else None
        info = account_or_wallet_info(
            account_type,
            seed=quote_id.bytes,
            reference=reference,
            asset=asset,
            amount_msat=msat,
            testnet=True,
        )
    else:
        info = account_or_wallet_info(
            FUNDING_ACCOUNT_TYPE[ends.sending],
            seed=quote_id.bytes,
            reference=reference,
            rail=ends.funding_rail,
        )
    shown = money.from_smallest_unit(price.total_sending_amount, currency=ends.sending)
    notes = (
        f"Send exactly {shown} {ends.sending} over {ends.funding_rail} before {utc_timestamp(expires_at)}"
        + ("" if info.get("reference") is None else f", quoting reference {reference}")
    )
    return [payment_instruction(info, notes=notes, is_platform_account=ends.customer is None)], ""


def stored_rate_details(details: Mapping[str, Any]) -> dict[str, Any]:
    return {k: float(v) if isinstance(v, Decimal) else v for k, v in details.items()}


def receiver_lookup_get(platform: Platform, lookup_id: str | None) -> ReceiverLookup | None:
    if lookup_id is None:
        return None
    parsed = ids.parse_or_none("Lookup", lookup_id)
    lookup = ReceiverLookup.objects.for_platform(platform).filter(pk=parsed).first() if parsed else None
    if lookup is None:
        raise ResourceNotFound("Lookup", f"No receiver lookup {lookup_id}")
    return lookup
