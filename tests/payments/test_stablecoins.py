"""Stablecoin issuance through the API: provider account links, registration, mints and burns with
their lifecycle, reads and lists, every error the reference names, and Idempotency-Key."""

from __future__ import annotations

import pytest

from payments import clock
from payments.models import Stablecoin, StablecoinOperation, StablecoinProviderAccount
from payments.stablecoins import FUNDING_WINDOW, FUNDS_ARRIVE
from tests import factories
from tests.payments.money_support import usd_external
from tests.payments.stablecoin_support import (
    UNIT,
    burn_body,
    issuer,
    keyed,
    link,
    mint_body,
    register,
    supply,
)

pytestmark = pytest.mark.django_db

GHOST = "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"


@pytest.fixture
def setup(api):
    return issuer(api)


def _mint(api, setup, amount, funding="ACH_DEBIT", key=None):
    return api.post(f"/stablecoins/{setup['coin']}/mints", mint_body(setup, amount, funding), **keyed(key))


def _burn(api, setup, amount, source="PROVIDER_INTERNAL_BALANCE", rail="ACH_CREDIT"):
    return api.post(f"/stablecoins/{setup['coin']}/burns", burn_body(setup, amount, source, rail), **keyed())


def _read(api, operation):
    return api.get(f"/stablecoin-operations/{operation['id']}").json()


def _error(response, status, code):
    assert response.status_code == status, response.content
    assert response.json()["code"] == code, response.json()
    return response.json()


def _fields(response):
    return {error["field"] for error in response.json()["details"]["errors"]}


# --- provider account links ------------------------------------------------------------------------


def test_a_link_shows_the_provider_account_and_never_its_credentials(api):
    response = link(api, providerAccountId="2VcUIonJeVQzFoBuC7LdFT0dRe4")
    assert response.status_code == 201
    body = response.json()
    assert body["id"].startswith("StablecoinProviderAccount:")
    assert (body["provider"], body["providerAccountId"], body["providerEnvironment"], body["status"]) == (
        "BRALE",
        "2VcUIonJeVQzFoBuC7LdFT0dRe4",
        "SANDBOX",
        "ACTIVE",
    )
    assert "lastVerifiedAt" in body and "apiClientSecret" not in body and "apiClientId" not in body
    row = StablecoinProviderAccount.objects.get()
    assert row.api_client_secret == "secret-1" and "secret-1" not in row.api_client_secret_sealed
    assert api.get(f"/stablecoin-provider-accounts/{body['id']}").json() == body


def test_without_a_provider_account_id_the_credentials_one_account_is_linked(api):
    first = link(api).json()
    again = link(api, apiClientId="client-2").json()
    assert first["providerAccountId"] and first["providerAccountId"] != again["providerAccountId"]


def test_credentials_the_provider_refuses_are_400_invalid(api):
    _error(link(api, apiClientSecret="invalid-secret"), 400, "STABLECOIN_PROVIDER_ACCOUNT_INVALID")
    assert not StablecoinProviderAccount.objects.exists()


def test_linking_a_linked_provider_account_again_is_409(api):
    assert link(api).status_code == 201
    _error(link(api), 409, "CONFLICT")


def test_a_link_body_with_errors_lists_every_one(api):
    response = api.post("/stablecoin-provider-accounts", {"provider": "OTHER"}, **keyed())
    _error(response, 400, "INVALID_INPUT")
    assert _fields(response) == {"provider", "apiClientId", "apiClientSecret"}


def test_each_post_requires_an_idempotency_key(api, setup):
    posts = [
        ("/stablecoin-provider-accounts", {"provider": "BRALE", "apiClientId": "c9", "apiClientSecret": "s"}),
        ("/stablecoins", {"providerTokenIdentifier": "X", "networkTokenIdentifier": "t", "network": "SPARK"}),
        (f"/stablecoins/{setup['coin']}/mints", mint_body(setup, UNIT)),
        (f"/stablecoins/{setup['coin']}/burns", burn_body(setup, UNIT)),
    ]
    for path, body in posts:
        response = api.post(path, body)
        _error(response, 400, "INVALID_INPUT")
        assert _fields(response) == {"Idempotency-Key"}, path
    assert StablecoinOperation.objects.count() == 0


