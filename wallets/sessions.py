"""Sessions: opening one for a verified credential, listing, refresh, revocation, passkey login.

How the session key reaches the client depends on the form of `clientPublicKey`:

- compressed (66 hex, the recommended client-held-key flow): the client's key IS the session key;
  nothing is returned;
- uncompressed (130 hex, the interface spec's legacy flow): the service generates a session key,
  returns it sealed to the client's key as `encryptedSessionSigningKey` (a base58check credential
  bundle) and keeps only its public half.

A session authorizes nothing once revoked or past `expiresAt` (`AuthSession.objects.active()`).
"""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction

from payments import clock, ids
from payments.errors import FieldError, InvalidInput, ResourceNotFound
from payments.models import Platform
from payments.query_plans import plan_insert, plan_update
from wallets import passkeys, session_cache, signed_retry
from wallets.crypto import (
    credential_bundle_seal,
    private_key_bytes,
    private_key_generate,
    public_key_from_hex_canonical,
    public_key_hex,
)
from wallets.errors import WalletUnauthorized
from wallets.models import AuthCredential, AuthSession, CredentialType, SignedRequest
from wallets.signed_retry import Attempt, Challenge, Operation, Outcome, Processing, SignedBy
from wallets.wire import auth_session

Kind = SignedRequest.Kind


def session_open(*, credential: AuthCredential, client_public_key: str) -> tuple[AuthSession, str | None]:
    """A new session of `credential`; returns it and, in the legacy flow, `encryptedSessionSigningKey`."""
    encrypted_key = None
    if len(client_public_key) == 130:
        session_private_key = private_key_generate()
        encrypted_key = credential_bundle_seal(private_key_bytes(session_private_key), client_public_key)
        session_public_key = public_key_hex(session_private_key)
        del session_private_key  # never stored: the client holds it now
    else:
        _, session_public_key = public_key_from_hex_canonical(client_public_key)
    now = clock.now()
    session = AuthSession(
        platform_id=credential.platform_id,
        account_id=credential.account_id,
        credential=credential,
        public_key=session_public_key,
        expires_at=now + dt.timedelta(seconds=settings.WALLET_SESSION_SECONDS),
        created_at=now,
        updated_at=now,
    )
    plan_insert([session])  # every sign-in inserts one
    if credential.verified_at is None:
        credential.verified_at = now
        plan_update(credential, ["verified_at"])
    return session, encrypted_key


def session_list(*, platform: Platform, account_id: UUID) -> list[AuthSession]:
    signed_retry.requests_settle_due(account_ids=[account_id])
    return list(
        AuthSession.objects.for_platform(platform)
        .active()
        .filter(account_id=account_id)
        .select_related("credential")
        .order_by("pk")
    )


def _session_lookup(*, platform: Platform, session_id: str) -> AuthSession:
    session = (
        AuthSession.objects.for_platform(platform)
        .select_related("credential", "account")
        .filter(pk=ids.parse(AuthSession.ID_KIND, session_id))
        .first()
    )
    if session is None:
        raise ResourceNotFound("Session")
    return session


def _session_locked(pk: UUID | str) -> AuthSession:
    return AuthSession.objects.select_for_update().select_related("credential").get(pk=pk)


def _active(session: AuthSession) -> bool:
    return session.is_active() and session.credential.revoked_at is None


# --- revoke ------------------------------------------------------------------------------------


def session_revoke(
    *, platform: Platform, session_id: str, attempt: Attempt
) -> Challenge | Outcome | Processing:
    """DELETE /auth/sessions/{id}: 202, then 204 once stamped by any active session of the wallet
    (the session itself included). Unknown, expired or revoked → 404."""
    session = _session_lookup(platform=platform, session_id=session_id)
    if attempt.first_leg:
        _revoke_check(session)
        return signed_retry.challenge_issue(
            operation=Operation.on(session, kind=Kind.SESSION_REVOKE),
            signed_by=SignedBy.any_session(),
            body=attempt.body,
            credential_type=session.credential.type,
        )
    return signed_retry.retry_complete(
        platform=platform, kind=Kind.SESSION_REVOKE, target=session.public_id, attempt=attempt
    )


@signed_retry.performs(SignedRequest.Kind.SESSION_REVOKE)
def session_revoke_perform(request: SignedRequest) -> Outcome:
    session = _session_locked(ids.parse(AuthSession.ID_KIND, request.target))
    _revoke_check(session)
    session.revoked_at = clock.now()
    session.touch()
    session.save(update_fields=["revoked_at", "updated_at"])
    session_cache.forget_on_commit(session.account_id)
    return Outcome(204)


def _revoke_check(session: AuthSession) -> None:
    """Both legs: an expired or revoked session is not found."""
    if not _active(session):
        raise ResourceNotFound("Session")


# --- refresh -----------------------------------------------------------------------------------


