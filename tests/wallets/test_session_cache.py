"""On PostgreSQL, with committed transactions: the stamp check's in-process session cache answers
without the database, and never for a session revoked, expired or gone, whoever changed it."""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Callable

import psycopg
import pytest
from django.db import connection

from payments import clock
from payments.client import wallet_crypto as client
from tests.wallets.conftest import Wallet
from wallets import session_cache
from wallets.errors import WalletSignatureInvalid
from wallets.models import AuthCredential
from wallets.sessions import sessions_revoke_for_credential
from wallets.stamp_check import wallet_stamp_verify

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

PAYLOAD = '{"quoteId":"Quote:1","amount":100}'
PATIENCE = 10.0  # seconds to wait for the listener


@pytest.fixture
def cache_on(settings):
    settings.WALLET_SESSION_CACHE = True
    yield
    session_cache.stop()


@pytest.fixture
def deaf_listener(monkeypatch):
    """The listener hears nothing: what is left is this process's own forgetting."""
    monkeypatch.setattr(session_cache, "_notified", lambda payload: None)


def _until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < deadline, "the listener did not catch up"
        time.sleep(0.01)


def _accepted(wallet: Wallet, private_key_hex: str) -> bool:
    try:
        wallet_stamp_verify(
            internal_account_id=wallet.account.pk,
            payload=PAYLOAD,
            header=client.stamp(PAYLOAD, private_key_hex),
        )
    except WalletSignatureInvalid:
        return False
    return True


def _cached(wallet: Wallet, tek) -> None:
    """Check until the check's answer is remembered (the listener connects in the background)."""
    key = tek.public_key_hex_compressed

    def remembered() -> bool:
        assert _accepted(wallet, tek.private_key_hex)
        return session_cache.expiry(wallet.account.pk, key) is not None

    _until(remembered)


def _elsewhere(sql: str, *params) -> None:
    """Another process's write: its own connection, committed."""
    settings = connection.settings_dict
    with psycopg.connect(
        dbname=settings["NAME"],
        user=settings["USER"],
        host=settings["HOST"],
        port=settings["PORT"],
        autocommit=True,
    ) as other:
        other.execute(sql, params)


def test_a_remembered_session_is_checked_without_a_query(cache_on, wallet: Wallet, django_assert_num_queries):
    tek, _ = wallet.otp_login()
    _cached(wallet, tek)
    with django_assert_num_queries(0):
        assert _accepted(wallet, tek.private_key_hex)
    # Another session of the same wallet is not taken for the remembered one.
    stranger = client.generate_key_pair()
    assert not _accepted(wallet, stranger.private_key_hex)


def test_a_remembered_session_is_asked_again_after_a_while(
    cache_on, wallet: Wallet, deaf_listener, monkeypatch
):
    monkeypatch.setattr(session_cache, "REMEMBER_SECONDS", 0.2)
    tek, _ = wallet.otp_login()
    _cached(wallet, tek)
    _elsewhere("UPDATE wallets_authsession SET revoked_at = now() WHERE account_id = %s", wallet.account.pk)
    time.sleep(0.3)
    assert not _accepted(wallet, tek.private_key_hex)


def test_revoked_through_the_api_it_is_refused_at_once(cache_on, wallet: Wallet, deaf_listener):
    tek, session = wallet.otp_login()
    _cached(wallet, tek)
    response = wallet.signed("delete", f"/auth/sessions/{session['id']}", None, tek.private_key_hex)
    assert response.status_code == 204
    assert not _accepted(wallet, tek.private_key_hex)  # no waiting for the notification


def test_revoking_the_credential_refuses_its_sessions_at_once(cache_on, wallet: Wallet, deaf_listener):
    tek, _ = wallet.otp_login()
    _cached(wallet, tek)
    sessions_revoke_for_credential(AuthCredential.objects.get(account=wallet.account))
    assert not _accepted(wallet, tek.private_key_hex)


