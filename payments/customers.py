"""Customers: create, read, update, soft delete, and the KYC/KYB status machine.

`data`/`changes` dicts use snake_case names for the customer's own columns and keep the wire shape
inside the nested objects (`address`, `business_info`, `due_diligence`); `payments.wire.customers`
parses them from request bodies (for the API, the hosted onboarding pages and bulk import).
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Mapping
from typing import Any
from uuid import UUID

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import QuerySet

from payments import clock, events, kyc_rules
from payments.accounts import internal_accounts_close, internal_accounts_provision, platform_currency_codes
from payments.end_user_terms import end_user_terms_get
from payments.errors import BadRequest, Conflict, FieldError, Gone, InvalidInput, first_or_404
from payments.kyc_requirements import verification_ready_check
from payments.models import Customer, CustomerStatus, CustomerStatusChange, Platform, Verification
from payments.state_machines import StateMachine
from payments.verification_status import verification_transition
from payments.wallet_seam import ContactChangeAnswer, contact_change_guard, contact_changes_settle_due
from payments.wire.customers import UPDATE_SERIALIZERS, parse_customer_body
from payments.wire.time import last_instant_rendered_as

Actor = str | AbstractBaseUser
"""Who causes a status change: a staff user, or a label for the service itself ("api", "sandbox")."""

SANDBOX_UMA_DOMAIN = "sandbox.uma.example"

# The KYC/KYB state machine: every allowed move. Entering the current status again is a no-op.
ALLOWED_TRANSITIONS = StateMachine(
    "customer",
    {
        CustomerStatus.UNVERIFIED: {
            CustomerStatus.PENDING,
            CustomerStatus.APPROVED,
            CustomerStatus.REJECTED,
            CustomerStatus.HOLD,
        },
        CustomerStatus.PENDING: {CustomerStatus.APPROVED, CustomerStatus.REJECTED, CustomerStatus.HOLD},
        CustomerStatus.HOLD: {CustomerStatus.PENDING, CustomerStatus.APPROVED, CustomerStatus.REJECTED},
        CustomerStatus.APPROVED: {CustomerStatus.HOLD},
    },
    final=(CustomerStatus.REJECTED,),
    noun="A customer",
    id_detail="customerId",
)
TERMINAL_STATUSES = frozenset({CustomerStatus.APPROVED, CustomerStatus.REJECTED})


# --- reads ---------------------------------------------------------------------------------------


def customer_get(*, platform: Platform, customer_id: UUID, include_deleted: bool = False) -> Customer:
    """The platform's customer; 404 USER_NOT_FOUND when unknown, 410 CUSTOMER_DELETED once deleted."""
    customer = first_or_404(Customer.objects.for_platform(platform).filter(pk=customer_id), "Customer")
    if customer.is_deleted and not include_deleted:
        raise Gone(f"Customer {customer.public_id} has been deleted")
    return customer


def customer_detail(*, platform: Platform, customer_id: UUID) -> Customer:
    """`customer_get` for GET /customers/{id}: a contact change whose (sandbox-slow) wallet operation
    is due is applied first, so the read never waits for a worker."""
    contact_changes_settle_due(customer_id=customer_id)
    return customer_get(platform=platform, customer_id=customer_id)


def customer_get_for_update(*, platform: Platform, customer_id: UUID) -> Customer:
    """`customer_get` with the row locked; call inside a transaction."""
    customers = Customer.objects.for_platform(platform).select_for_update().filter(pk=customer_id)
    customer = first_or_404(customers, "Customer")
    if customer.is_deleted:
        raise Gone(f"Customer {customer.public_id} has been deleted")
    return customer


