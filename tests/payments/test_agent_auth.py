"""The Agent scheme: an agent's access token reaches `/agents/me` and below and nothing else; platform
credentials reach everything but `/agents/me` (401/403 in the error shape, both ways). A property test:
no token but the one issued authenticates."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from payments.agents.credentials import agent_authenticate
from tests import factories
from tests.conftest import API
from tests.payments.agent_support import AgentApi, connected_agent

pytestmark = pytest.mark.django_db

ME_PATHS = [
    ("get", "/agents/me"),
    ("get", "/agents/me/transactions"),
    ("get", "/agents/me/internal-accounts"),
    ("get", "/agents/me/external-accounts"),
    ("get", "/agents/me/actions"),
    ("post", "/agents/me/quotes"),
    ("post", "/agents/me/transfer-out"),
]
PLATFORM_PATHS = [
    ("get", "/config"),
    ("get", "/customers"),
    ("get", "/agents"),
    ("get", "/transactions"),
    ("post", "/quotes"),
    ("post", "/transfer-out"),
]


@pytest.fixture
def customer(api):
    return factories.InternalAccountFactory(customer__platform=api.platform).customer


@pytest.fixture
def agent(api, customer):
    return connected_agent(api, customer)


def test_the_agent_reads_itself_with_its_token(api, agent):
    made, token = agent
    response = AgentApi(token).get("/agents/me")
    assert response.status_code == 200
    assert response.json() == api.get(f"/agents/{made['id']}").json()


@pytest.mark.parametrize(("method", "path"), ME_PATHS)
def test_platform_credentials_cannot_call_agent_operations(api, agent, method, path):
    response = getattr(api, method)(path, {} if method == "post" else None)
    assert response.status_code == 403
    body = response.json()
    assert body["status"] == 403 and body["code"] == "FORBIDDEN"
    assert "agent's access token" in body["message"]


@pytest.mark.parametrize(("method", "path"), ME_PATHS)
def test_agent_operations_without_credentials_or_with_a_bad_token_are_401(method, path, agent):
    response = getattr(APIClient(), method)(API + path)
    assert response.status_code == 401 and response.json()["code"] == "UNAUTHORIZED"
    assert response["WWW-Authenticate"].startswith("Bearer")
    _, token = agent
    forged = AgentApi(token[:-1] + ("A" if token[-1] != "A" else "B"))
    response = getattr(forged, method)(path)
    assert response.status_code == 401
    assert response.json()["message"] == "Invalid agent access token"


@pytest.mark.parametrize(("method", "path"), PLATFORM_PATHS)
def test_an_agent_token_reaches_nothing_but_agent_operations(agent, method, path):
    _, token = agent
    response = getattr(AgentApi(token), method)(path, {} if method == "post" else None)
    assert response.status_code == 401
    body = response.json()
    assert body["status"] == 401 and body["code"] == "UNAUTHORIZED"
    assert "/agents/me" in body["message"]


def test_an_agent_token_cannot_manage_its_own_agent(agent):
    made, token = agent
    me = AgentApi(token)
    assert me.patch(f"/agents/{made['id']}/policy", {"permissions": []}).status_code == 401
    assert me.delete(f"/agents/{made['id']}").status_code == 401
    assert me.post(f"/agents/{made['id']}/device-codes").status_code == 401


def test_a_deleted_agents_token_stops_working_at_once(api, agent):
    made, token = agent
    me = AgentApi(token)
    assert me.get("/agents/me").status_code == 200
    assert api.delete(f"/agents/{made['id']}").status_code == 204
    assert me.get("/agents/me").status_code == 401


def test_a_paused_agent_still_reads_itself(api, agent):
    made, token = agent
    api.patch(f"/agents/{made['id']}", {"isPaused": True})
    response = AgentApi(token).get("/agents/me")
    assert response.status_code == 200 and response.json()["isPaused"] is True


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])  # the agent is only read
@given(
    junk=st.text(max_size=120),
    position=st.integers(min_value=0, max_value=79),
    replacement=st.sampled_from("0123456789abcdefABCDEF_-."),
)
def test_only_the_issued_token_authenticates(agent, junk, position, replacement):
    _, token = agent
    assert agent_authenticate(token=token) is not None
    assert agent_authenticate(token=junk) is None
    mutated = token[:position] + replacement + token[position + 1 :]
    if mutated != token:
        assert agent_authenticate(token=mutated) is None
