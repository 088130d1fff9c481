"""Receiver lookups (`GET /receiver/uma/{address}`, `GET /receiver/external-account/{id}`): what a
receiver takes, at what estimated rate and within which amounts, recorded as a lookup whose id a
quote may quote back (`lookupId`).

The estimate is from the sender's currency: the sender customer's first internal account (when
`customerId` is given), else the sender UMA address's currency, else the platform's first supported
currency, else USD. `min` is one smallest unit (fees are on the sending side); `max` is the
platform's transaction size limit in the receiving currency.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any
from uuid import UUID

from payments import currencies, ids, money, rates
from payments.accounts import platform_currency_codes
from payments.book_transfers import uma_own_accounts
from payments.customers import customer_get
from payments.errors import BadRequest, FieldError, InvalidInput, ResourceNotFound
from payments.external_accounts import external_account_get
from payments.limits import transaction_size_limit
from payments.models import Customer, InternalAccount, Platform, ReceiverLookup
from payments.rails import rail_adapter, uma_parse


def _sender(
    platform: Platform, *, customer_id: str | None, sender_uma: str | None
) -> tuple[Customer | None, str]:
    customer = None
    if customer_id is not None:
        parsed = ids.parse_or_none("Customer", customer_id)
        if parsed is None:
            raise InvalidInput(
                errors=[FieldError("customerId", "must be a Customer:<uuid> id", {"type": "string"})]
            )
        customer = customer_get(platform=platform, customer_id=parsed)
        account = (
            InternalAccount.objects.for_platform(platform)
            .filter(customer=customer)
            .exclude(type=InternalAccount.Type.EMBEDDED_WALLET)
            .order_by("pk")
            .first()
        )
        if account is not None:
            return customer, account.currency
    if sender_uma:
        found = rail_adapter().uma_sender_currency(sender_uma)
        if found:
            return customer, found
    codes = platform_currency_codes(platform)
    return customer, codes[0] if codes else "USD"


def _preference(platform: Platform, sending: str, receiving: str) -> dict[str, Any]:
    limit_usd = Fraction(transaction_size_limit(platform), 100)
    largest = limit_usd / Fraction(rates.usd_value(receiving)) * money.smallest_unit_factor(receiving)
    return {
        "currency": currencies.CURRENCIES[receiving].as_dict(),
        "estimatedExchangeRate": rates.mid_rate(sending, receiving),
        "min": 1,
        "max": max(1, money.receive_round_down(largest)),
    }


def lookup_preferences(platform: Platform, lookup: ReceiverLookup, sending: str) -> list[dict[str, Any]]:
    return [_preference(platform, sending, code) for code in lookup.supported_currencies]


def receiver_uma_lookup(
    *, platform: Platform, address: str, customer_id: str | None = None, sender_uma: str | None = None
) -> tuple[ReceiverLookup, str]:
    """Look up a UMA address: 400 INVALID_UMA_ADDRESS when malformed, 404 UMA_NOT_FOUND when no
    receiver exists there, 424 when the counterparty cannot be asked. Returns (lookup, sender currency)."""
    if uma_parse(address) is None:
        raise BadRequest("receiverUmaAddress must look like $user@domain.example", code="INVALID_UMA_ADDRESS")
    customer, sending = _sender(platform, customer_id=customer_id, sender_uma=sender_uma)
    own = uma_own_accounts(platform, address)  # one of our customers: what its accounts hold
    if own is not None:
        supported = list(dict.fromkeys(account.currency for account in own))
    else:
        receiver = rail_adapter().uma_receiver(address)
        if receiver is None:
            raise ResourceNotFound("Uma", f"No receiver exists at {address}")
        supported = list(receiver.currencies)
    lookup = ReceiverLookup.objects.create(
        platform=platform, uma_address=address, customer=customer, supported_currencies=supported
    )
    return lookup, sending


def receiver_external_account_lookup(
    *, platform: Platform, account_id: UUID, customer_id: str | None = None, sender_uma: str | None = None
) -> tuple[ReceiverLookup, str]:
    account = external_account_get(platform=platform, account_id=account_id)
    customer, sending = _sender(platform, customer_id=customer_id, sender_uma=sender_uma)
    if currencies.get(account.currency) is None:
        raise ResourceNotFound("ExternalAccount")
    lookup = ReceiverLookup.objects.create(
        platform=platform,
        external_account=account,
        customer=customer,
        supported_currencies=[account.currency],
    )
    return lookup, sending