def customer_list(*, platform: Platform, filters: Mapping[str, Any] | None = None) -> QuerySet[Customer]:
    """Filters (all optional): platform_customer_id, customer_type, region, currency, uma_address,
    created_after/before, updated_after/before (inclusive), include_deleted."""
    filters = dict(filters or {})
    customers = Customer.objects.for_platform(platform)
    if not filters.pop("include_deleted", False):
        customers = customers.filter(deleted_at__isnull=True)
    lookups = {
        "platform_customer_id": "platform_customer_id",
        "customer_type": "customer_type",
        "region": "region",
        "uma_address": "uma_address",
        "created_after": "created_at__gte",
        "created_before": "created_at__lte",
        "updated_after": "updated_at__gte",
        "updated_before": "updated_at__lte",
    }
    for name in ("created_before", "updated_before"):
        if isinstance(filters.get(name), dt.datetime):
            filters[name] = last_instant_rendered_as(filters[name])
    customers = customers.filter(**{lookups[k]: v for k, v in filters.items() if k in lookups})
    if currency := filters.get("currency"):
        # JSON arrays are stored as text on SQLite and jsonb on PostgreSQL; matching the quoted code in
        # the array's text works on both and cannot match a longer code ("USD" vs "USDC").
        customers = customers.filter(currencies__icontains=f'"{currency}"')
    return customers


# --- create / update / delete --------------------------------------------------------------------


def _check_terms(consent: Mapping[str, Any] | None) -> None:
    if consent and end_user_terms_get(consent["terms_version"]) is None:
        raise BadRequest(
            f"Unknown End User Terms version {consent['terms_version']!r}; "
            "GET /customers/end-user-terms gives the current one",
            code="END_USER_TERMS_VERSION_NOT_FOUND",
            errors=[
                FieldError("endUserTermsConsent.termsVersion", "Unknown End User Terms version", {}).as_dict()
            ],
        )


def _check_unique(
    *, platform: Platform, platform_customer_id: str | None, uma_address: str | None, exclude=None
):
    active = Customer.objects.filter(deleted_at__isnull=True)
    if exclude is not None:
        active = active.exclude(pk=exclude)
    if (
        platform_customer_id
        and active.filter(platform=platform, platform_customer_id=platform_customer_id).exists()
    ):
        raise Conflict(
            f"A customer with platformCustomerId {platform_customer_id!r} already exists on this platform",
            field="platformCustomerId",
        )
    if uma_address and active.filter(uma_address=uma_address).exists():
        raise Conflict(
            f"The UMA address {uma_address!r} is already taken", code="UMA_ADDRESS_EXISTS", field="umaAddress"
        )


def _generated_uma_address(platform: Platform) -> str:
    return f"${secrets.token_hex(8)}@{platform.uma_domain or SANDBOX_UMA_DOMAIN}"


def _apply(customer: Customer, data: Mapping[str, Any]) -> None:
    simple = (
        "region",
        "currencies",
        "email",
        "phone_number",
        "uma_address",
        "full_name",
        "birth_date",
        "nationality",
        "address",
        "id_type",
        "country_of_issuance",
    )
    for name in simple:
        if name in data:
            setattr(customer, name, data[name])
    if "identifier" in data:
        customer.identifier = data["identifier"]
    if "due_diligence" in data:
        customer.due_diligence = {**(customer.due_diligence or {}), **data["due_diligence"]}
    if "business_info" in data:
        customer.business_info = {**(customer.business_info or {}), **data["business_info"]}
    if consent := data.get("end_user_terms_consent"):
        customer.terms_accepted_at = consent["accepted_at"]
        customer.terms_ip_address = consent["ip_address"]
        customer.terms_version = consent["terms_version"]
        customer.terms_acceptance_method = consent["acceptance_method"]


def _save_unique(customer: Customer, **kwargs) -> None:
    """Save; a race that slipped past `_check_unique` still answers 409, not 500."""
    try:
        with transaction.atomic():
            customer.save(**kwargs)
    except IntegrityError:
        raise Conflict(
            "platformCustomerId or umaAddress is already used by another customer; retry with other values"
        ) from None


