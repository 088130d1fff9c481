"""What a customer must supply before a KYC/KYB submission can be judged (`verification_problems`),
and the move of a submission that listed problems to READY_FOR_VERIFICATION once they are all
resolved (`verification_ready_check`, called by every change of the customer's data, documents and
owners). The submission itself is `payments/verifications.py`."""

from __future__ import annotations

from typing import Any

from payments import ids
from payments.models import Customer, Document, Verification
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


def identity_document(customer: Customer, owner=None) -> Document | None:
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
        if identity_document(customer) is None:
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
        if identity_document(customer, owner) is None:
            problems.append(
                _missing_document(
                    owner.public_id,
                    "MISSING_IDENTITY_DOCUMENT",
                    IDENTITY_DOCUMENT_TYPES,
                    "an identity document for this beneficial owner",
                )
            )
    return problems


def verification_ready_check(customer: Customer) -> Verification | None:
    """Move the customer's latest submission from RESOLVE_ERRORS to READY_FOR_VERIFICATION (with
    VERIFICATION.READY_FOR_VERIFICATION) once nothing it listed is lacking any more: no problem is
    left, and a document reported as poor quality was replaced since. Call it inside the
    transaction of the change, with the customer row locked. Returns the verification it moved."""
    latest = customer.verifications.order_by("-pk").first()
    if latest is None or latest.status != Verification.Status.RESOLVE_ERRORS:
        return None
    if verification_problems(customer) or _documents_to_replace(latest):
        return None
    return verification_transition(latest, Verification.Status.READY_FOR_VERIFICATION)


def _documents_to_replace(verification: Verification) -> bool:
    """Whether a document the submission found unusable is still the one it judged."""
    for error in verification.errors:
        if error.get("type") != "POOR_QUALITY_DOCUMENT":
            continue
        document_id = ids.parse_or_none(Document.ID_KIND, error.get("resourceId", ""))
        if (
            document_id is None
            or not Document.objects.filter(pk=document_id, updated_at__gt=verification.created_at).exists()
        ):
            return True
    return False
