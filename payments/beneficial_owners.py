"""Beneficial owners, directors and officers of business customers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import UUID

from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import QuerySet

from payments.customers import (
    TERMINAL_STATUSES,
    beneficial_owners_resolve,
    customer_get,
    customer_get_for_update,
)
from payments.errors import Conflict, FieldError, InvalidInput, first_or_404
from payments.kyc_requirements import verification_ready_check
from payments.models import BeneficialOwner, Customer, Platform


def _require_business(customer: Customer) -> None:
    if not customer.is_business:
        raise InvalidInput(
            errors=[
                FieldError(
                    "customerId",
                    f"{customer.public_id} is an individual customer; beneficial owners belong to business customers",
                    {"customerType": "BUSINESS"},
                )
            ]
        )


def _set_personal_info(owner: BeneficialOwner, info: Mapping[str, Any]) -> None:
    info = dict(info)
    if "identifier" in info:
        owner.identifier = info.pop("identifier")
    owner.personal_info = {**(owner.personal_info or {}), **info}


@transaction.atomic
def beneficial_owner_create(
    *, platform: Platform, customer_id: UUID, data: Mapping[str, Any]
) -> BeneficialOwner:
    """`data`: roles, ownership_percentage, personal_info (wire shape of BeneficialOwnerPersonalInfo).

    The owner's kycStatus is UNVERIFIED until its business is decided; an owner added to a business
    that is already decided gets its outcome at once (sandbox lastName rule)."""
    customer = customer_get_for_update(platform=platform, customer_id=customer_id)
    _require_business(customer)
    owner = BeneficialOwner(
        platform=platform,
        customer=customer,
        roles=list(data["roles"]),
        ownership_percentage=data["ownership_percentage"],
    )
    _set_personal_info(owner, data["personal_info"])
    owner.save(force_insert=True)
    if customer.status in TERMINAL_STATUSES:
        beneficial_owners_resolve(customer)
        owner.refresh_from_db()
    verification_ready_check(customer)
    return owner


def beneficial_owner_get(*, platform: Platform, owner_id: UUID) -> BeneficialOwner:
    owners = BeneficialOwner.objects.for_platform(platform).select_related("customer").filter(pk=owner_id)
    return first_or_404(owners, "BeneficialOwner")


def _owner_for_update(platform: Platform, owner_id: UUID) -> BeneficialOwner:
    owners = BeneficialOwner.objects.for_platform(platform).select_for_update().filter(pk=owner_id)
    return first_or_404(owners, "BeneficialOwner")


@transaction.atomic
def beneficial_owner_update(
    *, platform: Platform, owner_id: UUID, changes: Mapping[str, Any]
) -> BeneficialOwner:
    """Partial update: only the given fields (and, inside personal_info, only the given keys) change."""
    owner = _owner_for_update(platform, owner_id)
    customer = customer_get_for_update(platform=platform, customer_id=owner.customer_id)
    if "roles" in changes:
        owner.roles = list(changes["roles"])
    if "ownership_percentage" in changes:
        owner.ownership_percentage = changes["ownership_percentage"]
    if "personal_info" in changes:
        _set_personal_info(owner, changes["personal_info"])
    owner.touch()
    owner.save()
    if customer.status in TERMINAL_STATUSES:
        beneficial_owners_resolve(customer)
        owner.refresh_from_db()
    verification_ready_check(customer)
    return owner


def beneficial_owner_list(*, platform: Platform, customer_id: UUID) -> QuerySet[BeneficialOwner]:
    customer = customer_get(platform=platform, customer_id=customer_id)
    _require_business(customer)
    return BeneficialOwner.objects.for_platform(platform).filter(customer=customer)


@transaction.atomic
def beneficial_owner_delete(*, platform: Platform, owner_id: UUID) -> None:
    """Remove an owner and its documents (the hosted onboarding pages' "Remove"). Refused (409) once
    the business is decided or one of the owner's documents went to a verification review."""
    owner = _owner_for_update(platform, owner_id)
    customer = customer_get_for_update(platform=platform, customer_id=owner.customer_id)
    if customer.status in TERMINAL_STATUSES or owner.documents.filter(submitted_at__isnull=False).exists():
        raise Conflict(f"Beneficial owner {owner.public_id} was already submitted for verification")
    names = [document.file.name for document in owner.documents.all()]
    owner.delete()  # its documents go with it (on_delete=CASCADE)
    transaction.on_commit(lambda: [default_storage.delete(name) for name in names])
