"""Email and SMS one-time codes: issue, deliver, verify, attempt cap and resend quota.

A challenge is one code plus one fresh HPKE target key (its private half sealed at rest), signed
into `otpEncryptionTargetBundle` by the service's OTP quorum key. Verify opens the client's
`encryptedOtpBundle` with that key, compares the code in constant time and, when it matches,
answers a signed-retry challenge that the client stamps with its TEK (the `public_key` inside the
bundle); the signed retry opens a session whose key is that TEK.

Only the latest challenge of a credential counts, a code is single use and expires, and state lives
in the database (any web node can verify what another issued):

- attempts: `WALLET_OTP_MAX_FAILED_ATTEMPTS` wrong codes lock the credential for
  `WALLET_OTP_LOCK_SECONDS` (423 ACCOUNT_LOCKED with `lockedUntil` and `failedAttempts`), for
  challenges and verifies alike; a correct code resets the count;
- resend quota: at most `WALLET_OTP_CHALLENGES_PER_WINDOW` challenges per credential in
  `WALLET_OTP_CHALLENGE_WINDOW_SECONDS` (429 RATE_LIMITED with `Retry-After`).

Sandbox: the code is always `000000` and nothing is delivered (HPKE and every check still run).
Production: random codes of the platform's `embeddedWalletConfig` (`otpLength`, default 6;
`alphanumeric`; `expirationSeconds`, default 300), sent by Django mail or the `SMS_BACKEND`.
"""

from __future__ import annotations

import datetime as dt
import hmac
import logging
import math
import secrets
import string
from collections.abc import Callable
from typing import Any
from uuid import UUID

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.utils.crypto import salted_hmac

from payments import clock, ids, secret_box
from payments.errors import FieldError, InvalidInput, RateLimited, ResourceNotFound, ServiceError
from payments.models import Platform
from payments.query_plans import plan_all, plan_first, plan_insert, plan_update  # every sign-in's statements
from payments.wire.time import utc_timestamp
from wallets import service_keys, signed_retry
from wallets.crypto import (
    BundleDecryptFailed,
    BundleMalformed,
    otp_bundle_open,
    private_key_bytes,
    private_key_from_bytes,
    target_bundle_issue,
)
from wallets.errors import AccountLocked, InvalidOtpCode, WalletUnauthorized
from wallets.models import AuthCredential, CredentialType, OtpChallenge, SignedRequest
from wallets.sessions import session_open
from wallets.signed_retry import Challenge, Operation, Outcome, SignedBy
from wallets.sms import sms_send
from wallets.wire import auth_session

log = logging.getLogger(__name__)

SANDBOX_CODE = "000000"
DEFAULT_LENGTH = 6
DEFAULT_EXPIRATION_SECONDS = 300
# Alphanumeric codes leave out look-alikes (0/O, 1/I/L) and are compared case-insensitively.
_ALPHANUMERIC = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
_TARGET_KEY_PURPOSE = "wallets.otp-target-key"


def otp_code_generate(*, length: int = DEFAULT_LENGTH, alphanumeric: bool = False) -> str:
    alphabet = _ALPHANUMERIC if alphanumeric else string.digits
    return "".join(secrets.choice(alphabet) for _ in range(length))


def _code_digest(challenge_id: Any, code: str) -> str:
    return salted_hmac("wallets.otp-code", f"{challenge_id}:{code.upper()}", algorithm="sha256").hexdigest()


def _config(platform: Platform) -> dict[str, Any]:
    return platform.embedded_wallet_config or {}


def _lock_check(credential: AuthCredential, now: dt.datetime) -> None:
    """423 while locked; a lock that has run out is lifted (the caller saves the credential)."""
    if credential.otp_locked_until is None:
        return
    if credential.otp_locked_until > now:
        raise AccountLocked(
            lockedUntil=utc_timestamp(credential.otp_locked_until),
            failedAttempts=credential.otp_failed_attempts,
        )
    credential.otp_locked_until = None
    credential.otp_failed_attempts = 0
    credential.save(update_fields=["otp_locked_until", "otp_failed_attempts"])


