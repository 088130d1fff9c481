"""Agent Management over the API: create, list, read, update, policy, delete, device codes (issue,
regenerate, status, redeem once before expiry, concurrently on PostgreSQL), and the operations not
offered yet answering 501."""

from __future__ import annotations

import datetime as dt
import re
import threading

import pytest
from rest_framework.test import APIClient

from payments import clock
from payments.agents.credentials import agent_authenticate, device_code_redeem
from payments.agents.management import agent_create
from payments.errors import ServiceError
from payments.models import Agent, AgentCredential, AgentDeviceCode, Customer
from tests import factories
from tests.conftest import API
from tests.payments.agent_support import create_agent, policy

pytestmark = pytest.mark.django_db


@pytest.fixture
def customer(api):
    return factories.InternalAccountFactory(customer__platform=api.platform).customer


def _redeem(code):
    return APIClient().post(f"{API}/agents/device-codes/{code}/redeem")


def test_create_shows_the_agent_and_a_device_code_and_get_reads_it(api, customer):
    made = create_agent(api, customer)
    agent, device_code = made["agent"], made["deviceCode"]
    assert agent["id"].startswith("Agent:") and agent["customerId"] == customer.public_id
    assert agent["isPaused"] is False and agent["isConnected"] is False
    assert agent["policy"]["spendingLimits"] == {
        "currency": "USD",
        "perTransactionLimit": 50_000,
        "dailyLimit": 500_000,
        "monthlyLimit": None,
    }
    assert agent["usage"]["dailyTransactionCount"] == 0 and agent["usage"]["monthlySpend"] == 0
    assert re.fullmatch(r"SERVICE-AGENT-[2-9A-Z]{4}-[2-9A-Z]{4}-[2-9A-Z]{4}", device_code["code"])
    assert device_code["agentId"] == agent["id"] and device_code["redeemed"] is False
    expires = dt.datetime.fromisoformat(device_code["expiresAt"])
    assert dt.timedelta(hours=23) < expires - clock.now() <= dt.timedelta(hours=24)
    assert api.get(f"/agents/{agent['id']}").json() == agent
    # the code is never stored in clear
    assert device_code["code"] not in str(list(AgentDeviceCode.objects.values()))


def test_list_filters_by_customer_paused_and_connected(api, customer):
    other = factories.CustomerFactory(platform=api.platform)
    first = create_agent(api, customer)
    second = create_agent(api, other, name="Other")
    _redeem(second["deviceCode"]["code"])
    api.patch(f"/agents/{first['agent']['id']}", {"isPaused": True})

    def names(query):
        response = api.get("/agents", query)
        assert response.status_code == 200, response.json()
        return [a["name"] for a in response.json()["data"]]

    assert names({}) == ["Other", "Payroll agent"]
    assert names({"customerId": customer.public_id}) == ["Payroll agent"]
    assert names({"isPaused": "true"}) == ["Payroll agent"]
    assert names({"isConnected": "true"}) == ["Other"]
    assert names({"isConnected": "false"}) == ["Payroll agent"]
    assert api.get("/agents", {"customerId": "nope"}).status_code == 400


def test_update_renames_and_pauses_and_needs_a_field(api, customer):
    agent_id = create_agent(api, customer)["agent"]["id"]
    response = api.patch(f"/agents/{agent_id}", {"name": "Renamed", "isPaused": True})
    assert response.status_code == 200
    assert response.json()["name"] == "Renamed" and response.json()["isPaused"] is True
    empty = api.patch(f"/agents/{agent_id}", {})
    assert empty.status_code == 400 and empty.json()["code"] == "INVALID_INPUT"
    wrong = api.patch(f"/agents/{agent_id}", {"isPaused": "yes"})
    assert wrong.status_code == 400 and wrong.json()["details"]["errors"][0]["field"] == "isPaused"


def test_policy_update_changes_only_the_fields_given(api, customer):
    account = customer.internal_accounts.get()
    agent_id = create_agent(api, customer)["agent"]["id"]
    response = api.patch(
        f"/agents/{agent_id}/policy",
        {
            "spendingLimits": {"perTransactionLimit": 10_000, "monthlyLimit": None},
            "defaultExecutionMode": "APPROVAL_REQUIRED",
            "accountRestrictions": {"allowedAccountIds": [account.public_id]},
            "approvalThresholds": {"currency": "USD", "amount": 5_000},
        },
    )
    assert response.status_code == 200, response.json()
    updated = response.json()["policy"]
    assert updated["spendingLimits"] == {
        "currency": "USD",
        "perTransactionLimit": 10_000,
        "dailyLimit": 500_000,
        "monthlyLimit": None,
    }
    assert updated["defaultExecutionMode"] == "APPROVAL_REQUIRED"
    assert updated["permissions"] == policy()["permissions"]
    assert updated["accountRestrictions"] == {"allowedAccountIds": [account.public_id]}
    assert updated["approvalThresholds"] == {"currency": "USD", "amount": 5_000}
    assert api.get(f"/agents/{agent_id}").json()["policy"] == updated


