"""Agent Operations: what an agent does itself under `/agents/me`, with its own access token
(README "Agents")."""

from __future__ import annotations

from functools import partial
from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
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
    parse_create_body,
)
from payments.api.idempotency import IDEMPOTENCY_KEY, idempotent
from payments.api.internal_accounts import (
    InternalAccountListResponseSerializer,
    PlatformInternalAccountQuerySerializer,
    render_account,
)
from payments.api.pagination import PAGE_PARAMETERS, paginate
from payments.api.parsing import parse_body
from payments.api.quotes import QuoteCreateSerializer, QuoteSerializer, quote_request, render_quote
from payments.api.schema import operations, path_parameter
from payments.api.transactions import (
    TransactionListResponseSerializer,
    TransactionOneOf,
    TransactionQuerySerializer,
    transaction_filters,
)
from payments.api.unsupported import unsupported_view
from payments.models import Transaction
from payments.wire.accounts import ExternalAccountSerializer, render_external_account
from payments.wire.agents import AgentSerializer, render_agent
from payments.wire.transactions import render_transaction

TAGS = ["Agent Operations"]
_operation = operations(TAGS)


def _on(name: str, description: str):
    return operations(TAGS, parameters=[path_parameter(name, description)])


_on_transaction = _on("transactionId", "Unique identifier of the transaction")
_on_quote = _on("quoteId", "The unique identifier of the quote")
_on_action = _on("actionId", "Unique identifier of the agent action")
_on_external_account = _on("externalAccountId", "System-generated unique external account identifier")


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
            paginate(rows, request.query_params, render_transaction, ascending=ascending, keys_first=True)
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
        account = agent_external_account_create(
            agent=request.auth,
            currency=body["currency"],
            account_info=body["accountInfo"],
            customer_id=body.get("customerId"),
            platform_account_id=body.get("platformAccountId", ""),
            ownership_type=body.get("ownershipType", ""),
            default_uma_deposit_account=body.get("defaultUmaDepositAccount", False),
        )
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


# Not offered yet (README "Agents").
unsupported_view = partial(unsupported_view, base=AgentApiView)
AgentQuoteExecuteApi = unsupported_view("AgentQuoteExecuteApi", _on_quote, {"post": "agentExecuteQuote"})
AgentActionListApi = unsupported_view("AgentActionListApi", _operation, {"get": "agentListActions"})
AgentActionDetailApi = unsupported_view("AgentActionDetailApi", _on_action, {"get": "agentGetAction"})
AgentTransferInApi = unsupported_view("AgentTransferInApi", _operation, {"post": "agentCreateTransferIn"})
AgentTransferOutApi = unsupported_view("AgentTransferOutApi", _operation, {"post": "agentCreateTransferOut"})