def _quota_check(credential: AuthCredential, now: dt.datetime) -> None:
    window = dt.timedelta(seconds=settings.WALLET_OTP_CHALLENGE_WINDOW_SECONDS)
    quota = settings.WALLET_OTP_CHALLENGES_PER_WINDOW
    recent = plan_all(f"otp-quota-{quota}", _recent_challenges(quota), credential.pk, now - window)
    if len(recent) >= quota:
        retry_after = math.ceil((recent[-1] + window - now).total_seconds())
        raise RateLimited(
            f"At most {quota} one-time codes per {int(window.total_seconds())} seconds; retry after {retry_after} seconds",
            retry_after=retry_after,
        )


def _recent_challenges(quota: int):
    def rows(credential_id: UUID, since: dt.datetime):
        return (
            OtpChallenge.objects.filter(credential_id=credential_id, created_at__gt=since)
            .order_by("-created_at")
            .values_list("created_at", flat=True)[:quota]
        )

    return rows


def _latest_challenge(credential_id: UUID):
    return OtpChallenge.objects.filter(credential_id=credential_id).order_by("-created_at", "-id")[:1]


def otp_challenge_issue(*, credential: AuthCredential, locked: bool = False) -> str:
    """Issue (and in production send) a new code; return `otpEncryptionTargetBundle`. `locked`: the
    caller read `credential` (and its platform) under its row lock, in the transaction this joins."""
    with transaction.atomic(savepoint=False):  # a refusal rolls back the caller's transaction
        if not locked:
            rows = AuthCredential.objects.select_for_update().select_related("platform")
            credential = rows.get(pk=credential.pk)
        return _otp_challenge_issue(credential)


def otp_challenge_check(credential: AuthCredential) -> None:
    """What refuses a new code before one is made: 423 while locked, 429 past the resend quota."""
    if credential.type not in (CredentialType.EMAIL_OTP, CredentialType.SMS_OTP):
        raise InvalidInput(f"{credential.type} credentials have no one-time codes")
    now = clock.now()
    _lock_check(credential, now)
    _quota_check(credential, now)


def _otp_challenge_issue(credential: AuthCredential) -> str:
    otp_challenge_check(credential)
    now = clock.now()
    config = _config(credential.platform)
    bundle, target_key = target_bundle_issue(
        service_keys.signing_key(service_keys.Purpose.OTP_QUORUM),
        organization_id=f"InternalAccount:{credential.account_id}",
        user_id=credential.public_id,
    )
    if settings.SANDBOX:
        code = SANDBOX_CODE
    else:
        code = otp_code_generate(
            length=config.get("otpLength", DEFAULT_LENGTH), alphanumeric=config.get("alphanumeric", False)
        )
    challenge = OtpChallenge(
        id=ids.uuid7(),
        credential=credential,
        target_private_key_sealed=secret_box.seal(private_key_bytes(target_key), purpose=_TARGET_KEY_PURPOSE),
        created_at=now,
        expires_at=now + dt.timedelta(seconds=config.get("expirationSeconds", DEFAULT_EXPIRATION_SECONDS)),
    )
    challenge.code_digest = _code_digest(challenge.id, code)
    plan_insert([challenge])
    if settings.PRODUCTION:
        credential_id = credential.pk
        transaction.on_commit(lambda: otp_deliver(credential_id=credential_id, code=code))
    return bundle


