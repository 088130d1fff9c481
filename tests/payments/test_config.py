import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from payments.pricing import MAX_AMOUNT

pytestmark = pytest.mark.django_db

USD_FEE = {
    "feeType": "CROSS_CURRENCY_TRANSACTION",
    "sourceCurrency": "USD",
    "variableFeeBps": 25,
    "fixedFee": {"amount": 30, "currency": "USD"},
}


def test_get_config_shape(api):
    body = api.get("/config").json()
    assert body["id"] == api.platform.public_id
    assert set(body) >= {
        "id",
        "umaDomain",
        "webhookEndpoint",
        "supportedCurrencies",
        "isRegulatedFinancialInstitution",
        "feeConfigs",
        "createdAt",
        "updatedAt",
    }
    assert body["createdAt"].endswith("Z")
    assert "embeddedWalletConfig" not in body


def test_patch_changes_only_the_given_fields(api):
    before = api.get("/config").json()
    body = api.patch("/config", {"umaDomain": "pay.example.com"}).json()
    assert body["umaDomain"] == "pay.example.com"
    assert body["supportedCurrencies"] == before["supportedCurrencies"]
    assert api.get("/config").json()["umaDomain"] == "pay.example.com"


@pytest.mark.parametrize(
    "domain", ["my platform.com", "", "a..b", "-pay.example", "pay.example:0", "x:99999"]
)
def test_an_uma_domain_that_is_no_domain_is_refused_and_nothing_changes(api, domain):
    before = api.get("/config").json()
    refused = api.patch("/config", {"umaDomain": domain, "webhookEndpoint": "https://hooks.example/x"})
    assert refused.status_code == 400
    assert refused.json()["details"]["errors"][0]["field"] == "umaDomain"
    assert api.get("/config").json() == before


@pytest.mark.parametrize(
    "domain", ["pay.example.com", "localhost:8000", "bücher.example", "uma.example:8443"]
)
def test_uma_domains_with_or_without_a_port_are_kept(api, domain):
    assert api.patch("/config", {"umaDomain": domain}).json()["umaDomain"] == domain


def test_embedded_wallet_config_merges(api):
    api.patch("/config", {"embeddedWalletConfig": {"appName": "Acme", "otpLength": 8}})
    body = api.patch("/config", {"embeddedWalletConfig": {"otpLength": 6}}).json()
    assert body["embeddedWalletConfig"] == {"appName": "Acme", "otpLength": 6}


def test_fee_configs_upsert_by_key_and_zero_deactivates(api):
    assert api.patch("/config", {"feeConfigs": [USD_FEE]}).json()["feeConfigs"] == [USD_FEE]
    changed = {**USD_FEE, "variableFeeBps": 40}
    assert api.patch("/config", {"feeConfigs": [changed]}).json()["feeConfigs"] == [changed]
    off = {**USD_FEE, "variableFeeBps": 0, "fixedFee": {"amount": 0, "currency": "USD"}}
    assert api.patch("/config", {"feeConfigs": [off]}).json()["feeConfigs"] == []


def test_fee_config_for_non_usd_source_is_refused_with_the_field_and_what_is_supported(api):
    eur = {**USD_FEE, "sourceCurrency": "EUR", "fixedFee": {"amount": 1, "currency": "EUR"}}
    response = api.patch("/config", {"feeConfigs": [USD_FEE, eur]})
    assert response.status_code == 400
    assert response.json()["details"]["errors"] == [
        {
            "field": "feeConfigs[1].sourceCurrency",
            "message": "Platform fees are supported for USD source currency only",
            "constraint": {"enum": ["USD"]},
        }
    ]
    assert api.get("/config").json()["feeConfigs"] == []


def test_fee_config_bounds_and_currency(api):
    bad = {**USD_FEE, "variableFeeBps": 10_001, "fixedFee": {"amount": -1, "currency": "USD"}}
    errors = api.patch("/config", {"feeConfigs": [bad]}).json()["details"]["errors"]
    assert {e["field"] for e in errors} == {"feeConfigs[0].variableFeeBps", "feeConfigs[0].fixedFee.amount"}
    mismatch = {**USD_FEE, "fixedFee": {"amount": 1, "currency": "EUR"}}
    errors = api.patch("/config", {"feeConfigs": [mismatch]}).json()["details"]["errors"]
    assert [e["field"] for e in errors] == ["feeConfigs[0].fixedFee.currency"]


