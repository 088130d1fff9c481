"""Agents on the wire: `Agent`, its `AgentPolicy` and `AgentUsage`, device codes and their
redemption, for the management API and the agents' own `/agents/me`."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from payments import clock, currencies
from payments.models import Agent, AgentAction
from payments.wire.ids import PublicIdField
from payments.wire.kyc import without_nulls
from payments.wire.money import amount_field
from payments.wire.pages import page_of
from payments.wire.parsing import ApiSerializer
from payments.wire.quotes import render_quote
from payments.wire.time import UtcDateTimeField
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


class AgentActionSerializer(serializers.Serializer):
    """The reference's AgentAction. Its quote and transaction render as their own operations do; the
    API's document (payments/api/agent_operations.py) names their shapes."""

    id = PublicIdField("AgentAction")
    agentId = PublicIdField("Agent", source="agent_id")
    customerId = PublicIdField("Customer", source="customer_id")
    platformCustomerId = serializers.CharField(source="customer.platform_customer_id")
    status = serializers.SerializerMethodField()
    type = serializers.ChoiceField(choices=AgentAction.Type.choices)
    quote = serializers.SerializerMethodField()
    transferDetails = serializers.JSONField(source="transfer_details", required=False)
    transaction = serializers.SerializerMethodField()
    rejectionReason = serializers.CharField(source="rejection_reason", required=False)
    createdAt = UtcDateTimeField(source="created_at")
    updatedAt = UtcDateTimeField(source="updated_at")

    def get_status(self, action: AgentAction) -> str:
        return action_status(action)

    def get_quote(self, action: AgentAction) -> dict[str, Any] | None:
        return render_quote(action.quote) if action.quote is not None else None

    def get_transaction(self, action: AgentAction) -> dict[str, Any] | None:
        return render_transaction(action.transaction) if action.transaction is not None else None

    def to_representation(self, action: AgentAction) -> dict[str, Any]:
        return without_nulls(super().to_representation(action))


def render_action(action: AgentAction) -> dict[str, Any]:
    return AgentActionSerializer(action).data