def test_a_policy_may_name_only_the_customers_own_accounts(api, customer):
    stranger = factories.InternalAccountFactory(customer__platform=api.platform)
    response = api.post(
        "/agents",
        {
            "name": "A",
            "customerId": customer.public_id,
            "policy": policy(
                accountRestrictions={
                    "allowedAccountIds": [stranger.public_id, "garbage"],
                    "accountRules": [{"accountId": stranger.public_id, "executionMode": "AUTO"}],
                }
            ),
        },
    )
    assert response.status_code == 400
    fields = {e["field"] for e in response.json()["details"]["errors"]}
    assert fields == {
        "policy.accountRestrictions.allowedAccountIds[0]",
        "policy.accountRestrictions.allowedAccountIds[1]",
        "policy.accountRestrictions.accountRules[0].accountId",
    }
    assert not Agent.objects.exists()


def test_bad_input_lists_every_invalid_field_at_once(api, customer):
    response = api.post(
        "/agents",
        {
            "name": "",
            "customerId": customer.public_id,
            "policy": {
                "permissions": ["FLY"],
                "defaultExecutionMode": "SOMETIMES",
                "spendingLimits": {"currency": "XXX", "perTransactionLimit": -1},
                "approvalThresholds": {"amount": 100},
            },
        },
    )
    assert response.status_code == 400
    fields = {e["field"] for e in response.json()["details"]["errors"]}
    assert {
        "name",
        "policy.permissions[0]",
        "policy.defaultExecutionMode",
        "policy.spendingLimits.currency",
        "policy.spendingLimits.perTransactionLimit",
        "policy.approvalThresholds.currency",
    } <= fields
    missing = api.post("/agents", {"name": "A", "customerId": customer.public_id})
    assert missing.status_code == 400 and missing.json()["details"]["errors"][0]["field"] == "policy"


def test_unknown_deleted_and_foreign_customers_cannot_get_agents(api, other_api, customer):
    foreign = factories.CustomerFactory(platform=other_api.platform)
    body = {"name": "A", "policy": policy()}
    assert api.post("/agents", {**body, "customerId": foreign.public_id}).status_code == 404
    customer.deleted_at = clock.now()
    customer.status = Customer.Status.APPROVED
    customer.save()
    assert api.post("/agents", {**body, "customerId": customer.public_id}).status_code == 410


def test_other_platforms_see_none_of_the_agents(api, other_api, customer):
    made = create_agent(api, customer)
    agent_id, code = made["agent"]["id"], made["deviceCode"]["code"]
    assert other_api.get("/agents").json()["data"] == []
    for call in (
        lambda: other_api.get(f"/agents/{agent_id}"),
        lambda: other_api.patch(f"/agents/{agent_id}", {"name": "Mine"}),
        lambda: other_api.patch(f"/agents/{agent_id}/policy", {"permissions": []}),
        lambda: other_api.post(f"/agents/{agent_id}/device-codes"),
        lambda: other_api.get(f"/agents/device-codes/{code}/status"),
        lambda: other_api.delete(f"/agents/{agent_id}"),
    ):
        response = call()
        assert response.status_code == 404, response.json()
    assert api.get(f"/agents/{agent_id}").json()["name"] == "Payroll agent"


def test_redeem_gives_a_token_once_and_the_status_follows(api, customer):
    made = create_agent(api, customer)
    code = made["deviceCode"]["code"]
    assert api.get(f"/agents/device-codes/{code}/status").json() == {"code": code, "redeemed": False}
    response = _redeem(code)
    assert response.status_code == 200
    body = response.json()
    assert body["agentId"] == made["agent"]["id"] and body["agentName"] == "Payroll agent"
    assert body["policy"] == made["agent"]["policy"]
    assert re.fullmatch(r"agt_[0-9a-f]{32}\.[A-Za-z0-9_-]{43}", body["accessToken"])
    credential = AgentCredential.objects.get()
    assert body["accessToken"].split(".")[1] not in credential.secret_digest
    assert api.get(f"/agents/device-codes/{code}/status").json() == {"code": code, "redeemed": True}
    assert api.get(f"/agents/{made['agent']['id']}").json()["isConnected"] is True
    again = _redeem(code)
    assert again.status_code == 400 and again.json()["code"] == "DEVICE_CODE_ALREADY_REDEEMED"
    assert AgentCredential.objects.count() == 1
    assert _redeem("SERVICE-AGENT-AAAA-BBBB-CCCC").status_code == 404


