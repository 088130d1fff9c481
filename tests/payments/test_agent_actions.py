"""Agent actions: quote executions and transfers decided by the agent's policy, executed at once or
pending the platform's approval (AGENT_ACTION.PENDING_APPROVAL through the outbox), approved once
(concurrently on PostgreSQL) or rejected, pending quote executions failing once their quote expires;
and a property test of the policy's decisions over random policies and requests."""

from __future__ import annotations

import datetime as dt
import json
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payments import clock
from payments.agents.actions import agent_action_approve
from payments.agents.policy import PolicyViolation, policy_decide
from payments.errors import ServiceError
from payments.models import AgentAction, Transaction, WebhookEvent
from tests.payments.agent_support import AgentApi, connected_agent, policy
from tests.payments.money_support import (
    consenting_customer,
    funded_account,
    on_the_wire,
    quote_body,
    reference_validator,
    usd_external,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice(api):
    customer, _ = consenting_customer(api.platform)
    account = funded_account(customer, 1_000_000)
    external = usd_external(api.platform, customer)
    agent, token = connected_agent(api, customer)
    return {
        "customer": customer,
        "account": account,
        "external": external,
        "agent": agent,
        "me": AgentApi(token),
    }


def _set_policy(api, alice, **changes):
    response = api.patch(f"/agents/{alice['agent']['id']}/policy", changes)
    assert response.status_code == 200, response.json()


def _quote(alice, amount=10_000):
    response = alice["me"].post(
        "/agents/me/quotes", quote_body(alice["account"].public_id, alice["external"].public_id, amount)
    )
    assert response.status_code == 201, response.json()
    return response.json()


def _execute(alice, amount=10_000):
    quote = _quote(alice, amount)
    response = alice["me"].post(f"/agents/me/quotes/{quote['id']}/execute")
    assert response.status_code == 200, response.json()
    return quote, response.json()


def test_within_its_policy_an_agent_executes_at_once(alice):
    quote, action = _execute(alice)
    assert action["type"] == "EXECUTE_QUOTE" and action["status"] == "APPROVED"
    assert action["quote"]["id"] == quote["id"] and action["transaction"]["id"] == quote["transactionId"]
    assert action["customerId"] == alice["customer"].public_id
    assert action["platformCustomerId"] == alice["customer"].platform_customer_id
    me = alice["me"].get("/agents/me").json()
    assert (
        me["usage"]["dailyTransactionCount"] == 1 and me["usage"]["dailySpend"] == quote["totalSendingAmount"]
    )
    assert alice["me"].get(f"/agents/me/actions/{action['id']}").json()["status"] == "APPROVED"
    assert [a["id"] for a in alice["me"].get("/agents/me/actions").json()["data"]] == [action["id"]]
    again = alice["me"].post(f"/agents/me/quotes/{quote['id']}/execute")
    assert again.status_code == 409
    assert not WebhookEvent.objects.filter(type="AGENT_ACTION.PENDING_APPROVAL").exists()


def test_over_the_threshold_it_waits_for_approval_and_the_platform_is_told(api, alice):
    _set_policy(api, alice, approvalThresholds={"currency": "USD", "amount": 5_000})
    quote, action = _execute(alice)
    assert action["status"] == "PENDING_APPROVAL" and "transaction" not in action
    assert Transaction.objects.get(pk=quote["transactionId"].split(":")[1]).status == "PENDING"
    event = WebhookEvent.objects.get(type="AGENT_ACTION.PENDING_APPROVAL")
    reference_validator("AgentActionWebhook").validate(on_the_wire(json.loads(event.body)))
    reference_validator("AgentAction").validate(on_the_wire(action))
    assert json.loads(event.body)["data"]["id"] == action["id"]
    assert json.loads(event.body)["data"]["quote"]["id"] == quote["id"]
    approvals = api.get("/agents/approvals", {"agentId": alice["agent"]["id"]}).json()["data"]
    assert [a["id"] for a in approvals] == [action["id"]]
    approved = api.post(f"/agents/{alice['agent']['id']}/actions/{action['id']}/approve")
    assert approved.status_code == 200, approved.json()
    assert (
        approved.json()["status"] == "APPROVED"
        and approved.json()["transaction"]["id"] == quote["transactionId"]
    )
    assert alice["me"].get(f"/agents/me/actions/{action['id']}").json()["status"] == "APPROVED"
    audit = AgentAction.objects.get(pk=action["id"].split(":")[1])
    assert audit.decided_by == f"{api.token.name} ({api.token.client_id})"
    assert audit.decided_at is not None and audit.decided_at >= audit.created_at
    twice = api.post(f"/agents/{alice['agent']['id']}/actions/{action['id']}/approve")
    assert twice.status_code == 409 and twice.json()["code"] == "CONFLICT"
    assert api.get("/agents/approvals").json()["data"] == []


def test_approval_required_mode_holds_even_small_actions_and_reject_ends_them(api, alice):
    _set_policy(api, alice, defaultExecutionMode="APPROVAL_REQUIRED")
    quote, action = _execute(alice, 100)
    assert action["status"] == "PENDING_APPROVAL"
    path = f"/agents/{alice['agent']['id']}/actions/{action['id']}"
    rejected = api.post(f"{path}/reject", {"reason": "Not this week"})
    assert rejected.status_code == 200
    assert rejected.json()["status"] == "REJECTED" and rejected.json()["rejectionReason"] == "Not this week"
    assert AgentAction.objects.get(pk=action["id"].split(":")[1]).decided_by.endswith(
        f"({api.token.client_id})"
    )
    assert api.post(f"{path}/approve").status_code == 409
    assert api.post(f"{path}/reject").status_code == 409
    assert Transaction.objects.get(pk=quote["transactionId"].split(":")[1]).status == "PENDING"


def test_a_pending_execution_fails_once_its_quote_expires(api, alice):
    _set_policy(api, alice, defaultExecutionMode="APPROVAL_REQUIRED")
    quote, action = _execute(alice)
    assert alice["me"].get("/agents/me").json()["usage"]["monthlySpend"] == quote["totalSendingAmount"]
    clock.advance(dt.timedelta(hours=1))
    assert alice["me"].get(f"/agents/me/actions/{action['id']}").json()["status"] == "FAILED"
    assert alice["me"].get("/agents/me").json()["usage"]["monthlySpend"] == 0
    approved = api.post(f"/agents/{alice['agent']['id']}/actions/{action['id']}/approve")
    assert approved.status_code == 200 and approved.json()["status"] == "FAILED"
    assert "transaction" not in approved.json()
    assert AgentAction.objects.get().failure_reason


def test_transfers_are_actions_between_the_customers_accounts(api, alice):
    body = {
        "source": {"accountId": alice["account"].public_id},
        "destination": {"accountId": alice["external"].public_id},
    }
    response = alice["me"].post("/agents/me/transfer-out", {**body, "amount": 2_000})
    assert response.status_code == 201, response.json()
    action = response.json()
    assert action["type"] == "TRANSFER_OUT" and action["status"] == "APPROVED"
    assert action["transferDetails"] == {
        "amount": 2_000,
        "currency": "USD",
        "sourceAccountId": alice["account"].public_id,
        "destinationAccountId": alice["external"].public_id,
    }
    assert action["transaction"]["type"] == "OUTGOING"
    bob, _ = consenting_customer(api.platform)
    bobs = usd_external(api.platform, bob)
    stolen = alice["me"].post(
        "/agents/me/transfer-out", {**body, "destination": {"accountId": bobs.public_id}, "amount": 2_000}
    )
    assert stolen.status_code == 404
    pull = alice["me"].post(
        "/agents/me/transfer-in",
        {"source": body["destination"], "destination": body["source"]},
    )
    assert pull.status_code == 400 and pull.json()["details"]["errors"][0]["field"] == "amount"


@pytest.mark.parametrize(
    ("limits", "amount", "which"),
    [
        ({"perTransactionLimit": 1_000}, 2_000, "perTransactionLimit"),
        ({"dailyLimit": 3_000}, 2_000, "dailyLimit"),
        ({"monthlyLimit": 3_000}, 2_000, "monthlyLimit"),
        ({"dailyTransactionLimit": 1}, 100, "dailyTransactionLimit"),
    ],
)
def test_spending_limits_refuse_what_would_pass_them(api, alice, limits, amount, which):
    _set_policy(api, alice, spendingLimits=limits)
    body = {
        "source": {"accountId": alice["account"].public_id},
        "destination": {"accountId": alice["external"].public_id},
        "amount": amount,
    }
    if which != "perTransactionLimit":
        assert alice["me"].post("/agents/me/transfer-out", body).status_code == 201
    refused = alice["me"].post("/agents/me/transfer-out", body)
    assert refused.status_code == 403
    assert refused.json()["code"] == "AGENT_POLICY_VIOLATION" and refused.json()["details"]["limit"] == which
    assert AgentAction.objects.count() == (0 if which == "perTransactionLimit" else 1)


def test_actions_need_their_permission_an_allowed_account_and_an_active_agent(api, alice):
    body = {
        "source": {"accountId": alice["account"].public_id},
        "destination": {"accountId": alice["external"].public_id},
        "amount": 100,
    }
    _set_policy(api, alice, permissions=["VIEW_TRANSACTIONS"])
    assert alice["me"].post("/agents/me/transfer-out", body).json()["code"] == "AGENT_POLICY_VIOLATION"
    _set_policy(
        api, alice, permissions=policy()["permissions"], accountRestrictions={"allowedAccountIds": []}
    )
    refused = alice["me"].post("/agents/me/transfer-out", body)
    assert refused.status_code == 403 and "account" in refused.json()["message"]
    _set_policy(api, alice, accountRestrictions={"allowedAccountIds": None})
    api.patch(f"/agents/{alice['agent']['id']}", {"isPaused": True})
    paused = alice["me"].post("/agents/me/transfer-out", body)
    assert paused.status_code == 403 and "paused" in paused.json()["message"]
    assert not AgentAction.objects.exists()


def test_actions_belong_to_their_agent_and_platform(api, other_api, alice):
    _set_policy(api, alice, defaultExecutionMode="APPROVAL_REQUIRED")
    _, action = _execute(alice)
    other_customer, _ = consenting_customer(api.platform)
    _, other_token = connected_agent(api, other_customer)
    assert AgentApi(other_token).get(f"/agents/me/actions/{action['id']}").status_code == 404
    assert AgentApi(other_token).get("/agents/me/actions").json()["data"] == []
    path = f"/agents/{alice['agent']['id']}/actions/{action['id']}"
    assert other_api.post(f"{path}/approve").status_code == 404
    assert other_api.get("/agents/approvals").json()["data"] == []
    assert alice["me"].post(f"{path}/approve").status_code == 401  # an agent cannot approve itself


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_of_concurrent_approvals_exactly_one_executes(api, alice):
    from django.db import connection

    _set_policy(api, alice, defaultExecutionMode="APPROVAL_REQUIRED")
    _, action = _execute(alice)
    agent_id, action_id = (v.split(":")[1] for v in (alice["agent"]["id"], action["id"]))
    approvers = 6
    barrier = threading.Barrier(approvers)
    outcomes: list[str] = []

    def approve() -> None:
        try:
            barrier.wait()
            outcomes.append(
                agent_action_approve(
                    platform=api.platform, agent_id=agent_id, action_id=action_id, decided_by="race"
                ).status
            )
        except ServiceError as error:
            outcomes.append(error.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=approve) for _ in range(approvers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(outcomes) == ["APPROVED"] + ["CONFLICT"] * (approvers - 1)
    stored = AgentAction.objects.get()
    assert stored.status == "APPROVED" and stored.transaction.status != "PENDING"


def test_deleting_an_agent_keeps_its_actions_and_rejects_the_pending_ones(api, admin_client, alice):
    _, done = _execute(alice)
    _set_policy(api, alice, defaultExecutionMode="APPROVAL_REQUIRED")
    quote, held = _execute(alice)
    agent_id = alice["agent"]["id"]
    assert api.delete(f"/agents/{agent_id}").status_code == 204
    assert api.get(f"/agents/{agent_id}").status_code == 404
    assert alice["me"].get("/agents/me/actions").status_code == 401
    approve = api.post(f"/agents/{agent_id}/actions/{held['id']}/approve")
    assert approve.status_code == 404
    assert api.get("/agents/approvals").json()["data"] == []
    kept = {a.public_id: a for a in AgentAction.objects.all()}
    assert set(kept) == {done["id"], held["id"]}
    assert kept[done["id"]].status == "APPROVED" and kept[done["id"]].transaction is not None
    rejected = kept[held["id"]]
    assert rejected.status == "REJECTED" and rejected.rejection_reason == "The agent was deleted"
    assert (
        rejected.decided_at is not None and rejected.decided_by == f"{api.token.name} ({api.token.client_id})"
    )
    assert rejected.transaction is None
    assert Transaction.objects.get(pk=quote["transactionId"].split(":")[1]).status == "PENDING"
    for action in kept.values():
        assert action.agent is None and action.deleted_agent_name == "Payroll agent"
        assert f"Agent:{action.deleted_agent_id}" == agent_id
    listing = admin_client.get("/admin/payments/agentaction/").content.decode()
    assert "Payroll agent (deleted)" in listing
    page = admin_client.get(f"/admin/payments/agentaction/{rejected.pk}/change/")
    assert page.status_code == 200 and "The agent was deleted" in page.content.decode()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_an_approval_racing_the_agents_deletion_runs_or_is_rejected_never_both(api, alice):
    from django.db import connection

    from payments.agents.management import agent_delete

    _set_policy(api, alice, defaultExecutionMode="APPROVAL_REQUIRED")
    quote, action = _execute(alice)
    agent_id, action_id = (v.split(":")[1] for v in (alice["agent"]["id"], action["id"]))
    barrier = threading.Barrier(2)
    outcomes: dict[str, str] = {}

    def run(name, call) -> None:
        try:
            barrier.wait()
            call()
            outcomes[name] = "done"
        except ServiceError as error:
            outcomes[name] = error.code
        finally:
            connection.close()

    threads = [
        threading.Thread(
            target=run,
            args=(
                "approve",
                lambda: agent_action_approve(
                    platform=api.platform, agent_id=agent_id, action_id=action_id, decided_by="race"
                ),
            ),
        ),
        threading.Thread(
            target=run,
            args=(
                "delete",
                lambda: agent_delete(platform=api.platform, agent_id=agent_id, decided_by="race"),
            ),
        ),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    stored = AgentAction.objects.get()
    assert outcomes["delete"] == "done" and stored.agent is None
    txn = Transaction.objects.get(pk=quote["transactionId"].split(":")[1])
    if outcomes["approve"] == "done":
        assert stored.status == "APPROVED" and txn.status != "PENDING"
    else:
        assert outcomes["approve"] == "NOT_FOUND"
        assert stored.status == "REJECTED" and txn.status == "PENDING"


# --- the policy's decisions, over random policies and requests ----------------------------------

_limit = st.one_of(st.none(), st.integers(min_value=0, max_value=100_000))


@given(
    per_transaction=st.integers(min_value=0, max_value=100_000),
    daily=_limit,
    monthly=_limit,
    count_limit=st.one_of(st.none(), st.integers(min_value=0, max_value=5)),
    mode=st.sampled_from(["AUTO", "APPROVAL_REQUIRED"]),
    threshold=_limit,
    spent_today=st.integers(min_value=0, max_value=100_000),
    spent_before=st.integers(min_value=0, max_value=100_000),
    count=st.integers(min_value=0, max_value=5),
    amount=st.integers(min_value=1, max_value=100_000),
    paused=st.booleans(),
)
def test_the_policy_allows_exactly_what_it_says(
    per_transaction,
    daily,
    monthly,
    count_limit,
    mode,
    threshold,
    spent_today,
    spent_before,
    count,
    amount,
    paused,
):
    limits = {
        "currency": "USD",
        "perTransactionLimit": per_transaction,
        "dailyLimit": daily,
        "monthlyLimit": monthly,
    }
    if count_limit is not None:
        limits["dailyTransactionLimit"] = count_limit
    rules = policy(defaultExecutionMode=mode, spendingLimits=limits)
    if threshold is not None:
        rules["approvalThresholds"] = {"currency": "USD", "amount": threshold}
    usage = {
        "dailySpend": spent_today,
        "monthlySpend": spent_today + spent_before,
        "dailyTransactionCount": count,
    }
    allowed = (
        not paused
        and amount <= per_transaction
        and (daily is None or spent_today + amount <= daily)
        and (monthly is None or spent_today + spent_before + amount <= monthly)
        and (count_limit is None or count + 1 <= count_limit)
    )
    try:
        decision = policy_decide(
            policy=rules, paused=paused, usage=usage, amount=amount, currency="USD", account_id=None
        )
    except PolicyViolation:
        assert not allowed
        return
    assert allowed
    assert decision.usage_amount == amount
    assert decision.approval_required == (
        mode == "APPROVAL_REQUIRED" or (threshold is not None and amount > threshold)
    )


@given(
    amount=st.integers(min_value=1, max_value=10**12),
    currency=st.sampled_from(["EUR", "GBP", "MXN", "BTC", "USDC"]),
)
def test_limits_in_another_currency_are_never_passed_by_rounding(amount, currency):
    from payments.agents.policy import in_currency

    usd = in_currency(amount, currency, "USD")
    back = in_currency(usd, "USD", currency)
    assert back >= amount  # converting up twice never makes an action look smaller than it is
