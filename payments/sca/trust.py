"""Trusted beneficiaries: a customer marks one of their external accounts trusted (or no longer
trusted) with an SCA proof, and later payments to a trusted one need no per-payment challenge.

Decisions where the reference leaves room (README "Strong Customer Authentication"):

- **Whose**: the customer that owns the external account; outside an SCA region, and for the
  platform's own accounts (no customer), 409 CONFLICT. Unknown, deleted or another platform's
  account: 404.
- **Start** issues a TRUST (or UNTRUST) challenge bound to the account, like a payment's: SMS_OTP
  when the customer has a phone, else PASSKEY, else 409; it lives `SCA_CHALLENGE_SECONDS` and
  replaces a pending one of the same kind for that account. The SMS names the account; a passkey
  challenge is bound to the action and the account (dynamic linking). Already in the asked-for state:
  no challenge is issued (no `scaChallenge`), and a confirm without `challengeId` answers the state.
- **Confirm** checks the proof with the payment challenges' checker (`proofs._check_proof`): wrong
  codes count toward the lock-out (423), a lapsed challenge is 400 CHALLENGE_EXPIRED, no pending
  challenge (or a `challengeId` that is not the pending one) 400. No SCA login session is needed:
  the confirm is itself the strong authentication. Concurrent confirms of one challenge take the
  customer's profile lock in turn: the first sets the state, the others find nothing pending (400).
- **Effect**: `ExternalAccount.sca_trusted_at`. A trusted account cannot be deleted (409
  BENEFICIARY_TRUSTED); `region.sca_required` exempts a payment of its customer to it.

Locks: the customer's profile, then the external account's row.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import secrets
from uuid import UUID

from django.conf import settings
from django.db import transaction

from payments import clock, ids
from payments.errors import Conflict, ResourceNotFound, ServiceError
from payments.external_accounts import external_account_get
from payments.models import Customer, ExternalAccount, Platform, ScaChallenge, ScaFactor, ScaProfile
from payments.sca.challenges import (
    Kind,
    Status,
    _cancel_pending,
)
from payments.sca.errors import NotInScaRegion, _proof_refused
from payments.sca.payment_challenges import ChallengeView, _account_words, _payment_factor, challenge_view
from payments.sca.profile import _lock_check, _profile_lock, _proof_accepted
from payments.sca.proofs import ScaProof, _code_set, _satisfy
from payments.sca.region import sca_applies


def _kind(trusted: bool) -> str:
    return Kind.TRUST if trusted else Kind.UNTRUST


def beneficiary_get(platform: Platform, account_id: UUID) -> tuple[ExternalAccount, Customer]:
    """The account and its customer, when trust applies: 404 unknown, 409 no SCA for its owner."""
    account = external_account_get(platform=platform, account_id=account_id)
    if account.customer is None:
        raise Conflict(
            f"External account {account.public_id} is the platform's own: trusted beneficiaries belong "
            "to customers in an SCA region",
            externalAccountId=account.public_id,
        )
    if not sca_applies(account.customer):
        raise NotInScaRegion(account.customer)
    return account, account.customer


def _locked(customer: Customer, account: ExternalAccount) -> tuple[ScaProfile, ExternalAccount, dt.datetime]:
    """The customer's profile and then the account, locked (423 while the customer's SCA is locked;
    404 when the account was deleted while we waited), and the time."""
    profile = _profile_lock(customer)
    now = clock.now()
    if locked := _lock_check(profile, now):
        raise locked
    account = ExternalAccount.objects.select_for_update().get(pk=account.pk)
    if account.deleted_at is not None:
        raise ResourceNotFound("ExternalAccount")
    return profile, account, now


def _text(account: ExternalAccount, trusted: bool) -> str:
    minutes = max(1, settings.SCA_CHALLENGE_SECONDS // 60)
    what = (
        f"trust {_account_words(account)}: payments to it will not ask for a code"
        if trusted
        else f"stop trusting {_account_words(account)}"
    )
    return f"{{code}} is your code to {what}. It expires in {minutes} minutes. Never share it."


def _linked_challenge(account: ExternalAccount, challenge: ScaChallenge, nonce: bytes) -> str:
    """A WebAuthn challenge bound to the change (dynamic linking), as a payment's is bound to it."""
    body = json.dumps(
        {
            "action": challenge.kind,
            "challengeId": challenge.public_id,
            "externalAccountId": account.public_id,
            "nonce": nonce.hex(),
        },
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def beneficiary_trust_start(*, platform: Platform, account_id: UUID, trusted: bool) -> ChallengeView | None:
    """Start trusting (`trusted=True`) or untrusting the account: the challenge to satisfy, or None
    when the account is already so."""
    account, customer = beneficiary_get(platform, account_id)
    with transaction.atomic():
        _, account, now = _locked(customer, account)
        for kind in (Kind.TRUST, Kind.UNTRUST):  # a new start replaces whatever change was pending
            _cancel_pending(customer, kind, external_account=account)
        if (account.sca_trusted_at is not None) == trusted:
            return None
        factor = _payment_factor(customer, None)
        challenge = ScaChallenge.new(
            customer, kind=_kind(trusted), factor=factor, at=now, external_account=account
        )
        if factor == ScaFactor.SMS_OTP:
            _code_set(challenge, customer, _text(account, trusted), now)
        else:
            challenge.webauthn_challenge = _linked_challenge(account, challenge, secrets.token_bytes(16))
        challenge.save(force_insert=True)
    return challenge_view(challenge)


def beneficiary_trust_confirm(
    *, platform: Platform, account_id: UUID, trusted: bool, challenge_id: str | None, proof: ScaProof
) -> bool:
    """Satisfy the pending TRUST (or UNTRUST) challenge of the account; answers whether it is now
    trusted. Raises 404, 409 (no SCA for this customer), 400 (no such pending challenge, a wrong or
    malformed proof, a lapsed challenge) and 423 ACCOUNT_LOCKED; failed attempts are recorded."""
    account, customer = beneficiary_get(platform, account_id)
    refusal: ServiceError | None = None
    with transaction.atomic():
        profile, account, now = _locked(customer, account)
        challenge = (
            ScaChallenge.objects.select_for_update()
            .select_related("customer")
            .filter(external_account=account, kind=_kind(trusted), status=Status.PENDING)
            .order_by("-created_at")
            .first()
        )
        if challenge is None:
            if challenge_id is None and (account.sca_trusted_at is not None) == trusted:
                return trusted  # the start issued no challenge: nothing to change
            raise _proof_refused(
                f"No {'trust' if trusted else 'untrust'} change is pending for external account "
                f"{account.public_id} (it was completed, replaced or never started); start one with "
                f"POST /customers/external-accounts/{{externalAccountId}}/{'trust' if trusted else 'untrust'}",
                "NO_CHALLENGE_PENDING",
            )
        if challenge_id is not None and ids.parse_or_none("ScaChallenge", challenge_id) != challenge.pk:
            raise _proof_refused(
                "challengeId is not the pending challenge of this change (a newer start replaced it)",
                "CHALLENGE_MISMATCH",
                challengeId=challenge.public_id,
            )
        refusal = _satisfy(challenge, profile, proof, now, "trust change")
        if refusal is None:
            _proof_accepted(profile)
            account.sca_trusted_at = now if trusted else None
            account.touch()
            account.save(update_fields=["sca_trusted_at", "updated_at"])
    if refusal is not None:
        raise refusal  # after the commit: failed attempts and a lapsed challenge are recorded
    return trusted
