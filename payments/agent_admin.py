"""Admin pages for agents and their actions: read-only, as the platform's API owns them. No device
code or access token is shown (only their digests are kept, and those are not shown either). A
deleted agent's actions stay, shown with its kept name."""

from __future__ import annotations

import json

from django.contrib import admin
from django.utils.html import format_html

from payments.admin_base import ReadOnlyAdmin
from payments.models import Agent, AgentAction


@admin.register(Agent)
class AgentAdmin(ReadOnlyAdmin):
    list_display = ("name", "customer", "platform", "is_paused", "connected_at", "created_at")
    list_filter = ("is_paused",)
    list_select_related = ("customer", "platform")
    search_fields = ("name", "customer__platform_customer_id", "platform__name")
    fields = (
        "name",
        "platform",
        "customer",
        "is_paused",
        "connected_at",
        "shown_policy",
        "created_at",
        "updated_at",
    )

    @admin.display(description="policy")
    def shown_policy(self, agent: Agent) -> str:
        return format_html("<pre>{}</pre>", json.dumps(agent.policy, indent=2, sort_keys=True))


# An action's agent by name: the live agent's, or the name kept when it was deleted.
_AGENT_NAMES = ("agent__name", "deleted_agent_name")


@admin.register(AgentAction)
class AgentActionAdmin(ReadOnlyAdmin):
    list_display = ("pk", "type", "status", "actor", "customer", "usage_amount", "created_at", "decided_by")
    list_filter = ("status", "type")
    list_select_related = ("agent", "customer")
    search_fields = (*_AGENT_NAMES, "customer__platform_customer_id")
    fields = (
        "actor",
        "deleted_agent_id",
        "customer",
        "platform",
        "type",
        "status",
        "quote",
        "transfer_details",
        "transaction",
        "usage_amount",
        "rejection_reason",
        "failure_reason",
        "decided_at",
        "decided_by",
        "created_at",
        "updated_at",
    )
