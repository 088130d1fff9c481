"""External accounts: create, read, list, delete, the status machine and the sandbox name check.

Decisions where the interface spec and the reference leave room:

- Owner: with `customer_id` the account is the customer's, without it the platform's (the
  reference's `customerId` is optional on `POST /customers/external-accounts`). The customer must
  be on the same platform (404 USER_NOT_FOUND) and not deleted (410 CUSTOMER_DELETED).
- Currency must be one of the account type's currencies; `SWIFT_ACCOUNT` takes any known fiat one.
- Duplicates: the same owner, type, currency, primary identifier and (where the type requires
  them) clearing codes (routing number, sort code, bank/branch code, SWIFT code) is one account; a
  second create answers 409 CONFLICT (the reference's "External account already exists"). EVM
  addresses compare case-insensitively, IBANs in upper case. Deleted accounts do not count.
- First status: self-custody (no `vaspName`) wallets created as `FIRST_PARTY` start
  `PENDING_OWNERSHIP_VERIFICATION` (the reference: ownership verification applies to FIRST_PARTY
  self-custody crypto wallets); Lightning is excluded, as a Lightning address or invoice has no
  key of its own to sign with. Every other account starts ACTIVE.
- `beneficiaryVerificationStatus`: in the sandbox, from the last three digits of the primary
  identifier (interface spec 1xx table; 105 → 400 INVALID_BANK_ACCOUNT and nothing is stored). In
  production mode no magic value applies and the status is PENDING: no name check has been made,
  and the rail adapter that makes one is the place to resolve it.
- DELETE moves the account to INACTIVE (emitting the status webhook) and hides it: reads answer
  404 and its identity is free to be registered again. The row stays for transaction history.
- Creation is not a status change, so it emits no `EXTERNAL_ACCOUNT.STATUS_UPDATED`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import QuerySet

from payments import clock, currencies
from payments.account_info.account_types import ACCOUNT_TYPES, EXTERNAL_ACCOUNT_TYPES
from payments.account_info.sandbox import (
    InvalidSandboxAccount,
    primary_identifier,
    sandbox_beneficiary_status,
    sandbox_suffix,
)
from payments.account_info.validation import validate_account_info
from payments.customers import customer_get
from payments.directory import vasp_name_errors
from payments.errors import BadRequest, Conflict, FieldError, InvalidInput, first_or_404
from payments.models import ExternalAccount, ExternalAccountStatus, ExternalAccountStatusChange, Platform
from payments.state_machines import StateMachine
from payments.webhook_types import WebhookType
from payments.webhooks import webhook_emit
from payments.wire.accounts import render_external_account

Status = ExternalAccountStatus

# The status machine: every allowed move. Entering the current status again is a no-op.
ALLOWED_TRANSITIONS = StateMachine(
    "external account",
    {
        Status.PENDING: {Status.ACTIVE, Status.UNDER_REVIEW, Status.INACTIVE},
        Status.UNDER_REVIEW: {Status.ACTIVE, Status.INACTIVE},
        Status.ACTIVE: {Status.UNDER_REVIEW, Status.INACTIVE},
        # Ownership verification: success → ACTIVE, a failed attempt → UNVERIFIED, a new challenge
        # after a failure → back to PENDING_OWNERSHIP_VERIFICATION.
        Status.PENDING_OWNERSHIP_VERIFICATION: {Status.ACTIVE, Status.UNVERIFIED, Status.INACTIVE},
        Status.UNVERIFIED: {Status.PENDING_OWNERSHIP_VERIFICATION, Status.INACTIVE},
    },
    final=(Status.INACTIVE,),
    noun="An external account",
    id_detail="externalAccountId",
)

# Fields that, next to the primary identifier, tell two accounts apart (when the type requires them).
_CLEARING_CODES = ("routingNumber", "sortCode", "bankCode", "branchCode", "ifsc", "swiftCode")
_EVM_NETWORKS = frozenset({"ETHEREUM", "BASE", "POLYGON", "PLASMA"})
_NO_OWNERSHIP_VERIFICATION = frozenset({"LIGHTNING"})
_ADDRESS_FIELDS = ("line1", "line2", "city", "state", "postalCode", "country")
_FIAT_CURRENCIES = tuple(code for code, c in currencies.CURRENCIES.items() if not c.crypto)


# --- validation ----------------------------------------------------------------------------------


def _currency_errors(currency: object, account_info: object) -> list[FieldError]:
    if not isinstance(currency, str):
        return []  # missing or mistyped: reported by the request parser
    account_type = account_info.get("accountType") if isinstance(account_info, Mapping) else None
    known = isinstance(account_type, str) and account_type in EXTERNAL_ACCOUNT_TYPES  # any JSON value
    spec = ACCOUNT_TYPES[account_type] if known else None
    if spec is None:
        allowed: tuple[str, ...] = tuple(currencies.CURRENCIES)
        message = "is not a supported currency"
    elif spec.currencies:
        allowed = spec.currencies
        message = f"must be {' or '.join(allowed)} for a {account_type}"
    else:
        allowed = _FIAT_CURRENCIES
        message = f"must be a supported fiat currency for a {account_type}"
    return [] if currency in allowed else [FieldError("currency", message, {"enum": list(allowed)})]


def external_account_input_errors(*, currency: object, account_info: object) -> list[FieldError]:
    """Every problem with `currency` and `accountInfo` together (field paths from the body's root)."""
    errors = validate_account_info(account_info, path="accountInfo", allowed_types=EXTERNAL_ACCOUNT_TYPES)
    return [*errors, *vasp_name_errors(account_info), *_currency_errors(currency, account_info)]


# --- identifiers and sandbox outcomes ------------------------------------------------------------


def _primary_field(account_type: str, info: Mapping[str, Any]) -> str:
    for name in ACCOUNT_TYPES[account_type].primary_identifier:
        value = info.get(name)
        if isinstance(value, str) and value:
            return name
    raise ValueError(f"{account_type} account info has no primary identifier")


def external_account_primary_identifier(account: ExternalAccount) -> str:
    """The value that identifies the account (account number, IBAN, CLABE, PIX key, wallet address…)."""
    return primary_identifier(account.account_type, account.account_info)


def external_account_sandbox_suffix(account: ExternalAccount) -> str:
    """The magic suffix of the account's primary identifier for the sandbox outcome tables ("002"…);
    "" in production mode or when the identifier does not end in three digits."""
    if not settings.SANDBOX:
        return ""
    return sandbox_suffix(external_account_primary_identifier(account))


def _identity_key(account_type: str, currency: str, info: Mapping[str, Any]) -> str:
    spec = ACCOUNT_TYPES[account_type]
    identifier = primary_identifier(account_type, info).strip()
    if spec.network in _EVM_NETWORKS:
        identifier = identifier.lower()
    elif _primary_field(account_type, info) == "iban":
        identifier = identifier.upper()
    parts = [account_type, currency, identifier]
    parts += [f"{name}={info.get(name, '')}" for name in _CLEARING_CODES if name in spec.required]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def _beneficiary_status(account_type: str, info: Mapping[str, Any]) -> str:
    """The sandbox 1xx table; raises BadRequest INVALID_BANK_ACCOUNT for the 105 account."""
    if not settings.SANDBOX:
        return ExternalAccount.BeneficiaryVerificationStatus.PENDING
    try:
        return sandbox_beneficiary_status(primary_identifier(account_type, info))
    except InvalidSandboxAccount as exc:
        field = f"accountInfo.{_primary_field(account_type, info)}"
        raise BadRequest(
            f"The account is invalid (sandbox account ending in {exc.suffix})",
            code="INVALID_BANK_ACCOUNT",
            field=field,
        ) from None


def _beneficiary_name(info: Mapping[str, Any]) -> str:
    beneficiary = info.get("beneficiary")
    if not isinstance(beneficiary, Mapping):
        return ""
    return str(beneficiary.get("fullName") or beneficiary.get("legalName") or "")


def ownership_verification_applies(account_type: str, info: Mapping[str, Any], ownership_type: str) -> bool:
    """Whether an account must prove its ownership: a FIRST_PARTY self-custody wallet (no
    `vaspName`), Lightning aside (see the module docstring)."""
    spec = ACCOUNT_TYPES[account_type]
    self_custody = spec.network is not None and not info.get("vaspName")
    return (
        self_custody
        and ownership_type == ExternalAccount.OwnershipType.FIRST_PARTY
        and spec.network not in _NO_OWNERSHIP_VERIFICATION
    )


def _first_status(account_type: str, info: Mapping[str, Any], ownership_type: str) -> str:
    if ownership_verification_applies(account_type, info, ownership_type):
        return Status.PENDING_OWNERSHIP_VERIFICATION
    return Status.ACTIVE


def _stored_info(account_type: str, info: Mapping[str, Any]) -> dict[str, Any]:
    """The wire shape we keep: known fields only, and `paymentRails` for fiat types (the reference's
    response requires it; without a choice in the request, every rail of the type)."""
    spec = ACCOUNT_TYPES[account_type]
    stored: dict[str, Any] = {"accountType": account_type}
    stored.update({name: info[name] for name in spec.fields if info.get(name) is not None})
    if spec.payment_rails:
        rails = info.get("paymentRails")
        stored["paymentRails"] = list(dict.fromkeys(rails)) if rails else list(spec.payment_rails)
    beneficiary = info.get("beneficiary")
    if spec.beneficiary is not None and isinstance(beneficiary, Mapping):
        known = {"beneficiaryType", *spec.beneficiary.fields}
        kept = {k: v for k, v in beneficiary.items() if k in known and v is not None}
        if isinstance(beneficiary.get("address"), Mapping):
            address = beneficiary["address"]
            kept["address"] = {k: address[k] for k in _ADDRESS_FIELDS if address.get(k) is not None}
        stored["beneficiary"] = kept
    return stored


# --- reads ---------------------------------------------------------------------------------------


def external_account_get(
    *, platform: Platform, account_id: UUID, platform_owned: bool = False, include_deleted: bool = False
) -> ExternalAccount:
    """The platform's external account (404 NOT_FOUND when unknown or deleted).

    `platform_owned=True` limits it to the platform's own accounts (the `/platform/...` paths).
    `include_deleted=True` also finds deleted (INACTIVE) accounts, e.g. for transaction history.
    """
    accounts = ExternalAccount.objects.for_platform(platform).filter(pk=account_id)
    if platform_owned:
        accounts = accounts.filter(customer__isnull=True)
    if not include_deleted:
        accounts = accounts.filter(deleted_at__isnull=True)
    account = first_or_404(accounts, "ExternalAccount")
    return account


def external_account_list(
    *,
    platform: Platform,
    platform_owned: bool = False,
    customer_id: UUID | None = None,
    currency: str | None = None,
) -> QuerySet[ExternalAccount]:
    """The platform's live accounts (all owners, or only its own with `platform_owned`), filtered."""
    accounts = ExternalAccount.objects.for_platform(platform).filter(deleted_at__isnull=True)
    if platform_owned:
        accounts = accounts.filter(customer__isnull=True)
    if customer_id is not None:
        accounts = accounts.filter(customer_id=customer_id)
    if currency:
        accounts = accounts.filter(currency=currency)
    return accounts


# --- writes --------------------------------------------------------------------------------------


@transaction.atomic
def external_account_create(
    *,
    platform: Platform,
    customer_id: UUID | None = None,
    currency: str,
    account_info: Mapping[str, Any],
    platform_account_id: str = "",
    ownership_type: str = "",
    default_uma_deposit_account: bool = False,
) -> ExternalAccount:
    """Register an external account for a customer (`customer_id`) or for the platform (None).

    Validates `currency` and `account_info` (InvalidInput listing every problem), checks the
    customer, runs the sandbox name check (105 → 400 INVALID_BANK_ACCOUNT), refuses a duplicate
    (409 CONFLICT) and stores the account. Nothing is stored when any of these fails.
    """
    errors = external_account_input_errors(currency=currency, account_info=account_info)
    if default_uma_deposit_account and customer_id is None:
        errors.append(
            FieldError("defaultUmaDepositAccount", "applies only to a customer's account", {"enum": [False]})
        )
    if errors:
        raise InvalidInput(errors=errors)
    customer = None
    if customer_id is not None:
        customer = customer_get(platform=platform, customer_id=customer_id)
    account_type = account_info["accountType"]
    identity_key = _identity_key(account_type, currency, account_info)
    if _live_duplicates(platform=platform, customer=customer, identity_key=identity_key).exists():
        raise _duplicate()
    verification = _beneficiary_status(account_type, account_info)
    account = ExternalAccount(
        platform=platform,
        customer=customer,
        account_type=account_type,
        currency=currency,
        status=_first_status(account_type, account_info, ownership_type),
        account_info=_stored_info(account_type, account_info),
        identity_key=identity_key,
        platform_account_id=platform_account_id,
        ownership_type=ownership_type,
        default_uma_deposit_account=default_uma_deposit_account,
        beneficiary_verification_status=verification,
        beneficiary_verified_name=(
            _beneficiary_name(account_info)[:255]
            if verification == ExternalAccount.BeneficiaryVerificationStatus.MATCHED
            else ""
        ),
    )
    if default_uma_deposit_account:
        # At most one default per customer: the new one replaces the old (reference).
        _live_duplicates(platform=platform, customer=customer, identity_key=None).filter(
            default_uma_deposit_account=True
        ).update(default_uma_deposit_account=False, updated_at=clock.now())
    try:
        with transaction.atomic():
            account.save(force_insert=True)
    except IntegrityError:
        raise _duplicate() from None  # a concurrent create of the same account won
    return account


def _live_duplicates(*, platform: Platform, customer, identity_key: str | None) -> QuerySet[ExternalAccount]:
    accounts = ExternalAccount.objects.for_platform(platform).filter(
        customer=customer, deleted_at__isnull=True
    )
    return accounts if identity_key is None else accounts.filter(identity_key=identity_key)


def _duplicate() -> Conflict:
    return Conflict("This external account already exists for this owner", field="accountInfo")


@transaction.atomic
def external_account_delete(*, platform: Platform, account_id: UUID, platform_owned: bool = False) -> None:
    """Soft delete: INACTIVE (with its webhook), then hidden from every read. A trusted beneficiary
    (`payments.sca.trust`) is refused: 409 BENEFICIARY_TRUSTED, untrust it first."""
    account = external_account_get(platform=platform, account_id=account_id, platform_owned=platform_owned)
    account = ExternalAccount.objects.select_for_update().get(pk=account.pk)
    if account.sca_trusted_at is not None:
        raise Conflict(
            f"External account {account.public_id} is a trusted beneficiary; untrust it first "
            "(POST /customers/external-accounts/{externalAccountId}/untrust and its /confirm), then delete it",
            code="BENEFICIARY_TRUSTED",
            externalAccountId=account.public_id,
        )
    account = external_account_status_transition(account, Status.INACTIVE, reason="deleted")
    account.deleted_at = clock.now()
    account.default_uma_deposit_account = False
    account.touch()
    account.save(update_fields=["deleted_at", "default_uma_deposit_account", "updated_at"])


# --- the status machine --------------------------------------------------------------------------


@transaction.atomic
def external_account_status_transition(
    account: ExternalAccount, to: str, *, reason: str = ""
) -> ExternalAccount:
    """Move an account's status along ALLOWED_TRANSITIONS: the one way any status changes.

    Locks the row, is a no-op when the account is already in `to`, raises
    IllegalTransition (409) for a move the table does not allow, records a history
    row and emits `EXTERNAL_ACCOUNT.STATUS_UPDATED` in the same transaction. Returns the locked,
    updated account; the instance passed in is refreshed too.
    """
    to = Status(to)
    locked, from_status = ALLOWED_TRANSITIONS.move(account, to)
    if from_status is not None:
        ExternalAccountStatusChange.objects.create(
            account=locked, from_status=from_status, to_status=to, reason=reason[:255]
        )
        _external_account_status_changed(locked)
    account.status, account.updated_at = locked.status, locked.updated_at
    return locked


def _external_account_status_changed(account: ExternalAccount) -> None:
    """Emit `EXTERNAL_ACCOUNT.STATUS_UPDATED` with the account as `GET` renders it (same transaction)."""
    webhook_emit(
        platform=account.platform,
        type=WebhookType.EXTERNAL_ACCOUNT_STATUS_UPDATED,
        data=render_external_account(account),
    )