@transaction.atomic
def customer_create(*, platform: Platform, data: Mapping[str, Any], actor: Actor = "api") -> Customer:
    """Create a customer; its first status follows the sandbox rules (see payments.kyc_rules)."""
    _check_terms(data.get("end_user_terms_consent"))
    platform_customer_id = data.get("platform_customer_id") or secrets.token_hex(8)
    uma_address = data.get("uma_address") or _generated_uma_address(platform)
    _check_unique(platform=platform, platform_customer_id=platform_customer_id, uma_address=uma_address)
    customer = Customer(
        platform=platform, customer_type=data["customer_type"], platform_customer_id=platform_customer_id
    )
    # Without a choice the customer uses every currency the platform supports (the reference's "inferred").
    chosen = data.get("currencies") or platform_currency_codes(platform)
    _apply(customer, {**data, "uma_address": uma_address, "currencies": chosen})
    if customer.is_business:
        customer.status = kyc_rules.business_initial_status()
    else:
        customer.status = kyc_rules.individual_initial_status(customer.full_name)
    _save_unique(customer, force_insert=True)
    reason = "created" + (" (sandbox fullName rule)" if kyc_rules.sandbox_rules_apply() else "")
    _record_status(customer, from_status="", actor=actor, reason=reason)
    _on_status_entered(customer)
    events.customer_status_changed(customer)
    return customer


@transaction.atomic
def customer_update(
    *,
    platform: Platform,
    customer_id: UUID,
    changes: Mapping[str, Any],
    body: Any = None,
    wallet_signature: str | None = None,
    request_id: str | None = None,
    simulate_slow: bool = False,
) -> Customer | ContactChangeAnswer:
    """Partial update. `changes["customer_type"]` must name the customer's type (the PATCH discriminator);
    `body` is the JSON body the changes were parsed from (a contact change's signed retry repeats it;
    `simulate_slow`: the sandbox's slow-wallet switch on that retry). Returns what the wallets answer
    instead when the change is theirs to consent to (a challenge, PROCESSING, their error).
    Status is not changed here; see `customer_status_transition`."""
    signed_retry = bool(wallet_signature or request_id)
    if signed_retry:  # its operation locks the customer, after the wallets' rows (their lock order)
        customer = customer_get(platform=platform, customer_id=customer_id)
    else:
        customer = customer_get_for_update(platform=platform, customer_id=customer_id)
    _update_check(customer, changes, platform=platform)
    contact_changed = any(
        name in changes and changes[name] != getattr(customer, name) for name in ("email", "phone_number")
    )
    # A request carrying a signed-retry header is the retry of a contact change, whatever it changes.
    if contact_changed or signed_retry:
        answer = contact_change_guard(
            customer=customer,
            changes=changes,
            body=body,
            wallet_signature=wallet_signature,
            request_id=request_id,
            simulate_slow=simulate_slow,
        )
        if answer is not None:  # always, for a signed retry
            if answer.body is not None:
                return answer
            customer.refresh_from_db()  # the wallets' operation applied it (customer_update_consented)
            return customer
    _update_apply(customer, changes)
    return customer


def customer_update_consented(*, platform: Platform, customer_id: UUID, body: Any) -> Customer:
    """The update of a PATCH `body` whose contact change the customer's wallets consented to, applied
    by their operation (`wallets.contact`) when it settles: parsed, checked and applied as
    `customer_update` would; call inside a transaction."""
    customer = customer_get_for_update(platform=platform, customer_id=customer_id)
    changes = parse_customer_body(
        UPDATE_SERIALIZERS, body, supported_currencies=platform_currency_codes(platform)
    )
    _update_check(customer, changes, platform=platform)
    _update_apply(customer, changes)
    return customer


def _update_check(customer: Customer, changes: Mapping[str, Any], *, platform: Platform) -> None:
    if changes.get("customer_type", customer.customer_type) != customer.customer_type:
        raise InvalidInput(
            errors=[
                FieldError(
                    "customerType",
                    f"This customer is {customer.customer_type}; send customerType {customer.customer_type}",
                    {"enum": [customer.customer_type]},
                )
            ]
        )
    _check_terms(changes.get("end_user_terms_consent"))
    _check_unique(
        platform=platform,
        platform_customer_id=None,
        uma_address=changes.get("uma_address"),
        exclude=customer.pk,
    )


