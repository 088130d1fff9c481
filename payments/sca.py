"""Strong Customer Authentication (SCA): who needs it, factors, login sessions and payment challenges.

Decisions where the interface spec and the reference leave room (README "Strong Customer
Authentication"):

- **Region**: a customer is in an SCA region when the country of its `address` (an individual's
  residential address, a business's address) is in the EU/EEA (`SCA_COUNTRIES`). Everyone else:
  no `scaChallenge`, and every SCA endpoint answers 409 CONFLICT.
- **What needs authorization**: an outgoing transfer on behalf of an SCA customer (internal-account
  or realtime-funding source; a pull from the customer's own external account does not). Execute
  then starts nothing: the quote and its transaction move to PENDING_AUTHORIZATION with a challenge.
  A realtime-funded quote is created that way, its `paymentInstructions` withheld. The sequence is
  one challenge for a same-currency transfer (no `purpose`) and two for a cross-currency one
  (`CURRENCY_CONVERSION`, then `PAYOUT`), each with a new id. Authorizing the last one releases the
  transfer: execution runs (`quotes.quote_release`), or a realtime-funded quote returns to PENDING
  with its instructions issued.
- **Deadline**: each challenge lives `SCA_CHALLENGE_SECONDS` (a realtime-funded quote's challenges
  end with the quote at the latest). The transaction carries a due FAIL step at the current
  challenge's `expiresAt`, so a lapsed sequence fails the transfer with `SCA_NOT_COMPLETED` (nothing
  was moved) whether or not anyone asks; an authorize after it is a 400 saying so.
- **Factors**: `SMS_OTP` needs no enrollment: it is available when the customer has a
  `phoneNumber` (the platform vouches that it was verified, as the reference says of SCA
  customers). `PASSKEY`: real WebAuthn, checked by `wallets.passkeys` through `payments.wallet_seam`
  (the stateless WebAuthn checks wallet credentials use too), at most one per customer (409
  PASSKEY_ALREADY_ENROLLED). `TOTP` and the factor-reset flow are not offered (501 NOT_IMPLEMENTED).
- **Codes**: six digits; `123456` in the sandbox (the reference's SCA sandbox code) and nothing is
  sent; random and sent by the `SMS_BACKEND` in production, naming the amount and the payee. Stored
  only as an HMAC, compared in constant time, single use.
- **Limits** (as the wallet's one-time codes): `SCA_MAX_FAILED_ATTEMPTS` wrong proofs in a row lock
  the customer's SCA for `SCA_LOCK_SECONDS` (423 ACCOUNT_LOCKED with `lockedUntil`); a resend waits
  `SCA_RESEND_COOLDOWN_SECONDS` and a challenge gets at most `SCA_CODES_PER_CHALLENGE` codes; SMS
  login starts are capped per window (429 RATE_LIMITED with `Retry-After`).
- **Login session**: a completed SCA login opens the customer's session for `SCA_SESSION_DAYS`
  (180). Authorizing a quote without one is 409 SCA_SESSION_REQUIRED, checked before the proof so no
  code is spent.

Locks: a payment challenge changes only under its transaction's row lock (`transaction_lock`, which
guards the quote too); a customer's profile (attempts, lock-out, session), passkey, login and
enrollment challenges only under the profile's row lock, always taken after the transaction's.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import json
import logging
import math
import secrets
import string
from dataclasses import dataclass, field
from typing import Any, NoReturn
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.utils.crypto import salted_hmac
from django.utils.module_loading import import_string
from webauthn import generate_registration_options, options_to_json
from webauthn.helpers.structs import (
    AttestationConveyancePreference,
    AuthenticatorSelectionCriteria,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from payments import clock, ids, money
from payments.customers import customer_get
from payments.errors import (
    BadRequest,
    Conflict,
    FieldError,
    InvalidInput,
    Locked,
    NotImplementedByService,
    RateLimited,
    ResourceNotFound,
    ServiceError,
)
from payments.models import (
    Customer,
    Platform,
    Quote,
    ScaChallenge,
    ScaChallengeStatus,
    ScaFactor,
    ScaPasskey,
    ScaProfile,
    Transaction,
)
from payments.rails import RailEvent, Step
from payments.state_machines import StateMachine, update_row
from payments.transactions import (
    expiry_step,
    steps_from_events,
    steps_set,
    transaction_apply_due,
    transaction_fail,
    transaction_lock,
    transaction_transition,
)
from payments.wallet_seam import PasskeyInvalid, PasskeyMalformed, assertion_verify, registration_verify
from payments.wire.time import utc_timestamp

log = logging.getLogger(__name__)

# EU member states and the other EEA countries (Iceland, Liechtenstein, Norway), ISO 3166-1 alpha-2.
SCA_COUNTRIES = frozenset(
    "AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE IS LI NO".split()
)
SANDBOX_CODE = "123456"
CODE_LENGTH = 6
NOT_COMPLETED = "SCA_NOT_COMPLETED"
CONVERSION, PAYOUT = "CURRENCY_CONVERSION", "PAYOUT"
WEBAUTHN_TIMEOUT_MS = 120_000
# What each step authorizes, in words (SMS text); unknown purposes read as a payment.
PURPOSE_WORDS = {CONVERSION: "the currency conversion", PAYOUT: "the payout", "TRANSFER": "the transfer"}
_KNOWN_TRANSPORTS = frozenset({"usb", "nfc", "ble", "internal", "hybrid", "smart-card"})

Status = ScaChallengeStatus
Kind = ScaChallenge.Kind

CHALLENGE_TRANSITIONS = StateMachine(
    "SCA challenge",
    {
        Status.PENDING: {Status.VERIFIED, Status.EXPIRED, Status.CANCELLED},
        Status.VERIFIED: set(),
        Status.EXPIRED: set(),
        Status.CANCELLED: set(),
    },
    noun="An SCA challenge",
    id_detail="challengeId",
)


# --- errors -----------------------------------------------------------------------------------------


class NotInScaRegion(Conflict):
    def __init__(self, customer: Customer | None) -> None:
        who = f"customer {customer.public_id}" if customer is not None else "a platform's own transfer"
        super().__init__(
            f"Strong Customer Authentication does not apply to {who}: only customers whose address is "
            "in the EU/EEA are in an SCA region",
            **({"customerId": customer.public_id} if customer is not None else {}),
        )


class ScaSessionRequired(Conflict):
    code = "SCA_SESSION_REQUIRED"


class PasskeyAlreadyEnrolled(Conflict):
    code = "PASSKEY_ALREADY_ENROLLED"


def _proof_refused(message: str, reason: str, **details: Any) -> BadRequest:
    """400 for a proof that does not satisfy the challenge (`details.reason` says why)."""
    return BadRequest(message, reason=reason, **details)


# --- who is in an SCA region ------------------------------------------------------------------------


def sca_applies(customer: Customer | None) -> bool:
    """Whether the customer is in an SCA region (see the module docstring). Reads no other row."""
    if customer is None:
        return False
    country = (customer.address or {}).get("country")
    return isinstance(country, str) and country.upper() in SCA_COUNTRIES


def sca_required(quote: Quote) -> bool:
    """Whether this quote's transfer needs authorization. Uses the quote's customer as already
    loaded with it, so the answer costs no query for anyone outside an SCA region."""
    return quote.source_kind != Quote.SourceKind.EXTERNAL and sca_applies(quote.customer)


def _sca_customer(platform: Platform, customer_id: UUID) -> Customer:
    customer = customer_get(platform=platform, customer_id=customer_id)
    if not sca_applies(customer):
        raise NotInScaRegion(customer)
    return customer


# --- the challenge state machine --------------------------------------------------------------------


def sca_challenge_transition(challenge: ScaChallenge, to: str, **changes: Any) -> ScaChallenge:
    """Move a challenge along CHALLENGE_TRANSITIONS: the one way its status changes. The caller holds
    the lock that guards it (the transaction's for a payment challenge, the profile's otherwise) and
    read it with `select_for_update`. Reaching the current status again is a no-op."""
    CHALLENGE_TRANSITIONS.move(challenge, Status(to), locked=True, changes=changes, write=update_row)
    return challenge


def _cancel_pending(customer: Customer, kind: str) -> None:
    """A new login or enrollment replaces the customer's pending one (profile lock held)."""
    for challenge in ScaChallenge.objects.select_for_update().filter(
        customer=customer, kind=kind, status=Status.PENDING
    ):
        sca_challenge_transition(challenge, Status.CANCELLED)


