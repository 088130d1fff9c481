"""Rate limits of the portal's sign-in pages: fixed windows counted in the database
(`PortalRateLimit`), so every web node sees the same counts without a shared cache. Counting an
attempt is one upsert that returns the new count; a check is one plain read.

Limits (README "Portal"; each a setting): sign-up and starting a sign-in per client IP; codes sent,
and wrong codes, per email address (by default the service's own quota and lock, so that an
address without an account answers exactly like one with an account); code entry per client IP.
A refused attempt says when to try again (`wallets.portal.wording.wait_words`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from dataclasses import dataclass

from django.conf import settings
from django.db import connections, router
from django.http import HttpRequest
from django.utils import timezone

from wallets.portal.models import PortalRateLimit
from wallets.portal.sweeps import Sweep


@dataclass(frozen=True)
class Limit:
    scope: str
    setting: str  # the setting that says how many attempts one window allows
    window_seconds: int

    @property
    def limit(self) -> int:
        return int(getattr(settings, self.setting))


SIGNUP_PER_IP = Limit("signup-ip", "PORTAL_SIGNUPS_PER_HOUR", 3600)
# Starting any sign-in (code, passkey, OAuth).
LOGIN_PER_IP = Limit("login-ip", "PORTAL_SIGNINS_PER_10_MINUTES", 600)
# Codes sent (first and resends) per address.
CODES_PER_EMAIL = Limit("codes-email", "PORTAL_CODES_PER_EMAIL_PER_10_MINUTES", 600)
CODE_PER_IP = Limit("code-ip", "PORTAL_CODE_ENTRIES_PER_10_MINUTES", 600)
# Wrong codes per address.
WRONG_CODE_PER_EMAIL = Limit("wrong-code-email", "PORTAL_WRONG_CODES_PER_15_MINUTES", 900)


def client_ip(request: HttpRequest) -> str:
    """The peer address. Behind a proxy, its middleware must set REMOTE_ADDR to the client's address."""
    return request.META.get("REMOTE_ADDR") or "0.0.0.0"  # noqa: S104 - a label, nothing listens on it


def _window(limit: Limit, identity: str) -> tuple[str, dt.datetime, dt.datetime]:
    now = timezone.now()
    start_ts = math.floor(now.timestamp() / limit.window_seconds) * limit.window_seconds
    start = dt.datetime.fromtimestamp(start_ts, tz=dt.UTC)
    key = hashlib.sha256(f"{limit.scope}\0{identity.lower()}".encode()).hexdigest()
    return key, start, start + dt.timedelta(seconds=limit.window_seconds)


def _wait(end: dt.datetime) -> int:
    return max(1, math.ceil((end - timezone.now()).total_seconds()))


# Forgetting ended windows is housekeeping, not part of any count.
_sweep = Sweep()


def _table(connection) -> str:
    return connection.ops.quote_name(PortalRateLimit._meta.db_table)


def _execute(sql: str, params: list) -> tuple | None:
    connection = connections[router.db_for_write(PortalRateLimit)]
    with connection.cursor() as cursor:
        cursor.execute(sql.format(table=_table(connection)), params)
        return cursor.fetchone() if cursor.description else None


def _at(start: dt.datetime):
    return connections[router.db_for_write(PortalRateLimit)].ops.adapt_datetimefield_value(start)


def counted(limit: Limit, identity: str) -> tuple[int, int]:
    """Count one attempt in one statement (the window's row made or incremented); its count in the
    window, and the seconds until the window ends."""
    key, start, end = _window(limit, identity)
    (count,) = _execute(
        'INSERT INTO {table} ("key", "window_start", "count") VALUES (%s, %s, 1) '
        'ON CONFLICT ("key", "window_start") DO UPDATE SET "count" = {table}."count" + 1 '
        'RETURNING "count"',
        [key, _at(start)],
    )
    if count == 1 and _sweep.due():
        # A new window: forget windows that ended a day ago (every limit is shorter than that).
        _execute('DELETE FROM {table} WHERE "window_start" < %s', [_at(start - dt.timedelta(days=1))])
    return count, _wait(end)


def hit(limit: Limit, identity: str) -> int | None:
    """Count one attempt; the seconds to wait when this attempt is over the limit, else None."""
    count, wait = counted(limit, identity)
    return wait if count > limit.limit else None


def _count(key: str, start: dt.datetime) -> int:
    row = _execute('SELECT "count" FROM {table} WHERE "key" = %s AND "window_start" = %s', [key, _at(start)])
    return row[0] if row is not None else 0


def seen(limit: Limit, identity: str) -> tuple[int, int]:
    """Without counting: the attempts counted in the current window, and the seconds until it ends."""
    key, start, end = _window(limit, identity)
    return _count(key, start), _wait(end)


def blocked(limit: Limit, identity: str, *, seen_now: tuple[int, int] | None = None) -> int | None:
    """Without counting: the seconds to wait when the limit is already used up, else None.
    `seen_now`: what `seen` just answered, instead of asking again."""
    count, wait = seen_now or seen(limit, identity)
    return wait if count >= limit.limit else None


def reset(limit: Limit, identity: str) -> None:
    key, start, _ = _window(limit, identity)
    _execute('DELETE FROM {table} WHERE "key" = %s AND "window_start" = %s', [key, _at(start)])
