"""Authentication credentials of a wallet account: bootstrap, create, list, challenge, verify, revoke.

Limits: one EMAIL_OTP, one SMS_OTP, any number of distinct PASSKEYs (the same WebAuthn credential
id twice → 400 PASSKEY_CREDENTIAL_ALREADY_EXISTS), one OAUTH per provider identity (iss + sub),
and at least one credential always remains. Adding a credential to an account that has one, and
revoking one (stamped by a session of a *different* credential), are signed retries.
"""

from __future__ import annotations

import base64
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import IntegrityError, transaction

from payments import clock, ids
from payments.errors import BadRequest, FieldError, InvalidInput, ResourceNotFound
from payments.models import InternalAccount, Platform
from payments.query_plans import plan_first  # the credential read of every sign-in
from payments.wire.time import utc_timestamp
from wallets import oidc, passkeys, signed_retry
from wallets.accounts import wallet_account_get
from wallets.errors import CredentialAlreadyExists, PasskeyAlreadyExists, WalletUnauthorized
from wallets.export import wallet_create
from wallets.models import OTP_TYPES, AuthCredential, CredentialType, SignedRequest
from wallets.otp import otp_challenge_check, otp_challenge_issue, otp_verify_start
from wallets.sessions import (
    passkey_challenge_issue,
    passkey_login,
    session_open,
    sessions_revoke_for_credential,
)
from wallets.signed_retry import Attempt, Challenge, Operation, Outcome, Processing, SignedBy
from wallets.wire import auth_method, auth_session

Kind = SignedRequest.Kind
Result = Challenge | Outcome | Processing


# --- reads -------------------------------------------------------------------------------------


def _active(account: InternalAccount | UUID):
    return AuthCredential.objects.filter(account=account, revoked_at__isnull=True)


def credential_list(*, platform: Platform, account_id: UUID) -> list[AuthCredential]:
    signed_retry.requests_settle_due(account_ids=[account_id])
    return list(
        AuthCredential.objects.for_platform(platform)
        .filter(account_id=account_id, revoked_at__isnull=True)
        .order_by("pk")
    )


def credential_get(
    *, platform: Platform, credential_id: str, include_revoked: bool = False, lock: bool = False
) -> AuthCredential:
    """With `lock` (inside a transaction), the credential's row is locked, not its account's or platform's.
    Every sign-in reads its credential (compiled once: `payments.query_plans`)."""
    pk = ids.parse(AuthCredential.ID_KIND, credential_id)
    if lock:
        credential = plan_first("credential-get-locked", _credential_rows_locked, platform.pk, pk)
    else:
        credential = plan_first("credential-get", _credential_rows, platform.pk, pk)
    if credential is None or (credential.revoked_at is not None and not include_revoked):
        raise ResourceNotFound("AuthMethod")
    return credential


def _credential_rows(platform_id: UUID, pk: UUID):
    return AuthCredential.objects.filter(platform_id=platform_id, pk=pk).select_related(
        "account", "platform"
    )[:1]


def _credential_rows_locked(platform_id: UUID, pk: UUID):
    return _credential_rows(platform_id, pk).select_for_update(of=("self",))


# --- bootstrap ---------------------------------------------------------------------------------


def wallet_bootstrap(account: InternalAccount) -> None:
    """A new Global Account: its wallet secret, and an EMAIL_OTP credential tied to the customer email."""
    wallet_create(account)
    customer = account.customer
    if customer is not None and customer.email and not _active(account).exists():
        AuthCredential.objects.create(
            platform_id=account.platform_id,
            account=account,
            type=CredentialType.EMAIL_OTP,
            nickname=customer.email,
            contact=customer.email,
        )


# --- create ------------------------------------------------------------------------------------


def credential_create(*, platform: Platform, data: dict[str, Any] | None, attempt: Attempt) -> Result:
    """POST /auth/credentials. 202 while the account has a credential to sign with (always, for a
    Global Account), then 201 AuthMethod on the signed retry; 201 at once otherwise. `data` is the
    parsed body; None on the retry."""
    if not attempt.first_leg:
        return signed_retry.retry_complete(
            platform=platform,
            kind=Kind.CREDENTIAL_CREATE,
            target="",  # the account is part of the body, which the challenge binds
            attempt=attempt,
        )
    account = wallet_account_get(platform=platform, account_id=data["accountId"], with_customer=True)
    plan = _creation_plan(account, data)
    shown = {k: v for k, v in plan.items() if k in ("type", "nickname", "credentialId", "issuer", "subject")}
    with transaction.atomic():
        if not _active(account).exists():
            return _credential_create_now(account.pk, plan)
        return signed_retry.challenge_issue(
            operation=Operation.in_wallet(account, kind=Kind.CREDENTIAL_CREATE, target=""),
            signed_by=SignedBy.any_session(),
            body=attempt.body,
            credential_type=plan["type"],
            parameters=shown,
            params=plan,
        )