# --- the customer's profile: attempts, lock-out, session -------------------------------------------


def _profile_lock(customer: Customer) -> ScaProfile:
    profile, _ = ScaProfile.objects.select_for_update().get_or_create(
        customer=customer, defaults={"platform_id": customer.platform_id}
    )
    return profile


def _locked(profile: ScaProfile) -> Locked:
    return Locked(
        "Too many failed authentication attempts: Strong Customer Authentication is locked for this "
        f"customer until {utc_timestamp(profile.locked_until)}",
        lockedUntil=utc_timestamp(profile.locked_until),
        failedAttempts=profile.failed_attempts,
    )


def _lock_check(profile: ScaProfile, now: dt.datetime) -> Locked | None:
    """423 while locked; a lock that has run out is lifted."""
    if profile.locked_until is None:
        return None
    if profile.locked_until > now:
        return _locked(profile)
    profile.locked_until, profile.failed_attempts = None, 0
    profile.save(update_fields=["locked_until", "failed_attempts"])
    return None


def _wrong_proof(profile: ScaProfile, now: dt.datetime, message: str, reason: str) -> ServiceError:
    profile.failed_attempts += 1
    limit = settings.SCA_MAX_FAILED_ATTEMPTS
    if profile.failed_attempts >= limit:
        profile.locked_until = now + dt.timedelta(seconds=settings.SCA_LOCK_SECONDS)
        profile.save(update_fields=["failed_attempts", "locked_until"])
        return _locked(profile)
    profile.save(update_fields=["failed_attempts"])
    left = limit - profile.failed_attempts
    return _proof_refused(
        f"{message}; {left} more failed attempt{'s' if left != 1 else ''} lock authentication for a while",
        reason,
        attemptsLeft=left,
    )


