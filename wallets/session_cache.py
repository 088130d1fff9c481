"""Active sessions remembered in process, so the stamp check of every embedded-wallet execute
(`wallets.stamp_check`) needs no database round trip once it has seen the session.

Only what a query found is kept: the wallet account and session key → the latest `expires_at` of its
active sessions, checked against the clock at each use. An entry goes when a session row of that
account changes or goes, told by PostgreSQL: a trigger on the sessions table (migration
0005_authsession_change_notify) sends `NOTIFY wallet_sessions` with the row's account at every UPDATE
or DELETE (`*` at TRUNCATE), and each process has a listener thread on its own connection. The
process that revokes also forgets at its commit (`forget_on_commit`), so one process (`make run`,
one web node) never answers from a stale entry; another process learns of it as soon as its
listener reads the notification (a millisecond or so after the commit).

The cache is used only while this process's listener is connected and listening (checked after a
fork too); otherwise, and on other databases, every check queries. Behind a transaction pooler,
which does not pass LISTEN on, the listener uses `DATABASE_LISTEN_URL` (a direct connection), and
without one the cache stays off. A generation number, bumped by every forget and every (re)connect,
keeps a query that began before a change from storing what it read, and no entry is kept longer
than REMEMBER_SECONDS.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import threading
import time
from collections.abc import Callable
from uuid import UUID

import dj_database_url
import psycopg
from django.conf import settings
from django.db import connections, transaction

CHANNEL = "wallet_sessions"
EVERYTHING = "*"  # the payload of a TRUNCATE: forget every account
LISTENER_NAME = "wallet-session-listener"  # its connection's application_name
RECONNECT_SECONDS = (1.0, 30.0)  # the first wait after a failure, doubled up to the second
# However sure the notifications, an entry is asked again after this long: it bounds what a
# connection that died without a word (noticed by keepalives within about 15 s) could leave stale.
REMEMBER_SECONDS = 10.0
STOP_POLL_SECONDS = 1.0  # how often the listener looks whether it should stop

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_entries: dict[UUID, dict[str, tuple[dt.datetime, float]]] = {}  # key → (expiry, monotonic deadline)
_generation = 0
_listening_pid: int | None = None  # the process whose listener has run LISTEN on a live connection
_started_pid: int | None = None  # the process that started the listener thread
_stopping = threading.Event()
_thread: threading.Thread | None = None


def expiry(account_id: UUID, public_key: str) -> dt.datetime | None:
    """The remembered expiry of the account's active session(s) with this key, or None when the cache
    does not know it (or is not in use here)."""
    if not _usable():
        return None
    entry = _entries.get(_uuid(account_id), {}).get(public_key)
    if entry is None or entry[1] < time.monotonic():
        return None
    return entry[0]


def generation() -> int:
    """Read before the query whose answer goes to `remember`."""
    return _generation


def remember(account_id: UUID, public_key: str, expires_at: dt.datetime, seen_generation: int) -> None:
    """Keep what a query begun at `seen_generation` found, unless anything was forgotten since."""
    with _lock:
        if _generation == seen_generation and _listening_pid == os.getpid():
            deadline = time.monotonic() + REMEMBER_SECONDS
            _entries.setdefault(_uuid(account_id), {})[public_key] = (expires_at, deadline)


def forget(account_id: UUID | None) -> None:
    """Drop the account's entries (None: every account's)."""
    global _generation
    with _lock:
        _generation += 1
        if account_id is None:
            _entries.clear()
        else:
            _entries.pop(_uuid(account_id), None)


def forget_on_commit(account_id: UUID) -> None:
    """Forget the account in this process once the current transaction commits (other processes are
    told by the trigger's notification)."""
    transaction.on_commit(lambda: forget(account_id))


def _uuid(account_id: UUID | str) -> UUID:
    return account_id if isinstance(account_id, UUID) else UUID(str(account_id))


def _usable() -> bool:
    if _listening_pid == os.getpid():
        return True
    if _started_pid != os.getpid() and settings.WALLET_SESSION_CACHE:
        _start()
    return False


def _start() -> None:
    global _started_pid, _stopping, _thread
    with _lock:
        if _started_pid == os.getpid():
            return
        _started_pid = os.getpid()
        _entries.clear()  # a forked child starts empty
    connect = _listen_connector()
    if connect is None:
        return
    _stopping = threading.Event()
    _thread = threading.Thread(target=_listen, args=(connect, _stopping), name=LISTENER_NAME, daemon=True)
    _thread.start()


def stop() -> None:
    """Stop this process's listener and forget everything (tests, before their database goes)."""
    global _started_pid
    _stopping.set()
    if _thread is not None:
        _thread.join()  # returns at once for a thread of the parent of a fork
    _started_pid = None


def _listen_connector() -> Callable[[], psycopg.Connection] | None:
    """How the listener connects, or None when it cannot listen (not PostgreSQL, or a transaction
    pooler without a direct URL)."""
    database = connections["default"].settings_dict
    if not database["ENGINE"].endswith("postgresql"):
        return None
    if settings.DATABASE_LISTEN_URL:
        database = dj_database_url.parse(settings.DATABASE_LISTEN_URL)
    elif settings.DATABASE_TRANSACTION_POOLING:
        return None
    params = {
        "dbname": database["NAME"],
        "user": database["USER"] or None,
        "password": database["PASSWORD"] or None,
        "host": database["HOST"] or None,
        "port": database["PORT"] or None,
        "keepalives": 1,
        "keepalives_idle": 5,
        "keepalives_interval": 2,
        "keepalives_count": 5,
        "application_name": LISTENER_NAME,
    }
    return lambda: psycopg.connect(autocommit=True, **{k: v for k, v in params.items() if v is not None})


def _listen(connect: Callable[[], psycopg.Connection], stopping: threading.Event) -> None:
    pid = os.getpid()
    wait = RECONNECT_SECONDS[0]
    while not stopping.is_set():
        try:
            with connect() as connection:
                connection.execute(f"LISTEN {CHANNEL}")
                _listening(pid)
                wait = RECONNECT_SECONDS[0]
                while not stopping.is_set():
                    for notification in connection.notifies(timeout=STOP_POLL_SECONDS):
                        _notified(notification.payload)
        except Exception:
            _listening(None)
            logger.warning(
                "wallet session listener lost its connection; stamp checks query meanwhile", exc_info=True
            )
            stopping.wait(wait)
            wait = min(wait * 2, RECONNECT_SECONDS[1])
    _listening(None)


def _notified(payload: str) -> None:
    forget(None if payload == EVERYTHING else UUID(payload))


def _listening(pid: int | None) -> None:
    """Start (pid) or stop (None) using the cache; either way nothing read before is kept."""
    global _listening_pid, _generation
    with _lock:
        _listening_pid = pid
        _generation += 1
        _entries.clear()