def test_a_repeated_link_key_replays_and_another_body_with_it_is_refused(api):
    key = keyed()
    body = {"provider": "BRALE", "apiClientId": "client-1", "apiClientSecret": "secret-1"}
    first = api.post("/stablecoin-provider-accounts", body, **key)
    replay = api.post("/stablecoin-provider-accounts", body, **key)
    assert replay.status_code == 201 and replay.json() == first.json()
    assert replay["Idempotent-Replayed"] == "true"
    assert StablecoinProviderAccount.objects.count() == 1
    other = api.post("/stablecoin-provider-accounts", {**body, "apiClientId": "client-2"}, **key)
    _error(other, 422, "IDEMPOTENCY_KEY_REUSED")


def test_an_unknown_or_another_platforms_link_is_404_with_the_references_code(api, other_api):
    theirs = link(other_api).json()["id"]
    for ref in (theirs, f"StablecoinProviderAccount:{GHOST}", "nonsense"):
        response = api.get(f"/stablecoin-provider-accounts/{ref}")
        _error(response, 404, "STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND")


def test_links_list_by_filter_a_page_at_a_time(api):
    ids = [link(api, apiClientId=f"client-{i}").json()["id"] for i in range(3)]
    StablecoinProviderAccount.objects.filter(pk=ids[0].split(":")[1]).update(status="REVOKED")
    page = api.get("/stablecoin-provider-accounts?limit=2").json()
    assert [row["id"] for row in page["data"]] == ids[:0:-1] and page["hasMore"] and page["totalCount"] == 3
    rest = api.get(f"/stablecoin-provider-accounts?limit=2&cursor={page['nextCursor']}").json()
    assert [row["id"] for row in rest["data"]] == [ids[0]] and not rest["hasMore"]
    revoked = api.get("/stablecoin-provider-accounts?status=REVOKED&provider=BRALE").json()
    assert [row["id"] for row in revoked["data"]] == [ids[0]]
    _error(api.get("/stablecoin-provider-accounts?status=GONE"), 400, "INVALID_INPUT")


# --- stablecoins -----------------------------------------------------------------------------------


def test_a_registered_stablecoin_has_the_providers_token_and_its_link(api):
    linked = link(api).json()
    response = register(api, "acme")
    assert response.status_code == 201
    coin = response.json()
    assert coin["symbol"] == "ACME" and coin["providerTokenIdentifier"] == "acme"
    assert coin["stablecoinProviderAccountId"] == linked["id"]
    assert (coin["baseCurrency"], coin["decimals"], coin["network"]) == ("USD", 6, "SPARK")
    assert (coin["issuanceStatus"], coin["serviceOperationsStatus"]) == ("PROVISIONED", "NOT_ENABLED")
    assert "currency" not in coin  # not enabled for Service operations
    assert api.get(f"/stablecoins/{coin['id']}").json() == coin


def test_registering_without_a_link_is_404_provider_account_not_found(api):
    _error(register(api), 404, "STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND")
    assert link(api).status_code == 201
    missing = register(api, stablecoinProviderAccountId=f"StablecoinProviderAccount:{GHOST}")
    _error(missing, 404, "STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND")


def test_with_several_active_links_registering_must_name_one(api):
    link(api)
    second = link(api, apiClientId="client-2").json()["id"]
    _error(register(api), 400, "STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED")
    named = register(api, stablecoinProviderAccountId=second)
    assert named.status_code == 201 and named.json()["stablecoinProviderAccountId"] == second


@pytest.mark.parametrize(("status", "code"), [("REVOKED", "REVOKED"), ("INVALID", "INVALID")])
def test_a_link_that_is_not_active_cannot_register_nor_mint_nor_burn(api, setup, status, code):
    StablecoinProviderAccount.objects.update(status=status)
    named = StablecoinProviderAccount.objects.get().public_id
    _error(
        register(api, "NEW", stablecoinProviderAccountId=named), 400, f"STABLECOIN_PROVIDER_ACCOUNT_{code}"
    )
    _error(_mint(api, setup, UNIT), 400, f"STABLECOIN_PROVIDER_ACCOUNT_{code}")
    _error(_burn(api, setup, UNIT), 400, f"STABLECOIN_PROVIDER_ACCOUNT_{code}")


