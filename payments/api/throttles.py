"""Rate limits of the service's operations that take no credential, as DRF throttles: counted in the
Django cache, which in production is Redis, one for every node (project/checks.py refuses a
per-process cache there). A refused request is 429 RATE_LIMITED with `Retry-After`
(payments.api.errors maps DRF's Throttled).

- Device code redemption (`POST /agents/device-codes/{code}/redeem`): the code is the only
  credential, so attempts (redeemed or not) are limited per client address, to slow the guessing of
  codes: AGENT_DEVICE_CODE_REDEEMS_PER_WINDOW per fixed window of
  AGENT_DEVICE_CODE_REDEEM_WINDOW_SECONDS. An attempt is one atomic increment of its window's
  counter (DRF's own throttles read and write a list, so concurrent requests could pass together).
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

    def _window(self, address: str) -> tuple[str, float]:
        """The cache key of `address`'s current window, and when the window ends."""
        now = self.timer()
        start = int(now // self.duration * self.duration)
        return self.cache_format % {"scope": self.scope, "ident": f"{address}@{start}"}, start + self.duration

    def forget(self, address: str) -> None:
        self.cache.delete(self._window(address)[0])

    def allow_request(self, request: Request, view: object) -> bool:
        # The peer address, as the portal's and the admin's limits count: a forwarded-for header is
        # the client's to forge. Behind a proxy, its middleware must set REMOTE_ADDR.
        key, end = self._window(request.META.get("REMOTE_ADDR") or "unknown")
        timeout = self.duration + 1
        if self.cache.add(key, 1, timeout):
            count = 1
        else:
            try:
                count = self.cache.incr(key)
            except ValueError:  # it expired between the two calls: a new window
                self.cache.add(key, 1, timeout)
                count = 1
        self.retry_after = end - self.timer()
        return count <= self.num_requests

    def wait(self) -> float:
        return self.retry_after
