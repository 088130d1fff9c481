"""An agent's writes take an Idempotency-Key as the platform's own calls do: the same key and body
answer the first answer again and act once; the same key with another body is refused."""

from __future__ import annotations

import uuid

import pytest

from payments.models import AgentAction, Transaction
from tests.payments.agent_support import AgentApi, connected_agent
from tests.payments.money_support import consenting_customer, funded_account, quote_body, usd_external

pytestmark = pytest.mark.django_db


@pytest.fixture
def me(api):
    customer, _ = consenting_customer(api.platform)
    account = funded_account(customer, 1_000_000)
    external = usd_external(api.platform, customer)
    _, token = connected_agent(api, customer)
    return AgentApi(token), quote_body(account.public_id, external.public_id, 10_000)


def test_an_execute_sent_twice_with_one_key_acts_once(me):
    agent, body = me
    quote = agent.post("/agents/me/quotes", body).json()
    key = {"HTTP_IDEMPOTENCY_KEY": str(uuid.uuid4())}
    first = agent.post(f"/agents/me/quotes/{quote['id']}/execute", **key)
    again = agent.post(f"/agents/me/quotes/{quote['id']}/execute", **key)
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert AgentAction.objects.count() == 1
    assert Transaction.objects.count() == 1


def test_one_key_with_another_body_is_refused(me):
    agent, body = me
    key = {"HTTP_IDEMPOTENCY_KEY": str(uuid.uuid4())}
    assert agent.post("/agents/me/quotes", body, **key).status_code == 201
    other = agent.post("/agents/me/quotes", {**body, "lockedCurrencyAmount": 20_000}, **key)
    assert other.status_code == 422
    assert other.json()["code"] == "IDEMPOTENCY_KEY_REUSED"
