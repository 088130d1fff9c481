"""POST /quotes and GET /quotes/{id}: both ends, pricing, payment instructions, limits and refusals."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from payments import clock, rates
from payments.account_info import validate_account_info
from payments.models import Customer, Quote, Transaction
from payments.payment_instructions import ACCOUNT_TYPES, account_or_wallet_info
from tests import factories
from tests.payments.money_support import (
    consenting_customer,
    eur_external,
    funded_account,
    holding_account,
    key,
    on_the_wire,
    quote_body,
    reference_validator,
    usd_external,
)

pytestmark = pytest.mark.django_db

QUOTE = reference_validator("Quote")
INSTRUCTIONS = reference_validator("PaymentInstructions")


@pytest.fixture
def sender(api):
    customer, wallet = consenting_customer(api.platform)
    return customer, funded_account(customer, 10_000_000), wallet


def _create(api, body, **headers):
    return api.post("/quotes", body, **headers)


def test_a_same_currency_quote_to_an_external_account(api, sender):
    customer, source, _ = sender
    payee = usd_external(api.platform, customer)
    response = _create(api, quote_body(source.public_id, payee.public_id, 10_000, description="rent"))
    assert response.status_code == 201, response.content
    quote = response.json()
    QUOTE.validate(on_the_wire(quote))
    assert quote["status"] == "PENDING"
    assert quote["totalSendingAmount"] == 10_000
    assert quote["totalSendingAmount"] == quote["totalReceivingAmount"] + quote["feesIncluded"]
    assert quote["exchangeRate"] == 1
    assert quote["transactionId"].startswith("Transaction:")
    assert "paymentInstructions" not in quote  # not needed for an internal-account source
    details = quote["rateDetails"]
    assert quote["feesIncluded"] == details["serviceApiFixedFee"] + details["serviceApiVariableFeeAmount"]
    expires = dt.datetime.fromisoformat(quote["expiresAt"])
    assert expires - dt.datetime.fromisoformat(quote["createdAt"]) == rates.quote_lifetime("ACH")
    txn = api.get(f"/transactions/{quote['transactionId']}").json()
    assert txn["status"] == "PENDING" and txn["quoteId"] == quote["id"] and txn["paymentRail"] == "ACH"
    assert api.get(f"/quotes/{quote['id']}").json() == quote


def test_a_cross_currency_quote_locked_on_the_receiving_side(api, sender):
    customer, source, _ = sender
    payee = eur_external(api.platform, customer)
    body = quote_body(source.public_id, payee.public_id, 5_000, lockedCurrencySide="RECEIVING")
    quote = _create(api, body).json()
    QUOTE.validate(on_the_wire(quote))
    assert quote["totalReceivingAmount"] == 5_000
    assert quote["receivingCurrency"]["code"] == "EUR"
    assert quote["exchangeRate"] == float(rates.mid_rate("USD", "EUR"))
    details = quote["rateDetails"]
    assert details["serviceApiVariableFeeRate"] > 0 and details["serviceApiVariableFeeAmount"] > 0
    # The rail's expiry: SEPA Instant is an instant rail (1 to 5 minutes).
    lifetime = dt.datetime.fromisoformat(quote["expiresAt"]) - dt.datetime.fromisoformat(quote["createdAt"])
    assert dt.timedelta(minutes=1) <= lifetime <= dt.timedelta(minutes=5)


def test_a_payment_rail_must_be_one_of_the_destination_account(api, sender):
    customer, source, _ = sender
    payee = usd_external(api.platform, customer)
    body = quote_body(source.public_id, payee.public_id, 10_000)
    body["destination"]["paymentRail"] = "WIRE"
    quote = _create(api, body).json()
    txn = api.get(f"/transactions/{quote['transactionId']}").json()
    assert (txn["paymentRail"], txn["railSelectionMode"]) == ("WIRE", "MANUAL")
    assert quote["destination"]["paymentRail"] == "WIRE"
    body["destination"]["paymentRail"] = "SEPA"
    response = _create(api, body)
    assert response.status_code == 400
    error = response.json()["details"]["errors"][0]
    assert error["field"] == "destination.paymentRail" and "ACH" in error["constraint"]["enum"]


def test_an_amount_the_fees_swallow_is_a_clear_400(api, sender):
    customer, source, _ = sender
    payee = usd_external(api.platform, customer)
    response = _create(api, quote_body(source.public_id, payee.public_id, 25))  # the ACH fee is 25 cents
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "AMOUNT_OUT_OF_RANGE"
    assert "does not cover the fees" in body["message"]
    assert body["details"]["minimumSendingAmount"] == 26
    assert body["details"]["errors"][0]["field"] == "lockedCurrencyAmount"


def test_every_invalid_field_is_reported_at_once(api):
    response = _create(
        api,
        {
            "source": {"sourceType": "ACCOUNT"},
            "destination": {"destinationType": "UMA_ADDRESS"},
            "lockedCurrencySide": "SIDEWAYS",
            "lockedCurrencyAmount": 0,
        },
    )
    assert response.status_code == 400
    fields = {e["field"] for e in response.json()["details"]["errors"]}
    assert {
        "source.accountId",
        "destination.umaAddress",
        "lockedCurrencySide",
        "lockedCurrencyAmount",
    } <= fields


def test_unknown_accounts_are_field_errors(api, other_api, sender):
    _customer, _source, _ = sender
    stranger = factories.InternalAccountFactory(customer__platform=other_api.platform)
    response = _create(api, quote_body(stranger.public_id, "Nope:1", 100))
    assert response.status_code == 400
    fields = {e["field"]: e["message"] for e in response.json()["details"]["errors"]}
    assert "not an internal account of this platform" in fields["source.accountId"]
    assert "destination.accountId" in fields


def test_the_same_account_on_both_ends_is_refused(api, sender):
    _customer, source, _ = sender
    response = _create(api, quote_body(source.public_id, source.public_id, 100))
    assert response.status_code == 400 and response.json()["code"] == "SELF_PAYMENT"


def test_a_token_without_transact_gets_403(db):
    platform, token, secret = factories.platform_with_token(permissions=["VIEW"])
    from tests.conftest import Api

    viewer = Api(platform, token, secret)
    customer, _ = consenting_customer(platform)
    source = funded_account(customer, 1000)
    payee = usd_external(platform, customer)
    response = viewer.post("/quotes", quote_body(source.public_id, payee.public_id, 500))
    assert response.status_code == 403 and response.json()["code"] == "FORBIDDEN"
    assert not Quote.objects.exists()


def test_end_user_terms_must_be_accepted(api):
    customer, _ = factories.approved_customer_with_wallet(platform=api.platform)
    source = funded_account(customer, 1000)
    payee = usd_external(api.platform, customer)
    response = _create(api, quote_body(source.public_id, payee.public_id, 500))
    assert response.status_code == 403
    assert response.json()["code"] == "END_USER_TERMS_NOT_ACCEPTED"
    api.platform.is_regulated_financial_institution = True  # regulated platforms keep their own records
    api.platform.save()
    assert _create(api, quote_body(source.public_id, payee.public_id, 500)).status_code == 201


def test_a_customer_on_hold_is_not_ready(api, sender):
    customer, source, _ = sender
    payee = usd_external(api.platform, customer)
    Customer.objects.filter(pk=customer.pk).update(status=Customer.Status.HOLD)
    response = _create(api, quote_body(source.public_id, payee.public_id, 500))
    assert response.status_code == 403 and response.json()["code"] == "USER_NOT_READY"


def test_the_transaction_size_limit_is_per_platform(api, sender, settings):
    customer, source, _ = sender
    payee = usd_external(api.platform, customer)
    settings.TRANSACTION_SIZE_LIMIT_USD_CENTS = 5_000
    response = _create(api, quote_body(source.public_id, payee.public_id, 5_001))
    assert response.status_code == 400
    assert response.json()["code"] == "TRANSACTION_SIZE_LIMIT_EXCEEDED"
    assert _create(api, quote_body(source.public_id, payee.public_id, 5_000)).status_code == 201
    api.platform.transaction_size_limit = 1_000_000
    api.platform.save()
    assert _create(api, quote_body(source.public_id, payee.public_id, 5_001)).status_code == 201


def test_platform_fees_from_config_and_override(api, sender):
    customer, source, _ = sender
    payee = eur_external(api.platform, customer)
    api.platform.fee_configs = [
        {
            "feeType": "CROSS_CURRENCY_TRANSACTION",
            "sourceCurrency": "USD",
            "variableFeeBps": 50,
            "fixedFee": {"amount": 25, "currency": "USD"},
        }
    ]
    api.platform.save()
    standing = _create(api, quote_body(source.public_id, payee.public_id, 100_000)).json()
    assert standing["platformFeesIncluded"] == 25 + 500
    override = {"platformFixedFee": {"amount": 100, "currency": "USD"}, "platformVariableFeeBps": 0}
    overridden = _create(
        api, quote_body(source.public_id, payee.public_id, 100_000, platformFeeOverride=override)
    )
    assert overridden.json()["platformFeesIncluded"] == 100
    assert overridden.json()["feesIncluded"] == standing["feesIncluded"] - 525 + 100


def test_a_platform_fee_override_needs_a_usd_source(api):
    customer, _ = consenting_customer(api.platform)
    euros = funded_account(customer, 100_000, "EUR")
    payee = usd_external(api.platform, customer)
    override = {"platformFixedFee": {"amount": 100, "currency": "EUR"}, "platformVariableFeeBps": 10}
    response = _create(
        api, quote_body(euros.public_id, payee.public_id, 10_000, platformFeeOverride=override)
    )
    assert response.status_code == 400
    assert response.json()["details"]["errors"][0]["field"] == "platformFeeOverride"


def test_remittance_information_and_purpose_travel_with_the_transaction(api, sender):
    customer, source, _ = sender
    payee = usd_external(api.platform, customer)
    body = quote_body(
        source.public_id,
        payee.public_id,
        10_000,
        remittanceInformation="INV-42",
        purposeOfPayment="GOODS_OR_SERVICES",
    )
    quote = _create(api, body).json()
    txn = api.get(f"/transactions/{quote['transactionId']}").json()
    assert txn["remittanceInformation"] == "INV-42" and txn["purposeOfPayment"] == "GOODS_OR_SERVICES"
    body["remittanceInformation"] = "x" * 81
    assert _create(api, body).status_code == 400


def test_create_is_idempotent_with_a_key(api, sender):
    customer, source, _ = sender
    payee = usd_external(api.platform, customer)
    body = quote_body(source.public_id, payee.public_id, 10_000)
    first = _create(api, body, HTTP_IDEMPOTENCY_KEY=key("k-1")).json()
    again = _create(api, body, HTTP_IDEMPOTENCY_KEY=key("k-1")).json()
    assert again["id"] == first["id"]
    assert _create(api, body, HTTP_IDEMPOTENCY_KEY=key("k-2")).json()["id"] != first["id"]
    assert Quote.objects.count() == 2


def test_immediately_execute_creates_and_executes(api, sender):
    customer, source, _ = sender
    payee = usd_external(api.platform, customer)
    quote = _create(
        api, quote_body(source.public_id, payee.public_id, 10_000, immediatelyExecute=True)
    ).json()
    assert quote["status"] == "PROCESSING"
    assert api.get(f"/quotes/{quote['id']}").json()["status"] == "COMPLETED"


def test_immediately_execute_that_fails_leaves_nothing_behind(api):
    customer, _ = consenting_customer(api.platform)
    source = funded_account(customer, 100)
    payee = usd_external(api.platform, customer)
    response = _create(api, quote_body(source.public_id, payee.public_id, 10_000, immediatelyExecute=True))
    assert response.status_code == 400 and response.json()["code"] == "INSUFFICIENT_FUNDS"
    assert not Quote.objects.exists() and not Transaction.objects.exists()


def test_an_fbo_platform_account_quotes_on_behalf_of_a_customer(api):
    customer, _ = consenting_customer(api.platform)
    fbo = factories.InternalAccountFactory(customer=None, platform=api.platform)
    funded = fbo.public_id
    from payments.sandbox import sandbox_fund

    sandbox_fund(platform=api.platform, account_id=fbo.pk, amount=50_000)
    payee = usd_external(api.platform, None)
    body = quote_body(funded, payee.public_id, 10_000)
    body["source"]["customerId"] = customer.public_id
    quote = _create(api, body).json()
    assert quote["source"]["customerId"] == customer.public_id
    txn = api.get(f"/transactions/{quote['transactionId']}").json()
    assert txn["customerId"] == customer.public_id
    # An owned account names its owner, nobody else.
    other, _ = consenting_customer(api.platform)
    owned = funded_account(other, 100_000)
    body = quote_body(owned.public_id, payee.public_id, 10_000)
    body["source"]["customerId"] = customer.public_id
    assert _create(api, body).status_code == 400


def test_a_platform_quote_without_customer_shows_the_platform_as_customer(api):
    account = factories.InternalAccountFactory(customer=None, platform=api.platform)
    from payments.sandbox import sandbox_fund

    sandbox_fund(platform=api.platform, account_id=account.pk, amount=50_000)
    payee = usd_external(api.platform, None)
    quote = _create(api, quote_body(account.public_id, payee.public_id, 10_000)).json()
    txn = api.get(f"/transactions/{quote['transactionId']}").json()
    assert txn["customerId"] == api.platform.public_id and txn["platformCustomerId"] == ""


def test_a_quote_to_an_internal_account_is_a_book_transfer(api, sender):
    _customer, source, _ = sender
    other, _ = consenting_customer(api.platform)
    destination = holding_account(other, "EUR")
    quote = _create(
        api, quote_body(source.public_id, destination.public_id, 10_000, immediatelyExecute=True)
    ).json()
    txn = api.get(f"/transactions/{quote['transactionId']}").json()
    assert txn["status"] == "COMPLETED"
    assert txn["paymentRail"] is None and txn["railSelectionMode"] is None
    from payments.accounts import account_balance

    assert account_balance(destination) == quote["totalReceivingAmount"]


def test_expiry_is_applied_when_read(api, sender):
    customer, source, _ = sender
    payee = usd_external(api.platform, customer)
    quote = _create(api, quote_body(source.public_id, payee.public_id, 10_000)).json()
    clock.advance(dt.timedelta(minutes=31))
    assert api.get(f"/quotes/{quote['id']}").json()["status"] == "EXPIRED"
    assert api.get(f"/transactions/{quote['transactionId']}").json()["status"] == "EXPIRED"


def test_an_unknown_quote_is_404(api, other_api, sender):
    customer, source, _ = sender
    payee = usd_external(api.platform, customer)
    quote = _create(api, quote_body(source.public_id, payee.public_id, 10_000)).json()
    response = other_api.get(f"/quotes/{quote['id']}")
    assert response.status_code == 404 and response.json()["code"] == "QUOTE_NOT_FOUND"
    assert api.get("/quotes/Quote:not-a-uuid").status_code == 404


def test_the_authorize_endpoints_answer_409_outside_sca_regions(api, sender):
    customer, source, _ = sender
    payee = usd_external(api.platform, customer)
    quote = _create(api, quote_body(source.public_id, payee.public_id, 10_000)).json()
    assert "scaChallenge" not in quote
    assert api.post(f"/quotes/{quote['id']}/authorize", {}).status_code == 409
    assert api.post(f"/quotes/{quote['id']}/authorize/resend").status_code == 409


# --- UMA destinations -------------------------------------------------------------------------------


def test_a_quote_to_a_sandbox_uma_address(api, sender):
    _customer, source, _ = sender
    body = quote_body(source.public_id, "", 10_000)
    body["destination"] = {"destinationType": "UMA_ADDRESS", "umaAddress": "$success.eur@sandbox.uma.example"}
    quote = _create(api, body).json()
    QUOTE.validate(on_the_wire(quote))
    assert quote["receivingCurrency"]["code"] == "EUR"
    assert quote["destination"]["currency"] == "EUR"
    lifetime = dt.datetime.fromisoformat(quote["expiresAt"]) - dt.datetime.fromisoformat(quote["createdAt"])
    assert lifetime == rates.quote_lifetime("LIGHTNING")


@pytest.mark.parametrize(
    ("address", "status", "code"),
    [
        ("$nobody@sandbox.uma.example", 404, "UMA_NOT_FOUND"),
        ("$someone@elsewhere.example", 424, "LNURLP_REQUEST_FAILED"),
        ("not-an-address", 400, "INVALID_UMA_ADDRESS"),
    ],
)
def test_uma_addresses_that_cannot_be_paid(api, sender, address, status, code):
    _customer, source, _ = sender
    body = quote_body(source.public_id, "", 1_000)
    body["destination"] = {"destinationType": "UMA_ADDRESS", "umaAddress": address}
    response = _create(api, body)
    assert (response.status_code, response.json()["code"]) == (status, code)


def test_a_uma_currency_the_receiver_does_not_take(api, sender):
    _customer, source, _ = sender
    body = quote_body(source.public_id, "", 1_000)
    body["destination"] = {
        "destinationType": "UMA_ADDRESS",
        "umaAddress": "$success.usd@sandbox.uma.example",
        "currency": "MXN",
    }
    assert _create(api, body).json()["code"] == "INVALID_CURRENCY"


def test_a_lookup_id_must_be_known(api, sender):
    _customer, source, _ = sender
    lookup = api.get("/receiver/uma/$success.mxn@sandbox.uma.example").json()
    body = quote_body(source.public_id, "", 1_000, lookupId=lookup["lookupId"])
    body["destination"] = {"destinationType": "UMA_ADDRESS", "umaAddress": "$success.mxn@sandbox.uma.example"}
    assert _create(api, body).status_code == 201
    body["lookupId"] = "Lookup:00000000-0000-7000-8000-000000000000"
    response = _create(api, body)
    assert (response.status_code, response.json()["code"]) == (404, "LOOKUP_REQUEST_NOT_FOUND")


# --- realtime funding and payment instructions ----------------------------------------------------


def _realtime(currency, network=None, **source):
    body = {
        "source": {"sourceType": "REALTIME_FUNDING", "currency": currency, **source},
        "destination": {"destinationType": "UMA_ADDRESS", "umaAddress": "$success.usd@sandbox.uma.example"},
        "lockedCurrencySide": "RECEIVING",
        "lockedCurrencyAmount": 10_000,
    }
    if network:
        body["source"]["cryptoNetwork"] = network
    return body


@pytest.mark.parametrize(
    ("currency", "network", "account_type", "rail"),
    [
        ("USD", None, "USD_ACCOUNT", "RTP"),
        ("EUR", None, "EUR_ACCOUNT", "SEPA_INSTANT"),
        ("GBP", None, "GBP_ACCOUNT", "FASTER_PAYMENTS"),
        ("MXN", None, "MXN_ACCOUNT", "SPEI"),
        ("BRL", None, "BRL_ACCOUNT", "PIX"),
        ("USDC", "SOLANA", "SOLANA_WALLET", None),
        ("USDC", "BASE", "BASE_WALLET", None),
        ("USDT", "TRON", "TRON_WALLET", None),
        ("BTC", None, "LIGHTNING", None),
        ("BTC", "SPARK", "SPARK_WALLET", None),
    ],
)
def test_realtime_funding_issues_instructions_for_an_instant_method(
    api, currency, network, account_type, rail
):
    customer, _ = consenting_customer(api.platform)
    quote = _create(api, _realtime(currency, network, customerId=customer.public_id)).json()
    QUOTE.validate(on_the_wire(quote))
    (instruction,) = quote["paymentInstructions"]
    INSTRUCTIONS.validate(instruction)
    info = instruction["accountOrWalletInfo"]
    assert info["accountType"] == account_type
    if rail:
        assert rail in info.get("paymentRails", [rail])
    assert instruction["isPlatformAccount"] is False
    if "reference" in info:
        assert (
            info["reference"]
            == api.get(f"/transactions/{quote['transactionId']}").json()["reconciliationInstructions"][
                "reference"
            ]
        )
    lifetime = dt.datetime.fromisoformat(quote["expiresAt"]) - dt.datetime.fromisoformat(quote["createdAt"])
    assert lifetime <= dt.timedelta(minutes=5)


@pytest.mark.parametrize(
    ("currency", "network", "field"),
    [
        ("USDC", None, "source.cryptoNetwork"),  # required for a stablecoin
        ("USDC", "TRON", "source.cryptoNetwork"),  # USDC is not on Tron here
        ("BTC", "BITCOIN", "source.cryptoNetwork"),  # not instant
        ("NGN", None, "source.currency"),  # bank transfer only: not instant
        ("USD", "SOLANA", "source.cryptoNetwork"),  # fiat takes no network
        ("XYZ", None, "source.currency"),
    ],
)
def test_realtime_funding_refuses_what_is_not_instant(api, currency, network, field):
    response = _create(api, _realtime(currency, network))
    assert response.status_code == 400
    assert response.json()["details"]["errors"][0]["field"] == field


def test_a_platform_realtime_quote_pays_into_a_platform_account(api):
    quote = _create(api, _realtime("USD")).json()
    assert quote["paymentInstructions"][0]["isPlatformAccount"] is True


@pytest.mark.parametrize("account_type", [t for t in ACCOUNT_TYPES if t != "EMBEDDED_WALLET"])
def test_payment_instructions_exist_for_every_account_type(account_type):
    asset = {
        "SOLANA_WALLET": "USDC",
        "ETHEREUM_WALLET": "USDT",
        "BASE_WALLET": "USDC",
        "POLYGON_WALLET": "USDC",
        "TRON_WALLET": "USDT",
        "PLASMA_WALLET": "USDT",
    }.get(account_type)
    info = account_or_wallet_info(
        account_type, seed=b"quote-1", reference="SBX123", asset=asset, amount_msat=5_000_000
    )
    INSTRUCTIONS.validate({"accountOrWalletInfo": info})
    assert info == account_or_wallet_info(
        account_type, seed=b"quote-1", reference="SBX123", asset=asset, amount_msat=5_000_000
    )
    assert info != account_or_wallet_info(
        account_type, seed=b"quote-2", reference="SBX124", asset=asset, amount_msat=5_000_000
    )
    # Identifiers pass the checks external accounts get (check digits, checksums); BRL and COP pay by
    # QR code and URL, which external accounts do not have.
    if account_type not in ("BRL_ACCOUNT", "COP_ACCOUNT"):
        problems = [e for e in validate_account_info(info) if ".beneficiary" not in e.field]
        assert problems == []
    with_reference = account_type not in ("BRL_ACCOUNT", "INR_ACCOUNT", "ARS_ACCOUNT", "COP_ACCOUNT")
    assert ("reference" in info) == (with_reference and account_type.endswith("_ACCOUNT"))


def test_specific_instruction_fields():
    usd = account_or_wallet_info("USD_ACCOUNT", seed=b"s", reference="R")
    assert 1 <= len(usd["bankAddress"]) <= 255
    assert account_or_wallet_info("BRL_ACCOUNT", seed=b"s", reference="R")["qrCode"].startswith("000201")
    assert len(account_or_wallet_info("ARS_ACCOUNT", seed=b"s", reference="R")["accountNumber"]) == 22
    assert account_or_wallet_info("COP_ACCOUNT", seed=b"s", reference="R")["paymentUrl"].startswith(
        "https://"
    )
    spark = account_or_wallet_info("SPARK_WALLET", seed=b"s", reference="R", amount_msat=1000)
    assert {"address", "assetType", "invoice"} <= set(spark)


# --- embedded wallets -------------------------------------------------------------------------------


def test_an_embedded_wallet_quote_carries_the_payload_to_sign(api):
    customer, wallet = consenting_customer(api.platform)
    from payments.sandbox import sandbox_fund

    sandbox_fund(platform=api.platform, account_id=wallet.pk, amount=50_000_000)
    payee = usd_external(api.platform, customer)
    quote = _create(api, quote_body(wallet.public_id, payee.public_id, 10_000_000)).json()
    QUOTE.validate(on_the_wire(quote))
    (instruction,) = quote["paymentInstructions"]
    info = instruction["accountOrWalletInfo"]
    assert info["accountType"] == "EMBEDDED_WALLET"
    payload = json.loads(info["payloadToSign"])
    assert payload["quoteId"] == quote["id"]
    assert payload["sourceAccountId"] == wallet.public_id
    assert payload["destination"]["accountId"] == payee.public_id
    assert payload["sendingAmount"] == {"amount": quote["totalSendingAmount"], "currency": "USDC"}
    assert payload["receivingAmount"] == {"amount": quote["totalReceivingAmount"], "currency": "USD"}
    assert info["payloadToSign"] == json.dumps(payload, sort_keys=True, separators=(",", ":"))
    assert api.get(f"/quotes/{quote['id']}").json()["paymentInstructions"] == quote["paymentInstructions"]
    # Not in one go: the payload must be stamped first.
    response = _create(
        api, quote_body(wallet.public_id, payee.public_id, 10_000_000, immediatelyExecute=True)
    )
    assert response.status_code == 400
    assert response.json()["details"]["errors"][0]["field"] == "immediatelyExecute"
