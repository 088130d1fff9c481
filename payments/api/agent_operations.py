"""Agent Operations: what an agent does itself under `/agents/me`, with its own access token
(README "Agents")."""

from __future__ import annotations

from functools import partial

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments.agents.usage import agent_usage
from payments.api.authentication import AgentTokenAuthentication, IsAgent
from payments.api.schema import operations, path_parameter
from payments.api.unsupported import unsupported_view
from payments.wire.agents import AgentSerializer, render_agent

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


# Not offered yet (README "Agents").
unsupported_view = partial(unsupported_view, base=AgentApiView)
AgentTransactionListApi = unsupported_view(
    "AgentTransactionListApi", _operation, {"get": "agentListTransactions"}
)
AgentTransactionDetailApi = unsupported_view(
    "AgentTransactionDetailApi", _on_transaction, {"get": "agentGetTransaction"}
)
AgentQuoteCreateApi = unsupported_view("AgentQuoteCreateApi", _operation, {"post": "agentCreateQuote"})
AgentQuoteDetailApi = unsupported_view("AgentQuoteDetailApi", _on_quote, {"get": "agentGetQuote"})
AgentQuoteExecuteApi = unsupported_view("AgentQuoteExecuteApi", _on_quote, {"post": "agentExecuteQuote"})
AgentActionListApi = unsupported_view("AgentActionListApi", _operation, {"get": "agentListActions"})
AgentActionDetailApi = unsupported_view("AgentActionDetailApi", _on_action, {"get": "agentGetAction"})
AgentTransferInApi = unsupported_view("AgentTransferInApi", _operation, {"post": "agentCreateTransferIn"})
AgentTransferOutApi = unsupported_view("AgentTransferOutApi", _operation, {"post": "agentCreateTransferOut"})
AgentInternalAccountListApi = unsupported_view(
    "AgentInternalAccountListApi", _operation, {"get": "agentListInternalAccounts"}
)
AgentExternalAccountListCreateApi = unsupported_view(
    "AgentExternalAccountListCreateApi",
    _operation,
    {"get": "agentListExternalAccounts", "post": "agentCreateExternalAccount"},
)
AgentExternalAccountDetailApi = unsupported_view(
    "AgentExternalAccountDetailApi",
    _on_external_account,
    {"get": "agentGetExternalAccount", "delete": "agentDeleteExternalAccount"},
)
