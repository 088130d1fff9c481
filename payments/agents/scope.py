"""What an agent may see and touch: its customer's records, within its policy's permissions and
allowed accounts. Each read calls the platform's own domain function and narrows it; a record of
another customer (or another agent's quote) is a 404, as if it did not exist."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import UUID

from django.db import transaction
from django.db.models import QuerySet

from payments import ids
from payments.accounts import customer_internal_account_list
from payments.agents.policy import PolicyViolation
from payments.errors import FieldError, InvalidInput, ResourceNotFound
from payments.external_accounts import (
    external_account_create,
    external_account_delete,
    external_account_get,
    external_account_list,
)
from payments.models import Agent, AgentQuote, ExternalAccount, InternalAccount, Quote, Transaction
from payments.query_plans import QueryShape
from payments.quotes import quote_create, quote_get
from payments.quotes.request import QuoteRequest
from payments.transactions import transaction_get, transaction_list


def permission_check(agent: Agent, permission: str) -> None:
    if permission not in agent.policy.get("permissions", []):
        raise PolicyViolation(f"The agent's policy does not grant {permission}", permission=permission)


def allowed_account_ids(agent: Agent) -> set[UUID] | None:
    """The internal accounts the policy restricts the agent to, or None for all of its customer's."""
    allowed = (agent.policy.get("accountRestrictions") or {}).get("allowedAccountIds")
    return None if allowed is None else {ids.parse("InternalAccount", value) for value in allowed}


def _customers[R: Transaction | ExternalAccount](agent: Agent, record: R) -> R:
    """`record` when it is the agent's customer's; 404, as if it did not exist, otherwise."""
    if record.customer_id != agent.customer_id:
        raise ResourceNotFound(type(record).ID_KIND)
    return record


def agent_internal_account_list(
    *, agent: Agent, currency: str | None = None, account_type: str | None = None
) -> QuerySet[InternalAccount]:
    permission_check(agent, "VIEW_TRANSACTIONS")
    accounts = customer_internal_account_list(
        platform=agent.platform, customer_id=agent.customer_id, currency=currency, account_type=account_type
    )
    allowed = allowed_account_ids(agent)
    return accounts if allowed is None else accounts.filter(pk__in=allowed)


def agent_transaction_list(*, agent: Agent, filters: Mapping[str, Any]) -> QueryShape:
    """The agent's customer's transactions; when its policy restricts accounts, only those from or to
    an allowed account (as the internal accounts it lists)."""
    permission_check(agent, "VIEW_TRANSACTIONS")
    narrowed = {**filters, "customer_id": agent.customer_id}
    allowed = allowed_account_ids(agent)
    if allowed is not None:
        narrowed["internal_account_ids"] = allowed
    return transaction_list(platform=agent.platform, filters=narrowed)


def agent_transaction_get(*, agent: Agent, transaction_id: UUID) -> Transaction:
    """As agent_transaction_list narrows it: 404 for any transaction the list would not show."""
    permission_check(agent, "VIEW_TRANSACTIONS")
    txn = _customers(agent, transaction_get(platform=agent.platform, transaction_id=transaction_id))
    allowed = allowed_account_ids(agent)
    if allowed is not None and allowed.isdisjoint(
        {txn.source_internal_account_id, txn.destination_internal_account_id}
    ):
        raise ResourceNotFound("Transaction")
    return txn


def agent_external_account_list(*, agent: Agent, currency: str | None = None) -> QuerySet[ExternalAccount]:
    permission_check(agent, "MANAGE_EXTERNAL_ACCOUNTS")
    return external_account_list(platform=agent.platform, customer_id=agent.customer_id, currency=currency)


def agent_external_account_get(*, agent: Agent, account_id: UUID) -> ExternalAccount:
    permission_check(agent, "MANAGE_EXTERNAL_ACCOUNTS")
    return _customers(agent, external_account_get(platform=agent.platform, account_id=account_id))


def agent_external_account_create(
    *, agent: Agent, customer_id: UUID | None = None, **fields: Any
) -> ExternalAccount:
    """external_account_create's `fields`, for the agent's customer (`customer_id` may only name it)."""
    permission_check(agent, "MANAGE_EXTERNAL_ACCOUNTS")
    if customer_id is not None and customer_id != agent.customer_id:
        raise InvalidInput(
            errors=[FieldError("customerId", "must be the agent's customer (or left out)", {})]
        )
    return external_account_create(platform=agent.platform, customer_id=agent.customer_id, **fields)


def agent_external_account_delete(*, agent: Agent, account_id: UUID) -> None:
    agent_external_account_get(agent=agent, account_id=account_id)
    external_account_delete(platform=agent.platform, account_id=account_id)


def active_check(agent: Agent) -> None:
    if agent.is_paused:
        raise PolicyViolation("The agent is paused; its platform must resume it first")


def _quote_errors(agent: Agent, quote: Quote) -> list[FieldError]:
    """Where the quote reaches outside the agent's customer or allowed accounts."""
    allowed = allowed_account_ids(agent)
    errors = []
    if quote.customer_id != agent.customer_id:
        errors.append(
            FieldError("source", "must be an account (or the realtime funding) of the agent's customer", {})
        )
    elif quote.source_internal_account_id is not None and allowed is not None:
        if quote.source_internal_account_id not in allowed:
            errors.append(FieldError("source.accountId", "is not an account the agent's policy allows", {}))
    destination = quote.destination_external_account or quote.destination_internal_account
    if destination is not None and destination.customer_id not in (None, agent.customer_id):
        errors.append(FieldError("destination.accountId", "is not an account of the agent's customer", {}))
    return errors


@transaction.atomic
def agent_quote_create(*, agent: Agent, request: QuoteRequest) -> Quote:
    """The platform's quote_create, for the agent's customer only; the agent executes it through its
    own execute (so `immediatelyExecute` is refused). Nothing is kept when the quote is refused."""
    permission_check(agent, "CREATE_QUOTES")
    active_check(agent)
    if request.immediately_execute:
        raise InvalidInput(
            errors=[
                FieldError(
                    "immediatelyExecute",
                    "agents execute through POST /agents/me/quotes/{quoteId}/execute",
                    {"enum": [False]},
                )
            ]
        )
    quote = quote_create(platform=agent.platform, request=request)
    errors = _quote_errors(agent, quote)
    if errors:
        raise InvalidInput(errors=errors)  # rolls the quote back
    AgentQuote.objects.create(quote=quote, agent=agent)
    return quote


def agent_quote_get(*, agent: Agent, quote_id: UUID) -> Quote:
    if not AgentQuote.objects.filter(agent=agent, quote_id=quote_id).exists():
        raise ResourceNotFound("Quote")
    return quote_get(platform=agent.platform, quote_id=quote_id)