@pytest.mark.parametrize("amount", [MAX_AMOUNT + 1, 2**63, 2**70])
@pytest.mark.parametrize(
    "body, field",
    [
        (
            lambda a: {"feeConfigs": [{**USD_FEE, "fixedFee": {"amount": a, "currency": "USD"}}]},
            "feeConfigs[0].fixedFee.amount",
        ),
        (
            lambda a: {"supportedCurrencies": [{"currencyCode": "USD", "maxAmount": a}]},
            "supportedCurrencies[0].maxAmount",
        ),
        (
            lambda a: {"supportedCurrencies": [{"currencyCode": "USD", "minAmount": a}]},
            "supportedCurrencies[0].minAmount",
        ),
    ],
)
def test_amounts_beyond_what_the_pricing_reads_are_refused_at_write_time(api, amount, body, field):
    before = api.get("/config").json()
    response = api.patch("/config", body(amount))
    assert response.status_code == 400, response.content
    [error] = response.json()["details"]["errors"]
    assert (error["field"], error["constraint"]["maximum"]) == (field, MAX_AMOUNT)
    assert api.get("/config").json() == before
    assert api.get("/exchange-rates").status_code == 200


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    fixed=st.integers(min_value=0, max_value=MAX_AMOUNT),
    maximum=st.integers(min_value=1, max_value=MAX_AMOUNT),
)
def test_any_amount_the_config_accepts_keeps_rates_and_quotes_readable(api, fixed, maximum):
    fee = {**USD_FEE, "fixedFee": {"amount": fixed, "currency": "USD"}}
    currencies = [{"currencyCode": "USD", "minAmount": 1, "maxAmount": maximum}, {"currencyCode": "EUR"}]
    response = api.patch("/config", {"feeConfigs": [fee], "supportedCurrencies": currencies})
    assert response.status_code == 200, response.content
    assert api.get("/exchange-rates").status_code == 200
    assert api.get("/exchange-rates", {"sourceCurrency": "USD", "sendingAmount": maximum}).status_code in (
        200,
        400,
    )


def test_supported_currencies_are_checked(api):
    response = api.patch(
        "/config",
        {
            "supportedCurrencies": [
                {"currencyCode": "XYZ"},
                {"currencyCode": "USD", "minAmount": 5, "maxAmount": 1},
            ]
        },
    )
    assert response.status_code == 400
    fields = {e["field"] for e in response.json()["details"]["errors"]}
    assert fields == {"supportedCurrencies[0].currencyCode", "supportedCurrencies[1].minAmount"}


def test_bad_patch_leaves_config_untouched(api):
    before = api.get("/config").json()
    api.patch("/config", {"umaDomain": "new.example", "supportedCurrencies": [{"currencyCode": "XYZ"}]})
    assert api.get("/config").json() == before


def test_webhook_endpoint_in_sandbox_may_be_http(api):
    body = api.patch("/config", {"webhookEndpoint": "http://127.0.0.1:9000/hook"}).json()
    assert body["webhookEndpoint"] == "http://127.0.0.1:9000/hook"


@pytest.mark.parametrize(
    "url", ["http://hooks.example.com/x", "https://127.0.0.1/x", "https://10.1.2.3/x", "https://localhost/x"]
)
def test_webhook_endpoint_in_production_must_be_public_https(api, settings, url):
    settings.PRODUCTION = True
    response = api.patch("/config", {"webhookEndpoint": url})
    assert response.status_code == 400
    assert response.json()["details"]["errors"][0]["field"] == "webhookEndpoint"
    assert api.patch("/config", {"webhookEndpoint": "https://hooks.example.com/x"}).status_code == 200


def test_webhook_endpoint_must_be_a_url(api):
    assert api.patch("/config", {"webhookEndpoint": "not a url"}).status_code == 400


@pytest.mark.parametrize(
    "url",
    [
        "http://[::1",
        "http://[::1/hook",
        "http://127.0.0.1:99999/hook",
        "http://127.0.0.1:0/hook",
        "http://hooks.example.com:port/",
        "http://hooks example.com/",
        "http://\u2028/",
        "http://" + "a" * 70 + ".example.com/",
    ],
)
def test_a_webhook_endpoint_the_sender_could_not_use_is_a_400_and_changes_nothing(api, url):
    before = api.get("/config").json()
    response = api.patch("/config", {"webhookEndpoint": url})
    assert response.status_code == 400, response.content
    assert response.json()["details"]["errors"][0]["field"] == "webhookEndpoint"
    assert api.get("/config").json() == before
