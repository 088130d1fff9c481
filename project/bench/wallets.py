"""Bench: wallet stamps and signed retries. Runs in the bench runner (Django set up, the service's database).

What can be measured how:

- The signed retry of OTP verify is single use (its `Request-Id` is spent by the first request), so
  wrk, which replays one request, cannot load it. Its cost is measured in process instead
  (`otp_retry_leg`): many pending challenges are prepared, then each retry goes through the same
  domain function the view calls (lookup, stamp verification, account lock, claim, session insert),
  against the in-process ORM-transaction floor.
- The stamp check itself (`stamp_verify`) and what payments calls through its seam on every
  stamped quote execute (`payments.wallet_seam.wallet_stamp_verify`: stamp plus active-session
  check, which asks the database only for a session this process has not seen, or has been told
  changed: wallets/session_cache.py) are measured in process against a raw P-256 verify with an
  already parsed key.
- Over HTTP, the stamped request that is safe to repeat is the identical re-send of a signed retry
  that is still PROCESSING (what integrators loop on): it answers 200 PROCESSING and, by design,
  does not verify the stamp again (`replay_load`). A re-send after the outcome was delivered is a
  401 (the `Request-Id` is spent), so the case keeps its request processing.
"""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Callable

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

PAYLOAD = json.dumps(
    {"quoteId": "Quote:01900000-0000-7000-8000-000000000000", "amount": 12550, "currency": "USD"},
    separators=(",", ":"),
)


def _wallet_with_session(creds: dict):
    """A platform customer's Global Account and an active client-held session on it; returns
    (account, session private key hex)."""
    from payments.client import wallet_crypto as client
    from payments.models import ApiToken, Customer, InternalAccount
    from wallets.models import AuthCredential
    from wallets.sessions import session_open

    platform = ApiToken.objects.select_related("platform").get(client_id=creds["clientId"]).platform
    tag = secrets.token_hex(6)
    customer = Customer.objects.create(
        platform=platform,
        customer_type=Customer.Type.INDIVIDUAL,
        platform_customer_id=f"bench-{tag}",
        uma_address=f"$bench{tag}@sandbox.uma.example",
        email=f"bench-{tag}@example.com",
        status=Customer.Status.APPROVED,
    )
    account = InternalAccount.objects.create(
        platform=platform, customer=customer, type=InternalAccount.Type.EMBEDDED_WALLET, currency="USDC"
    )  # its EMAIL_OTP credential comes with it (InternalAccount.save bootstraps the wallet)
    credential = AuthCredential.objects.get(account=account)
    key = client.generate_key_pair()
    session_open(credential=credential, client_public_key=key.public_key_hex_compressed)
    return account, key.private_key_hex


# --- in process ----------------------------------------------------------------------------------


def raw_verify(creds: dict) -> Callable[[], object]:
    key = ec.generate_private_key(ec.SECP256R1())
    public_key = key.public_key()
    signature = key.sign(PAYLOAD.encode(), ec.ECDSA(hashes.SHA256()))
    data = PAYLOAD.encode()
    return lambda: public_key.verify(signature, data, ec.ECDSA(hashes.SHA256()))


def stamp_verify_same_key(creds: dict) -> Callable[[], object]:
    from payments.client import wallet_crypto as client
    from wallets.crypto import stamp_verify

    header = client.stamp(PAYLOAD, client.generate_key_pair().private_key_hex)
    return lambda: stamp_verify(header, PAYLOAD)


def stamp_verify_new_keys(creds: dict) -> Callable[[], object]:
    """Every call names a key the parsed-key cache (4096 entries) does not hold."""
    from payments.client import wallet_crypto as client
    from wallets.crypto import stamp_verify

    headers = [client.stamp(PAYLOAD, client.generate_key_pair().private_key_hex) for _ in range(5000)]
    position = iter(range(10**12))
    return lambda: stamp_verify(headers[next(position) % len(headers)], PAYLOAD)


def stamp_seam(creds: dict) -> Callable[[], object]:
    from payments.client import wallet_crypto as client
    from payments.wallet_seam import wallet_stamp_verify

    account, private_key_hex = _wallet_with_session(creds)
    header = client.stamp(PAYLOAD, private_key_hex)
    return lambda: wallet_stamp_verify(internal_account_id=account.pk, payload=PAYLOAD, header=header)


