"""KYC/KYB verification: submitting a customer for a decision, a reviewer starting the review, reads.
What a customer still has to supply is `payments/kyc_requirements.py`."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.db import transaction
from django.db.models import QuerySet

from payments import clock, events, kyc_rules
from payments.customers import Actor, customer_get_for_update, customer_status_transition
from payments.errors import BadRequest, Conflict, first_or_404
from payments.kyc_requirements import identity_document, verification_problems
from payments.models import Customer, CustomerStatus, Platform, Verification
from payments.verification_status import verification_transition


def _poor_quality(customer: Customer) -> list[dict[str, Any]]:
    document = identity_document(customer)
    return [
        {
            "resourceId": document.public_id if document else customer.public_id,
            "type": "POOR_QUALITY_DOCUMENT",
            "reason": "The identity document is blurred or cropped; upload a clearer image with PUT /documents/{id}",
        }
    ]


@transaction.atomic
def verification_submit(*, platform: Platform, customer_id: UUID, actor: Actor = "api") -> Verification:
    """Submit a customer for KYC/KYB (`POST /verifications`) and return the outcome.

    Incomplete → RESOLVE_ERRORS with one error per problem. Complete → PENDING_MANUAL_REVIEW and the
    customer moves to PENDING, to be decided in the admin review. Sandbox rules (payments.kyc_rules):
    a business is approved or rejected at once by its registrationNumber suffix, and an individual
    whose fullName ends 003 gets POOR_QUALITY_DOCUMENT. A customer already APPROVED or REJECTED → 400.
    """
    customer = customer_get_for_update(platform=platform, customer_id=customer_id)
    if customer.status in (CustomerStatus.APPROVED, CustomerStatus.REJECTED):
        kind = "KYB" if customer.is_business else "KYC"
        raise BadRequest(
            f"Customer {customer.public_id} is already {customer.status}; there is nothing to verify",
            customerId=customer.public_id,
            **{f"{kind.lower()}Status": customer.status},
        )

    if customer.is_business:
        decision = kyc_rules.business_verification_decision(customer.registration_number)
        if decision is not kyc_rules.BusinessDecision.NORMAL_VALIDATION:
            outcome = (
                CustomerStatus.APPROVED
                if decision is kyc_rules.BusinessDecision.APPROVE
                else CustomerStatus.REJECTED
            )
            verification = Verification.objects.create(platform=platform, customer=customer, status=outcome)
            events.verification_status_changed(verification)
            customer_status_transition(
                customer, outcome, actor="sandbox", reason="sandbox registrationNumber rule on verification"
            )
            return verification

    problems = verification_problems(customer)
    if (
        not problems
        and not customer.is_business
        and kyc_rules.individual_poor_quality_document(customer.full_name)
    ):
        problems = _poor_quality(customer)
    if problems:
        verification = Verification.objects.create(
            platform=platform, customer=customer, status=Verification.Status.RESOLVE_ERRORS, errors=problems
        )
        events.verification_status_changed(verification)
        return verification

    verification = Verification.objects.create(
        platform=platform, customer=customer, status=Verification.Status.PENDING_MANUAL_REVIEW
    )
    events.verification_status_changed(verification)
    customer.documents.filter(submitted_at__isnull=True).update(submitted_at=clock.now())
    customer_status_transition(customer, CustomerStatus.PENDING, actor=actor, reason="verification submitted")
    return verification


@transaction.atomic
def verification_review_start(*, customer: Customer) -> Verification:
    """A reviewer takes the customer's submission waiting for a manual review (the admin's "Start
    review"): PENDING_MANUAL_REVIEW → IN_PROGRESS, with VERIFICATION.IN_PROGRESS. 409 when none waits."""
    customer = customer_get_for_update(platform=customer.platform, customer_id=customer.pk)
    latest = customer.verifications.order_by("-pk").first()
    if latest is None or latest.status != Verification.Status.PENDING_MANUAL_REVIEW:
        raise Conflict(
            f"No verification of customer {customer.public_id} waits for a manual review",
            customerId=customer.public_id,
            verificationStatus=latest.status if latest else None,
        )
    return verification_transition(latest, Verification.Status.IN_PROGRESS)


def verification_get(*, platform: Platform, verification_id: UUID) -> Verification:
    return first_or_404(
        Verification.objects.for_platform(platform).filter(pk=verification_id), "Verification"
    )


def verification_list(
    *, platform: Platform, customer_id: UUID | None = None, status: str | None = None
) -> QuerySet[Verification]:
    verifications = Verification.objects.for_platform(platform)
    if customer_id is not None:
        verifications = verifications.filter(customer_id=customer_id)
    if status:
        verifications = verifications.filter(status=status)
    return verifications