def test_a_symbol_registered_before_is_409(api, setup):
    _error(register(api, "Acme"), 409, "CONFLICT")


def test_a_register_body_with_errors_lists_every_one(api):
    link(api)
    response = api.post(
        "/stablecoins",
        {"providerTokenIdentifier": "TOO-LONG-SYMBOL", "networkTokenIdentifier": "x", "network": "ETHEREUM"},
        **keyed(),
    )
    assert _fields(response) == {"providerTokenIdentifier", "network"}
    bad_token = register(api, networkTokenIdentifier="spark1qqqqqqqq")
    assert _fields(bad_token) == {"networkTokenIdentifier"}


def test_stablecoins_list_by_filter_and_a_page_at_a_time(api, setup):
    second = register(api, "BETA").json()["id"]
    Stablecoin.objects.filter(symbol="BETA").update(issuance_status="REJECTED")
    page = api.get("/stablecoins?limit=1").json()
    assert [c["id"] for c in page["data"]] == [second] and page["hasMore"]
    assert [c["id"] for c in api.get("/stablecoins?issuanceStatus=PROVISIONED").json()["data"]] == [
        setup["coin"]
    ]
    assert api.get("/stablecoins?serviceOperationsStatus=ENABLED").json()["data"] == []
    assert len(api.get("/stablecoins?provider=BRALE").json()["data"]) == 2


def test_an_unknown_or_another_platforms_stablecoin_is_404(api, other_api, setup):
    for path in (f"/stablecoins/{setup['coin']}", f"/stablecoins/{setup['coin']}/operations"):
        _error(other_api.get(path), 404, "NOT_FOUND")
    _error(api.get(f"/stablecoins/Stablecoin:{GHOST}"), 404, "NOT_FOUND")
    _error(
        api.post(f"/stablecoins/Stablecoin:{GHOST}/mints", mint_body(setup, UNIT), **keyed()),
        404,
        "NOT_FOUND",
    )


def test_a_stablecoin_not_provisioned_takes_no_operations(api, setup):
    Stablecoin.objects.update(issuance_status="PROVISIONING")
    _error(_mint(api, setup, UNIT), 409, "CONFLICT")


# --- mints -----------------------------------------------------------------------------------------


def test_an_ach_mint_completes_at_the_provider_and_adds_to_the_supply(api, setup):
    response = _mint(api, setup, 250 * UNIT, funding="SAME_DAY_ACH_DEBIT")
    assert response.status_code == 201
    mint = response.json()
    assert (mint["operationType"], mint["status"], mint["amount"]) == (
        "MINT",
        "PENDING_PROVIDER",
        str(250 * UNIT),
    )
    assert mint["source"] == {"type": "SAME_DAY_ACH_DEBIT", "externalAccountId": setup["bank"]}
    assert mint["destination"] == {"accountId": setup["wallet"]} and mint["stablecoinId"] == setup["coin"]
    assert supply(api.platform) == 0
    done = _read(api, mint)
    assert (done["status"], done["providerStatus"]) == ("COMPLETED", "complete")
    assert supply(api.platform) == 250 * UNIT


def test_a_wire_mint_waits_for_the_funds_with_instructions_then_completes(api, setup):
    mint = _mint(api, setup, 100 * UNIT, funding="WIRE").json()
    assert mint["status"] == "PENDING_FUNDING" and mint["source"] == {"type": "WIRE"}
    assert mint["fundingInstructions"]["rail"] == "WIRE" and "expiresAt" in mint
    assert _read(api, mint)["status"] == "PENDING_FUNDING" and supply(api.platform) == 0
    clock.advance(FUNDS_ARRIVE)
    assert _read(api, mint)["status"] == "COMPLETED" and supply(api.platform) == 100 * UNIT


def test_a_mint_the_provider_fails_adds_nothing(api, setup):
    mint = _mint(api, setup, 102 * UNIT).json()  # sandbox: whole cents ending in 02
    failed = _read(api, mint)
    assert (failed["status"], failed["failureReason"]) == ("FAILED", "PROVIDER_TRANSFER_FAILED")
    assert supply(api.platform) == 0


