"""Agent Operations: what an agent does itself under `/agents/me`, with its own access token
(README "Agents")."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import PolymorphicProxySerializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.agents.actions import agent_action_get, agent_action_list, agent_quote_execute, agent_transfer
from payments.agents.scope import (
    agent_external_account_create,
    agent_external_account_delete,
    agent_external_account_get,
    agent_external_account_list,
    agent_internal_account_list,
    agent_quote_create,
    agent_quote_get,
    agent_transaction_get,
    agent_transaction_list,
)
from payments.agents.usage import agent_usage
from payments.api.authentication import AgentTokenAuthentication, IsAgent
from payments.api.external_accounts import (
    ExternalAccountCreateSerializer,
    ExternalAccountListResponseSerializer,
    PlatformExternalAccountQuerySerializer,
    create_arguments,
    parse_create_body,
)
from payments.api.idempotency import IDEMPOTENCY_KEY, idempotent
from payments.api.internal_accounts import (
    InternalAccountListResponseSerializer,
    PlatformInternalAccountQuerySerializer,
    render_account,
)
from payments.api.pagination import PAGE_PARAMETERS, paginate
from payments.api.parsing import ApiSerializer, parse_body
from payments.api.quotes import (
    _SIGNATURE,
    QuoteCreateSerializer,
    QuoteSerializer,
    quote_request,
    render_quote,
)
from payments.api.schema import operations, path_parameter
from payments.api.transactions import (
    TransactionListResponseSerializer,
    TransactionOneOf,
    TransactionQuerySerializer,
    transaction_filters,
)
from payments.api.transfers import TransferInSerializer, TransferOutSerializer
from payments.models import AgentAction, Transaction
from payments.wire.accounts import ExternalAccountSerializer, render_external_account
from payments.wire.agents import AgentActionSerializer as WireAgentActionSerializer
from payments.wire.agents import AgentSerializer, render_action, render_agent
from payments.wire.pages import page_of
from payments.wire.transactions import RENDERED_FIELDS, render_transaction

TAGS = ["Agent Operations"]
_operation = operations(TAGS)


def _on(name: str, description: str):
    return operations(TAGS, parameters=[path_parameter(name, description)])


_on_transaction = _on("transactionId", "Unique identifier of the transaction")
_on_quote = _on("quoteId", "The unique identifier of the quote")
_on_action = _on("actionId", "Unique identifier of the agent action")
_on_external_account = _on("externalAccountId", "System-generated unique external account identifier")


class AgentTransferDetailsSerializer(serializers.Serializer):
    amount = serializers.IntegerField()
    currency = serializers.CharField()
    sourceAccountId = serializers.CharField()
    destinationAccountId = serializers.CharField()


# For the OpenAPI document: the shapes of the fields the wire's serializer renders (`render_action`).
class AgentActionSerializer(WireAgentActionSerializer):
    status = serializers.ChoiceField(choices=AgentAction.Status.choices)
    quote = QuoteSerializer(required=False)
    transferDetails = AgentTransferDetailsSerializer(required=False)
    transaction = PolymorphicProxySerializer(
        component_name=TransactionOneOf.component_name,
        serializers=TransactionOneOf.serializers,
        resource_type_field_name=TransactionOneOf.resource_type_field_name,
        required=False,
    )

    class Meta:
        ref_name = "AgentAction"


AgentActionListResponseSerializer = page_of(
    AgentActionSerializer, "AgentActionListResponse", count_required=False
)


class AgentApiView(APIView):
    """An operation of the agent itself: its access token only, and `request.auth` is the Agent."""

    authentication_classes = [AgentTokenAuthentication]
    permission_classes = [IsAgent]


class AgentMeApi(AgentApiView):
    @_operation("getAgentMe", responses=AgentSerializer)
    def get(self, request: Request) -> Response:
        return Response(render_agent(request.auth, agent_usage(request.auth)))


class AgentInternalAccountListApi(AgentApiView):
    @_operation(
        "agentListInternalAccounts",
        query=PlatformInternalAccountQuerySerializer,
        responses=InternalAccountListResponseSerializer,
    )
    def get(self, request: Request, query: dict[str, Any]) -> Response:
        accounts = agent_internal_account_list(
            agent=request.auth, currency=query.get("currency"), account_type=query.get("type")
        )
        return Response(paginate(accounts, request.query_params, render_account))


class AgentTransactionQuerySerializer(TransactionQuerySerializer):
    customerId = None  # always the agent's customer
    platformCustomerId = None
    status = serializers.ChoiceField(choices=Transaction.Status.choices, required=False)
    type = serializers.ChoiceField(choices=Transaction.Type.choices, required=False)


class AgentTransactionListApi(AgentApiView):
    @_operation(
        "agentListTransactions",
        query=AgentTransactionQuerySerializer,
        parameters=PAGE_PARAMETERS,  # the list's response is not a page_of (its data is a oneOf)
        responses=TransactionListResponseSerializer,
        description="The agent's customer's transactions, newest first (sortOrder=asc: oldest first).",
    )
    def get(self, request: Request, query: dict[str, Any]) -> Response:
        filters, ascending = transaction_filters(request, AgentTransactionQuerySerializer)
        rows = agent_transaction_list(agent=request.auth, filters=filters)
        return Response(
            paginate(
                rows,
                request.query_params,
                render_transaction,
                ascending=ascending,
                keys_first=True,
                fields=RENDERED_FIELDS,
            )
        )


class AgentTransactionDetailApi(AgentApiView):
    @_on_transaction("agentGetTransaction", responses=TransactionOneOf)
    def get(self, request: Request, transactionId: str) -> Response:
        txn = agent_transaction_get(
            agent=request.auth, transaction_id=ids.parse("Transaction", transactionId)
        )
        return Response(render_transaction(txn))


class AgentExternalAccountListCreateApi(AgentApiView):
    @_operation(
        "agentListExternalAccounts",
        query=PlatformExternalAccountQuerySerializer,
        responses=ExternalAccountListResponseSerializer,
    )
    def get(self, request: Request, query: dict[str, Any]) -> Response:
        accounts = agent_external_account_list(agent=request.auth, currency=query.get("currency"))
        return Response(paginate(accounts, request.query_params, render_external_account))

    @_operation(
        "agentCreateExternalAccount",
        request=ExternalAccountCreateSerializer,
        responses={201: ExternalAccountSerializer},
    )
    def post(self, request: Request) -> Response:
        body = parse_create_body(ExternalAccountCreateSerializer, request.data)
        account = agent_external_account_create(agent=request.auth, **create_arguments(body))
        return Response(render_external_account(account), status=201)


class AgentExternalAccountDetailApi(AgentApiView):
    @_on_external_account("agentGetExternalAccount", responses=ExternalAccountSerializer)
    def get(self, request: Request, externalAccountId: str) -> Response:
        account = agent_external_account_get(
            agent=request.auth, account_id=ids.parse("ExternalAccount", externalAccountId)
        )
        return Response(render_external_account(account))

    @_on_external_account("agentDeleteExternalAccount", responses={204: None})
    def delete(self, request: Request, externalAccountId: str) -> Response:
        agent_external_account_delete(
            agent=request.auth, account_id=ids.parse("ExternalAccount", externalAccountId)
        )
        return Response(status=204)


class AgentQuoteCreateApi(AgentApiView):
    @_operation(
        "agentCreateQuote",
        parameters=[IDEMPOTENCY_KEY],
        request=QuoteCreateSerializer,
        responses={201: QuoteSerializer},
    )
    @idempotent
    def post(self, request: Request) -> Response:
        body = parse_body(QuoteCreateSerializer, request.data)
        quote = agent_quote_create(agent=request.auth, request=quote_request(body))
        return Response(render_quote(quote), status=201)


class AgentQuoteDetailApi(AgentApiView):
    @_on_quote("agentGetQuote", responses=QuoteSerializer)
    def get(self, request: Request, quoteId: str) -> Response:
        return Response(
            render_quote(agent_quote_get(agent=request.auth, quote_id=ids.parse("Quote", quoteId)))
        )


class AgentQuoteExecuteApi(AgentApiView):
    @_on_quote(
        "agentExecuteQuote",
        parameters=[IDEMPOTENCY_KEY, _SIGNATURE],
        request=None,
        responses={200: AgentActionSerializer},
    )
    @idempotent
    def post(self, request: Request, quoteId: str) -> Response:
        action = agent_quote_execute(agent=request.auth, quote_id=ids.parse("Quote", quoteId))
        return Response(render_action(action))


def _transfer(request: Request, serializer: type[ApiSerializer], type: str) -> Response:
    """The platform's transfer request shapes (api/transfers.py); the action keeps the rest of it."""
    body = parse_body(serializer, request.data)
    options = {name: body[name] for name in ("remittanceInformation", "purposeOfPayment") if name in body}
    if body["destination"].get("paymentRail"):
        options["paymentRail"] = body["destination"]["paymentRail"]
    action = agent_transfer(
        agent=request.auth,
        type=type,
        source=body["source"]["accountId"],
        destination=body["destination"]["accountId"],
        amount=body.get("amount"),
        options=options,
    )
    return Response(render_action(action), status=201)