def _creation_plan(account: InternalAccount, data: dict[str, Any]) -> dict[str, Any]:
    """Check a new credential and gather what creating it needs (stored with the challenge)."""
    kind = data["type"]
    customer = account.customer
    if kind in (CredentialType.EMAIL_OTP, CredentialType.SMS_OTP):
        contact = (
            (customer.email if kind == CredentialType.EMAIL_OTP else customer.phone_number)
            if customer
            else ""
        )
        if not contact:
            what = "email" if kind == CredentialType.EMAIL_OTP else "phoneNumber"
            raise BadRequest(f"The account's customer has no {what} to send one-time codes to")
        plan = {"type": kind, "nickname": contact, "contact": contact}
    elif kind == CredentialType.OAUTH:
        claims = oauth_token_check(data["oidcToken"], client_public_key=None, expected=None, registering=True)
        plan = {
            "type": kind,
            "nickname": claims.email or claims.sub,
            "issuer": claims.iss,
            "subject": claims.sub,
            "audience": claims.aud,
        }
    else:
        try:
            passkey = passkeys.registration_verify(
                challenge=data["challenge"], attestation=data["attestation"]
            )
        except passkeys.PasskeyMalformed as exc:
            raise InvalidInput(errors=[FieldError("attestation", exc.reason, {})]) from None
        except passkeys.PasskeyInvalid as exc:
            raise WalletUnauthorized(f"Passkey registration rejected: {exc.reason}") from None
        plan = {
            "type": kind,
            "nickname": data["nickname"],
            "credentialId": passkey.credential_id,
            "publicKey": base64.b64encode(passkey.public_key).decode("ascii"),
            "signCount": passkey.sign_count,
            "transports": passkey.transports,
            "aaguid": passkey.aaguid,
        }
    _duplicate_check(account, plan)
    return plan


def _duplicate_check(account: InternalAccount, plan: dict[str, Any]) -> None:
    active = _active(account).filter(type=plan["type"])
    if plan["type"] in (CredentialType.EMAIL_OTP, CredentialType.SMS_OTP):
        if active.exists():
            raise CredentialAlreadyExists(plan["type"])
    elif plan["type"] == CredentialType.PASSKEY:
        if active.filter(credential_id=plan["credentialId"]).exists():
            raise PasskeyAlreadyExists()
    elif active.filter(oidc_issuer=plan["issuer"], oidc_subject=plan["subject"]).exists():
        raise BadRequest("The account already has an OAUTH credential for this provider identity")


def _credential_create_now(account_id: UUID, plan: dict[str, Any]) -> Outcome:
    account = InternalAccount.objects.select_for_update().get(pk=account_id)  # one creation at a time
    _duplicate_check(account, plan)
    credential = AuthCredential(
        platform_id=account.platform_id,
        account=account,
        type=plan["type"],
        nickname=plan["nickname"],
        contact=plan.get("contact", ""),
        credential_id=plan.get("credentialId", ""),
        passkey_public_key=base64.b64decode(plan["publicKey"]) if "publicKey" in plan else None,
        sign_count=plan.get("signCount", 0),
        transports=plan.get("transports", []),
        aaguid=plan.get("aaguid", ""),
        oidc_issuer=plan.get("issuer", ""),
        oidc_subject=plan.get("subject", ""),
        oidc_audience=plan.get("audience", ""),
    )
    try:
        with transaction.atomic():
            credential.save(force_insert=True)
    except IntegrityError:  # a concurrent creation won the race past the check above
        _duplicate_check(account, plan)
        raise
    bundle = otp_challenge_issue(credential=credential) if credential.is_otp else None
    return Outcome(201, auth_method(credential, otp_bundle=bundle))


@signed_retry.performs(SignedRequest.Kind.CREDENTIAL_CREATE)
def credential_create_perform(request: SignedRequest) -> Outcome:
    return _credential_create_now(request.account_id, request.params)


# --- revoke ------------------------------------------------------------------------------------


