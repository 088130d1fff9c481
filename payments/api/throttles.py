"""Rate limits of the service's operations that take no credential, with DRF's throttling: counted
in the Django cache, which in production is Redis, one for every node (project/checks.py refuses a
per-process cache there). A refused request is 429 RATE_LIMITED with `Retry-After`
(payments.api.errors maps DRF's Throttled).

- Device code redemption (`POST /agents/device-codes/{code}/redeem`): the code is the only
  credential, so attempts (redeemed or not) are limited per client address, to slow the guessing of
  codes: AGENT_DEVICE_CODE_REDEEMS_PER_WINDOW per AGENT_DEVICE_CODE_REDEEM_WINDOW_SECONDS (a window
  that slides, as DRF counts).
"""

from __future__ import annotations

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from payments import clock


class DeviceCodeRedeemThrottle(SimpleRateThrottle):
    scope = "agent-device-code-redeem"
    rate = "settings"  # parse_rate reads the settings when the throttle is made, once per request

    def parse_rate(self, rate: str | None) -> tuple[int, int]:
        return settings.AGENT_DEVICE_CODE_REDEEMS_PER_WINDOW, settings.AGENT_DEVICE_CODE_REDEEM_WINDOW_SECONDS

    def timer(self) -> float:
        return clock.now().timestamp()

    @classmethod
    def key_for(cls, address: str) -> str:
        return cls.cache_format % {"scope": cls.scope, "ident": address}

    def get_cache_key(self, request: Request, view: object) -> str:
        # The peer address, as the portal's and the admin's limits count: a forwarded-for header is
        # the client's to forge. Behind a proxy, its middleware must set REMOTE_ADDR.
        return self.key_for(request.META.get("REMOTE_ADDR") or "unknown")
