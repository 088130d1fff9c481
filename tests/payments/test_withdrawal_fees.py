"""`POST /crypto/estimate-withdrawal-fee`: priced by the quotes' fee schedule, so an estimate and a quote
of the same withdrawal agree; bad input is a 400, another platform's account a 404."""

from __future__ import annotations

import pytest

from payments.external_accounts import external_account_create
from tests import factories
from tests.conftest import Api
from tests.payments.money_support import consenting_customer, funded_account, quote_body, reference_validator
from tests.payments.stablecoin_support import SPARK

pytestmark = pytest.mark.django_db

ESTIMATE = reference_validator("EstimateCryptoWithdrawalFeeResponse")
SOLANA = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"
EVM = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
TRON = "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL"
BITCOIN = "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"


def _estimate(api, account, amount=1_000_000, **changes):
    body = {
        "internalAccountId": account.public_id,
        "currency": account.currency,
        "cryptoNetwork": "SOLANA",
        "amount": amount,
        "destinationAddress": SOLANA,
        **changes,
    }
    return api.post("/crypto/estimate-withdrawal-fee", body)


@pytest.fixture
def usdc(api):
    customer, _ = consenting_customer(api.platform)
    return funded_account(customer, 50_000_000, "USDC")


@pytest.mark.parametrize(
    ("currency", "network", "wallet_type", "address", "fee_asset"),
    [
        ("USDC", "SOLANA", "SOLANA_WALLET", SOLANA, "SOL"),
        ("USDT", "SOLANA", "SOLANA_WALLET", SOLANA, "SOL"),
        ("USDC", "BASE", "BASE_WALLET", EVM, "ETH"),
        ("USDC", "ETHEREUM", "ETHEREUM_WALLET", EVM, "ETH"),
        ("USDC", "POLYGON", "POLYGON_WALLET", EVM, "POL"),
        ("USDT", "PLASMA", "PLASMA_WALLET", EVM, "XPL"),
        ("USDT", "TRON", "TRON_WALLET", TRON, "TRX"),
        ("BTC", "LIGHTNING", "LIGHTNING", "satoshi@getalby.com", "BTC"),
    ],
)
def test_an_estimate_agrees_with_the_quote_for_the_same_withdrawal(
    api, currency, network, wallet_type, address, fee_asset
):
    customer, _ = consenting_customer(api.platform)
    source = funded_account(customer, 50_000_000, currency)
    amount = 12_345_678

    response = _estimate(api, source, amount, cryptoNetwork=network, destinationAddress=address)
    assert response.status_code == 200, response.content
    estimate = response.json()
    ESTIMATE.validate(estimate)

    wallet = external_account_create(
        platform=api.platform,
        customer_id=customer.pk,
        currency=currency,
        account_info={"accountType": wallet_type, **_destination(wallet_type, address)},
    )
    quote = api.post("/quotes", quote_body(source.public_id, wallet.public_id, amount)).json()
    assert quote["totalSendingAmount"] == amount
    assert quote["feesIncluded"] == estimate["totalFee"] > 0
    assert quote["totalReceivingAmount"] == estimate["netAmount"] == amount - estimate["totalFee"]
    assert estimate["networkFeeAsset"] == fee_asset
    assert estimate["networkFee"] > 0
    assert estimate["applicationFee"] == 0  # no platform fee on a same-currency withdrawal


def _destination(wallet_type: str, address: str) -> dict:
    if wallet_type == "LIGHTNING":
        return {"lightningAddress": address}
    return {"address": address, "vaspName": "Kraken"}


def test_bitcoin_on_lightning_takes_an_invoice_offer_or_address_and_on_its_other_networks_an_address(api):
    customer, _ = consenting_customer(api.platform)
    btc = funded_account(customer, 10**8, "BTC")
    lightning = _estimate(
        api, btc, 10**6, cryptoNetwork="LIGHTNING", destinationAddress="satoshi@getalby.com"
    )
    assert lightning.status_code == 200, lightning.content
    refused = _estimate(api, btc, 10**6, cryptoNetwork="LIGHTNING", destinationAddress=BITCOIN)
    assert refused.status_code == 400
    (error,) = refused.json()["details"]["errors"]
    assert error["field"] == "destinationAddress"
    assert "lightning address" in error["message"]
    for network, address in (("BITCOIN", BITCOIN), ("SPARK", SPARK)):
        other = _estimate(api, btc, 10**6, cryptoNetwork=network, destinationAddress=address)
        assert other.status_code == 200, other.content
        assert other.json()["networkFeeAsset"] == "BTC"


def test_a_dearer_network_costs_more(api, usdc):
    solana = _estimate(api, usdc, 5_000_000).json()
    ethereum = _estimate(api, usdc, 5_000_000, cryptoNetwork="ETHEREUM", destinationAddress=EVM).json()
    assert ethereum["totalFee"] > solana["totalFee"]
    assert ethereum["netAmount"] < solana["netAmount"]


def test_an_amount_the_fees_take_whole_is_amount_out_of_range(api, usdc):
    fee = _estimate(api, usdc, 5_000_000, cryptoNetwork="ETHEREUM", destinationAddress=EVM).json()["totalFee"]
    response = _estimate(api, usdc, fee, cryptoNetwork="ETHEREUM", destinationAddress=EVM)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "AMOUNT_OUT_OF_RANGE"
    assert body["details"]["errors"][0]["constraint"] == {"minimum": fee + 1}
    assert (
        _estimate(api, usdc, fee + 1, cryptoNetwork="ETHEREUM", destinationAddress=EVM).json()["netAmount"]
        == 1
    )


@pytest.mark.parametrize(
    ("changes", "fields"),
    [
        ({"currency": "USDT"}, ["currency"]),  # the account holds USDC
        ({"cryptoNetwork": "TRON", "destinationAddress": TRON}, ["cryptoNetwork"]),  # no USDC on Tron
        ({"cryptoNetwork": "DOGECOIN"}, ["cryptoNetwork"]),
        ({"destinationAddress": EVM}, ["destinationAddress"]),  # not a Solana address
        ({"amount": 0}, ["amount"]),
        ({"amount": "100"}, ["amount"]),
        ({"internalAccountId": "Customer:0196f9c2-2f4a-7c31-8e8f-3b1f5c7d9a10"}, ["internalAccountId"]),
    ],
)
def test_bad_input_is_a_400_naming_the_field(api, usdc, changes, fields):
    response = _estimate(api, usdc, **changes)
    assert response.status_code == 400, response.content
    body = response.json()
    assert (body["status"], body["code"]) == (400, "INVALID_INPUT")
    assert [e["field"] for e in body["details"]["errors"]] == fields


def test_every_missing_field_is_listed_at_once(api):
    response = api.post("/crypto/estimate-withdrawal-fee", {})
    assert response.status_code == 400
    fields = {e["field"] for e in response.json()["details"]["errors"]}
    assert fields == {"internalAccountId", "currency", "cryptoNetwork", "amount", "destinationAddress"}


def test_another_platforms_account_is_not_found(api, other_api, usdc):
    response = _estimate(other_api, usdc)
    assert response.status_code == 404
    assert response.json()["status"] == 404
    unknown = _estimate(api, usdc, internalAccountId="InternalAccount:0196f9c2-2f4a-7c31-8e8f-3b1f5c7d9a10")
    assert unknown.status_code == 404


def test_a_view_token_may_estimate(usdc):
    token, secret = factories.api_token(platform=usdc.platform, permissions=["VIEW"])
    assert _estimate(Api(usdc.platform, token, secret), usdc).status_code == 200
