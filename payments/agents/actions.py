"""Agent actions: a quote execution or a transfer an agent submits, decided by its policy
(`payments.agents.policy.policy_decide`) and executed at once (APPROVED, with its transaction) or
left PENDING_APPROVAL for the platform, which is told by an AGENT_ACTION.PENDING_APPROVAL webhook
committed with the action (the outbox).

- **Approve** executes the operation exactly once: the action's row lock serializes approvals, and
  only a PENDING_APPROVAL action moves (to APPROVED, or FAILED when the operation fails, e.g. its
  quote expired meanwhile or the funds are short); any other answer is 409.
- **Reject** moves a PENDING_APPROVAL action to REJECTED with the platform's reason; nothing runs.
  Deleting the agent rejects its pending actions the same way ("The agent was deleted") and keeps
  every action, with the agent's id and name, for the audit.
- **Expiry**, as the reference says: a pending EXECUTE_QUOTE whose quote has expired reads FAILED
  (`payments.wire.agents.action_status`) and approving it records FAILED. A pending transfer has no
  expiry of its own.
- Submissions of one agent are serialized by its row lock, so concurrent actions cannot pass a daily
  or monthly limit together.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import UUID

from django.db import transaction
from django.db.models import QuerySet

from payments import clock, ids
from payments.agents.policy import policy_decide
from payments.agents.scope import agent_quote_get, permission_check
from payments.agents.usage import agent_usage
from payments.errors import Conflict, ResourceNotFound, ServiceError, first_or_404
from payments.models import Agent, AgentAction, ExternalAccount, InternalAccount, Platform, Quote, Transaction
from payments.quotes import quote_execute
from payments.transfers import transfer_create, transfer_in_amount, transfer_out_amount
from payments.webhook_types import WebhookType
from payments.webhooks import webhook_emit
from payments.wire.agents import render_action

Status = AgentAction.Status
Type = AgentAction.Type


def _locked_agent(agent: Agent) -> Agent:
    return Agent.objects.select_for_update().select_related("platform", "customer").get(pk=agent.pk)


def _submit(
    agent: Agent, *, type: str, amount: int, currency: str, account_id: UUID | None, **fields: Any
) -> AgentAction:
    """Decide and record the action of the locked `agent`; run it now when the policy lets it."""
    decision = policy_decide(
        policy=agent.policy,
        paused=agent.is_paused,
        usage=agent_usage(agent),
        amount=amount,
        currency=currency,
        account_id=account_id,
    )
    action = AgentAction(
        platform=agent.platform,
        agent=agent,
        customer=agent.customer,
        type=type,
        status=Status.PENDING_APPROVAL,
        usage_amount=decision.usage_amount,
        **fields,
    )
    if decision.approval_required:
        action.save()
        webhook_emit(
            platform=agent.platform,
            type=WebhookType.AGENT_ACTION_PENDING_APPROVAL,
            data=render_action(action),
        )
        return action
    action.transaction = _execute(action)  # a failure refuses the request: nothing is kept
    action.status = Status.APPROVED
    action.save()
    return action


def _execute(action: AgentAction) -> Transaction:
    platform = action.platform
    if action.type == Type.EXECUTE_QUOTE:
        return quote_execute(platform=platform, quote_id=action.quote_id).transaction
    details, options = action.transfer_details, action.transfer_options
    destination = {"accountId": details["destinationAccountId"], "paymentRail": options.get("paymentRail")}
    quote = transfer_create(
        platform=platform,
        source=details["sourceAccountId"],
        destination=destination,
        amount=details["amount"],
        texts=options,
    )
    return quote.transaction


@transaction.atomic
def agent_quote_execute(*, agent: Agent, quote_id: UUID) -> AgentAction:
    agent = _locked_agent(agent)
    permission_check(agent, "EXECUTE_QUOTES")
    quote = agent_quote_get(agent=agent, quote_id=quote_id)
    if quote.status != Quote.Status.PENDING or quote.expires_at <= clock.now():
        raise Conflict(
            f"Quote {quote.public_id} is {quote.status} and cannot be executed", quoteId=quote.public_id
        )
    if AgentAction.objects.filter(quote=quote, status=Status.PENDING_APPROVAL).exists():
        raise Conflict(
            f"Quote {quote.public_id} already waits for the platform's approval", quoteId=quote.public_id
        )
    return _submit(
        agent,
        type=Type.EXECUTE_QUOTE,
        amount=quote.total_sending_amount,
        currency=quote.sending_currency,
        account_id=quote.source_internal_account_id,
        quote=quote,
    )


def _customers_account(agent: Agent, model: type, value: str, field: str) -> Any:
    """The agent's customer's account `value` of `model`; 404 for any other."""
    kind = model.ID_KIND
    account_id = ids.parse_or_none(kind, value)
    account = (
        model.objects.for_platform(agent.platform).filter(pk=account_id, customer=agent.customer).first()
    )
    if account_id is None or account is None or getattr(account, "deleted_at", None) is not None:
        raise ResourceNotFound(kind, f"{field}: no {kind} {value} of the agent's customer")
    return account


@transaction.atomic
def agent_transfer(
    *, agent: Agent, type: str, source: str, destination: str, amount: int | None, options: Mapping[str, Any]
) -> AgentAction:
    """TRANSFER_OUT (internal → external) or TRANSFER_IN (external → internal) between accounts of the
    agent's customer, in the internal account's currency; without `amount`, what the platform's
    transfer takes (transfer-out: the whole available balance; transfer-in: 400). `options`:
    paymentRail, remittanceInformation, purposeOfPayment."""
    agent = _locked_agent(agent)
    permission_check(agent, "CREATE_TRANSFERS")
    out = type == Type.TRANSFER_OUT
    internal = _customers_account(
        agent,
        InternalAccount,
        source if out else destination,
        "source.accountId" if out else "destination.accountId",
    )
    external = _customers_account(
        agent,
        ExternalAccount,
        destination if out else source,
        "destination.accountId" if out else "source.accountId",
    )
    ends = (internal, external) if out else (external, internal)
    if out:
        amount = transfer_out_amount(
            platform=agent.platform, source_account_id=internal.public_id, amount=amount
        )
    else:
        amount = transfer_in_amount(amount=amount)
    details = {
        "amount": amount,
        "currency": internal.currency,
        "sourceAccountId": ends[0].public_id,
        "destinationAccountId": ends[1].public_id,
    }
    return _submit(
        agent,
        type=type,
        amount=amount,
        currency=internal.currency,
        account_id=internal.pk,
        transfer_details=details,
    )


def _rows(platform: Platform) -> QuerySet[AgentAction]:
    return AgentAction.objects.for_platform(platform).select_related("customer", "quote", "transaction")


def _locked_action(platform: Platform, agent_id: UUID, action_id: UUID) -> AgentAction:
    rows = (
        AgentAction.objects.for_platform(platform).select_for_update().filter(agent_id=agent_id, pk=action_id)
    )
    action = first_or_404(rows, "AgentAction")
    if action.status != Status.PENDING_APPROVAL:
        raise Conflict(
            f"Action {action.public_id} is {action.status}, not PENDING_APPROVAL", status=action.status
        )
    return action


@transaction.atomic
def agent_action_approve(
    *, platform: Platform, agent_id: UUID, action_id: UUID, decided_by: str
) -> AgentAction:
    """`decided_by` names who approved (the API token), kept for the audit with the time."""
    action = _locked_action(platform, agent_id, action_id)
    action.decided_at, action.decided_by = clock.now(), decided_by
    try:
        with transaction.atomic():
            action.transaction = _execute(action)
        action.status = Status.APPROVED
    except ServiceError as error:
        action.status, action.failure_reason = Status.FAILED, error.message
    action.touch()
    action.save()
    return _rows(platform).get(pk=action.pk)


@transaction.atomic
def agent_action_reject(
    *, platform: Platform, agent_id: UUID, action_id: UUID, reason: str, decided_by: str
) -> AgentAction:
    action = _locked_action(platform, agent_id, action_id)
    action.decided_at, action.decided_by = clock.now(), decided_by
    action.status, action.rejection_reason = Status.REJECTED, reason or "Rejected by the platform"
    action.touch()
    action.save()
    return _rows(platform).get(pk=action.pk)


DELETED_AGENT_REASON = "The agent was deleted"


def agent_actions_keep(*, agent: Agent, decided_by: str) -> None:
    """Before the locked `agent` is deleted: its actions keep its id and name for the audit, and
    those still PENDING_APPROVAL end REJECTED (so they cannot be approved afterwards). The UPDATE waits
    for the row lock of an approval already running and then finds its action no longer pending; an
    approval that comes after finds no action of the agent (404)."""
    rows = AgentAction.objects.filter(agent=agent)
    now = clock.now()
    rows.filter(status=Status.PENDING_APPROVAL).update(
        status=Status.REJECTED,
        rejection_reason=DELETED_AGENT_REASON,
        decided_at=now,
        decided_by=decided_by,
        updated_at=now,
    )
    rows.update(deleted_agent_id=agent.pk, deleted_agent_name=agent.name)


def agent_action_list(*, agent: Agent, status: str | None = None) -> QuerySet[AgentAction]:
    rows = _rows(agent.platform).filter(agent=agent)
    return rows.filter(status=status) if status else rows


def agent_action_get(*, agent: Agent, action_id: UUID) -> AgentAction:
    return first_or_404(_rows(agent.platform).filter(agent=agent, pk=action_id), "AgentAction")


def approval_list(*, platform: Platform, filters: Mapping[str, Any]) -> QuerySet[AgentAction]:
    """The platform's actions waiting for its decision. Filters (all optional): agent_id,
    customer_id, start, end (inclusive)."""
    lookups = {
        "agent_id": "agent_id",
        "customer_id": "customer_id",
        "start": "created_at__gte",
        "end": "created_at__lte",
    }
    return _rows(platform).filter(
        status=Status.PENDING_APPROVAL, **{lookups[k]: v for k, v in filters.items()}
    )