def _proof_accepted(profile: ScaProfile) -> None:
    if profile.failed_attempts:
        profile.failed_attempts = 0
        profile.save(update_fields=["failed_attempts"])


def _session_active(profile: ScaProfile, now: dt.datetime) -> bool:
    return profile.session_expires_at is not None and profile.session_expires_at > now


# --- proofs: SMS codes and passkeys -----------------------------------------------------------------


def _new_code() -> str:
    if settings.SANDBOX:
        return SANDBOX_CODE
    return "".join(secrets.choice(string.digits) for _ in range(CODE_LENGTH))


def _code_digest(challenge_id: UUID, code: str) -> str:
    return salted_hmac("payments.sca-code", f"{challenge_id}:{code}", algorithm="sha256").hexdigest()


def _code_set(challenge: ScaChallenge, customer: Customer, text: str, now: dt.datetime) -> None:
    """Give the challenge a fresh code and (production) send it after commit. Not saved here."""
    code = _new_code()
    challenge.code_digest = _code_digest(challenge.pk, code)
    challenge.codes_sent += 1
    challenge.last_sent_at = now
    if settings.PRODUCTION:
        phone, message, challenge_id = customer.phone_number, text.format(code=code), challenge.public_id
        transaction.on_commit(lambda: sms_deliver(to=phone, message=message, challenge_id=challenge_id))


def sms_deliver(*, to: str, message: str, challenge_id: str) -> None:
    import_string(settings.SMS_BACKEND)().send(to=to, message=message)
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
        if challenge.code_digest and hmac.compare_digest(
            _code_digest(challenge.pk, proof.code), challenge.code_digest
        ):
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


# --- factors -----------------------------------------------------------------------------------------


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


def sca_passkey_enroll_start(*, platform: Platform, customer_id: UUID, factor: str) -> PasskeyEnrollment:
    """Registration options for the customer's (only) passkey factor. Replaces a pending enrollment."""
    customer = _sca_customer(platform, customer_id)
    if factor != ScaFactor.PASSKEY:
        raise NotImplementedByService(
            f"{factor} factors are not supported by this service; enroll a PASSKEY (SMS_OTP needs no enrollment)"
        )
    with transaction.atomic():
        _profile_lock(customer)
        if ScaPasskey.objects.filter(customer=customer).exists():
            raise PasskeyAlreadyEnrolled(
                "The customer already has a passkey; delete it (DELETE /sca/factors/{credentialId}) first",
                customerId=customer.public_id,
            )
        _cancel_pending(customer, Kind.ENROLLMENT)
        now = clock.now()
        name = customer.email or customer.platform_customer_id or customer.public_id
        options = generate_registration_options(
            rp_id=settings.WEBAUTHN_RP_ID,
            rp_name=settings.WEBAUTHN_RP_NAME,
            user_id=hashlib.sha256(b"payments-sca-user\0" + customer.pk.bytes).digest(),
            user_name=name,
            user_display_name=customer.display_name or name,
            challenge=secrets.token_bytes(32),
            timeout=WEBAUTHN_TIMEOUT_MS,
            attestation=AttestationConveyancePreference.NONE,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.PREFERRED,
                user_verification=UserVerificationRequirement.PREFERRED,
            ),
        )
        ScaChallenge.objects.create(
            platform_id=customer.platform_id,
            customer=customer,
            kind=Kind.ENROLLMENT,
            factor=ScaFactor.PASSKEY,
            webauthn_challenge=b64url(options.challenge),
            expires_at=now + dt.timedelta(seconds=settings.SCA_CHALLENGE_SECONDS),
            created_at=now,
            updated_at=now,
        )
    return PasskeyEnrollment(
        options=json.loads(options_to_json(options)),
        allowed_origins=list(settings.WEBAUTHN_ALLOWED_ORIGINS),
        relying_party_id=settings.WEBAUTHN_RP_ID,
    )


