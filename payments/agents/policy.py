"""An agent's policy: checked against its customer when set, merged field by field when patched,
and enforced on every action it submits (`policy_decide`)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any
from uuid import UUID

from payments import ids, money, rates
from payments.errors import FieldError, Forbidden, InvalidInput
from payments.models import Customer, InternalAccount


def _account_ids(restrictions: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """(field path, value) of every account id the restrictions name."""
    named = [
        (f"policy.accountRestrictions.allowedAccountIds[{i}]", value)
        for i, value in enumerate(restrictions.get("allowedAccountIds") or [])
    ]
    named += [
        (f"policy.accountRestrictions.accountRules[{i}].accountId", rule["accountId"])
        for i, rule in enumerate(restrictions.get("accountRules") or [])
    ]
    return named


def policy_checked(customer: Customer, policy: Mapping[str, Any]) -> dict[str, Any]:
    """`policy` (parsed by AgentPolicySerializer) with its account ids in canonical form; 400 naming
    every account id that is not an internal account of `customer`."""
    policy = copy.deepcopy(dict(policy))
    restrictions = policy.get("accountRestrictions")
    if restrictions is None:
        return policy
    parsed = {path: ids.parse_or_none("InternalAccount", value) for path, value in _account_ids(restrictions)}
    owned = set(
        InternalAccount.objects.filter(
            customer=customer, pk__in=[p for p in parsed.values() if p is not None]
        ).values_list("pk", flat=True)
    )
    errors = [
        FieldError(
            path, "is not an internal account of the agent's customer", {"format": "InternalAccount:<uuid>"}
        )
        for path, account_id in parsed.items()
        if account_id not in owned
    ]
    if errors:
        raise InvalidInput(errors=errors)
    if restrictions.get("allowedAccountIds") is not None:
        restrictions["allowedAccountIds"] = [
            ids.render("InternalAccount", ids.parse("InternalAccount", v))
            for v in restrictions["allowedAccountIds"]
        ]
    for rule in restrictions.get("accountRules") or []:
        rule["accountId"] = ids.render("InternalAccount", ids.parse("InternalAccount", rule["accountId"]))
    return policy


def policy_merged(current: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """`current` with `changes` (an AgentPolicyUpdateRequest): spendingLimits merge field by field,
    every other field given replaces the current one."""
    merged = copy.deepcopy(dict(current))
    for name, value in changes.items():
        if name == "spendingLimits":
            merged["spendingLimits"] = {**merged.get("spendingLimits", {}), **value}
        else:
            merged[name] = value
    return merged


# --- enforcement ---------------------------------------------------------------------------------


class PolicyViolation(Forbidden, code="AGENT_POLICY_VIOLATION"):
    """The agent's policy does not permit this (a permission, an account, a limit, a pause)."""


def in_currency(amount: int, currency: str, target: str) -> int:
    """`amount` of `currency` in `target` at the sandbox mid rate (the reference: "converts using the
    exchange rate at evaluation time"), rounded up, so a limit is never passed by rounding."""
    if currency == target:
        return amount
    value = (
        Fraction(amount)
        * Fraction(rates.usd_value(currency))
        / money.smallest_unit_factor(currency)
        * money.smallest_unit_factor(target)
        / Fraction(rates.usd_value(target))
    )
    return money.cost_round_up(value)


@dataclass(frozen=True)
class Decision:
    approval_required: bool
    usage_amount: int  # in the spending limits' currency


def _rule(policy: Mapping[str, Any], account_id: UUID | None) -> Mapping[str, Any]:
    wanted = ids.render("InternalAccount", account_id) if account_id else None
    rules = (policy.get("accountRestrictions") or {}).get("accountRules") or []
    return next((rule for rule in rules if rule["accountId"] == wanted), {})


def policy_decide(
    *,
    policy: Mapping[str, Any],
    paused: bool,
    usage: Mapping[str, int],
    amount: int,
    currency: str,
    account_id: UUID | None,
) -> Decision:
    """Whether an action of `amount` `currency` from the internal account `account_id` may go ahead at
    once, or needs the platform's approval; PolicyViolation when the policy refuses it outright.
    `usage`: the agent's AgentUsage before it."""
    if paused:
        raise PolicyViolation("The agent is paused; its platform must resume it first")
    restrictions = policy.get("accountRestrictions") or {}
    allowed = restrictions.get("allowedAccountIds")
    if (
        allowed is not None
        and account_id is not None
        and ids.render("InternalAccount", account_id) not in allowed
    ):
        raise PolicyViolation("The account is not one the agent's policy allows", accountId=str(account_id))
    limits = policy["spendingLimits"]
    value = in_currency(amount, currency, limits["currency"])
    rule = _rule(policy, account_id)
    per_transaction = rule.get("perTransactionLimit")
    if per_transaction is None:
        per_transaction = limits["perTransactionLimit"]
    checks = [
        ("perTransactionLimit", per_transaction, value),
        ("dailyLimit", limits.get("dailyLimit"), usage["dailySpend"] + value),
        ("monthlyLimit", limits.get("monthlyLimit"), usage["monthlySpend"] + value),
        ("dailyTransactionLimit", limits.get("dailyTransactionLimit"), usage["dailyTransactionCount"] + 1),
    ]
    for name, limit, reached in checks:
        if limit is not None and reached > limit:
            raise PolicyViolation(
                f"Over the agent's {name} ({limit}{'' if name == 'dailyTransactionLimit' else ' ' + limits['currency']})",
                limit=name,
            )
    mode = rule.get("executionMode") or policy["defaultExecutionMode"]
    threshold = policy.get("approvalThresholds") or {}
    over = (
        threshold.get("amount") is not None
        and in_currency(amount, currency, threshold["currency"]) > threshold["amount"]
    )
    return Decision(approval_required=mode == "APPROVAL_REQUIRED" or over, usage_amount=value)
