"""Proofs: SMS codes (issued, sent, checked) and passkey assertions (options, WebAuthn JSON forms, checks)."""

from __future__ import annotations

import base64
import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction

from payments.errors import Conflict, FieldError, InvalidInput, ServiceError
from payments.models import Customer, ScaChallenge, ScaFactor, ScaPasskey, ScaProfile
from payments.one_time_codes import code_digest, code_matches, code_new, sms_send
from payments.sca.challenges import Status, _challenge_expired, sca_challenge_transition
from payments.sca.profile import _wrong_proof
from payments.wallet_seam import PasskeyInvalid, PasskeyMalformed, assertion_verify

log = logging.getLogger(__name__)

WEBAUTHN_TIMEOUT_MS = 120_000
_KNOWN_TRANSPORTS = frozenset({"usb", "nfc", "ble", "internal", "hybrid", "smart-card"})
_CODE_PURPOSE = "payments.sca-code"


def _code_set(challenge: ScaChallenge, customer: Customer, text: str, now: dt.datetime) -> None:
    """Give the challenge a fresh code and (production) send it after commit. Not saved here."""
    code = code_new()
    challenge.code_digest = code_digest(_CODE_PURPOSE, challenge.pk, code)
    challenge.codes_sent += 1
    challenge.last_sent_at = now
    if settings.PRODUCTION:
        phone, message, challenge_id = customer.phone_number, text.format(code=code), challenge.public_id
        transaction.on_commit(lambda: sms_deliver(to=phone, message=message, challenge_id=challenge_id))


def sms_deliver(*, to: str, message: str, challenge_id: str) -> None:
    sms_send(to=to, message=message)
    log.info("SCA code sent for %s", challenge_id)  # never the code itself


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _origin_error(origin: Any) -> InvalidInput | None:
    if not isinstance(origin, str) or not origin:
        return InvalidInput(errors=[FieldError("origin", "is required with a passkey", {"required": True})])
    allowed = list(settings.WEBAUTHN_ALLOWED_ORIGINS)
    if origin not in allowed:
        return InvalidInput(
            errors=[
                FieldError("origin", "is not an origin this service's passkeys run on", {"enum": allowed})
            ]
        )
    return None


def _assertion_fields(value: Any) -> Any:
    """The WebAuthn JSON form (`credential.toJSON()`) → the flat wire form `wallets.passkeys` checks;
    the flat form itself passes through."""
    if isinstance(value, dict) and isinstance(value.get("response"), dict):
        response = value["response"]
        fields = {
            "credentialId": value.get("rawId") or value.get("id"),
            "clientDataJson": response.get("clientDataJSON"),
            "authenticatorData": response.get("authenticatorData"),
            "signature": response.get("signature"),
        }
        if response.get("userHandle"):
            fields["userHandle"] = response["userHandle"]
        return fields
    return value


def _attestation_fields(value: Any) -> Any:
    if isinstance(value, dict) and isinstance(value.get("response"), dict):
        response = value["response"]
        transports = response.get("transports")
        return {
            "credentialId": value.get("rawId") or value.get("id"),
            "clientDataJson": response.get("clientDataJSON"),
            "attestationObject": response.get("attestationObject"),
            "transports": [t for t in transports if t in _KNOWN_TRANSPORTS]
            if isinstance(transports, list) and all(isinstance(t, str) for t in transports)
            else None,
        }
    return value


def _assertion_options(challenge_text: str, passkey: ScaPasskey) -> dict[str, Any]:
    """WebAuthn request options (JSON form): the challenge is the UTF-8 bytes of `challenge_text`."""
    return {
        "challenge": b64url(challenge_text.encode("utf-8")),
        "rpId": settings.WEBAUTHN_RP_ID,
        "allowCredentials": [{"type": "public-key", "id": passkey.credential_id}],
        "userVerification": "preferred",
        "timeout": WEBAUTHN_TIMEOUT_MS,
    }


@dataclass(frozen=True)
class ScaProof:
    """An `ScaAuthorization` (or the proof part of an SCA login completion)."""

    code: str | None = None
    passkey_assertion: dict[str, Any] | None = None
    origin: str | None = None
    end_user_ip_address: str = ""


def _check_proof(
    challenge: ScaChallenge, profile: ScaProfile, proof: ScaProof, now: dt.datetime
) -> ServiceError | None:
    """None when `proof` satisfies the locked `challenge`; otherwise the refusal (a wrong code or a
    rejected assertion counts as a failed attempt, a malformed request does not)."""
    if challenge.factor == ScaFactor.SMS_OTP:
        if proof.code is None:
            return InvalidInput(
                errors=[
                    FieldError("code", "is required: this challenge is an SMS_OTP one", {"required": True})
                ]
            )
        if code_matches(_CODE_PURPOSE, challenge.pk, proof.code, challenge.code_digest):
            return None
        return _wrong_proof(profile, now, "That code is not right", "INVALID_CODE")
    if proof.passkey_assertion is None:
        return InvalidInput(
            errors=[
                FieldError(
                    "passkeyAssertion", "is required: this challenge is a PASSKEY one", {"required": True}
                )
            ]
        )
    if error := _origin_error(proof.origin):
        return error
    passkey = ScaPasskey.objects.select_for_update().filter(customer_id=challenge.customer_id).first()
    if passkey is None:
        return Conflict("The customer's passkey was deleted after this challenge was issued")
    try:
        count = assertion_verify(
            assertion=_assertion_fields(proof.passkey_assertion),
            expected_challenge=challenge.webauthn_challenge,
            credential_id=passkey.credential_id,
            credential_public_key=bytes(passkey.public_key),
            current_sign_count=passkey.sign_count,
            rp_id=settings.WEBAUTHN_RP_ID,
            origins=[proof.origin],
        )
    except PasskeyMalformed as exc:
        return InvalidInput(errors=[FieldError("passkeyAssertion", exc.reason, {})])
    except PasskeyInvalid as exc:
        return _wrong_proof(
            profile, now, f"The passkey assertion was rejected ({exc.reason})", "PASSKEY_REJECTED"
        )
    passkey.sign_count, passkey.last_used_at = count, now
    passkey.save(update_fields=["sign_count", "last_used_at"])
    return None


def _satisfy(challenge: ScaChallenge, profile: ScaProfile, proof: ScaProof, now: dt.datetime, what: str):
    """Check `proof` against the locked pending `challenge` of a login or trust change: a lapsed one
    is marked EXPIRED and refused (saying `what` expired); a satisfied one is VERIFIED. Returns the
    refusal, or None."""
    if challenge.expires_at <= now:
        return _challenge_expired(challenge, what)
    refusal = _check_proof(challenge, profile, proof, now)
    if refusal is None:
        sca_challenge_transition(challenge, Status.VERIFIED, verified_at=now)
    return refusal