def test_a_wire_mint_whose_funds_never_arrive_expires(api, setup):
    mint = _mint(api, setup, 103 * UNIT, funding="WIRE").json()  # sandbox: ...03
    clock.advance(FUNDING_WINDOW - FUNDS_ARRIVE)
    assert _read(api, mint)["status"] == "PENDING_FUNDING"
    clock.advance(FUNDS_ARRIVE)
    assert _read(api, mint)["status"] == "EXPIRED" and supply(api.platform) == 0


def test_the_provider_being_unavailable_is_503_and_records_nothing(api, setup):
    _error(_mint(api, setup, 1503 * UNIT), 503, "SERVICE_UNAVAILABLE")
    _error(_burn(api, setup, 503 * UNIT), 503, "SERVICE_UNAVAILABLE")
    assert StablecoinOperation.objects.count() == 0


@pytest.mark.parametrize("amount", ["0", str(UNIT + 1), "99999999999999999", "12.5", 100])
def test_an_amount_that_is_not_a_positive_whole_cent_is_400(api, setup, amount):
    body = {**mint_body(setup, UNIT), "amount": amount}
    response = api.post(f"/stablecoins/{setup['coin']}/mints", body, **keyed())
    _error(response, 400, "INVALID_INPUT")
    assert _fields(response) == {"amount"}


def test_mint_sources_and_destinations_the_service_does_not_take_are_400_saying_so(api, setup):
    internal = factories.InternalAccountFactory(platform=api.platform, customer=None).public_id
    bodies = {
        "fundingSource.type": {"fundingSource": {"type": "SERVICE_INTERNAL_ACCOUNT", "accountId": internal}},
        "destination.accountId": {"destination": {"accountId": internal}},
        "fundingSource.externalAccountId": {"fundingSource": {"type": "ACH_DEBIT"}},
    }
    for field, change in bodies.items():
        response = api.post(
            f"/stablecoins/{setup['coin']}/mints", {**mint_body(setup, UNIT), **change}, **keyed()
        )
        _error(response, 400, "INVALID_INPUT")
        assert _fields(response) == {field}
    balance = {
        "type": "PROVIDER_INTERNAL_BALANCE",
        "sourceTokenIdentifier": "USDC",
        "cryptoNetwork": "SOLANA",
    }
    response = api.post(
        f"/stablecoins/{setup['coin']}/mints", {**mint_body(setup, UNIT), "fundingSource": balance}, **keyed()
    )
    assert "not supported" in response.json()["message"]


def test_a_mint_must_go_to_an_active_spark_wallet_from_a_usd_bank_account(api, setup):
    wrong = {"destination": {"accountId": setup["bank"]}}
    response = api.post(f"/stablecoins/{setup['coin']}/mints", {**mint_body(setup, UNIT), **wrong}, **keyed())
    assert _fields(response) == {"destination.accountId"}
    source = {"fundingSource": {"type": "ACH_DEBIT", "externalAccountId": setup["wallet"]}}
    response = api.post(
        f"/stablecoins/{setup['coin']}/mints", {**mint_body(setup, UNIT), **source}, **keyed()
    )
    assert _fields(response) == {"fundingSource.externalAccountId"}
    ghost = {"destination": {"accountId": f"ExternalAccount:{GHOST}"}}
    response = api.post(f"/stablecoins/{setup['coin']}/mints", {**mint_body(setup, UNIT), **ghost}, **keyed())
    _error(response, 404, "NOT_FOUND")


def test_a_repeated_mint_key_replays_the_operation_and_mints_once(api, setup):
    key = keyed()["HTTP_IDEMPOTENCY_KEY"]
    first = _mint(api, setup, 10 * UNIT, key=key)
    again = _mint(api, setup, 10 * UNIT, key=key)
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    _read(api, first.json())
    assert StablecoinOperation.objects.count() == 1 and supply(api.platform) == 10 * UNIT


def test_a_view_token_cannot_mint(api, setup):
    from tests.conftest import Api

    viewer = Api(api.platform, *factories.api_token(platform=api.platform, permissions=["VIEW"]))
    _error(
        viewer.post(f"/stablecoins/{setup['coin']}/mints", mint_body(setup, UNIT), **keyed()),
        403,
        "FORBIDDEN",
    )


