"""The ``GET /exchange-rates`` items: each corridor priced like a quote, with the platform's fees. Pure.

A corridor is (source currency, destination currency) over the destination's default rail
(``rates.DEFAULT_RAILS``). Each item is what a SENDING-locked quote of ``sending_amount`` would show:
``receivingAmount`` and ``fees.total`` come from ``pricing.price_quote`` with the platform's standing
fee (``pricing.platform_fee_for``), so a quote made right after agrees with the list. When the fees
would take the whole amount, ``receivingAmount`` is 0 and ``fees`` still shows what they would be.

Listed corridors: cross-currency only; to fiat destinations only, because an item's
``destinationPaymentRail`` is the reference's ``PaymentRail`` enum, which has no value for a crypto
network; and only corridors some amount can use (a platform fee of 100% leaves none). The API layer caches the list for ``EXCHANGE_RATE_CACHE_SECONDS``.
"""

from __future__ import annotations

import datetime as dt
from typing import Final

from payments import clock, currencies, pricing, rates
from payments.wire.time import utc_timestamp

__all__ = ["DEFAULT_SENDING_AMOUNT", "EXCHANGE_RATE_CACHE_SECONDS", "exchange_rates"]

EXCHANGE_RATE_CACHE_SECONDS: Final = 300
DEFAULT_SENDING_AMOUNT: Final = 10_000


def _codes(requested: list[str] | None) -> list[str]:
    if requested is None:
        return list(currencies.CURRENCIES)
    for code in requested:
        rates.usd_value(code)  # an unknown code raises rates.UnknownCurrency
    return list(dict.fromkeys(requested))


def exchange_rates(
    *,
    source: str | None,
    destinations: list[str] | None,
    fee_configs: list[dict],
    sending_amount: int = DEFAULT_SENDING_AMOUNT,
    updated_at: dt.datetime | None = None,
) -> list[dict]:
    """``ExchangeRate`` items for every listed corridor from ``source`` (or every currency) to ``destinations``.

    ``sending_amount`` is in the smallest unit of each source currency and echoed back;
    ``updated_at`` is when the rates were taken (default: now). Raises ``rates.UnknownCurrency``.
    """
    if isinstance(sending_amount, bool) or not isinstance(sending_amount, int) or sending_amount < 0:
        raise ValueError(f"sending_amount must be an integer of at least 0, not {sending_amount!r}")
    updated = utc_timestamp(updated_at or clock.now())
    items = []
    for src in _codes(None if source is None else [source]):
        for dst in _codes(destinations):
            if dst == src or currencies.CURRENCIES[dst].crypto:
                continue
            item = _item(src, dst, fee_configs=fee_configs, sending_amount=sending_amount, updated=updated)
            if item is not None:
                items.append(item)
    return items


def _item(src: str, dst: str, *, fee_configs: list[dict], sending_amount: int, updated: str) -> dict | None:
    rail = rates.default_rail(dst)
    platform_fee = pricing.platform_fee_for(fee_configs, sending=src, receiving=dst)
    corridor = {"sending": src, "receiving": dst, "rail": rail, "platform_fee": platform_fee}
    minimum = pricing.minimum_sending_amount(**corridor)
    if minimum is None:
        return None
    fees = pricing.fees_for(**corridor, total_sending_amount=sending_amount)
    try:
        price = pricing.price_quote(**corridor, locked_side="SENDING", locked_amount=sending_amount)
    except (pricing.AmountTooSmall, pricing.AmountOutOfRange):
        receiving_amount = 0
    else:
        receiving_amount = price.total_receiving_amount
    platform_fixed = platform_fee.fixed if platform_fee else 0
    return {
        "sourceCurrency": currencies.CURRENCIES[src].as_dict(),
        "sendingAmount": sending_amount,
        "minSendingAmount": minimum,
        "maxSendingAmount": pricing.maximum_sending_amount(**corridor),
        "destinationCurrency": currencies.CURRENCIES[dst].as_dict(),
        "destinationPaymentRail": rail,
        "receivingAmount": receiving_amount,
        "exchangeRate": rates.mid_rate(src, dst),
        "fees": {"fixed": fees.service_fixed + platform_fixed + fees.counterparty, "total": fees.total},
        "updatedAt": updated,
    }
