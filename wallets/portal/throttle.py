"""Rate limits of the portal's sign-in pages: fixed windows counted in the database
(`PortalRateLimit`), so every web node sees the same counts without a shared cache.

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
from django.db import IntegrityError, transaction
from django.db.models import F
from django.http import HttpRequest
from django.utils import timezone

from wallets.portal.models import PortalRateLimit


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


def hit(limit: Limit, identity: str) -> int | None:
    """Count one attempt; the seconds to wait when this attempt is over the limit, else None."""
    key, start, end = _window(limit, identity)
    with transaction.atomic():
        updated = PortalRateLimit.objects.filter(key=key, window_start=start).update(count=F("count") + 1)
        if not updated:
            try:
                with transaction.atomic():
                    PortalRateLimit.objects.create(key=key, window_start=start, count=1)
            except IntegrityError:  # another request made the row first
                PortalRateLimit.objects.filter(key=key, window_start=start).update(count=F("count") + 1)
            # A new window: forget windows that ended a day ago (every limit is shorter than that).
            PortalRateLimit.objects.filter(window_start__lt=start - dt.timedelta(days=1)).delete()
        count = PortalRateLimit.objects.get(key=key, window_start=start).count
    return _wait(end) if count > limit.limit else None


def blocked(limit: Limit, identity: str) -> int | None:
    """Without counting: the seconds to wait when the limit is already used up, else None."""
    key, start, end = _window(limit, identity)
    row = PortalRateLimit.objects.filter(key=key, window_start=start).first()
    return _wait(end) if row is not None and row.count >= limit.limit else None


def used(limit: Limit, identity: str) -> int:
    key, start, _ = _window(limit, identity)
    row = PortalRateLimit.objects.filter(key=key, window_start=start).first()
    return row.count if row is not None else 0


def reset(limit: Limit, identity: str) -> None:
    key, start, _ = _window(limit, identity)
    PortalRateLimit.objects.filter(key=key, window_start=start).delete()