# --- burns -----------------------------------------------------------------------------------------


def test_a_burn_takes_from_the_supply_when_accepted_and_completes(api, setup):
    _read(api, _mint(api, setup, 100 * UNIT).json())
    response = _burn(api, setup, 40 * UNIT, rail="RTP_CREDIT")
    assert response.status_code == 201
    burn = response.json()
    assert (burn["operationType"], burn["status"]) == ("BURN", "PENDING_PROVIDER")
    assert burn["destination"] == {"accountId": setup["bank"], "rail": "RTP_CREDIT"}
    assert burn["estimatedDelivery"] == {
        "rail": "RTP_CREDIT",
        "amount": "40",
        "currency": "USD",
        "timing": "within minutes",
    }
    assert supply(api.platform) == 60 * UNIT
    assert _read(api, burn)["status"] == "COMPLETED" and supply(api.platform) == 60 * UNIT


def test_a_burn_beyond_the_supply_fails_and_moves_nothing(api, setup):
    _read(api, _mint(api, setup, 100 * UNIT).json())
    _burn(api, setup, 70 * UNIT)
    error = _error(_burn(api, setup, 31 * UNIT), 400, "INSUFFICIENT_FUNDS")
    assert error["details"] == {
        "stablecoinId": setup["coin"],
        "available": 30 * UNIT,
        "required": 31 * UNIT,
        "currency": "ACME",
    }
    assert StablecoinOperation.objects.filter(operation_type="BURN").count() == 1
    assert supply(api.platform) == 30 * UNIT
    assert _burn(api, setup, 30 * UNIT).status_code == 201 and supply(api.platform) == 0


def test_an_external_account_burn_waits_for_the_tokens_at_a_deposit_address(api, setup):
    _read(api, _mint(api, setup, 100 * UNIT).json())
    burn = _burn(api, setup, 20 * UNIT, source="EXTERNAL_ACCOUNT").json()
    assert burn["status"] == "PENDING_FUNDING" and burn["source"] == {"type": "EXTERNAL_ACCOUNT"}
    instructions = burn["fundingInstructions"]
    assert instructions["rail"] == "SPARK" and instructions["address"].startswith("sparkrt1")
    assert instructions["valueType"] == "ACME"
    clock.advance(FUNDS_ARRIVE)
    assert _read(api, burn)["status"] == "COMPLETED" and supply(api.platform) == 80 * UNIT


@pytest.mark.parametrize(
    ("cents", "source", "status"),
    [(2, "PROVIDER_INTERNAL_BALANCE", "FAILED"), (3, "EXTERNAL_ACCOUNT", "EXPIRED")],
)
def test_a_burn_that_fails_or_expires_gives_the_supply_back(api, setup, cents, source, status):
    _read(api, _mint(api, setup, 100 * UNIT).json())
    burn = _burn(api, setup, cents * UNIT, source=source).json()
    assert supply(api.platform) == (100 - cents) * UNIT
    clock.advance(FUNDING_WINDOW)
    assert _read(api, burn)["status"] == status and supply(api.platform) == 100 * UNIT


def test_burn_sources_and_destinations_the_service_does_not_take_are_400(api, setup):
    internal = {"source": {"type": "SERVICE_INTERNAL_ACCOUNT", "accountId": "InternalAccount:x"}}
    response = api.post(
        f"/stablecoins/{setup['coin']}/burns", {**burn_body(setup, UNIT), **internal}, **keyed()
    )
    assert _fields(response) == {"source.type"}
    eur = usd_external(api.platform, None, "1111111111")
    eur.currency = "EUR"
    eur.save(update_fields=["currency"])
    wrong = {"destination": {"type": "EXTERNAL_ACCOUNT", "externalAccountId": eur.public_id, "rail": "WIRE"}}
    response = api.post(f"/stablecoins/{setup['coin']}/burns", {**burn_body(setup, UNIT), **wrong}, **keyed())
    assert _fields(response) == {"destination.externalAccountId"}
    rail = {"destination": {"type": "EXTERNAL_ACCOUNT", "externalAccountId": setup["bank"], "rail": "SWIFT"}}
    response = api.post(f"/stablecoins/{setup['coin']}/burns", {**burn_body(setup, UNIT), **rail}, **keyed())
    assert _fields(response) == {"destination.rail"}