def session_refresh(
    *, platform: Platform, session_id: str, client_public_key: str | None, attempt: Attempt
) -> Challenge | Outcome | Processing:
    """POST /auth/sessions/{id}/refresh `{clientPublicKey}` (same on both legs): 202, then 201 with a
    new session of the same credential, stamped by the session being refreshed, which must still
    be active. The old session stays valid until its own `expiresAt`. `client_public_key` is the
    first leg's; None on the retry."""
    session = _session_lookup(platform=platform, session_id=session_id)
    if attempt.first_leg:
        _refresh_check(session)
        return signed_retry.challenge_issue(
            operation=Operation.on(session, kind=Kind.SESSION_REFRESH),
            signed_by=SignedBy.this_session(session),
            body=attempt.body,
            parameters={"targetPublicKey": client_public_key},
            params={"clientPublicKey": client_public_key},
        )
    return signed_retry.retry_complete(
        platform=platform, kind=Kind.SESSION_REFRESH, target=session.public_id, attempt=attempt
    )


@signed_retry.performs(SignedRequest.Kind.SESSION_REFRESH)
def session_refresh_perform(request: SignedRequest) -> Outcome:
    session = _session_locked(request.params["sessionId"])
    _refresh_check(session)
    new_session, encrypted_key = session_open(
        credential=session.credential, client_public_key=request.params["clientPublicKey"]
    )
    return Outcome(201, auth_session(new_session, encrypted_key=encrypted_key))


def _refresh_check(session: AuthSession) -> None:
    """Both legs: only a session still active may be refreshed."""
    if not _active(session):
        raise WalletUnauthorized("The session is no longer active; verify the credential again")


# --- passkey login -----------------------------------------------------------------------------


def passkey_challenge_issue(
    *, credential: AuthCredential, client_public_key: str
) -> tuple[SignedRequest, str]:
    """The pending passkey login: a hex challenge bound to `client_public_key`, single use by requestId."""
    challenge = passkeys.challenge_for(client_public_key, secrets.token_bytes(32))
    issued = signed_retry.challenge_issue(
        operation=Operation.on(credential, kind=Kind.PASSKEY_LOGIN),
        signed_by=SignedBy.no_stamp(),
        body=None,
        credential_type=credential.type,
        parameters={"challenge": challenge, "targetPublicKey": client_public_key},
        params={"challenge": challenge, "clientPublicKey": client_public_key},
    )
    return issued.request, challenge


def passkey_login(
    *, platform: Platform, credential: AuthCredential, attempt: Attempt
) -> Outcome | Processing:
    """Verify with `{type, assertion}` and the challenge's `Request-Id`: 200 AuthSession. The body is
    bound when the login is claimed; a re-send while it is PROCESSING must carry the same one."""
    return signed_retry.retry_complete(
        platform=platform,
        kind=Kind.PASSKEY_LOGIN,
        target=credential.public_id,
        attempt=attempt,
    )


def passkey_login_check(request: SignedRequest, body: dict[str, Any]) -> dict[str, Any]:
    """Every check of the verify body `{type, assertion}` and of the WebAuthn assertion, before the
    login is claimed (the view does not parse a request naming a challenge); failures consume nothing."""
    credential = AuthCredential.objects.get(pk=ids.parse(AuthCredential.ID_KIND, request.target))
    if credential.revoked_at is not None:
        raise ResourceNotFound("AuthMethod")
    if not isinstance(body, dict) or body.get("type") != CredentialType.PASSKEY:
        raise InvalidInput(
            errors=[FieldError("type", "This credential is PASSKEY", {"enum": [CredentialType.PASSKEY]})]
        )
    try:
        sign_count = passkeys.assertion_verify(
            assertion=body.get("assertion"),
            expected_challenge=request.params["challenge"],
            credential_id=credential.credential_id,
            credential_public_key=bytes(credential.passkey_public_key),
            current_sign_count=credential.sign_count,
            allow_legacy_literal=settings.SANDBOX,
        )
    except passkeys.PasskeyMalformed as exc:
        raise InvalidInput(
            f"assertion: {exc.reason}", errors=[FieldError("assertion", exc.reason, {})]
        ) from None
    except passkeys.PasskeyInvalid as exc:
        raise WalletUnauthorized(f"Passkey assertion rejected: {exc.reason}") from None
    return {"signCount": sign_count}


@signed_retry.performs(SignedRequest.Kind.PASSKEY_LOGIN, precheck=passkey_login_check)
def passkey_login_perform(request: SignedRequest) -> Outcome:
    credential = AuthCredential.objects.select_for_update().get(
        pk=ids.parse(AuthCredential.ID_KIND, request.target)
    )
    if credential.revoked_at is not None:
        raise ResourceNotFound("AuthMethod")
    sign_count = request.params["signCount"]
    if (sign_count or credential.sign_count) and sign_count <= credential.sign_count:
        # Another login with this authenticator landed between the check and the claim.
        raise WalletUnauthorized("Passkey assertion rejected: sign counter did not increase")
    credential.sign_count = sign_count
    credential.save(update_fields=["sign_count"])
    session, encrypted_key = session_open(
        credential=credential, client_public_key=request.params["clientPublicKey"]
    )
    return Outcome(200, auth_session(session, encrypted_key=encrypted_key))


@transaction.atomic
def sessions_revoke_for_credential(credential: AuthCredential) -> int:
    now = clock.now()
    session_cache.forget_on_commit(credential.account_id)
    return AuthSession.objects.filter(credential=credential, revoked_at__isnull=True).update(
        revoked_at=now, updated_at=now
    )