def otp_deliver(*, credential_id: Any, code: str) -> None:
    """Send the code to the credential's contact (after the commit that stored its digest)."""
    credential = AuthCredential.objects.select_related("platform").get(pk=credential_id)
    config = _config(credential.platform)
    app = config.get("appName") or credential.platform.name
    minutes = max(1, config.get("expirationSeconds", DEFAULT_EXPIRATION_SECONDS) // 60)
    text = f"Your {app} code is {code}. It expires in {minutes} minute{'s' if minutes != 1 else ''}."
    if credential.type == CredentialType.EMAIL_OTP:
        sender = config.get("sendFromEmailAddress") or settings.DEFAULT_FROM_EMAIL
        if name := config.get("sendFromEmailSenderName"):
            sender = f"{name} <{sender}>"
        send_mail(f"Your {app} code", text, sender, [credential.contact])
    else:
        sms_send(to=credential.contact, message=text)
    log.info("one-time code sent for %s", credential.public_id)  # never the code itself


def otp_verify_start(*, credential_read: Callable[[], AuthCredential], body: dict[str, Any]) -> Challenge:
    """First leg of verify: check the code; 202 with a challenge only the TEK inside may sign.
    `credential_read()` reads the credential (with its account) and locks its row; it runs in the
    transaction that counts a wrong code."""
    error: ServiceError | None = None
    with transaction.atomic():
        credential = credential_read()
        if credential.revoked_at is not None:
            raise ResourceNotFound("AuthMethod")
        now = clock.now()
        _lock_check(credential, now)
        challenge = plan_first("otp-latest-challenge", _latest_challenge, credential.pk)
        if challenge is None or challenge.used_at is not None:
            raise WalletUnauthorized("No one-time code is pending; request one with the challenge endpoint")
        if challenge.expires_at <= now:
            raise WalletUnauthorized("The one-time code has expired; request a new one")
        target_key = private_key_from_bytes(
            secret_box.unseal(challenge.target_private_key_sealed, purpose=_TARGET_KEY_PURPOSE)
        )
        try:
            plaintext = otp_bundle_open(body["encryptedOtpBundle"], target_key)
        except BundleMalformed as exc:
            raise InvalidInput(errors=[FieldError("encryptedOtpBundle", str(exc), {})]) from None
        except BundleDecryptFailed:
            raise WalletUnauthorized(
                "encryptedOtpBundle was not encrypted to the current otpEncryptionTargetBundle"
            ) from None
        if not hmac.compare_digest(_code_digest(challenge.id, plaintext.otp_code), challenge.code_digest):
            error = _failed_attempt(credential, now)
        else:
            challenge.used_at = now
            plan_update(challenge, ["used_at"])
            if credential.otp_failed_attempts:
                credential.otp_failed_attempts = 0
                credential.save(update_fields=["otp_failed_attempts"])
            issued = signed_retry.challenge_issue(
                operation=Operation.on(credential, kind=SignedRequest.Kind.OTP_VERIFY),
                signed_by=SignedBy.key(plaintext.public_key_hex),
                body=body,
                credential_type=credential.type,
                parameters={"publicKey": plaintext.public_key_hex},
                params={"publicKey": plaintext.public_key_hex},
            )
    if error is not None:  # raised after the commit, so the failed attempt is counted
        raise error
    return issued


def _failed_attempt(credential: AuthCredential, now: dt.datetime) -> ServiceError:
    credential.otp_failed_attempts += 1
    maximum = settings.WALLET_OTP_MAX_FAILED_ATTEMPTS
    if credential.otp_failed_attempts >= maximum:
        credential.otp_locked_until = now + dt.timedelta(seconds=settings.WALLET_OTP_LOCK_SECONDS)
    credential.save(update_fields=["otp_failed_attempts", "otp_locked_until"])
    if credential.otp_locked_until is not None:
        return AccountLocked(
            lockedUntil=utc_timestamp(credential.otp_locked_until),
            failedAttempts=credential.otp_failed_attempts,
        )
    return InvalidOtpCode(
        failedAttempts=credential.otp_failed_attempts,
        remainingAttempts=maximum - credential.otp_failed_attempts,
    )


# Its one refusal comes before its writes, so it needs no savepoint.
@signed_retry.performs(SignedRequest.Kind.OTP_VERIFY, savepoint=False)
def otp_verify_perform(request: SignedRequest) -> Outcome:
    credential = plan_first(
        "otp-verify-credential", _credential_locked, ids.parse(AuthCredential.ID_KIND, request.target)
    )
    if credential is None:
        raise AuthCredential.DoesNotExist("AuthCredential matching query does not exist.")
    if credential.revoked_at is not None:
        raise ResourceNotFound("AuthMethod")
    session, _ = session_open(credential=credential, client_public_key=request.params["publicKey"])
    return Outcome(200, auth_session(session))


def _credential_locked(pk: UUID):
    return AuthCredential.objects.select_for_update().filter(pk=pk)[:1]
