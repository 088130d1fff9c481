"""Agent Management: the platform's agents, their policies and device codes (README "Agents")."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.agents.actions import agent_action_approve, agent_action_reject, approval_list
from payments.agents.credentials import (
    IssuedCode,
    agent_device_code_regenerate,
    device_code_redeem,
    device_code_status,
)
from payments.agents.management import (
    agent_create,
    agent_delete,
    agent_get,
    agent_list,
    agent_policy_update,
    agent_update,
)
from payments.agents.usage import agent_usage
from payments.api.agent_operations import AgentActionListResponseSerializer, AgentActionSerializer
from payments.api.pagination import paginate
from payments.api.parsing import CHANGED_BETWEEN, ChangedBetweenQuery, id_filters, parse_id_field
from payments.api.schema import operations, path_parameter
from payments.api.throttles import DeviceCodeRedeemThrottle
from payments.models import Agent
from payments.wire.agents import (
    AgentActionRejectSerializer,
    AgentCreateResponseSerializer,
    AgentCreateSerializer,
    AgentDeviceCodeRedeemResponseSerializer,
    AgentDeviceCodeSerializer,
    AgentDeviceCodeStatusResponseSerializer,
    AgentListResponseSerializer,
    AgentPolicyUpdateSerializer,
    AgentSerializer,
    AgentUpdateSerializer,
    render_action,
    render_agent,
    render_policy,
)
from payments.wire.time import last_instant_rendered_as, utc_timestamp

TAGS = ["Agent Management"]
_operation = operations(TAGS)
_on_agent = operations(
    TAGS, parameters=[path_parameter("agentId", "System-generated unique agent identifier")]
)
_on_action = operations(
    TAGS,
    parameters=[
        path_parameter("agentId", "System-generated unique agent identifier"),
        path_parameter("actionId", "Unique identifier of the agent action"),
    ],
)
_on_code = operations(TAGS, parameters=[path_parameter("code", "The device code")])


def _agent(agent: Agent) -> dict[str, Any]:
    return render_agent(agent, agent_usage(agent))


def _device_code(issued: IssuedCode) -> dict[str, Any]:
    return {
        "code": issued.code,
        "agentId": ids.render("Agent", issued.row.agent_id),
        "expiresAt": utc_timestamp(issued.row.expires_at),
        "redeemed": False,
    }


class AgentListQuerySerializer(ChangedBetweenQuery):
    customerId = serializers.CharField(required=False)
    isPaused = serializers.BooleanField(required=False)
    isConnected = serializers.BooleanField(required=False)


# query parameter: agent_list's filter
_FILTERS = {"isPaused": "is_paused", "isConnected": "is_connected", **CHANGED_BETWEEN}


class AgentListCreateApi(APIView):
    @_operation("createAgent", body=AgentCreateSerializer, responses={201: AgentCreateResponseSerializer})
    def post(self, request: Request, body: dict[str, Any]) -> Response:
        agent, issued = agent_create(
            platform=request.auth.platform,
            name=body["name"],
            customer_id=parse_id_field("Customer", body["customerId"], "customerId"),
            policy=body["policy"],
        )
        return Response({"agent": _agent(agent), "deviceCode": _device_code(issued)}, status=201)

    @_operation("listAgents", query=AgentListQuerySerializer, responses=AgentListResponseSerializer)
    def get(self, request: Request, query: dict[str, Any]) -> Response:
        filters = {_FILTERS[k]: v for k, v in query.items() if k in _FILTERS}
        filters |= id_filters(query, {"customerId": ("Customer", "customer_id")})
        agents = agent_list(platform=request.auth.platform, filters=filters)
        return Response(paginate(agents, request.query_params, _agent))


class AgentDetailApi(APIView):
    @_on_agent("getAgentById", responses=AgentSerializer)
    def get(self, request: Request, agentId: str) -> Response:
        return Response(
            _agent(agent_get(platform=request.auth.platform, agent_id=ids.parse("Agent", agentId)))
        )

    @_on_agent("updateAgent", body=AgentUpdateSerializer, responses=AgentSerializer)
    def patch(self, request: Request, agentId: str, body: dict[str, Any]) -> Response:
        changes = {{"name": "name", "isPaused": "is_paused"}[k]: v for k, v in body.items()}
        agent = agent_update(
            platform=request.auth.platform, agent_id=ids.parse("Agent", agentId), changes=changes
        )
        return Response(_agent(agent))

    @_on_agent("deleteAgent", responses={204: None})
    def delete(self, request: Request, agentId: str) -> Response:
        agent_delete(
            platform=request.auth.platform, agent_id=ids.parse("Agent", agentId), decided_by=str(request.auth)
        )
        return Response(status=204)


class AgentPolicyApi(APIView):
    @_on_agent("updateAgentPolicy", body=AgentPolicyUpdateSerializer, responses=AgentSerializer)
    def patch(self, request: Request, agentId: str, body: dict[str, Any]) -> Response:
        agent = agent_policy_update(
            platform=request.auth.platform, agent_id=ids.parse("Agent", agentId), changes=body
        )
        return Response(_agent(agent))


class AgentDeviceCodeApi(APIView):
    @_on_agent("regenerateAgentDeviceCode", request=None, responses={201: AgentDeviceCodeSerializer})
    def post(self, request: Request, agentId: str) -> Response:
        issued = agent_device_code_regenerate(
            platform=request.auth.platform, agent_id=ids.parse("Agent", agentId)
        )
        return Response(_device_code(issued), status=201)


class DeviceCodeStatusApi(APIView):
    @_on_code("getAgentDeviceCodeStatus", responses=AgentDeviceCodeStatusResponseSerializer)
    def get(self, request: Request, code: str) -> Response:
        row = device_code_status(platform=request.auth.platform, code=code)
        return Response({"code": code, "redeemed": row.redeemed_at is not None})


class DeviceCodeRedeemApi(APIView):
    """The agent's software calls this with nothing but the code: the code is the credential, so its
    attempts are limited per client address (payments.api.throttles)."""

    authentication_classes = []
    permission_classes = [AllowAny]
    throttle_classes = [DeviceCodeRedeemThrottle]

    @_on_code(
        "redeemAgentDeviceCode", request=None, responses=AgentDeviceCodeRedeemResponseSerializer, auth=[]
    )
    def post(self, request: Request, code: str) -> Response:
        agent, token = device_code_redeem(code=code)
        return Response(
            {
                "agentId": agent.public_id,
                "agentName": agent.name,
                "accessToken": token,
                "policy": render_policy(agent.policy),
            }
        )


class ApprovalQuerySerializer(serializers.Serializer):
    agentId = serializers.CharField(required=False)
    customerId = serializers.CharField(required=False)
    startDate = serializers.DateTimeField(required=False)
    endDate = serializers.DateTimeField(required=False)
    sortOrder = serializers.ChoiceField(choices=["asc", "desc"], required=False, default="desc")


class AgentApprovalListApi(APIView):
    @_operation(
        "listAgentApprovals", query=ApprovalQuerySerializer, responses=AgentActionListResponseSerializer
    )
    def get(self, request: Request, query: dict[str, Any]) -> Response:
        filters: dict[str, Any] = id_filters(
            query, {"agentId": ("Agent", "agent_id"), "customerId": ("Customer", "customer_id")}
        )
        if "startDate" in query:
            filters["start"] = query["startDate"]
        if "endDate" in query:
            filters["end"] = last_instant_rendered_as(query["endDate"])
        actions = approval_list(platform=request.auth.platform, filters=filters)
        ascending = query.get("sortOrder") == "asc"
        return Response(paginate(actions, request.query_params, render_action, ascending=ascending))


class AgentActionApproveApi(APIView):
    @_on_action("approveAgentAction", request=None, responses=AgentActionSerializer)
    def post(self, request: Request, agentId: str, actionId: str) -> Response:
        action = agent_action_approve(
            platform=request.auth.platform,
            agent_id=ids.parse("Agent", agentId),
            action_id=ids.parse("AgentAction", actionId),
            decided_by=str(request.auth),
        )
        return Response(render_action(action))


class AgentActionRejectApi(APIView):
    @_on_action("rejectAgentAction", body=AgentActionRejectSerializer, responses=AgentActionSerializer)
    def post(self, request: Request, agentId: str, actionId: str, body: dict[str, Any]) -> Response:
        action = agent_action_reject(
            platform=request.auth.platform,
            agent_id=ids.parse("Agent", agentId),
            action_id=ids.parse("AgentAction", actionId),
            reason=body.get("reason", ""),
            decided_by=str(request.auth),
        )
        return Response(render_action(action))
