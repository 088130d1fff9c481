"""UMA counterparties that misbehave: each `$error.<code>@sandbox.uma.example` address answers its
error where the reference puts it (the receiver lookup and the quote, or the quote alone), and the
README's sandbox table lists every one."""

from __future__ import annotations

from pathlib import Path

import pytest

from payments.models import Quote, ReceiverLookup
from payments.rails.sandbox_counterparty_errors import COUNTERPARTY_ERRORS
from tests.payments.money_support import consenting_customer, funded_account, quote_body

pytestmark = pytest.mark.django_db

README = Path(__file__).resolve().parents[2] / "README.md"
LOOKUP = [e for e in COUNTERPARTY_ERRORS if e.stage == "LOOKUP"]
PAY_REQUEST = [e for e in COUNTERPARTY_ERRORS if e.stage == "PAY_REQUEST"]
ISSUE_CODES = {
    "INVALID_RECEIVER",
    "QUOTE_REQUEST_FAILED",
    "INVALID_PAYREQ_RESPONSE",
    "PARSE_PAYREQ_RESPONSE_ERROR",
    "CERT_CHAIN_INVALID",
    "CERT_CHAIN_EXPIRED",
    "INVALID_PUBKEY_FORMAT",
    "MISSING_REQUIRED_UMA_PARAMETERS",
    "SENDER_NOT_ACCEPTED",
    "INVALID_TIMESTAMP",
    "UMA_NOT_FOUND",
}


def _address(error) -> str:
    return f"${error.local_part}@sandbox.uma.example"


def _quote(api, address):
    customer, _ = consenting_customer(api.platform)
    source = funded_account(customer, 100_000)
    body = quote_body(source.public_id, "", 1_000)
    body["destination"] = {"destinationType": "UMA_ADDRESS", "umaAddress": address}
    return api.post("/quotes", body)


def _assert_error(response, error):
    body = response.json()
    assert response.status_code == error.status, body
    assert (body["status"], body["code"]) == (error.status, error.code)
    assert body["message"]


def test_every_code_of_the_issue_has_an_address():
    assert ISSUE_CODES <= {e.code for e in COUNTERPARTY_ERRORS}
    assert len({e.local_part for e in COUNTERPARTY_ERRORS}) == len(COUNTERPARTY_ERRORS)


@pytest.mark.parametrize("error", LOOKUP, ids=lambda e: e.code)
def test_a_lookup_stage_error_answers_the_lookup_and_the_quote(api, error):
    address = _address(error)
    _assert_error(api.get(f"/receiver/uma/{address}"), error)
    _assert_error(_quote(api, address), error)
    assert not ReceiverLookup.objects.exists() and not Quote.objects.exists()


@pytest.mark.parametrize("error", PAY_REQUEST, ids=lambda e: e.code)
def test_a_pay_request_stage_error_answers_the_quote_only(api, error):
    address = _address(error)
    lookup = api.get(f"/receiver/uma/{address}")
    assert lookup.status_code == 200
    assert [c["currency"]["code"] for c in lookup.json()["supportedCurrencies"]] == ["USD"]
    _assert_error(_quote(api, address), error)
    assert not Quote.objects.exists()


def test_the_addresses_are_sandbox_only(api, settings):
    settings.SANDBOX = False
    error = next(e for e in LOOKUP if e.code == "CERT_CHAIN_INVALID")
    response = api.get(f"/receiver/uma/{_address(error)}")
    assert (response.status_code, response.json()["code"]) == (404, "UMA_NOT_FOUND")


@pytest.mark.parametrize("error", COUNTERPARTY_ERRORS, ids=lambda e: e.code)
def test_the_readme_sandbox_table_lists_each_address(error):
    assert f"`${error.local_part}`" in README.read_text()
