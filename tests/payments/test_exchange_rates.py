"""The /exchange-rates items (pure): the reference's shape, quote-consistent amounts, platform fees."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal

import jsonschema
import pytest

from payments import clock, rates
from payments.currencies import CURRENCIES
from payments.exchange_rates import DEFAULT_SENDING_AMOUNT, EXCHANGE_RATE_CACHE_SECONDS, exchange_rates
from payments.pricing import (
    AmountTooSmall,
    PlatformFee,
    minimum_sending_amount,
    platform_fee_for,
    price_quote,
)
from tests.reference import reference_document

USD_CONFIG = [
    {
        "feeType": "CROSS_CURRENCY_TRANSACTION",
        "sourceCurrency": "USD",
        "variableFeeBps": 50,
        "fixedFee": {"amount": 25, "currency": "USD"},
    }
]
NOON = dt.datetime(2025, 2, 5, 12, 0, tzinfo=dt.UTC)


def _on_the_wire(items: list[dict]) -> list[dict]:
    """As DRF's JSON encoder renders them (a Decimal becomes a JSON number)."""
    return json.loads(json.dumps(items, default=float))


@pytest.fixture(scope="module")
def response_validator():
    doc = reference_document()
    schema = {
        "$ref": "#/components/schemas/ExchangeRateListResponse",
        "components": doc["components"],
    }
    return jsonschema.Draft202012Validator(schema)


def test_every_corridor_matches_the_reference_schema(response_validator):
    items = exchange_rates(source=None, destinations=None, fee_configs=USD_CONFIG, updated_at=NOON)
    fiat = [code for code, c in CURRENCIES.items() if not c.crypto]
    # every source to every other fiat currency
    assert len(items) == len(CURRENCIES) * len(fiat) - len(fiat)
    response_validator.validate({"data": _on_the_wire(items)})
    for item in items:
        assert item["sourceCurrency"]["code"] != item["destinationCurrency"]["code"]
        assert item["exchangeRate"] > 0
        assert item["fees"]["fixed"] <= item["fees"]["total"]
        assert 1 <= item["minSendingAmount"] <= item["maxSendingAmount"]


def test_an_item_is_a_sending_locked_quote_with_the_platform_fee():
    [item] = exchange_rates(source="USD", destinations=["MXN"], fee_configs=USD_CONFIG, updated_at=NOON)
    fee = platform_fee_for(USD_CONFIG, sending="USD", receiving="MXN")
    price = price_quote(
        sending="USD",
        receiving="MXN",
        locked_side="SENDING",
        locked_amount=10_000,
        rail="SPEI",
        platform_fee=fee,
    )
    assert item == {
        "sourceCurrency": {"code": "USD", "name": "United States Dollar", "symbol": "$", "decimals": 2},
        "sendingAmount": 10_000,
        "minSendingAmount": item["minSendingAmount"],
        "maxSendingAmount": item["maxSendingAmount"],
        "destinationCurrency": {"code": "MXN", "name": "Mexican Peso", "symbol": "$", "decimals": 2},
        "destinationPaymentRail": "SPEI",
        "receivingAmount": price.total_receiving_amount,
        "exchangeRate": Decimal("0.055"),
        # fixed: service 10 + platform 25 + counterparty 6; total adds variable 30 + 50
        "fees": {"fixed": 41, "total": 121},
        "updatedAt": "2025-02-05T12:00:00.000Z",
    }
    assert price.fees_included == 121 and price.total_receiving_amount == 179_618


def test_platform_fees_only_on_usd_sources():
    def fees(source, destination, configs):
        [item] = exchange_rates(
            source=source, destinations=[destination], fee_configs=configs, updated_at=NOON
        )
        return item["fees"]["total"], item["receivingAmount"]

    with_fee, without = fees("USD", "EUR", USD_CONFIG), fees("USD", "EUR", [])
    assert with_fee[0] == without[0] + 25 + 50
    assert with_fee[1] < without[1]
    assert fees("EUR", "USD", USD_CONFIG) == fees("EUR", "USD", [])
    assert fees("BTC", "EUR", USD_CONFIG) == fees("BTC", "EUR", [])