# --- operations ------------------------------------------------------------------------------------


def test_operations_list_newest_first_by_type_a_page_at_a_time(api, setup):
    mints = [_mint(api, setup, 10 * UNIT).json()["id"] for _ in range(2)]
    listed = api.get(f"/stablecoins/{setup['coin']}/operations").json()["data"]
    assert [op["status"] for op in listed] == ["COMPLETED", "COMPLETED"]  # a read applies due steps
    burn = _burn(api, setup, 5 * UNIT).json()["id"]
    page = api.get(f"/stablecoins/{setup['coin']}/operations?limit=2").json()
    assert (
        [op["id"] for op in page["data"]] == [burn, mints[1]] and page["hasMore"] and page["totalCount"] == 3
    )
    rest = api.get(f"/stablecoins/{setup['coin']}/operations?limit=2&cursor={page['nextCursor']}").json()
    assert [op["id"] for op in rest["data"]] == [mints[0]]
    only_burns = api.get(f"/stablecoins/{setup['coin']}/operations?operationType=BURN").json()
    assert [op["id"] for op in only_burns["data"]] == [burn]
    _error(api.get(f"/stablecoins/{setup['coin']}/operations?operationType=SWAP"), 400, "INVALID_INPUT")


def test_an_unknown_or_another_platforms_operation_is_404(api, other_api, setup):
    mint = _mint(api, setup, UNIT).json()["id"]
    _error(other_api.get(f"/stablecoin-operations/{mint}"), 404, "NOT_FOUND")
    _error(api.get(f"/stablecoin-operations/StablecoinOperation:{GHOST}"), 404, "NOT_FOUND")
    _error(api.get("/stablecoin-operations/Stablecoin:" + GHOST), 404, "NOT_FOUND")


def test_the_relay_queues_due_operations_and_the_task_applies_them(api, setup, monkeypatch):
    from payments.stablecoins import stablecoin_operations_relay
    from payments.tasks import stablecoin_operations_advance_task, transaction_steps_relay_task

    queued = []
    monkeypatch.setattr(stablecoin_operations_advance_task, "delay", queued.append)
    mint = _mint(api, setup, 10 * UNIT, funding="WIRE").json()
    assert stablecoin_operations_relay() == 0
    clock.advance(FUNDS_ARRIVE)
    assert transaction_steps_relay_task() == 1  # the beat's relay task takes operations too
    assert stablecoin_operations_relay() == 0  # queued once
    stablecoin_operations_advance_task(*queued)
    row = StablecoinOperation.objects.get()
    assert (row.status, row.next_step_at, row.steps) == ("COMPLETED", None, [])
    assert mint["id"] == row.public_id and supply(api.platform) == 10 * UNIT


def test_a_second_platform_has_a_supply_of_its_own(api, other_api, setup):
    theirs = issuer(other_api)
    _read(other_api, _mint(other_api, theirs, 7 * UNIT).json())
    _error(_burn(api, setup, UNIT), 400, "INSUFFICIENT_FUNDS")
    assert supply(api.platform) == 0 and supply(other_api.platform) == 7 * UNIT


def test_every_stablecoin_operation_needs_the_platforms_credentials(client, setup):
    from tests.conftest import API

    paths = [
        "/stablecoin-provider-accounts",
        f"/stablecoin-provider-accounts/StablecoinProviderAccount:{GHOST}",
        "/stablecoins",
        f"/stablecoins/{setup['coin']}",
        f"/stablecoins/{setup['coin']}/operations",
        f"/stablecoin-operations/StablecoinOperation:{GHOST}",
    ]
    posts = [
        "/stablecoin-provider-accounts",
        "/stablecoins",
        f"/stablecoins/{setup['coin']}/mints",
        f"/stablecoins/{setup['coin']}/burns",
    ]
    for response in [client.get(API + path) for path in paths] + [
        client.post(API + path, {}) for path in posts
    ]:
        assert response.status_code == 401 and response.json()["code"] == "UNAUTHORIZED"
