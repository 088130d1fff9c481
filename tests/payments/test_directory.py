"""The sandbox directories: `GET /vasps`, `GET /discoveries`, `GET /uma-providers`, and the wallet's
`vaspName` tied to the VASP directory."""

from __future__ import annotations

import pytest

from payments.directory import UMA_PROVIDERS, VASPS
from tests import factories
from tests.conftest import Api
from tests.payments.money_support import consenting_customer, reference_validator

pytestmark = pytest.mark.django_db

VASP_PAGE = reference_validator("VaspListResponse")
DISCOVERIES = reference_validator("DiscoveryListResponse")
PROVIDER_PAGE = reference_validator("UmaProviderListResponse")
SOLANA = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"


def _walk(api, path, limit, **query):
    """Every item of a list, page by page."""
    items, cursor = [], None
    while True:
        params = {"limit": limit, **query, **({"cursor": cursor} if cursor else {})}
        page = api.get(path, params).json()
        items += page["data"]
        if not page["hasMore"]:
            assert "nextCursor" not in page
            return items
        cursor = page["nextCursor"]


# --- VASPs -----------------------------------------------------------------------------------------


def test_vasps_list_the_directory(api):
    response = api.get("/vasps")
    assert response.status_code == 200
    page = response.json()
    VASP_PAGE.validate(page)
    assert page["hasMore"] is False
    names = [v["vaspName"] for v in page["data"]]
    assert "Kraken" in names and names == sorted(names)
    assert {"vaspName": "Kraken", "url": "https://www.kraken.com"} in page["data"]


def test_vasps_page_with_a_cursor(api):
    first = api.get("/vasps", {"limit": 5}).json()
    assert len(first["data"]) == 5 and first["hasMore"] is True
    walked = _walk(api, "/vasps", 5)
    assert [v["vaspName"] for v in walked] == [v.name for v in VASPS]


@pytest.mark.parametrize("query", [{"limit": 0}, {"limit": 101}, {"limit": "x"}, {"cursor": "not-a-cursor"}])
def test_vasps_refuse_bad_page_parameters(api, query):
    response = api.get("/vasps", query)
    assert response.status_code == 400
    body = response.json()
    assert (body["status"], body["code"]) == (400, "INVALID_INPUT")
    assert body["details"]["errors"][0]["field"] in query


def test_a_cursor_of_another_list_is_refused(api):
    provider_cursor = api.get("/uma-providers", {"limit": 1}).json()["nextCursor"]
    assert api.get("/vasps", {"cursor": provider_cursor}).status_code == 400


def test_the_directories_need_credentials(client):
    for path in ("/vasps", "/discoveries", "/uma-providers"):
        assert client.get(f"/api/2025-10-13{path}").status_code == 401


def test_a_view_token_reads_the_directories(db):
    api = Api(*factories.platform_with_token(permissions=["VIEW"]))
    for path in ("/vasps", "/discoveries", "/uma-providers"):
        assert api.get(path).status_code == 200


# --- discoveries -----------------------------------------------------------------------------------


def test_discoveries_without_filters_list_every_institution(api):
    body = api.get("/discoveries").json()
    DISCOVERIES.validate(body)
    assert {d["country"] for d in body["data"]} >= {"PH", "MX", "BR", "IN", "NG", "KE"}


def test_discoveries_filter_by_country_and_currency(api):
    body = api.get("/discoveries", {"country": "PH", "currency": "PHP"}).json()
    assert {
        "bankName": "BPI",
        "displayName": "Bank of the Philippine Islands",
        "country": "PH",
        "currency": "PHP",
    } in body["data"]
    assert {(d["country"], d["currency"]) for d in body["data"]} == {("PH", "PHP")}
    assert api.get("/discoveries", {"country": "ph"}).json() == body  # codes in either case
    assert api.get("/discoveries", {"country": "PH", "currency": "MXN"}).json() == {"data": []}


@pytest.mark.parametrize("query", [{"country": "PHL"}, {"currency": "P1P"}, {"country": ""}])
def test_discoveries_refuse_malformed_codes(api, query):
    response = api.get("/discoveries", query)
    assert response.status_code == 400
    assert response.json()["details"]["errors"][0]["field"] in query


# --- UMA providers ---------------------------------------------------------------------------------


def test_uma_providers_include_blocked_ones_by_default(api):
    page = api.get("/uma-providers").json()
    PROVIDER_PAGE.validate(page)
    assert page["totalCount"] == len(UMA_PROVIDERS) == len(page["data"])
    blocked = [p for p in page["data"] if not p["allowListStatus"]]
    assert [p["domain"] for p in blocked] == ["uma.blocked.example"]
    sandbox = next(p for p in page["data"] if p["domain"] == "sandbox.uma.example")
    assert [c["code"] for c in sandbox["supportedCurrencies"]] == ["USD", "EUR", "MXN"]
    assert sandbox["supportedCurrencies"][0] == {
        "code": "USD",
        "name": "United States Dollar",
        "symbol": "$",
        "decimals": 2,
    }


def test_uma_providers_filter(api):
    def domains(**query):
        return {p["domain"] for p in api.get("/uma-providers", query).json()["data"]}

    assert "uma.blocked.example" not in domains(hasBlockedProviders="false")
    assert domains(countryCode="MX") == {"uma.ejemplo.example"}
    assert domains(currencyCode="eur") == {"sandbox.uma.example", "uma.eurowallet.example"}
    assert domains(countryCode="US", hasBlockedProviders="false") == {"sandbox.uma.example"}
    assert domains(countryCode="JP") == set()


def test_uma_providers_sort_and_page(api):
    descending = _walk(api, "/uma-providers", 2)
    ascending = _walk(api, "/uma-providers", 2, sortOrder="asc")
    assert len(descending) == len(UMA_PROVIDERS)
    assert ascending == descending[::-1]
    second = api.get("/uma-providers", {"limit": 2}).json()
    assert second["hasMore"] is True and second["totalCount"] == len(UMA_PROVIDERS)


@pytest.mark.parametrize(
    "query", [{"sortOrder": "up"}, {"hasBlockedProviders": "maybe"}, {"countryCode": "USA"}, {"limit": 0}]
)
def test_uma_providers_refuse_bad_parameters(api, query):
    response = api.get("/uma-providers", query)
    assert response.status_code == 400
    assert response.json()["details"]["errors"][0]["field"] in query


# --- the wallet's VASP -----------------------------------------------------------------------------


def _wallet(api, customer, **info):
    return api.post(
        "/customers/external-accounts",
        {
            "customerId": customer.public_id,
            "currency": "USDC",
            "accountInfo": {"accountType": "SOLANA_WALLET", "address": SOLANA, **info},
        },
    )


def test_a_wallet_held_at_a_directory_vasp_is_custodial(api):
    customer, _ = consenting_customer(api.platform)
    response = _wallet(api, customer, vaspName="Kraken")
    assert response.status_code == 201, response.content
    account = response.json()
    assert account["accountInfo"]["vaspName"] == "Kraken"
    assert account["status"] == "ACTIVE"  # no ownership proof for a custodial wallet


def test_a_vasp_outside_the_directory_is_refused(api):
    customer, _ = consenting_customer(api.platform)
    response = _wallet(api, customer, vaspName="Mt. Gox")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "INVALID_INPUT"
    (error,) = body["details"]["errors"]
    assert error["field"] == "accountInfo.vaspName"
    assert "Kraken" in error["constraint"]["enum"]
    assert not api.get("/customers/external-accounts", {"customerId": customer.public_id}).json()["data"]
