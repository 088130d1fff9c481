"""The admin's sign-in lock-out: django-axes counts failed sign-ins per user name and client address.

Only sign-ins made through a request are counted: the admin's login form passes its request to
`authenticate()`. A call without one (the test client's `login()`, a script) is nobody at a login
page; axes would refuse it outright, so it is left to the next backend. The API's HTTP Basic tokens
and the portal's sign-in do not go through Django's authentication at all and keep their own limits.
"""

from __future__ import annotations

from axes.backends import AxesStandaloneBackend
from django.http import HttpRequest


class AdminLoginLockout(AxesStandaloneBackend):
    def authenticate(self, request: HttpRequest | None, *args, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, *args, **kwargs)


def client_address(request: HttpRequest) -> str | None:
    """REMOTE_ADDR, as the portal's limits use it: a forwarded-for header is the client's to forge."""
    return request.META.get("REMOTE_ADDR")
