"""counterpartyInformation: what the other side of a UMA payment tells about its customer, limited to
the fields the platform asks for in its configuration."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from payments.models import WebhookEvent
from tests.payments.money_support import (
    consenting_customer,
    funded_account,
    holding_account,
    on_the_wire,
    quote_body,
    reference_validator,
)
from tests.payments.webhook_receiver import Receiver, Reply

pytestmark = pytest.mark.django_db

QUOTE = reference_validator("Quote")


def _ask(api, currency: str, *names: str, mandatory: bool = True):
    config = api.get("/config").json()
    entries = [
        {**entry, "requiredCounterpartyFields": [{"name": n, "mandatory": mandatory} for n in names]}
        if entry["currencyCode"] == currency
        else entry
        for entry in config["supportedCurrencies"]
    ]
    response = api.patch("/config", {"supportedCurrencies": entries})
    assert response.status_code == 200, response.content


def _uma_quote(api, source, address: str):
    body = quote_body(source.public_id, "", 1_000)
    body["destination"] = {"destinationType": "UMA_ADDRESS", "umaAddress": address}
    response = api.post("/quotes", body)
    assert response.status_code == 201, response.content
    return response.json()


@pytest.fixture
def source(api):
    customer, _ = consenting_customer(api.platform)
    return funded_account(customer, 100_000)


def test_a_uma_quote_carries_the_fields_the_platform_asks_about_the_receiver(api, source):
    _ask(api, "USD", "FULL_NAME", "NATIONALITY", "TAX_ID")  # the sandbox's VASP does not give a TAX_ID
    quote = _uma_quote(api, source, "$success.eur@sandbox.uma.example")
    QUOTE.validate(on_the_wire(quote))
    expected = {"FULL_NAME": "Sam Sandbox", "NATIONALITY": "US"}
    assert quote["counterpartyInformation"] == expected
    assert api.get(f"/quotes/{quote['id']}").json()["counterpartyInformation"] == expected
    txn = api.get(f"/transactions/{quote['transactionId']}").json()
    assert txn["counterpartyInformation"] == expected
    pending = json.loads(WebhookEvent.objects.get(type="OUTGOING_PAYMENT.PENDING").body)
    assert pending["data"]["counterpartyInformation"] == expected


def test_the_sending_currencys_request_applies_and_nothing_is_asked_by_default(api, source):
    plain = _uma_quote(api, source, "$success.usd@sandbox.uma.example")
    assert "counterpartyInformation" not in plain
    _ask(api, "EUR", "FULL_NAME")  # asked for EUR; this quote sends USD
    assert "counterpartyInformation" not in _uma_quote(api, source, "$success.eur@sandbox.uma.example")


def test_a_quote_to_an_account_has_no_counterparty_information(api, source):
    _ask(api, "USD", "FULL_NAME")
    friend, _ = consenting_customer(api.platform, full_name="Friend Person")
    payee = holding_account(friend)
    quote = api.post("/quotes", quote_body(source.public_id, payee.public_id, 1_000)).json()
    assert quote["status"] == "PENDING" and "counterpartyInformation" not in quote


def test_our_own_customers_uma_address_answers_from_the_customers_record(api, source):
    _ask(api, "USD", "FULL_NAME", "BIRTH_DATE", "EMAIL", "ACCOUNT_IDENTIFIER", mandatory=False)
    friend, _ = consenting_customer(
        api.platform, full_name="Friend Person", birth_date=dt.date(1988, 3, 4), email="friend@example.com"
    )
    holding_account(friend)
    quote = _uma_quote(api, source, friend.uma_address)
    assert quote["counterpartyInformation"] == {
        "FULL_NAME": "Friend Person",
        "BIRTH_DATE": "1988-03-04",
        "EMAIL": "friend@example.com",
        "ACCOUNT_IDENTIFIER": friend.uma_address,
    }


def test_an_incoming_payment_tells_the_platform_about_its_sender(api):
    receiver = Receiver()
    try:
        api.platform.webhook_endpoint = receiver.url
        api.platform.save()
        _ask(api, "USD", "FULL_NAME", "BIRTH_DATE", "NATIONALITY")
        customer, _ = consenting_customer(api.platform)
        holding_account(customer)
        receiver.replies.append(Reply(200, b"{}"))
        body = {
            "senderUmaAddress": "$success.usd@sandbox.uma.example",
            "receiverUmaAddress": customer.uma_address,
            "receivingCurrencyCode": "USD",
            "receivingCurrencyAmount": 2_500,
        }
        txn = api.post("/sandbox/uma/receive", body).json()
        asked = json.loads(receiver.requests[0].body)
    finally:
        receiver.close()
    expected = {"FULL_NAME": "Sam Sandbox", "BIRTH_DATE": "1990-01-15", "NATIONALITY": "US"}
    assert asked["type"] == "INCOMING_PAYMENT.PENDING"
    assert asked["data"]["counterpartyInformation"] == expected
    reference_validator("IncomingPaymentWebhook").validate(asked)
    assert txn["status"] == "COMPLETED" and txn["counterpartyInformation"] == expected


def test_only_the_references_field_names_can_be_asked_for(api):
    entries = api.get("/config").json()["supportedCurrencies"]
    entries[0] = {**entries[0], "requiredCounterpartyFields": [{"name": "SHOE_SIZE", "mandatory": True}]}
    response = api.patch("/config", {"supportedCurrencies": entries})
    assert response.status_code == 400
    (error,) = response.json()["details"]["errors"]
    assert error["field"] == "supportedCurrencies[0].requiredCounterpartyFields[0].name"
    assert "FULL_NAME" in error["constraint"]["enum"]
