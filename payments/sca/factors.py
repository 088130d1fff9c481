"""Factors: list them; enroll and delete the customer's passkey (TOTP: `totp`)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction

from payments import clock
from payments.client.webauthn_options import RelyingParty, creation_options
from payments.errors import FieldError, InvalidInput, ResourceNotFound, ServiceError
from payments.models import Customer, Platform, Quote, ScaChallenge, ScaFactor, ScaPasskey, ScaTotp
from payments.sca.challenges import (
    Kind,
    Status,
    _cancel_pending,
    _challenge_expired,
    _pending_challenge,
    _pending_enrollment,
    sca_challenge_transition,
)
from payments.sca.errors import NOT_COMPLETED, PasskeyAlreadyEnrolled, _proof_refused
from payments.sca.profile import _profile_lock
from payments.sca.proofs import WEBAUTHN_TIMEOUT_MS, _attestation_fields, _origin_error, b64url
from payments.sca.region import _sca_customer
from payments.transactions import transaction_fail, transaction_lock
from payments.wallet_seam import PasskeyInvalid, PasskeyMalformed, registration_verify


@dataclass(frozen=True)
class FactorView:
    factor: str
    credential_id: str = ""
    name: str = ""


def _available_factors(customer: Customer, passkey: ScaPasskey | None) -> list[str]:
    factors = [ScaFactor.SMS_OTP.value] if customer.phone_number else []
    if passkey is not None:
        factors.append(ScaFactor.PASSKEY.value)
    return factors


def sca_factor_list(*, platform: Platform, customer_id: UUID) -> list[FactorView]:
    customer = _sca_customer(platform, customer_id)
    views = [FactorView(ScaFactor.SMS_OTP)] if customer.phone_number else []
    views += [FactorView(ScaFactor.TOTP, name=t.name) for t in ScaTotp.objects.filter(customer=customer)]
    views += [
        FactorView(ScaFactor.PASSKEY, credential_id=p.credential_id, name=p.name)
        for p in ScaPasskey.objects.filter(customer=customer)
    ]
    return views


@dataclass(frozen=True)
class PasskeyEnrollment:
    options: dict[str, Any]
    allowed_origins: list[str]
    relying_party_id: str


def sca_passkey_enroll_start(*, platform: Platform, customer_id: UUID) -> PasskeyEnrollment:
    """Registration options for the customer's (only) passkey factor. Replaces a pending passkey
    enrollment."""
    customer = _sca_customer(platform, customer_id)
    with transaction.atomic():
        _profile_lock(customer)
        if ScaPasskey.objects.filter(customer=customer).exists():
            raise PasskeyAlreadyEnrolled(
                "The customer already has a passkey; delete it (DELETE /sca/factors/{credentialId}) first",
                customerId=customer.public_id,
            )
        _cancel_pending(customer, Kind.ENROLLMENT, factor=ScaFactor.PASSKEY)
        now = clock.now()
        name = customer.email or customer.platform_customer_id or customer.public_id
        options, challenge = creation_options(
            RelyingParty(settings.WEBAUTHN_RP_ID, settings.WEBAUTHN_RP_NAME, WEBAUTHN_TIMEOUT_MS),
            user_id=hashlib.sha256(b"payments-sca-user\0" + customer.pk.bytes).digest(),
            user_name=name,
            user_display_name=customer.display_name or name,
        )
        ScaChallenge.new(
            customer,
            kind=Kind.ENROLLMENT,
            factor=ScaFactor.PASSKEY,
            at=now,
            webauthn_challenge=b64url(challenge),
        ).save(force_insert=True)
    return PasskeyEnrollment(
        options=options,
        allowed_origins=list(settings.WEBAUTHN_ALLOWED_ORIGINS),
        relying_party_id=settings.WEBAUTHN_RP_ID,
    )


def sca_passkey_enroll_confirm(
    *, platform: Platform, customer_id: UUID, credential: Any, origin: Any, name: str = ""
) -> ScaPasskey:
    """Check the WebAuthn registration against the pending enrollment and keep the passkey."""
    customer = _sca_customer(platform, customer_id)
    refusal: ServiceError | None = None
    with transaction.atomic():
        _profile_lock(customer)
        if ScaPasskey.objects.filter(customer=customer).exists():
            raise PasskeyAlreadyEnrolled("The customer already has a passkey", customerId=customer.public_id)
        challenge = _pending_enrollment(customer, ScaFactor.PASSKEY)
        now = clock.now()
        if challenge.expires_at <= now:
            refusal = _challenge_expired(challenge, "passkey enrollment")
        else:
            if error := _origin_error(origin):
                raise error
            try:
                registered = registration_verify(
                    challenge=challenge.webauthn_challenge,
                    attestation=_attestation_fields(credential),
                    rp_id=settings.WEBAUTHN_RP_ID,
                    origins=[origin],
                )
            except PasskeyMalformed as exc:
                raise InvalidInput(errors=[FieldError("credential", exc.reason, {})]) from None
            except PasskeyInvalid as exc:
                raise _proof_refused(
                    f"The passkey could not be enrolled: {exc.reason}", "PASSKEY_REJECTED"
                ) from None
            passkey = ScaPasskey.objects.create(
                platform_id=customer.platform_id,
                customer=customer,
                credential_id=registered.credential_id,
                public_key=registered.public_key,
                sign_count=registered.sign_count,
                transports=registered.transports,
                aaguid=str(registered.aaguid),
                name=name[:100],
                created_at=now,
                updated_at=now,
            )
            sca_challenge_transition(challenge, Status.VERIFIED, verified_at=now)
    if refusal is not None:
        raise refusal
    return passkey


def sca_factor_delete(*, platform: Platform, customer_id: UUID, credential_id: str) -> None:
    """Delete the customer's passkey. Transfers waiting for a passkey challenge can then never be
    authorized, so they fail now (SCA_NOT_COMPLETED, nothing moved) instead of when the challenge
    lapses; the platform hears OUTGOING_PAYMENT.FAILED and can quote again."""
    customer = _sca_customer(platform, customer_id)
    if not ScaPasskey.objects.filter(customer=customer, credential_id=credential_id).exists():
        raise ResourceNotFound("ScaFactor", "The customer has no enrolled factor with this credentialId")
    with transaction.atomic():
        _fail_transfers_waiting_for_passkey(customer)
        _profile_lock(customer)
        deleted, _ = ScaPasskey.objects.filter(customer=customer, credential_id=credential_id).delete()
        if not deleted:  # a concurrent delete took it: undo the above with the 404
            raise ResourceNotFound("ScaFactor", "The customer has no enrolled factor with this credentialId")


def _fail_transfers_waiting_for_passkey(customer: Customer) -> None:
    """Fail the customer's transfers whose current challenge is a passkey one, before the passkey goes
    (in the caller's database transaction, before it takes the profile's lock)."""
    waiting = ScaChallenge.objects.filter(
        customer=customer, kind=Kind.PAYMENT, factor=ScaFactor.PASSKEY, status=Status.PENDING
    ).values_list("quote__transaction", flat=True)
    for transaction_id in sorted(set(waiting)):  # transactions' locks before the profile's
        _fail_waiting_for_passkey(transaction_id)


def _fail_waiting_for_passkey(transaction_id: UUID) -> None:
    quote, txn = transaction_lock(transaction_id)
    challenge = _pending_challenge(quote) if quote.status == Quote.Status.PENDING_AUTHORIZATION else None
    if challenge is None or challenge.factor != ScaFactor.PASSKEY:
        return
    sca_challenge_transition(challenge, Status.CANCELLED)
    transaction_fail(
        quote,
        txn,
        failure_reason=NOT_COMPLETED,
        detail=f"the passkey of SCA challenge {challenge.public_id} was deleted before it was authorized",
    )
