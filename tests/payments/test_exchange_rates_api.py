"""GET /exchange-rates: the reference's shape, the platform's fees included, cached about 5 minutes."""

from __future__ import annotations

import uuid

import pytest
from django.core.cache import cache

from payments.exchange_rates import EXCHANGE_RATE_CACHE_SECONDS
from payments.tasks import transactions_advance_task
from tests.payments.money_support import on_the_wire, reference_validator

pytestmark = pytest.mark.django_db

FEES = [
    {
        "feeType": "CROSS_CURRENCY_TRANSACTION",
        "sourceCurrency": "USD",
        "variableFeeBps": 100,
        "fixedFee": {"amount": 50, "currency": "USD"},
    }
]


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


def _rates(api, **query):
    response = api.get("/exchange-rates", query)
    assert response.status_code == 200, response.content
    return response.json()


def test_filtered_corridors_in_the_references_shape(api):
    body = _rates(api, sourceCurrency="USD", destinationCurrency=["EUR", "MXN"], sendingAmount=25_000)
    reference_validator("ExchangeRateListResponse").validate(on_the_wire(body))
    assert [i["destinationCurrency"]["code"] for i in body["data"]] == ["EUR", "MXN"]
    assert all(i["sendingAmount"] == 25_000 and i["receivingAmount"] > 0 for i in body["data"])
    everything = _rates(api, sourceCurrency="EUR")["data"]
    assert len(everything) > 30 and {i["sourceCurrency"]["code"] for i in everything} == {"EUR"}


def test_platform_fees_are_included_and_a_fee_change_shows_at_once(api):
    before = _rates(api, sourceCurrency="USD", destinationCurrency="EUR")["data"][0]
    api.platform.fee_configs = FEES
    api.platform.save()
    after = _rates(api, sourceCurrency="USD", destinationCurrency="EUR")["data"][0]
    assert after["fees"]["total"] == before["fees"]["total"] + 50 + 100  # 1% of 10,000 plus 50
    assert after["receivingAmount"] < before["receivingAmount"]


def test_rates_are_cached_for_about_five_minutes(api, monkeypatch):
    timeouts = []
    original = cache.set
    monkeypatch.setattr(
        cache, "set", lambda key, value, timeout: (timeouts.append(timeout), original(key, value, timeout))
    )
    first = _rates(api, sourceCurrency="USD", destinationCurrency="GBP")
    second = _rates(api, sourceCurrency="USD", destinationCurrency="GBP")
    assert (
        first == second and timeouts == [EXCHANGE_RATE_CACHE_SECONDS] and EXCHANGE_RATE_CACHE_SECONDS == 300
    )


def test_unknown_currencies_are_field_errors(api):
    response = api.get("/exchange-rates", {"sourceCurrency": "XXX", "destinationCurrency": ["EUR", "YYY"]})
    assert response.status_code == 400
    assert {e["field"] for e in response.json()["details"]["errors"]} == {
        "sourceCurrency",
        "destinationCurrency[1]",
    }
    assert api.get("/exchange-rates", {"sendingAmount": "-1"}).status_code == 400


def test_the_advance_task_ignores_a_transaction_it_does_not_know():
    transactions_advance_task([str(uuid.uuid4())])
