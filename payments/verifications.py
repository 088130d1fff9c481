"""KYC/KYB verification: what a customer still has to supply, and submitting them for a decision."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.db import transaction
from django.db.models import QuerySet

from payments import clock, events, kyc_rules
from payments.customers import Actor, customer_get_for_update, customer_status_transition
from payments.errors import BadRequest, Conflict, first_or_404
from payments.models import Customer, CustomerStatus, Document, Platform, Verification
from payments.verification_status import verification_transition

IDENTITY_DOCUMENT_TYPES = (Document.Type.PASSPORT, Document.Type.DRIVERS_LICENSE, Document.Type.NATIONAL_ID)
LEGAL_PRESENCE_DOCUMENT_TYPES = (
    Document.Type.CERTIFICATE_OF_INCORPORATION,
    Document.Type.ARTICLES_OF_INCORPORATION,
    Document.Type.ARTICLES_OF_ASSOCIATION,
    Document.Type.STATE_REGISTRY_EXCERPT,
)

_INDIVIDUAL_FIELDS = (
    ("fullName", "full_name", "the full name"),
    ("birthDate", "birth_date", "the date of birth"),
    ("nationality", "nationality", "the nationality"),
    ("address", "address", "the residential address"),
)
_US_TAX_FIELDS = (
    ("idType", "id_type", "the identification type (SSN or ITIN for US nationals)"),
    ("identifier", "identifier_sealed", "the identification number"),
)
_BUSINESS_INFO_FIELDS = (
    ("legalName", "the legal name"),
    ("country", "the country of incorporation"),
    ("registrationNumber", "the registration number"),
    ("taxId", "the tax identification number"),
    ("incorporatedOn", "the date of incorporation"),
)


def _missing_field(resource_id: str, field: str, what: str) -> dict[str, Any]:
    return {"resourceId": resource_id, "type": "MISSING_FIELD", "field": field, "reason": f"Provide {what}"}


def _missing_document(resource_id: str, error_type: str, accepted, what: str) -> dict[str, Any]:
    return {
        "resourceId": resource_id,
        "type": error_type,
        "acceptedDocumentTypes": [str(t) for t in accepted],
        "reason": f"Upload {what}",
    }


def _identity_document(customer: Customer, owner=None) -> Document | None:
    return (
        customer.documents.filter(beneficial_owner=owner, document_type__in=IDENTITY_DOCUMENT_TYPES)
        .order_by("-pk")
        .first()
    )


def verification_problems(customer: Customer) -> list[dict[str, Any]]:
    """Everything the customer still lacks, one VerificationError (wire shape) per problem, in a stable
    order. Empty means the data and documents are complete. The hosted onboarding pages use this to
    know which steps to show."""
    problems: list[dict[str, Any]] = []
    rid = customer.public_id
    if not customer.is_business:
        fields = _INDIVIDUAL_FIELDS + (_US_TAX_FIELDS if customer.nationality == "US" else ())
        problems += [
            _missing_field(rid, wire, what) for wire, attr, what in fields if not getattr(customer, attr)
        ]
        if _identity_document(customer) is None:
            problems.append(
                _missing_document(
                    rid, "MISSING_IDENTITY_DOCUMENT", IDENTITY_DOCUMENT_TYPES, "an identity document"
                )
            )
        return problems

    info = customer.business_info or {}
    problems += [
        _missing_field(rid, f"businessInfo.{name}", what)
        for name, what in _BUSINESS_INFO_FIELDS
        if not info.get(name)
    ]
    if not customer.address:
        problems.append(_missing_field(rid, "address", "the principal place of business"))
    if not customer.documents.filter(
        beneficial_owner=None, document_type__in=LEGAL_PRESENCE_DOCUMENT_TYPES
    ).exists():
        problems.append(
            _missing_document(
                rid,
                "MISSING_LEGAL_PRESENCE_DOCUMENT",
                LEGAL_PRESENCE_DOCUMENT_TYPES,
                "a document proving the business exists (e.g. certificate of incorporation)",
            )
        )
    owners = list(customer.beneficial_owners.order_by("pk"))
    if not owners:
        problems.append(
            {
                "resourceId": rid,
                "type": "MISSING_BENEFICIAL_OWNER",
                "reason": "Add the control person and every beneficial owner holding 25% or more",
            }
        )
    for owner in owners:
        if _identity_document(customer, owner) is None:
            problems.append(
                _missing_document(
                    owner.public_id,
                    "MISSING_IDENTITY_DOCUMENT",
                    IDENTITY_DOCUMENT_TYPES,
                    "an identity document for this beneficial owner",
                )
            )
    return problems


def _poor_quality(customer: Customer) -> list[dict[str, Any]]:
    document = _identity_document(customer)
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