def orm_transaction(creds: dict) -> Callable[[], object]:
    """The ORM-transaction floor, in process: lock a row, update it, insert a row."""
    from django.db import transaction
    from django.db.models import F

    from project.bench.models import BenchAccount, BenchEntry
    from project.bench.views import ACCOUNTS

    def run() -> None:
        with transaction.atomic():
            account = BenchAccount.objects.select_for_update().get(pk=random.randint(1, ACCOUNTS))  # noqa: S311
            BenchAccount.objects.filter(pk=account.pk).update(balance=F("balance") + 5)
            BenchEntry.objects.create(account=account, amount=5)

    return run


OTP_RETRIES = 400


def otp_retry_leg(creds: dict) -> Callable[[], object]:
    """OTP verify's signed retry: `OTP_RETRIES` pending challenges, each retried once."""
    from payments.client import wallet_crypto as client
    from wallets import signed_retry
    from wallets.models import AuthCredential, SignedRequest

    account, _ = _wallet_with_session(creds)
    credential = AuthCredential.objects.get(account=account)
    pending = []
    for _ in range(OTP_RETRIES):
        tek = client.generate_key_pair()
        body = {"type": "EMAIL_OTP", "encryptedOtpBundle": secrets.token_hex(90)}
        challenge = signed_retry.challenge_issue(
            operation=signed_retry.Operation.on(credential, kind=SignedRequest.Kind.OTP_VERIFY),
            signed_by=signed_retry.SignedBy.key(tek.public_key_hex_compressed),
            body=body,
            credential_type=credential.type,
            params={"publicKey": tek.public_key_hex_compressed},
        )
        stamp = client.stamp(challenge.request.payload_to_sign, tek.private_key_hex)
        pending.append((body, stamp, challenge.request.public_id))
    queue = iter(pending)

    def run() -> None:
        body, stamp, request_id = next(queue)
        outcome = signed_retry.retry_complete(
            platform=account.platform,
            kind=SignedRequest.Kind.OTP_VERIFY,
            target=credential.public_id,
            attempt=signed_retry.Attempt(body=body, signature=stamp, request_id=request_id),
        )
        if outcome.status != 200:  # a failing retry would measure the wrong thing
            raise RuntimeError(f"OTP retry answered {outcome.status}: {outcome.body}")

    return run


# --- over HTTP -----------------------------------------------------------------------------------


def replay_load(creds: dict):
    """PATCH /internal-accounts/{id} re-sent identically while its signed retry is PROCESSING (the
    sandbox's slow wallet, its settlement pushed a day out so that every re-send finds it pending)."""
    import datetime as dt

    from payments import clock
    from payments.client import wallet_crypto as client
    from project.bench.cases import Load, basic_auth
    from wallets import signed_retry
    from wallets.models import SignedRequest
    from wallets.privacy import wallet_update

    account, private_key_hex = _wallet_with_session(creds)
    changes = {"privateEnabled": True}
    challenge = wallet_update(
        platform=account.platform,
        account_id=account.public_id,
        changes=changes,
        attempt=signed_retry.Attempt(body=changes),
    )
    stamp = client.stamp(challenge.request.payload_to_sign, private_key_hex)
    outcome = signed_retry.retry_complete(
        platform=account.platform,
        kind=challenge.request.kind,
        target=account.public_id,
        attempt=signed_retry.Attempt(
            body=changes, signature=stamp, request_id=challenge.request.public_id, simulate_slow=True
        ),
    )
    if not isinstance(outcome, signed_retry.Processing):
        raise RuntimeError(f"privacy update answered {outcome}, not PROCESSING")
    SignedRequest.objects.filter(pk=challenge.request.pk).update(settle_at=clock.now() + dt.timedelta(days=1))
    headers = {
        **basic_auth(creds),
        "Content-Type": "application/json",
        "Service-Wallet-Signature": stamp,
        "Request-Id": challenge.request.public_id,
    }
    return Load(
        "PATCH", f"/api/2025-10-13/internal-accounts/{account.public_id}", json.dumps(changes), headers
    )
