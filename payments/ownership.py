"""Ownership verification of self-custody wallets (`POST .../external-accounts/{id}/challenge` and
`/verify`), and what an account still pending it may be used for.

Decisions where the interface spec and the reference leave room:

- **Who**: a FIRST_PARTY self-custody wallet (`external_accounts.ownership_verification_applies`) in
  PENDING_OWNERSHIP_VERIFICATION or UNVERIFIED. Anything else answers 409 CONFLICT (an ACTIVE one:
  "already verified").
- **Challenge**: a new one cancels the one in flight (at most one PENDING per account, a database
  constraint too) and moves an UNVERIFIED account back to PENDING_OWNERSHIP_VERIFICATION. It lives
  `OWNERSHIP_CHALLENGE_SECONDS`.
- **WALLET_SIGNATURE**: `messageToSign` names the address and a random nonce; the signature is
  checked with the network's message-signing format (`payments.wallet_signatures`). Valid: the
  challenge is VERIFIED and the account ACTIVE (200 with the account). Invalid or past `expiresAt`:
  the challenge FAILED (or EXPIRED), the account UNVERIFIED, then 400 (`details.reason`
  INVALID_SIGNATURE or CHALLENGE_EXPIRED). Sandbox: the signature `sandbox-valid-signature` is
  valid too.
- **LIVENESS**: `verificationLink` is a hosted page of this service (`/onboarding/wallet/<token>/`;
  the token is random, shown once and stored as its SHA-256 digest). In the sandbox the page
  simulates the biometric check: "pass" verifies, "fail" makes the account UNVERIFIED. Production
  mode has no biometric provider behind it, so LIVENESS answers 501 NOT_IMPLEMENTED there.
- Every status change goes through `external_account_status_transition`, so each emits
  `EXTERNAL_ACCOUNT.STATUS_UPDATED`.
- **Until verified** (interface spec: "usable below regulatory thresholds"): a quote to or from a
  PENDING_OWNERSHIP_VERIFICATION account worth more than `OWNERSHIP_VERIFICATION_THRESHOLD_EUR_CENTS`
  (EUR 1,000, the EU Transfer of Funds Regulation's threshold for self-hosted wallets; counted at
  the sandbox mid rate) answers 400 EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED. An UNVERIFIED account
  cannot be used at all until a new challenge succeeds.

Locks: the external account's row, for every change of its challenges and status.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction

from payments import clock
from payments.account_info.account_types import ACCOUNT_TYPES
from payments.errors import BadRequest, Conflict, NotImplementedByService, ResourceNotFound, ServiceError
from payments.external_accounts import (
    external_account_get,
    external_account_primary_identifier,
    external_account_status_transition,
    ownership_verification_applies,
)
from payments.limits import usd_cents
from payments.models import ExternalAccount, OwnershipChallenge, OwnershipChallengeStatus, Platform
from payments.platform_clock import platform_time_enter
from payments.state_machines import StateMachine, update_row
from payments.wallet_signatures import wallet_signature_valid

AccountStatus = ExternalAccount.Status
Status = OwnershipChallengeStatus
Method = OwnershipChallenge.Method

SANDBOX_SIGNATURE = "sandbox-valid-signature"
VERIFICATION_REQUIRED = "EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED"

_ENDS = (Status.VERIFIED, Status.FAILED, Status.EXPIRED, Status.CANCELLED)
# A PENDING challenge ends once, in one of _ENDS; an ended one never moves again.
CHALLENGE_TRANSITIONS = StateMachine(
    "ownership challenge",
    {Status.PENDING: _ENDS},
    final=_ENDS,
    noun="An ownership challenge",
    id_detail="challengeId",
)


def ownership_challenge_transition(challenge: OwnershipChallenge, to: str) -> None:
    """The one way a challenge's status changes; the caller holds the account's row lock."""
    changes = {"completed_at": clock.now()} if to != Status.CANCELLED else {}
    CHALLENGE_TRANSITIONS.move(challenge, Status(to), locked=True, changes=changes, write=update_row)


def ownership_link_path(token: str) -> str:
    """Where the hosted LIVENESS page for `token` lives (`payments/hosted/urls.py` serves it)."""
    return f"/onboarding/wallet/{token}/"


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class IssuedChallenge:
    challenge: OwnershipChallenge
    link_token: str = ""  # LIVENESS: the only time the token exists in the clear


def _locked_account(
    platform: Platform, account_id: UUID, platform_owned: bool
) -> tuple[ExternalAccount, ExternalAccount]:
    """(the account as read, the same row locked); 404 for unknown, other platforms' or deleted."""
    account = external_account_get(platform=platform, account_id=account_id, platform_owned=platform_owned)
    locked = ExternalAccount.objects.select_for_update().get(pk=account.pk)
    if locked.deleted_at is not None:
        raise ResourceNotFound("ExternalAccount")
    return account, locked