def sca_passkey_enroll_confirm(
    *, platform: Platform, customer_id: UUID, factor: str, credential: Any, origin: Any, name: str = ""
) -> ScaPasskey:
    """Check the WebAuthn registration against the pending enrollment and keep the passkey."""
    customer = _sca_customer(platform, customer_id)
    if factor != ScaFactor.PASSKEY:
        raise NotImplementedByService(f"{factor} factors are not supported by this service")
    refusal: ServiceError | None = None
    with transaction.atomic():
        _profile_lock(customer)
        if ScaPasskey.objects.filter(customer=customer).exists():
            raise PasskeyAlreadyEnrolled("The customer already has a passkey", customerId=customer.public_id)
        challenge = (
            ScaChallenge.objects.select_for_update()
            .filter(customer=customer, kind=Kind.ENROLLMENT, status=Status.PENDING)
            .order_by("-created_at")
            .first()
        )
        if challenge is None:
            raise _proof_refused(
                "No passkey enrollment is pending for this customer; start one with POST /sca/factors",
                "NO_ENROLLMENT_PENDING",
            )
        now = clock.now()
        if challenge.expires_at <= now:
            sca_challenge_transition(challenge, Status.EXPIRED)
            refusal = _proof_refused(
                f"The passkey enrollment expired at {utc_timestamp(challenge.expires_at)}; start a new one",
                "CHALLENGE_EXPIRED",
            )
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
        waiting = ScaChallenge.objects.filter(
            customer=customer, kind=Kind.PAYMENT, factor=ScaFactor.PASSKEY, status=Status.PENDING
        ).values_list("quote__transaction", flat=True)
        for transaction_id in sorted(set(waiting)):  # transactions' locks before the profile's
            _fail_waiting_for_passkey(transaction_id)
        _profile_lock(customer)
        deleted, _ = ScaPasskey.objects.filter(customer=customer, credential_id=credential_id).delete()
        if not deleted:  # a concurrent delete took it: undo the above with the 404
            raise ResourceNotFound("ScaFactor", "The customer has no enrolled factor with this credentialId")


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


def sca_not_supported(*, platform: Platform, customer_id: UUID, operation: str) -> NoReturn:
    """The SCA operations this service does not offer: 409 outside an SCA region, else 501."""
    _sca_customer(platform, customer_id)
    raise NotImplementedByService(f"{operation} is not supported by this service")


# --- login -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LoginStart:
    factor: str
    challenge_id: str = ""
    expires_at: dt.datetime | None = None
    passkey_options: dict[str, Any] | None = None
    allowed_origins: list[str] = field(default_factory=list)
    relying_party_id: str = ""


def _login_quota_check(customer: Customer, now: dt.datetime) -> None:
    window = dt.timedelta(seconds=settings.SCA_LOGIN_CODE_WINDOW_SECONDS)
    quota = settings.SCA_LOGIN_CODES_PER_WINDOW
    recent = list(
        ScaChallenge.objects.filter(
            customer=customer, kind=Kind.LOGIN, factor=ScaFactor.SMS_OTP, created_at__gt=now - window
        )
        .order_by("-created_at")
        .values_list("created_at", flat=True)[:quota]
    )
    if len(recent) >= quota:
        retry_after = math.ceil((recent[-1] + window - now).total_seconds())
        raise RateLimited(
            f"At most {quota} SMS login codes per {int(window.total_seconds())} seconds; "
            f"retry after {retry_after} seconds",
            retry_after=retry_after,
        )


