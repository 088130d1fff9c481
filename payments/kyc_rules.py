"""The sandbox's KYC/KYB magic values (interface spec, "Sandbox customer verification states").

Each rule reads the last three characters of one field. In production mode none applies: customers
start UNVERIFIED, verification always runs the normal checks, and staff decide in the admin review.
"""

from __future__ import annotations

import enum

from django.conf import settings

from payments.models import CustomerStatus


def sandbox_rules_apply() -> bool:
    return bool(getattr(settings, "SANDBOX", True)) and not getattr(settings, "PRODUCTION", False)


def _suffix(value: str | None) -> str:
    return (value or "").strip()[-3:]


def individual_initial_status(full_name: str | None) -> CustomerStatus:
    """New individual: fullName ending 001 → PENDING, 002 → REJECTED, 003 → UNVERIFIED, else APPROVED."""
    if not sandbox_rules_apply():
        return CustomerStatus.UNVERIFIED
    return {
        "001": CustomerStatus.PENDING,
        "002": CustomerStatus.REJECTED,
        "003": CustomerStatus.UNVERIFIED,
    }.get(_suffix(full_name), CustomerStatus.APPROVED)


def business_initial_status() -> CustomerStatus:
    return CustomerStatus.UNVERIFIED


class BusinessDecision(enum.Enum):
    NORMAL_VALIDATION = "normal"
    REJECT = "reject"
    APPROVE = "approve"


def business_verification_decision(registration_number: str | None) -> BusinessDecision:
    """On verification: registrationNumber ending 001/003 → normal validation, 002 → rejected at once,
    any other ending → approved at once. A missing number has no ending, so it is validated normally
    (and reported missing)."""
    if not sandbox_rules_apply() or not (registration_number or "").strip():
        return BusinessDecision.NORMAL_VALIDATION
    suffix = _suffix(registration_number)
    if suffix in ("001", "003"):
        return BusinessDecision.NORMAL_VALIDATION
    if suffix == "002":
        return BusinessDecision.REJECT
    return BusinessDecision.APPROVE


def individual_poor_quality_document(full_name: str | None) -> bool:
    """fullName ending 003 with complete data: the identity document is reported as poor quality."""
    return sandbox_rules_apply() and _suffix(full_name) == "003"


def owner_status_on_business_resolution(last_name: str | None, business_status: str) -> CustomerStatus:
    """When the business reaches APPROVED or REJECTED: owner lastName 001 → PENDING, 002 → REJECTED,
    else APPROVED. Without the sandbox rules the owners follow the business's decision."""
    if not sandbox_rules_apply():
        return CustomerStatus(business_status)
    return {"001": CustomerStatus.PENDING, "002": CustomerStatus.REJECTED}.get(
        _suffix(last_name), CustomerStatus.APPROVED
    )