def test_a_remembered_session_still_expires(cache_on, wallet: Wallet):
    tek, _ = wallet.otp_login()
    _cached(wallet, tek)
    clock.advance(dt.timedelta(minutes=16))
    assert not _accepted(wallet, tek.private_key_hex)


@pytest.mark.parametrize(
    "change",
    [
        "UPDATE wallets_authsession SET revoked_at = now() WHERE account_id = %s",
        "DELETE FROM wallets_authsession WHERE account_id = %s",
        "UPDATE wallets_authsession SET expires_at = now() WHERE account_id = %s",
    ],
)
def test_a_change_made_by_another_process_is_refused_once_postgresql_tells(cache_on, wallet: Wallet, change):
    tek, _ = wallet.otp_login()
    _cached(wallet, tek)
    _elsewhere(change, wallet.account.pk)
    _until(lambda: session_cache.expiry(wallet.account.pk, tek.public_key_hex_compressed) is None)
    assert not _accepted(wallet, tek.private_key_hex)


def test_while_the_listener_is_away_nothing_is_remembered(cache_on, wallet: Wallet):
    tek, _ = wallet.otp_login()
    _cached(wallet, tek)
    _elsewhere(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s AND datname = %s",
        session_cache.LISTENER_NAME,
        connection.settings_dict["NAME"],
    )
    # Lost with its connection, and not read back when it listens again.
    _until(lambda: session_cache.expiry(wallet.account.pk, tek.public_key_hex_compressed) is None)
    _cached(wallet, tek)  # and it comes back


def test_behind_a_transaction_pooler_without_a_direct_url_it_stays_off(
    settings, wallet: Wallet, django_assert_num_queries
):
    settings.WALLET_SESSION_CACHE, settings.DATABASE_TRANSACTION_POOLING = True, True
    try:
        tek, _ = wallet.otp_login()
        for _ in range(3):
            with django_assert_num_queries(1):
                assert _accepted(wallet, tek.private_key_hex)
    finally:
        session_cache.stop()


def test_checks_racing_a_revocation_elsewhere_never_accept_after_it_is_seen(cache_on, wallet: Wallet):
    """Threads check the same session while another connection revokes it: once one check has been
    refused, none accepts again (a query begun before the revocation cannot put it back)."""
    tek, _ = wallet.otp_login()
    _cached(wallet, tek)
    refused_once = threading.Event()
    late_accepts: list[float] = []
    stop = threading.Event()

    def check() -> None:
        try:
            while not stop.is_set():
                seen_refusal = refused_once.is_set()
                if _accepted(wallet, tek.private_key_hex):
                    if seen_refusal:
                        late_accepts.append(time.monotonic())
                else:
                    refused_once.set()
        finally:
            connection.close()

    threads = [threading.Thread(target=check) for _ in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(0.2)
    _elsewhere("UPDATE wallets_authsession SET revoked_at = now() WHERE account_id = %s", wallet.account.pk)
    assert refused_once.wait(PATIENCE)
    time.sleep(0.3)
    stop.set()
    for thread in threads:
        thread.join()
    assert late_accepts == []


def test_a_query_begun_before_a_change_does_not_store_what_it_read(cache_on, wallet: Wallet):
    tek, _ = wallet.otp_login()
    _cached(wallet, tek)
    key = tek.public_key_hex_compressed
    (expires_at, _), begun = session_cache._entries[wallet.account.pk][key], session_cache.generation()
    _elsewhere("UPDATE wallets_authsession SET revoked_at = now() WHERE account_id = %s", wallet.account.pk)
    _until(lambda: session_cache.expiry(wallet.account.pk, key) is None)
    session_cache.remember(wallet.account.pk, key, expires_at, begun)  # what that query found
    assert session_cache.expiry(wallet.account.pk, key) is None
    assert not _accepted(wallet, tek.private_key_hex)
