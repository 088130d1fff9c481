"""Agents on the wire: `Agent`, its `AgentPolicy` and `AgentUsage`, device codes and their
redemption, for the management API and the agents' own `/agents/me`."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from payments import clock, currencies, ids
from payments.models import Agent, AgentAction
from payments.wire.ids import PublicIdField
from payments.wire.money import amount_field
from payments.wire.pages import page_of
from payments.wire.parsing import ApiSerializer
from payments.wire.quotes import render_quote
from payments.wire.time import UtcDateTimeField, utc_timestamp
from payments.wire.transactions import render_transaction

PERMISSIONS = [
    "VIEW_TRANSACTIONS",
    "CREATE_TRANSFERS",
    "CREATE_QUOTES",
    "EXECUTE_QUOTES",
    "MANAGE_EXTERNAL_ACCOUNTS",
]
EXECUTION_MODES = ["AUTO", "APPROVAL_REQUIRED"]


def _known_currency(code: str) -> None:
    if currencies.get(code) is None:
        raise serializers.ValidationError("is not a currency this service knows", code="invalid_choice")


def _currency(**kwargs: Any) -> serializers.CharField:
    return serializers.CharField(max_length=8, validators=[_known_currency], **kwargs)


class AgentSpendingLimitsSerializer(ApiSerializer):
    currency = _currency()
    perTransactionLimit = amount_field()
    dailyLimit = amount_field(required=False, allow_null=True)
    dailyTransactionLimit = serializers.IntegerField(min_value=0, required=False)
    monthlyLimit = amount_field(required=False, allow_null=True)


class AgentSpendingLimitsUpdateSerializer(AgentSpendingLimitsSerializer):
    currency = _currency(required=False)
    perTransactionLimit = amount_field(required=False)


class AgentAccountRuleSerializer(ApiSerializer):
    accountId = serializers.CharField()
    executionMode = serializers.ChoiceField(choices=EXECUTION_MODES, required=False)
    perTransactionLimit = amount_field(required=False, allow_null=True)


class AgentAccountRestrictionsSerializer(ApiSerializer):
    allowedAccountIds = serializers.ListField(
        child=serializers.CharField(), required=False, allow_null=True, max_length=100
    )
    accountRules = AgentAccountRuleSerializer(many=True, required=False, max_length=100)


class AgentApprovalThresholdsSerializer(ApiSerializer):
    currency = _currency(required=False)
    amount = amount_field(required=False, allow_null=True)

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        if data.get("amount") is not None and "currency" not in data:
            raise serializers.ValidationError({"currency": ["is required when amount is set"]})
        return data


class AgentPolicySerializer(ApiSerializer):
    permissions = serializers.ListField(child=serializers.ChoiceField(choices=PERMISSIONS), max_length=10)
    defaultExecutionMode = serializers.ChoiceField(choices=EXECUTION_MODES)
    spendingLimits = AgentSpendingLimitsSerializer()
    accountRestrictions = AgentAccountRestrictionsSerializer(required=False)
    approvalThresholds = AgentApprovalThresholdsSerializer(required=False)


class AgentPolicyUpdateSerializer(AgentPolicySerializer):
    permissions = serializers.ListField(
        child=serializers.ChoiceField(choices=PERMISSIONS), max_length=10, required=False
    )
    defaultExecutionMode = serializers.ChoiceField(choices=EXECUTION_MODES, required=False)
    spendingLimits = AgentSpendingLimitsUpdateSerializer(required=False)


class AgentUsageSerializer(serializers.Serializer):
    dailyTransactionCount = serializers.IntegerField()
    dailySpend = serializers.IntegerField()
    dailyResetDate = serializers.DateField(required=False)
    monthlySpend = serializers.IntegerField()
    monthlyResetMonth = serializers.CharField(required=False)


class AgentSerializer(serializers.Serializer):
    id = PublicIdField("Agent")
    name = serializers.CharField()
    customerId = PublicIdField("Customer", source="customer_id")
    isPaused = serializers.BooleanField(source="is_paused")
    isConnected = serializers.SerializerMethodField()
    policy = AgentPolicySerializer()
    usage = AgentUsageSerializer()
    createdAt = UtcDateTimeField(source="created_at")
    updatedAt = UtcDateTimeField(source="updated_at")

    def get_isConnected(self, agent: Agent) -> bool:
        return agent.connected_at is not None


AgentListResponseSerializer = page_of(AgentSerializer, "AgentListResponse", count_required=False)


class AgentCreateSerializer(ApiSerializer):
    name = serializers.CharField(min_length=1, max_length=255)
    customerId = serializers.CharField()
    policy = AgentPolicySerializer()


class AgentUpdateSerializer(ApiSerializer):
    name = serializers.CharField(min_length=1, max_length=255, required=False)
    isPaused = serializers.BooleanField(required=False)


class AgentDeviceCodeSerializer(serializers.Serializer):
    code = serializers.CharField()
    agentId = serializers.CharField()
    expiresAt = UtcDateTimeField()
    redeemed = serializers.BooleanField()


class AgentCreateResponseSerializer(serializers.Serializer):
    agent = AgentSerializer()
    deviceCode = AgentDeviceCodeSerializer()


class AgentDeviceCodeStatusResponseSerializer(serializers.Serializer):
    code = serializers.CharField()
    redeemed = serializers.BooleanField()


class AgentDeviceCodeRedeemResponseSerializer(serializers.Serializer):
    agentId = serializers.CharField()
    agentName = serializers.CharField()
    accessToken = serializers.CharField()
    policy = AgentPolicySerializer()


def render_agent(agent: Agent, usage: dict[str, Any]) -> dict[str, Any]:
    """`agent` with `usage` (payments.agents.usage.agent_usage) as the reference's `Agent`."""
    agent.usage = usage
    return AgentSerializer(agent).data


def render_policy(policy: dict[str, Any]) -> dict[str, Any]:
    return AgentPolicySerializer(policy).data


# --- actions -------------------------------------------------------------------------------------


class AgentActionRejectSerializer(ApiSerializer):
    reason = serializers.CharField(required=False, allow_blank=True, max_length=1000)


def action_status(action: AgentAction) -> str:
    """A pending EXECUTE_QUOTE whose quote has expired reads FAILED: approving it could only fail."""
    if (
        action.status == AgentAction.Status.PENDING_APPROVAL
        and action.quote is not None
        and action.quote.expires_at <= clock.now()
    ):
        return AgentAction.Status.FAILED
    return action.status


def render_action(action: AgentAction) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": action.public_id,
        "agentId": ids.render("Agent", action.agent_id),
        "customerId": ids.render("Customer", action.customer_id),
        "platformCustomerId": action.customer.platform_customer_id,
        "status": action_status(action),
        "type": action.type,
    }
    if action.quote is not None:
        data["quote"] = render_quote(action.quote)
    if action.transfer_details is not None:
        data["transferDetails"] = action.transfer_details
    if action.transaction is not None:
        data["transaction"] = render_transaction(action.transaction)
    if action.rejection_reason:
        data["rejectionReason"] = action.rejection_reason
    data["createdAt"] = utc_timestamp(action.created_at)
    data["updatedAt"] = utc_timestamp(action.updated_at)
    return data