def sca_login_start(*, platform: Platform, customer_id: UUID, factor: str) -> LoginStart:
    """Start an SCA login: an SMS code (sent; `challengeId`) or passkey request options."""
    customer = _sca_customer(platform, customer_id)
    if factor == ScaFactor.TOTP:
        raise NotImplementedByService(
            "TOTP factors are not supported by this service; use SMS_OTP or PASSKEY"
        )
    with transaction.atomic():
        profile = _profile_lock(customer)
        now = clock.now()
        if locked := _lock_check(profile, now):
            raise locked
        passkey = None
        if factor == ScaFactor.SMS_OTP:
            if not customer.phone_number:
                raise InvalidInput(
                    errors=[
                        FieldError("factor", "SMS_OTP needs the customer's phoneNumber, which is not set", {})
                    ]
                )
            _login_quota_check(customer, now)
        else:
            passkey = ScaPasskey.objects.filter(customer=customer).first()
            if passkey is None:
                raise InvalidInput(
                    errors=[
                        FieldError("factor", "the customer has no passkey enrolled (POST /sca/factors)", {})
                    ]
                )
        _cancel_pending(customer, Kind.LOGIN)
        challenge = ScaChallenge(
            id=ids.uuid7(),
            platform_id=customer.platform_id,
            customer=customer,
            kind=Kind.LOGIN,
            factor=factor,
            expires_at=now + dt.timedelta(seconds=settings.SCA_CHALLENGE_SECONDS),
            created_at=now,
            updated_at=now,
        )
        if passkey is None:
            minutes = max(1, settings.SCA_CHALLENGE_SECONDS // 60)
            _code_set(
                challenge,
                customer,
                f"{{code}} is your code to sign in to {platform.name}. It expires in {minutes} minutes. "
                "Never share it.",
                now,
            )
        else:
            challenge.webauthn_challenge = secrets.token_hex(32)
        challenge.save(force_insert=True)
    if passkey is None:
        return LoginStart(factor=factor, challenge_id=challenge.public_id, expires_at=challenge.expires_at)
    return LoginStart(
        factor=factor,
        passkey_options=_assertion_options(challenge.webauthn_challenge, passkey),
        allowed_origins=list(settings.WEBAUTHN_ALLOWED_ORIGINS),
        relying_party_id=settings.WEBAUTHN_RP_ID,
    )


def sca_login_complete(
    *,
    platform: Platform,
    customer_id: UUID,
    factor: str,
    challenge_id: str | None,
    proof: ScaProof,
) -> ScaProfile:
    """Check the proof of the pending login; on success the SCA session runs `SCA_SESSION_DAYS`."""
    customer = _sca_customer(platform, customer_id)
    if factor == ScaFactor.TOTP:
        raise NotImplementedByService("TOTP factors are not supported by this service")
    refusal: ServiceError | None = None
    with transaction.atomic():
        profile = _profile_lock(customer)
        now = clock.now()
        if locked := _lock_check(profile, now):
            raise locked
        pending = ScaChallenge.objects.select_for_update().filter(
            customer=customer, kind=Kind.LOGIN, status=Status.PENDING, factor=factor
        )
        if factor == ScaFactor.SMS_OTP:
            if not challenge_id:
                raise InvalidInput(
                    errors=[FieldError("challengeId", "is required for SMS_OTP", {"required": True})]
                )
            pending = pending.filter(pk=ids.parse_or_none("ScaChallenge", challenge_id))
        challenge = pending.order_by("-created_at").first()
        if challenge is None:
            raise _proof_refused(
                f"No {factor} SCA login is pending for this customer (a newer start replaces an older one); "
                "start one with POST /sca/login/start",
                "NO_LOGIN_PENDING",
            )
        if challenge.expires_at <= now:
            sca_challenge_transition(challenge, Status.EXPIRED)
            refusal = _proof_refused(
                f"The SCA login expired at {utc_timestamp(challenge.expires_at)}; start a new one",
                "CHALLENGE_EXPIRED",
            )
        else:
            refusal = _check_proof(challenge, profile, proof, now)
        if refusal is None:
            sca_challenge_transition(challenge, Status.VERIFIED, verified_at=now)
            profile.failed_attempts = 0
            profile.session_started_at = now
            profile.session_expires_at = now + dt.timedelta(days=settings.SCA_SESSION_DAYS)
            profile.session_factor = factor
            profile.session_ip_address = proof.end_user_ip_address[:45]
            profile.touch()
            profile.save()
    if refusal is not None:
        raise refusal
    return profile


# --- payment challenges ------------------------------------------------------------------------------


def sca_plan(quote: Quote) -> list[str]:
    """The purposes of a quote's challenges, in order ("" for an unlabelled single step)."""
    return [CONVERSION, PAYOUT] if quote.sending_currency != quote.receiving_currency else [""]


def _payee(quote: Quote) -> str:
    if quote.destination_uma_address:
        return quote.destination_uma_address
    external = quote.destination_external_account
    if external is not None:
        info = external.account_info or {}
        number = next(
            (str(info[k]) for k in ("iban", "accountNumber", "address", "clabe") if info.get(k)), ""
        )
        holder = (info.get("beneficiary") or {}).get("fullName", "")
        return f"{holder} ··{number[-4:]}".strip()
    return f"your {quote.receiving_currency} account"


def _linked_challenge(quote: Quote, challenge: ScaChallenge, nonce: bytes) -> str:
    """A WebAuthn challenge bound to what is being authorized (dynamic linking): the lowercase hex
    SHA-256 of the canonical JSON of the amount, payee, purpose, quote and challenge, plus a nonce."""
    body = json.dumps(
        {
            "amount": quote.total_sending_amount,
            "challengeId": challenge.public_id,
            "currency": quote.sending_currency,
            "nonce": nonce.hex(),
            "payee": quote.destination,
            "purpose": challenge.purpose,
            "quoteId": quote.public_id,
        },
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def _payment_text(quote: Quote, purpose: str) -> str:
    amount = money.from_smallest_unit(quote.total_sending_amount, currency=quote.sending_currency)
    what = PURPOSE_WORDS.get(purpose, "a payment")
    minutes = max(1, settings.SCA_CHALLENGE_SECONDS // 60)
    return (
        f"{{code}} is your code to authorize {what}: {amount} {quote.sending_currency} to {_payee(quote)}. "
        f"It expires in {minutes} minutes. Never share it."
    )


def _issue(quote: Quote, *, step: int, factor: str, now: dt.datetime) -> ScaChallenge:
    """Issue step `step` of the quote's sequence (its lock held)."""
    purpose = sca_plan(quote)[step - 1]
    expires_at = now + dt.timedelta(seconds=settings.SCA_CHALLENGE_SECONDS)
    if quote.source_kind == Quote.SourceKind.REALTIME:
        expires_at = min(expires_at, quote.expires_at)  # the instructions must still be payable
    challenge = ScaChallenge(
        id=ids.uuid7(),
        platform_id=quote.platform_id,
        customer=quote.customer,
        kind=Kind.PAYMENT,
        factor=factor,
        quote=quote,
        step=step,
        purpose=purpose,
        expires_at=expires_at,
        created_at=now,
        updated_at=now,
    )
    if factor == ScaFactor.SMS_OTP:
        _code_set(challenge, quote.customer, _payment_text(quote, purpose), now)
    else:
        challenge.webauthn_challenge = _linked_challenge(quote, challenge, secrets.token_bytes(16))
    challenge.save(force_insert=True)
    return challenge


def _deadline(txn: Transaction, challenge: ScaChallenge, now: dt.datetime) -> None:
    """The transaction's only due step while it waits: fail unless authorized by `expiresAt`."""
    event = RailEvent(
        after=challenge.expires_at - now,
        step=Step.FAIL,
        failure_reason=NOT_COMPLETED,
        detail=f"SCA challenge {challenge.public_id} was not authorized before it expired",
    )
    steps_set(txn, steps_from_events([event], start=now))


def _payment_factor(customer: Customer, requested: str | None) -> str:
    passkey = ScaPasskey.objects.filter(customer=customer).first()
    available = _available_factors(customer, passkey)
    usable = [ScaFactor.SMS_OTP.value, ScaFactor.PASSKEY.value]
    if requested == ScaFactor.TOTP:
        raise InvalidInput(
            errors=[
                FieldError(
                    "scaFactor", "TOTP cannot carry the dynamic linking a payment needs", {"enum": usable}
                )
            ]
        )
    if requested is not None:
        if requested not in available:
            raise InvalidInput(
                errors=[
                    FieldError(
                        "scaFactor",
                        f"the customer has no {requested} factor"
                        + (" (no phoneNumber)" if requested == ScaFactor.SMS_OTP else " (none enrolled)"),
                        {"enum": available},
                    )
                ]
            )
        return requested
    if not available:
        raise Conflict(
            f"Customer {customer.public_id} must authorize payments (SCA) but has no factor: set a "
            "phoneNumber or enroll a passkey (POST /sca/factors)",
            customerId=customer.public_id,
        )
    return available[0]


def sca_quote_hold(quote: Quote, txn: Transaction, *, factor: str | None) -> None:
    """Instead of starting the transfer: PENDING_AUTHORIZATION with the first challenge of the
    sequence, the deadline step, and the OUTGOING_PAYMENT.PENDING_AUTHORIZATION webhook. The caller
    holds the transaction's row lock (or just created both rows)."""
    now = clock.now()
    challenge = _issue(quote, step=1, factor=_payment_factor(quote.customer, factor), now=now)
    _deadline(txn, challenge, now)
    transaction_transition(
        txn,
        Transaction.Status.PENDING_AUTHORIZATION,
        quote=quote,
        locked=True,
        steps=txn.steps,
        next_step_at=txn.next_step_at,
    )


@dataclass(frozen=True)
class ChallengeView:
    """What the quote shows as `scaChallenge`."""

    id: str
    expires_at: dt.datetime
    factor: str
    available_factors: list[str]
    purpose: str
    passkey_assertion_options: dict[str, Any] | None


def sca_challenge_view(quote: Quote) -> ChallengeView | None:
    """The challenge to satisfy now, for a quote in PENDING_AUTHORIZATION (None otherwise)."""
    if quote.status != Quote.Status.PENDING_AUTHORIZATION:
        return None
    challenge = (
        ScaChallenge.objects.select_related("customer")
        .filter(quote_id=quote.pk, status=Status.PENDING)
        .order_by("-step")
        .first()
    )
    if challenge is None:
        return None
    passkey = ScaPasskey.objects.filter(customer_id=challenge.customer_id).first()
    options = None
    if challenge.factor == ScaFactor.PASSKEY and passkey is not None:
        options = _assertion_options(challenge.webauthn_challenge, passkey)
    return ChallengeView(
        id=challenge.public_id,
        expires_at=challenge.expires_at,
        factor=challenge.factor,
        available_factors=_available_factors(challenge.customer, passkey),
        purpose=challenge.purpose,
        passkey_assertion_options=options,
    )


def _pending_challenge(quote: Quote) -> ScaChallenge | None:
    return (
        ScaChallenge.objects.select_for_update()
        .filter(quote_id=quote.pk, status=Status.PENDING)
        .order_by("-step")
        .first()
    )


def _release(quote: Quote, txn: Transaction) -> None:
    """Every challenge is authorized: run the execution SCA held back, or (realtime funding) return
    to PENDING so the now-issued paymentInstructions can be paid until the quote expires."""
    if quote.source_kind == Quote.SourceKind.REALTIME:
        steps_set(txn, [expiry_step(quote.expires_at)])
        transaction_transition(
            txn,
            Transaction.Status.PENDING,
            quote=quote,
            locked=True,
            steps=txn.steps,
            next_step_at=txn.next_step_at,
        )
        return
    from payments.quotes import quote_release  # quotes imports this module for its hooks

    quote_release(quote, txn)


def _lapsed(quote: Quote, txn: Transaction) -> BadRequest:
    for challenge in ScaChallenge.objects.select_for_update().filter(
        quote_id=quote.pk, status=Status.PENDING
    ):
        sca_challenge_transition(challenge, Status.EXPIRED)
    if ScaChallenge.objects.filter(quote_id=quote.pk, status=Status.CANCELLED).exists():
        return _proof_refused(
            f"The transfer of quote {quote.public_id} failed before it was authorized: {txn.failure_detail} "
            "(failureReason SCA_NOT_COMPLETED; nothing was moved). Create a new quote.",
            "CHALLENGE_CANCELLED",
            quoteId=quote.public_id,
            transactionId=txn.public_id,
        )
    return _proof_refused(
        f"The SCA challenge of quote {quote.public_id} expired before it was authorized; the transfer "
        "was not made (failureReason SCA_NOT_COMPLETED). Create a new quote.",
        "CHALLENGE_EXPIRED",
        quoteId=quote.public_id,
        transactionId=txn.public_id,
    )


def _authorize_locked(quote: Quote, txn: Transaction, proof: ScaProof) -> ServiceError | None:
    now = clock.now()
    transaction_apply_due(quote, txn, now)  # a lapsed challenge has failed the transfer by now
    challenge = _pending_challenge(quote) if quote.status == Quote.Status.PENDING_AUTHORIZATION else None
    if challenge is not None and challenge.expires_at <= now:
        transaction_fail(quote, txn, failure_reason=NOT_COMPLETED, detail="SCA challenge expired")
        challenge = None
    if challenge is None:
        if txn.failure_reason == NOT_COMPLETED:
            return _lapsed(quote, txn)
        return Conflict(
            f"Quote {quote.public_id} has no pending SCA challenge to authorize (it is {quote.status})",
            quoteId=quote.public_id,
            status=quote.status,
        )
    profile = _profile_lock(quote.customer)
    if locked := _lock_check(profile, now):
        return locked
    if not _session_active(profile, now):
        return ScaSessionRequired(
            "The customer's SCA login session is missing or expired: complete an SCA login "
            "(POST /sca/login/start and /sca/login/complete), then authorize again",
            customerId=quote.customer.public_id,
        )
    if refusal := _check_proof(challenge, profile, proof, now):
        return refusal
    sca_challenge_transition(challenge, Status.VERIFIED, verified_at=now)
    _proof_accepted(profile)
    if challenge.step < len(sca_plan(quote)):
        following = _issue(quote, step=challenge.step + 1, factor=challenge.factor, now=now)
        _deadline(txn, following, now)
        Transaction.objects.filter(pk=txn.pk).update(steps=txn.steps, next_step_at=txn.next_step_at)
    else:
        _release(quote, txn)
    return None


def sca_quote_check(*, platform: Platform, quote_id: UUID) -> Quote:
    """The quote, when SCA applies to it: 404 for an unknown quote, 409 outside an SCA region."""
    from payments.quotes import quote_get  # quotes imports this module for its hooks

    quote = quote_get(platform=platform, quote_id=quote_id)
    if not sca_required(quote):
        raise NotInScaRegion(quote.customer)
    return quote


def quote_authorize(*, platform: Platform, quote_id: UUID, proof: ScaProof) -> Quote:
    """Satisfy the quote's current challenge; answers the quote (still PENDING_AUTHORIZATION with
    the next challenge, or released). Concurrent calls take the transaction's row lock in turn:
    one of them satisfies a challenge, the others find it gone (409) or face the next one.

    Raises 409 CONFLICT (no SCA for this customer; nothing pending), 409 SCA_SESSION_REQUIRED,
    400 (wrong code, rejected or malformed assertion, lapsed challenge), 423 ACCOUNT_LOCKED, and
    what execution raises when the last challenge releases the transfer (then nothing changes).
    """
    from payments.quotes import quote_get  # quotes imports this module for its hooks

    quote = sca_quote_check(platform=platform, quote_id=quote_id)
    with transaction.atomic():
        locked_quote, txn = transaction_lock(quote.transaction.pk)
        refusal = _authorize_locked(locked_quote, txn, proof)
    if refusal is not None:
        raise refusal  # after the commit: failed attempts and a lapsed transfer are recorded
    return quote_get(platform=platform, quote_id=quote_id)


def quote_authorize_resend(*, platform: Platform, quote_id: UUID) -> None:
    """A new SMS code for the quote's current challenge (same challenge, same `expiresAt`)."""
    quote = sca_quote_check(platform=platform, quote_id=quote_id)
    with transaction.atomic():
        locked_quote, _ = transaction_lock(quote.transaction.pk)
        challenge = (
            _pending_challenge(locked_quote)
            if locked_quote.status == Quote.Status.PENDING_AUTHORIZATION
            else None
        )
        now = clock.now()
        if challenge is None or challenge.expires_at <= now:
            raise Conflict(
                f"Quote {locked_quote.public_id} has no pending SCA challenge to re-send a code for "
                f"(it is {locked_quote.status})",
                quoteId=locked_quote.public_id,
                status=locked_quote.status,
            )
        if challenge.factor != ScaFactor.SMS_OTP:
            raise Conflict(
                f"The current challenge is a {challenge.factor} one; it has no code to re-send",
                quoteId=locked_quote.public_id,
                factor=challenge.factor,
            )
        if challenge.codes_sent >= settings.SCA_CODES_PER_CHALLENGE:
            raise RateLimited(
                f"At most {settings.SCA_CODES_PER_CHALLENGE} codes per challenge",
                retry_after=math.ceil((challenge.expires_at - now).total_seconds()),
            )
        ready_at = challenge.last_sent_at + dt.timedelta(seconds=settings.SCA_RESEND_COOLDOWN_SECONDS)
        if ready_at > now:
            wait = math.ceil((ready_at - now).total_seconds())
            raise RateLimited(f"A new code can be sent in {wait} seconds", retry_after=wait)
        challenge.customer = locked_quote.customer
        _code_set(challenge, locked_quote.customer, _payment_text(locked_quote, challenge.purpose), now)
        challenge.touch()
        challenge.save(update_fields=["code_digest", "codes_sent", "last_sent_at", "updated_at"])