def _not_applicable(account: ExternalAccount) -> Conflict | None:
    if not ownership_verification_applies(account.account_type, account.account_info, account.ownership_type):
        return Conflict(
            "Ownership verification applies only to a FIRST_PARTY self-custody crypto wallet "
            f"(this is a {account.account_type}"
            + (f", {account.ownership_type}" if account.ownership_type else "")
            + ")",
            externalAccountId=account.public_id,
        )
    if account.status not in (AccountStatus.PENDING_OWNERSHIP_VERIFICATION, AccountStatus.UNVERIFIED):
        done = "its ownership is already verified" if account.status == AccountStatus.ACTIVE else ""
        return Conflict(
            f"External account {account.public_id} is {account.status}"
            + (f": {done}" if done else "; ownership verification does not apply"),
            externalAccountId=account.public_id,
            status=account.status,
        )
    return None


def _pending(account: ExternalAccount) -> OwnershipChallenge | None:
    return (
        OwnershipChallenge.objects.select_for_update()
        .filter(external_account=account, status=Status.PENDING)
        .first()
    )


@transaction.atomic
def ownership_challenge_create(
    *, platform: Platform, account_id: UUID, method: str, platform_owned: bool = False
) -> IssuedChallenge:
    """Start (or restart) ownership verification with `method`; see the module docstring."""
    if method == Method.LIVENESS and not settings.SANDBOX:
        raise NotImplementedByService(
            "LIVENESS ownership verification needs a biometric verification provider, and none is "
            "configured for this service; use WALLET_SIGNATURE"
        )
    _, account = _locked_account(platform, account_id, platform_owned)
    if refusal := _not_applicable(account):
        raise refusal
    previous = _pending(account)
    if previous is not None:
        ownership_challenge_transition(previous, Status.CANCELLED)
    if account.status == AccountStatus.UNVERIFIED:
        external_account_status_transition(
            account, AccountStatus.PENDING_OWNERSHIP_VERIFICATION, reason="ownership challenge issued"
        )
    expires_at = clock.now() + dt.timedelta(seconds=settings.OWNERSHIP_CHALLENGE_SECONDS)
    challenge = OwnershipChallenge(
        platform_id=account.platform_id, external_account=account, method=method, expires_at=expires_at
    )
    token = ""
    if method == Method.WALLET_SIGNATURE:
        challenge.message_to_sign = (
            f"I verify that I control this wallet: {external_account_primary_identifier(account)}. "
            f"Nonce: {secrets.token_hex(16)}"
        )
    else:
        token = secrets.token_urlsafe(32)
        challenge.link_token_digest = _digest(token)
    challenge.save(force_insert=True)
    return IssuedChallenge(challenge=challenge, link_token=token)


def _signature_valid(account: ExternalAccount, message: str, signature: str) -> bool:
    if settings.SANDBOX and hmac.compare_digest(signature.encode(), SANDBOX_SIGNATURE.encode()):
        return True
    return wallet_signature_valid(
        network=ACCOUNT_TYPES[account.account_type].network or "",
        address=external_account_primary_identifier(account),
        message=message,
        signature=signature,
    )


def _failed(account: ExternalAccount, challenge: OwnershipChallenge, to: str, reason: str) -> None:
    ownership_challenge_transition(challenge, to)
    external_account_status_transition(account, AccountStatus.UNVERIFIED, reason=reason)


