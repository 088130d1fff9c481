"""How the portal reaches the service: the typed client, configured from settings.

- `PORTAL_SERVICE_BASE_URL`: the service's base URL (default: this server,
  `http://127.0.0.1:$PORT/api/2025-10-13`). Point it at any deployment of the service.
- `PORTAL_CLIENT_ID` / `PORTAL_CLIENT_SECRET`: the portal's platform API token. When both are
  unset in sandbox mode they are read from `$DATA_DIR/portal-credentials.json`, which `make run`
  writes on its first run (a platform of its own for the portal). Production requires them.
- `PORTAL_OTP_SIGNER_PUBLIC_KEY` / `PORTAL_EXPORT_SIGNER_PUBLIC_KEY`: the service's bundle-signing
  keys to pin. Unset, they are read from the service (`GET /auth/service-keys`) when needed.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from functools import lru_cache

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone

from payments.client import InternalAccount, SandboxClock, ServiceClient
from payments.client.errors import ServiceClientError

CREDENTIALS_FILE = "portal-credentials.json"
# The portal never sleeps in a web request on the service's behalf: a 429 is shown to the user.
_RATE_LIMIT_RETRIES = 0
_MAX_PROCESSING_WAIT = 20.0
_TIMEOUT = 15.0

log = logging.getLogger(__name__)


def portal_credentials() -> tuple[str, str]:
    """(client id, client secret) of the portal's platform."""
    client_id, secret = settings.PORTAL_CLIENT_ID, settings.PORTAL_CLIENT_SECRET
    if client_id and secret:
        return client_id, secret
    if settings.PRODUCTION:
        raise ImproperlyConfigured("PORTAL_CLIENT_ID and PORTAL_CLIENT_SECRET must be set in production")
    path = settings.DATA_DIR / CREDENTIALS_FILE
    try:
        stored = json.loads(path.read_text())
        return stored["clientId"], stored["clientSecret"]
    except (OSError, ValueError, KeyError):
        raise ImproperlyConfigured(
            f"The portal has no platform credentials: set PORTAL_CLIENT_ID and PORTAL_CLIENT_SECRET, "
            f"or run `make run` once (it writes {path})"
        ) from None


@lru_cache(maxsize=8)
def _client(base_url: str, client_id: str, client_secret: str) -> ServiceClient:
    # One client (and its connection pool) per configuration and process; httpx clients are thread-safe.
    return ServiceClient(
        base_url,
        client_id,
        client_secret,
        timeout=_TIMEOUT,
        rate_limit_retries=_RATE_LIMIT_RETRIES,
        max_processing_wait=_MAX_PROCESSING_WAIT,
        otp_signer_public_key=settings.PORTAL_OTP_SIGNER_PUBLIC_KEY or None,
    )


def service_client() -> ServiceClient:
    """The service client of the portal's platform (settings read at call time)."""
    return _client(settings.PORTAL_SERVICE_BASE_URL, *portal_credentials())


def otp_signer_key(client: ServiceClient) -> str:
    """The public key that signs `otpEncryptionTargetBundle`s: pinned, or as the service publishes it."""
    return (
        settings.PORTAL_OTP_SIGNER_PUBLIC_KEY
        or client.credentials.service_keys()["otpEncryptionSignerPublicKey"]
    )


def export_signer_key(client: ServiceClient) -> str:
    return (
        settings.PORTAL_EXPORT_SIGNER_PUBLIC_KEY or client.credentials.service_keys()["exportSignerPublicKey"]
    )


def wallet_of(client: ServiceClient, customer_id: str) -> InternalAccount | None:
    """The customer's EMBEDDED_WALLET account (their Global Account), once it exists."""
    page = client.internal_accounts.list(customer_id=customer_id, type="EMBEDDED_WALLET")
    return page.data[0] if page.data else None


def sandbox_clock(client: ServiceClient) -> SandboxClock | None:
    """The portal's platform's sandbox clock; None in production mode or when it cannot be read."""
    if not settings.SANDBOX:
        return None
    try:
        return client.sandbox.clock()
    except ServiceClientError:
        log.info("the sandbox clock could not be read", exc_info=True)
        return None


def service_now(client: ServiceClient) -> dt.datetime:
    """The service's time for the portal's platform: its sandbox clock, which a platform may move
    forward (quotes then lapse by it); real time in production mode or when it cannot be read."""
    clock = sandbox_clock(client)
    return clock.current_time if clock is not None else timezone.now()


def on_portal_time(client: ServiceClient, instant: str | None) -> str | None:
    """An instant the service named (on the platform's sandbox clock, e.g. a lock's `lockedUntil`) as
    ISO text on the portal's own real-time clock: as far from now as the service meant it."""
    if not instant:
        return instant
    try:
        at = dt.datetime.fromisoformat(instant.replace("Z", "+00:00"))
    except ValueError:
        return instant
    return (at - (service_now(client) - timezone.now())).isoformat()
