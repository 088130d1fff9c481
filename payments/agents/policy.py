"""An agent's policy: checked against its customer when set, merged field by field when patched."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from payments import ids
from payments.errors import FieldError, InvalidInput
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