def ownership_verify(
    *, platform: Platform, account_id: UUID, signature: str, platform_owned: bool = False
) -> ExternalAccount:
    """Complete the outstanding WALLET_SIGNATURE challenge; answers the account (ACTIVE).

    Raises 404 (unknown account), 409 (no WALLET_SIGNATURE challenge outstanding), 400 for an invalid
    signature or a lapsed challenge, after recording the failure (account UNVERIFIED)."""
    refusal: ServiceError | None = None
    with transaction.atomic():
        _, account = _locked_account(platform, account_id, platform_owned)
        challenge = _pending(account)
        if challenge is None or challenge.method != Method.WALLET_SIGNATURE:
            raise Conflict(
                f"No WALLET_SIGNATURE challenge is outstanding for external account {account.public_id}"
                + (" (a LIVENESS check completes on its own page)" if challenge is not None else "")
                + "; start one with POST .../challenge",
                externalAccountId=account.public_id,
                status=account.status,
            )
        if challenge.expires_at <= clock.now():
            _failed(account, challenge, Status.EXPIRED, "ownership challenge expired")
            refusal = BadRequest(
                "The ownership challenge expired; start a new one with POST .../challenge",
                reason="CHALLENGE_EXPIRED",
                externalAccountId=account.public_id,
            )
        elif _signature_valid(account, challenge.message_to_sign, signature):
            ownership_challenge_transition(challenge, Status.VERIFIED)
            external_account_status_transition(account, AccountStatus.ACTIVE, reason="ownership verified")
        else:
            _failed(account, challenge, Status.FAILED, "invalid ownership signature")
            refusal = BadRequest(
                "The signature is not the wallet's signature of messageToSign; the account is now "
                "UNVERIFIED: start a new challenge to retry",
                reason="INVALID_SIGNATURE",
                externalAccountId=account.public_id,
            )
    if refusal is not None:
        raise refusal  # after the commit: the failed attempt is recorded
    return account


# --- LIVENESS (the hosted page) ---------------------------------------------------------------------


class OwnershipLinkUnknown(ResourceNotFound):
    def __init__(self) -> None:
        super().__init__("OwnershipChallenge", "This verification link is not valid")


class OwnershipLinkClosed(ServiceError, status=410, code="LINK_CLOSED"):
    """The link's challenge is over (completed, replaced or expired)."""


def _by_token(token: Any, *, lock: bool) -> OwnershipChallenge:
    if not isinstance(token, str) or not 16 <= len(token) <= 128:
        raise OwnershipLinkUnknown()
    rows = OwnershipChallenge.objects.select_related("external_account", "platform")
    if lock:
        rows = rows.select_for_update(of=("self", "external_account"))
    challenge = rows.filter(link_token_digest=_digest(token), method=Method.LIVENESS).first()
    if challenge is None:
        raise OwnershipLinkUnknown()
    platform_time_enter(challenge.platform)  # a hosted page runs on the link's platform's clock
    return challenge


def ownership_liveness_open(token: str) -> OwnershipChallenge:
    """The LIVENESS challenge of a link (with its account), or 404 / 410 LINK_CLOSED."""
    challenge = _by_token(token, lock=False)
    if challenge.status != Status.PENDING or challenge.expires_at <= clock.now():
        raise OwnershipLinkClosed("This verification link has been used, replaced or has expired")
    return challenge


@transaction.atomic
def ownership_liveness_complete(token: str, *, passed: bool) -> ExternalAccount:
    """Record the (simulated) biometric check's outcome: ACTIVE, or UNVERIFIED."""
    challenge = _by_token(token, lock=True)
    account = challenge.external_account
    if challenge.status != Status.PENDING:
        raise OwnershipLinkClosed("This verification link has been used, replaced or has expired")
    if challenge.expires_at <= clock.now():
        raise OwnershipLinkClosed("This verification link has expired")
    if passed:
        ownership_challenge_transition(challenge, Status.VERIFIED)
        external_account_status_transition(account, AccountStatus.ACTIVE, reason="liveness check passed")
    else:
        _failed(account, challenge, Status.FAILED, "liveness check failed")
    return account


# --- what an unverified account may be used for ------------------------------------------------------


def ownership_usable_check(
    account: ExternalAccount | None, *, amount: int, currency: str, field: str
) -> None:
    """400 EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED for a transfer to or from an account whose last
    ownership verification failed (UNVERIFIED), or worth more than the threshold while its ownership
    is still pending. Other accounts pass."""
    if account is None:
        return
    if account.status == AccountStatus.UNVERIFIED:
        raise BadRequest(
            f"External account {account.public_id} failed its ownership verification; verify it "
            "(POST .../challenge, then /verify) before using it",
            code=VERIFICATION_REQUIRED,
            field=field,
            externalAccountId=account.public_id,
        )
    if account.status != AccountStatus.PENDING_OWNERSHIP_VERIFICATION:
        return
    threshold = usd_cents(settings.OWNERSHIP_VERIFICATION_THRESHOLD_EUR_CENTS, "EUR")
    if usd_cents(amount, currency) > threshold:
        limit = settings.OWNERSHIP_VERIFICATION_THRESHOLD_EUR_CENTS / 100
        raise BadRequest(
            f"External account {account.public_id} must have its ownership verified before it takes part "
            f"in a transfer worth more than EUR {limit:,.2f} (POST .../challenge, then /verify)",
            code=VERIFICATION_REQUIRED,
            field=field,
            externalAccountId=account.public_id,
        )