def test_a_code_expires_after_a_day(api, customer):
    code = create_agent(api, customer)["deviceCode"]["code"]
    clock.advance(dt.timedelta(hours=24, seconds=1))
    response = _redeem(code)
    assert response.status_code == 400 and response.json()["code"] == "DEVICE_CODE_EXPIRED"
    assert not AgentCredential.objects.exists()


def test_regenerating_revokes_the_old_code_and_a_connected_agent_gets_none(api, customer):
    made = create_agent(api, customer)
    agent_id, old = made["agent"]["id"], made["deviceCode"]["code"]
    response = api.post(f"/agents/{agent_id}/device-codes")
    assert response.status_code == 201
    new = response.json()
    assert new["code"] != old and new["agentId"] == agent_id and new["redeemed"] is False
    revoked = _redeem(old)
    assert revoked.status_code == 400 and revoked.json()["code"] == "DEVICE_CODE_REVOKED"
    assert _redeem(new["code"]).status_code == 200
    conflict = api.post(f"/agents/{agent_id}/device-codes")
    assert conflict.status_code == 409 and conflict.json()["code"] == "CONFLICT"


def test_deleting_an_agent_ends_its_credentials_at_once(api, customer):
    made = create_agent(api, customer)
    token = _redeem(made["deviceCode"]["code"]).json()["accessToken"]
    assert agent_authenticate(token=token) is not None
    assert api.delete(f"/agents/{made['agent']['id']}").status_code == 204
    assert agent_authenticate(token=token) is None
    assert api.get(f"/agents/{made['agent']['id']}").status_code == 404
    assert not AgentCredential.objects.exists() and not AgentDeviceCode.objects.exists()


def _redeem_from(address, code):
    return APIClient(REMOTE_ADDR=address).post(f"{API}/agents/device-codes/{code}/redeem")


def test_redeeming_is_limited_per_client_address(api, customer, settings):
    settings.AGENT_DEVICE_CODE_REDEEMS_PER_WINDOW = 3
    settings.AGENT_DEVICE_CODE_REDEEM_WINDOW_SECONDS = 60
    address = "198.51.100.7"
    code = create_agent(api, customer)["deviceCode"]["code"]
    guesses = [_redeem_from(address, f"SERVICE-AGENT-2222-2222-222{i}").status_code for i in range(2, 5)]
    assert guesses == [404, 404, 404]
    refused = _redeem_from(address, code)  # even the right code, until the next window
    assert refused.status_code == 429
    body = refused.json()
    assert body["status"] == 429 and body["code"] == "RATE_LIMITED"
    assert set(body) == {"status", "code", "message", "details"}
    retry_after = int(refused["Retry-After"])
    assert 1 <= retry_after <= 60 and body["details"]["retryAfterSeconds"] == retry_after
    assert _redeem("SERVICE-AGENT-2222-2222-2229").status_code == 404  # another address counts its own
    clock.advance(dt.timedelta(seconds=retry_after))
    assert _redeem_from(address, code).status_code == 200


def test_management_needs_platform_credentials_with_the_right_permission(api, customer):
    agent_id = create_agent(api, customer)["agent"]["id"]
    assert APIClient().get(f"{API}/agents").status_code == 401
    viewer = factories.platform_with_token(permissions=["VIEW"])
    from tests.conftest import Api

    viewing = Api(*viewer)
    assert viewing.post("/agents", {}).status_code == 403
    assert viewing.get(f"/agents/{agent_id}").status_code == 404  # another platform's agent


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_of_concurrent_redemptions_exactly_one_succeeds():
    from django.db import connection

    customer = factories.CustomerFactory()
    agent, issued = agent_create(
        platform=customer.platform, name="A", customer_id=customer.pk, policy=policy()
    )
    redeemers = 6
    barrier = threading.Barrier(redeemers)
    outcomes: list[str] = []

    def redeem() -> None:
        try:
            barrier.wait()
            device_code_redeem(code=issued.code)
            outcomes.append("redeemed")
        except ServiceError as error:
            outcomes.append(error.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=redeem) for _ in range(redeemers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert outcomes.count("redeemed") == 1
    assert outcomes.count("DEVICE_CODE_ALREADY_REDEEMED") == redeemers - 1
    assert AgentCredential.objects.filter(agent=agent).count() == 1


def test_the_admin_shows_agents_and_actions_read_only(admin_client, api, customer):
    made = create_agent(api, customer)
    agent = Agent.objects.get()
    listing = admin_client.get("/admin/payments/agent/")
    assert listing.status_code == 200 and "Payroll agent" in listing.content.decode()
    page = admin_client.get(f"/admin/payments/agent/{agent.pk}/change/").content.decode()
    assert "perTransactionLimit" in page and made["deviceCode"]["code"] not in page
    assert admin_client.get("/admin/payments/agent/add/").status_code == 403
    assert admin_client.get(f"/admin/payments/agent/{agent.pk}/delete/").status_code == 403
    assert admin_client.get("/admin/payments/agentaction/").status_code == 200