def credential_revoke(*, platform: Platform, credential_id: str, attempt: Attempt) -> Result:
    """DELETE /auth/credentials/{id}: 202, then 204; the credential's sessions end with it."""
    credential = credential_get(platform=platform, credential_id=credential_id, include_revoked=True)
    if not attempt.first_leg:
        return signed_retry.retry_complete(
            platform=platform,
            kind=Kind.CREDENTIAL_REVOKE,
            target=credential.public_id,
            attempt=attempt,
        )
    if credential.revoked_at is not None:
        raise ResourceNotFound("AuthMethod")
    _last_credential_check(credential)
    return signed_retry.challenge_issue(
        operation=Operation.on(credential, kind=Kind.CREDENTIAL_REVOKE),
        signed_by=SignedBy.other_credential(credential),
        body=attempt.body,
        credential_type=credential.type,
        parameters={"credentialType": credential.type, "nickname": credential.nickname},
    )


def _last_credential_check(credential: AuthCredential) -> None:
    if not _active(credential.account_id).exclude(pk=credential.pk).exists():
        raise BadRequest("An account must keep at least one credential; add another before revoking this one")


@signed_retry.performs(SignedRequest.Kind.CREDENTIAL_REVOKE)
def credential_revoke_perform(request: SignedRequest) -> Outcome:
    InternalAccount.objects.select_for_update().get(pk=request.account_id)  # serialise the last-one check
    credential = AuthCredential.objects.select_for_update().get(
        pk=ids.parse(AuthCredential.ID_KIND, request.target)
    )
    if credential.revoked_at is not None:
        raise ResourceNotFound("AuthMethod")
    _last_credential_check(credential)
    credential.revoked_at = clock.now()
    credential.touch()
    credential.save(update_fields=["revoked_at", "updated_at"])
    sessions_revoke_for_credential(credential)
    return Outcome(204)


# --- challenge and verify ----------------------------------------------------------------------


def credential_challenge(
    *, platform: Platform, credential_id: str, client_public_key: str | None, attempt: Attempt
) -> Outcome | Processing:
    """POST /auth/credentials/{id}/challenge: a new code (OTP) or a WebAuthn challenge (PASSKEY);
    with the sandbox's slow-wallet switch, 200 PROCESSING until the identical re-send collects it."""
    if attempt.simulate_slow:
        credential = credential_get(platform=platform, credential_id=credential_id)
        return signed_retry.one_call(
            operation=Operation.on(credential, kind=Kind.CREDENTIAL_CHALLENGE),
            attempt=attempt,
            precheck=lambda: _challenge_check(credential, client_public_key),
        )
    with transaction.atomic():  # an OTP code is issued under the credential's lock, taken as it is read
        credential = credential_get(platform=platform, credential_id=credential_id, lock=True)
        if credential.is_otp:
            return _challenge_issue(credential, locked=True)
    _challenge_check(credential, client_public_key)
    return _challenge_issue(credential, client_public_key=client_public_key)


def _challenge_check(credential: AuthCredential, client_public_key: str | None) -> dict[str, Any]:
    """Refusals before a challenge is made; returns what making it needs."""
    if credential.is_otp:
        otp_challenge_check(credential)
        return {}
    if credential.type == CredentialType.OAUTH:
        raise BadRequest("OAUTH credentials have no challenge step; verify with a fresh OIDC token")
    if client_public_key is None:
        raise InvalidInput(
            errors=[FieldError("clientPublicKey", "Required for PASSKEY credentials", {"required": True})]
        )
    return {"clientPublicKey": client_public_key}


def _challenge_issue(
    credential: AuthCredential, *, locked: bool = False, client_public_key: str | None = None
) -> Outcome:
    if credential.is_otp:
        bundle = otp_challenge_issue(credential=credential, locked=locked)
        return Outcome(200, auth_method(credential, otp_bundle=bundle))
    request, challenge = passkey_challenge_issue(credential=credential, client_public_key=client_public_key)
    body = auth_method(credential)
    body.update(challenge=challenge, requestId=request.public_id, expiresAt=utc_timestamp(request.expires_at))
    return Outcome(200, body)


@signed_retry.performs(SignedRequest.Kind.CREDENTIAL_CHALLENGE)
def credential_challenge_perform(request: SignedRequest) -> Outcome:
    credential = _performed_on(request)
    return _challenge_issue(credential, client_public_key=request.params.get("clientPublicKey"))


def _performed_on(request: SignedRequest) -> AuthCredential:
    """The credential a settling one-call operation acts on: not found once it was revoked."""
    pk = ids.parse(AuthCredential.ID_KIND, request.target)
    credential = AuthCredential.objects.select_related("account").get(pk=pk)
    if credential.revoked_at is not None:
        raise ResourceNotFound("AuthMethod")
    return credential