def test_filters_keep_the_requested_order_and_skip_what_cannot_be_listed():
    items = exchange_rates(
        source="USD", destinations=["INR", "EUR", "BTC", "USD", "INR"], fee_configs=[], updated_at=NOON
    )
    assert [(i["destinationCurrency"]["code"], i["destinationPaymentRail"]) for i in items] == [
        ("INR", "UPI"),
        ("EUR", "SEPA_INSTANT"),
    ]
    from_btc = exchange_rates(source="BTC", destinations=None, fee_configs=[], updated_at=NOON)
    assert {i["sourceCurrency"]["code"] for i in from_btc} == {"BTC"}
    assert len(from_btc) == sum(1 for c in CURRENCIES.values() if not c.crypto)


def test_unknown_currencies_raise():
    with pytest.raises(rates.UnknownCurrency):
        exchange_rates(source="XYZ", destinations=None, fee_configs=[])
    with pytest.raises(rates.UnknownCurrency):
        exchange_rates(source="USD", destinations=["EUR", "ABC"], fee_configs=[])


@pytest.mark.parametrize("source", ["USD", "EUR", "VND", "BTC", "USDC"])
def test_min_and_max_sending_amounts_are_the_quote_bounds(source):
    for item in exchange_rates(source=source, destinations=None, fee_configs=USD_CONFIG, updated_at=NOON):
        corridor = {
            "sending": source,
            "receiving": item["destinationCurrency"]["code"],
            "rail": item["destinationPaymentRail"],
            "platform_fee": platform_fee_for(
                USD_CONFIG, sending=source, receiving=item["destinationCurrency"]["code"]
            ),
        }
        low, high = item["minSendingAmount"], item["maxSendingAmount"]
        assert price_quote(**corridor, locked_side="SENDING", locked_amount=low).total_receiving_amount >= 1
        assert price_quote(**corridor, locked_side="SENDING", locked_amount=high).total_sending_amount == high
        if low > 1:
            with pytest.raises(AmountTooSmall):
                price_quote(**corridor, locked_side="SENDING", locked_amount=low - 1)


def test_an_amount_the_fees_swallow_receives_nothing():
    # 10,000 dong is about $0.39, less than the $0.55 of fixed fees on mobile money
    [item] = exchange_rates(source="VND", destinations=["KES"], fee_configs=[], updated_at=NOON)
    assert item["sendingAmount"] == DEFAULT_SENDING_AMOUNT
    assert item["receivingAmount"] == 0
    assert item["fees"]["total"] > 0
    assert item["minSendingAmount"] > DEFAULT_SENDING_AMOUNT
    [zero] = exchange_rates(
        source="USD", destinations=["EUR"], fee_configs=[], sending_amount=0, updated_at=NOON
    )
    assert zero["sendingAmount"] == 0 and zero["receivingAmount"] == 0


def test_sending_amount_is_echoed_and_priced():
    [item] = exchange_rates(
        source="USD", destinations=["EUR"], fee_configs=[], sending_amount=250_000, updated_at=NOON
    )
    price = price_quote(
        sending="USD",
        receiving="EUR",
        locked_side="SENDING",
        locked_amount=250_000,
        rail="SEPA_INSTANT",
        platform_fee=None,
    )
    assert item["sendingAmount"] == 250_000
    assert item["receivingAmount"] == price.total_receiving_amount
    assert item["fees"]["total"] == price.fees_included
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError):
            exchange_rates(source="USD", destinations=["EUR"], fee_configs=[], sending_amount=bad)


def test_a_corridor_no_amount_can_use_is_not_listed():
    greedy = [{**USD_CONFIG[0], "variableFeeBps": 10_000}]
    assert platform_fee_for(greedy, sending="USD", receiving="EUR") == PlatformFee(
        variable_bps=10_000, fixed=25
    )
    assert (
        minimum_sending_amount(
            sending="USD",
            receiving="EUR",
            rail="SEPA_INSTANT",
            platform_fee=PlatformFee(variable_bps=10_000, fixed=25),
        )
        is None
    )
    assert exchange_rates(source="USD", destinations=["EUR"], fee_configs=greedy) == []
    assert len(exchange_rates(source="EUR", destinations=["USD"], fee_configs=greedy)) == 1


def test_updated_at_comes_from_the_clock():
    clock.advance(dt.timedelta(days=1))
    [item] = exchange_rates(source="USD", destinations=["EUR"], fee_configs=[])
    stamp = dt.datetime.fromisoformat(item["updatedAt"])
    assert item["updatedAt"].endswith("Z")
    assert abs(stamp - clock.now()) < dt.timedelta(seconds=5)


def test_cache_lifetime_is_about_five_minutes():
    assert EXCHANGE_RATE_CACHE_SECONDS == 300
