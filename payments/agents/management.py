"""Agents as their platform manages them: create (with a first device code), list, read, rename,
pause, change the policy, delete (its credentials go with it; its actions stay, for the audit)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import UUID

from django.db import transaction
from django.db.models import QuerySet

from payments.agents.actions import agent_actions_keep
from payments.agents.credentials import IssuedCode, device_code_issue
from payments.agents.policy import policy_checked, policy_merged
from payments.customers import customer_get
from payments.errors import InvalidInput, first_or_404
from payments.models import Agent, Platform
from payments.wire.time import last_instant_rendered_as


@transaction.atomic
def agent_create(
    *, platform: Platform, name: str, customer_id: UUID, policy: Mapping[str, Any]
) -> tuple[Agent, IssuedCode]:
    customer = customer_get(platform=platform, customer_id=customer_id)
    agent = Agent.objects.create(
        platform=platform, name=name, customer=customer, policy=policy_checked(customer, policy)
    )
    return agent, device_code_issue(agent)


_LOOKUPS = {
    "customer_id": "customer_id",
    "is_paused": "is_paused",
    "is_connected": "connected_at__isnull",
    "created_after": "created_at__gte",
    "created_before": "created_at__lte",
    "updated_after": "updated_at__gte",
    "updated_before": "updated_at__lte",
}


def agent_list(*, platform: Platform, filters: Mapping[str, Any]) -> QuerySet[Agent]:
    """Filters (all optional): customer_id, is_paused, is_connected, created_after/before,
    updated_after/before (inclusive)."""
    lookups = {}
    for name, value in filters.items():
        if name.endswith("_before"):
            value = last_instant_rendered_as(value)
        if name == "is_connected":
            value = not value
        lookups[_LOOKUPS[name]] = value
    return Agent.objects.for_platform(platform).filter(**lookups)


def agent_get(*, platform: Platform, agent_id: UUID) -> Agent:
    return first_or_404(Agent.objects.for_platform(platform).filter(pk=agent_id), "Agent")


def _locked(platform: Platform, agent_id: UUID) -> Agent:
    return first_or_404(
        Agent.objects.for_platform(platform)
        .select_for_update()
        .select_related("customer")
        .filter(pk=agent_id),
        "Agent",
    )


@transaction.atomic
def agent_update(*, platform: Platform, agent_id: UUID, changes: Mapping[str, Any]) -> Agent:
    """`changes`: name and/or is_paused, at least one."""
    if not changes:
        raise InvalidInput("Supply at least one of name, isPaused")
    agent = _locked(platform, agent_id)
    for name, value in changes.items():
        setattr(agent, name, value)
    agent.touch()
    agent.save()
    return agent


@transaction.atomic
def agent_policy_update(*, platform: Platform, agent_id: UUID, changes: Mapping[str, Any]) -> Agent:
    """Only the fields given change; they take effect for the agent's next request."""
    if not changes:
        raise InvalidInput("Supply at least one policy field")
    agent = _locked(platform, agent_id)
    merged = policy_merged(agent.policy, changes)
    agent.policy = policy_checked(agent.customer, merged)
    agent.touch()
    agent.save()
    return agent


@transaction.atomic
def agent_delete(*, platform: Platform, agent_id: UUID, decided_by: str) -> None:
    """Its credentials and device codes go with it (its token stops working at once); its actions are
    kept, and the pending ones are rejected, by `decided_by` (the API token), in this transaction."""
    agent = _locked(platform, agent_id)
    agent_actions_keep(agent=agent, decided_by=decided_by)
    agent.delete()