def credential_verify(
    *, platform: Platform, credential_id: str, data: dict[str, Any] | None, attempt: Attempt
) -> Result:
    """POST /auth/credentials/{id}/verify, by type: OTP 202 then 200 Session; OAUTH and PASSKEY 200.
    `data` is a first leg's parsed body; None when the request names a challenge (an OTP's signed
    retry, a passkey login), whose body the signed-retry engine checks."""

    def locked() -> AuthCredential:
        return _verify_target(
            credential_get(platform=platform, credential_id=credential_id, include_revoked=True, lock=True),
            data,
        )

    if attempt.first_leg and data is not None and data["type"] in OTP_TYPES:
        return otp_verify_start(credential_read=locked, body=attempt.body)  # one read, under the lock
    credential = _verify_target(
        credential_get(platform=platform, credential_id=credential_id, include_revoked=True), data
    )
    if credential.is_otp:
        if attempt.first_leg:
            return otp_verify_start(credential_read=locked, body=attempt.body)
        return signed_retry.retry_complete(
            platform=platform, kind=Kind.OTP_VERIFY, target=credential.public_id, attempt=attempt
        )
    if credential.revoked_at is not None:
        raise ResourceNotFound("AuthMethod")
    if credential.type == CredentialType.PASSKEY:
        return passkey_login(platform=platform, credential=credential, attempt=attempt)
    if data is None:
        raise BadRequest(
            "An OAUTH verify is not a signed retry: send it without Request-Id or Service-Wallet-Signature"
        )
    token, client_public_key = data["oidcToken"], data["clientPublicKey"]
    if attempt.simulate_slow:
        return signed_retry.one_call(
            operation=Operation.on(credential, kind=Kind.OAUTH_LOGIN),
            attempt=attempt,
            precheck=lambda: _oauth_identity_check(credential, token, client_public_key),
        )
    return oauth_verify(credential=credential, token=token, client_public_key=client_public_key)


def _verify_target(credential: AuthCredential, data: dict[str, Any] | None) -> AuthCredential:
    if data is not None and data["type"] != credential.type:
        raise InvalidInput(
            errors=[FieldError("type", f"This credential is {credential.type}", {"enum": [credential.type]})]
        )
    return credential


def oauth_token_check(
    token: str,
    *,
    client_public_key: str | None,
    expected: oidc.OidcIdentity | None,
    registering: bool = False,
) -> oidc.OidcClaims:
    try:
        return oidc.oidc_token_check(
            token=token,
            client_public_key=client_public_key,
            expected=expected,
            production=settings.PRODUCTION,
        )
    except oidc.OidcMalformed as exc:
        raise InvalidInput(errors=[FieldError("oidcToken", exc.reason, {})]) from None
    except oidc.OidcInvalid as exc:
        # The reference answers a registration naming an unsupported issuer 400, like a malformed token.
        if registering and exc.reason == "unsupported issuer":
            raise InvalidInput(errors=[FieldError("oidcToken", exc.reason, {})]) from None
        raise WalletUnauthorized(f"OIDC token rejected: {exc.reason}") from None


@transaction.atomic
def oauth_verify(*, credential: AuthCredential, token: str, client_public_key: str) -> Outcome:
    _oauth_identity_check(credential, token, client_public_key)
    return _oauth_session_open(credential, client_public_key)


def _oauth_identity_check(credential: AuthCredential, token: str, client_public_key: str) -> dict[str, Any]:
    """The token must name the credential's identity (iss, aud, sub) in both modes, and its nonce the
    key; returns what opening the session needs."""
    expected = oidc.OidcIdentity(
        iss=credential.oidc_issuer, sub=credential.oidc_subject, aud=credential.oidc_audience
    )
    oauth_token_check(token, client_public_key=client_public_key, expected=expected)
    return {"clientPublicKey": client_public_key}


def _oauth_session_open(credential: AuthCredential, client_public_key: str) -> Outcome:
    session, encrypted_key = session_open(credential=credential, client_public_key=client_public_key)
    return Outcome(200, auth_session(session, encrypted_key=encrypted_key))


@signed_retry.performs(SignedRequest.Kind.OAUTH_LOGIN)
def oauth_login_perform(request: SignedRequest) -> Outcome:
    return _oauth_session_open(_performed_on(request), request.params["clientPublicKey"])