_transfer_operation = operations(TAGS, parameters=[IDEMPOTENCY_KEY], responses={201: AgentActionSerializer})


class AgentTransferInApi(AgentApiView):
    @_transfer_operation("agentCreateTransferIn", request=TransferInSerializer)
    @idempotent
    def post(self, request: Request) -> Response:
        return _transfer(request, TransferInSerializer, AgentAction.Type.TRANSFER_IN)


class AgentTransferOutApi(AgentApiView):
    @_transfer_operation("agentCreateTransferOut", request=TransferOutSerializer)
    @idempotent
    def post(self, request: Request) -> Response:
        return _transfer(request, TransferOutSerializer, AgentAction.Type.TRANSFER_OUT)


class AgentActionQuerySerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=AgentAction.Status.choices, required=False)


class AgentActionListApi(AgentApiView):
    @_operation(
        "agentListActions", query=AgentActionQuerySerializer, responses=AgentActionListResponseSerializer
    )
    def get(self, request: Request, query: dict[str, Any]) -> Response:
        actions = agent_action_list(agent=request.auth, status=query.get("status"))
        return Response(paginate(actions, request.query_params, render_action))


class AgentActionDetailApi(AgentApiView):
    @_on_action("agentGetAction", responses=AgentActionSerializer)
    def get(self, request: Request, actionId: str) -> Response:
        action = agent_action_get(agent=request.auth, action_id=ids.parse("AgentAction", actionId))
        return Response(render_action(action))