def _update_apply(customer: Customer, changes: Mapping[str, Any]) -> None:
    _apply(customer, changes)
    customer.touch()
    _save_unique(customer)
    if "currencies" in changes and customer.status == CustomerStatus.APPROVED:
        internal_accounts_provision(customer)  # accounts for newly added currencies; existing ones stay
    verification_ready_check(customer)


@transaction.atomic
def customer_delete(*, platform: Platform, customer_id: UUID) -> Customer:
    """Soft delete: the customer stays readable in lists with `isIncludingDeleted`; its platformCustomerId
    and UMA address become free; every later operation on it answers 410 CUSTOMER_DELETED. Its
    internal accounts are CLOSED (INTERNAL_ACCOUNT.STATUS_UPDATED each)."""
    customer = customer_get_for_update(platform=platform, customer_id=customer_id)
    customer.deleted_at = clock.now()
    customer.touch()
    customer.save(update_fields=["deleted_at", "updated_at"])
    internal_accounts_close(customer)
    return customer


# --- the status machine --------------------------------------------------------------------------


def _actor_fields(actor: Actor) -> dict[str, Any]:
    if isinstance(actor, AbstractBaseUser):
        return {"actor": actor.get_username(), "actor_user": actor}
    return {"actor": str(actor), "actor_user": None}


def _record_status(customer: Customer, *, from_status: str, actor: Actor, reason: str) -> None:
    CustomerStatusChange.objects.create(
        customer=customer,
        from_status=from_status,
        to_status=customer.status,
        reason=reason,
        **_actor_fields(actor),
    )


def _on_status_entered(customer: Customer) -> None:
    """Side effects of reaching a status (the row is locked or new)."""
    if customer.status == CustomerStatus.APPROVED:
        internal_accounts_provision(customer)
    if customer.status in TERMINAL_STATUSES:
        # The latest submission under review gets the decision, so GET /verifications/{id} shows it.
        latest = customer.verifications.order_by("-pk").first()
        if latest is not None and latest.status in (
            Verification.Status.PENDING_MANUAL_REVIEW,
            Verification.Status.IN_PROGRESS,
        ):
            verification_transition(latest, customer.status)
        if customer.is_business:
            beneficial_owners_resolve(customer)


def beneficial_owners_resolve(customer: Customer) -> None:
    """Apply the owners' outcome once their business has been decided (APPROVED or REJECTED)."""
    if customer.status not in TERMINAL_STATUSES:
        return
    for owner in customer.beneficial_owners.select_for_update().order_by("pk"):
        status = kyc_rules.owner_status_on_business_resolution(
            (owner.personal_info or {}).get("lastName"), customer.status
        )
        if owner.kyc_status != status:
            owner.kyc_status = status
            owner.touch()
            owner.save(update_fields=["kyc_status", "updated_at"])


@transaction.atomic
def customer_status_transition(customer: Customer, to: str, *, actor: Actor, reason: str = "") -> Customer:
    """Move a customer's KYC/KYB status along ALLOWED_TRANSITIONS: the one way any status changes
    (API verification, sandbox rules, admin review).

    Locks the row, is a no-op when the customer is already in `to`, raises IllegalTransition
    (409) for a move the table does not allow, records who/when/from/to/why, and runs the side
    effects of the new status (accounts on approval, owners' outcome, the verification under review).
    Returns the locked, updated customer; the instance passed in is refreshed too.
    """
    to = CustomerStatus(to)
    locked = ALLOWED_TRANSITIONS.lock(customer)
    if locked.is_deleted:
        raise Gone(f"Customer {locked.public_id} has been deleted")
    from_status = ALLOWED_TRANSITIONS.move(locked, to, locked=True).from_status
    if from_status is not None:
        _record_status(locked, from_status=from_status, actor=actor, reason=reason)
        _on_status_entered(locked)
        events.customer_status_changed(locked)
    customer.status, customer.updated_at = locked.status, locked.updated_at
    return locked


def consent_is_recorded(customer: Customer, *, at: dt.datetime | None = None) -> bool:
    """Whether the customer accepted the End User Terms (quotes need it for unregulated platforms)."""
    return customer.terms_accepted_at is not None and customer.terms_accepted_at <= (at or clock.now())
