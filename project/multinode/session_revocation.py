"""Scenario 5: a wallet session revoked on one node is refused by the others at once, though each
remembers the sessions it has checked (wallets/session_cache.py, told by PostgreSQL)."""

from __future__ import annotations

import secrets

from payments.client import KeySigner, ServiceClient, ServiceError
from project.bench.soak import customer_body
from project.multinode.api import Api, _node
from project.multinode.config import API, UMA_SUCCESS, Report, say

SANDBOX_OTP = "000000"
NODES = 3


def session_revocation(api: Api, report: Report) -> None:
    say("5. a wallet session revoked on one node is refused by the others at once")
    clients = [ServiceClient(_node(i) + API, *api.auth) for i in range(NODES)]
    try:
        customer = api.client(_node(0)).post("/customers", json=customer_body(secrets.randbelow(10**12)))
        customer.raise_for_status()
        (wallet,) = (
            clients[0].internal_accounts.list(customer_id=customer.json()["id"], type="EMBEDDED_WALLET").data
        )
        clients[0].sandbox.fund(wallet.id, 10**9)
        session, signer = _otp_login(clients[0], wallet.id)
        before = [_execute(client, wallet.id, signer) for client in clients]  # each node has seen it
        listeners = _listeners()
        clients[0].sessions.revoke(session.id, signer)
        after = [_execute(client, wallet.id, signer) for client in reversed(clients)]
    finally:
        for client in clients:
            client.close()
    report.figures["session_revocation"] = {"listeners": listeners, "before": before, "after": after}
    report.check(
        listeners >= NODES
        and before == ["executed"] * NODES
        and after == ["WALLET_SIGNATURE_INVALID"] * NODES,
        f"{listeners} session cache listeners; a stamped execute on each node before the revocation: "
        f"{before}; right after it: {after}",
    )


def _listeners() -> int:
    """The session caches in use: each web node that has checked a stamp listens."""
    from django.db import connection

    from wallets.session_cache import LISTENER_NAME

    connection.close()  # scenario 4 restarted PgBouncer under this process's connection
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [LISTENER_NAME])
        return cursor.fetchone()[0]


def _otp_login(client: ServiceClient, account_id: str) -> tuple[object, KeySigner]:
    (credential,) = client.credentials.list(account_id)
    challenged = client.credentials.challenge(credential.id)
    session, tek = client.credentials.verify_otp(
        credential.id,
        SANDBOX_OTP,
        challenged.otp_encryption_target_bundle,
        trusted_signer_public_key=client.credentials.service_keys()["otpEncryptionSignerPublicKey"],
    )
    return session, KeySigner(tek)


def _execute(client: ServiceClient, account_id: str, signer: KeySigner) -> str:
    quote = client.quotes.create(
        source={"sourceType": "ACCOUNT", "accountId": account_id},
        destination={"destinationType": "UMA_ADDRESS", "umaAddress": UMA_SUCCESS},
        locked_currency_side="SENDING",
        locked_currency_amount=1_000_000,
    )
    try:
        client.quotes.execute(quote, signer=signer)
    except ServiceError as refused:
        return refused.code
    return "executed"
