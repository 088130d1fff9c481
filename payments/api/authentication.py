"""HTTP Basic with API tokens: clientId as user name, the token secret as password."""

from __future__ import annotations

import base64
import binascii

from rest_framework import authentication, exceptions, permissions

from payments import clock
from payments.models import ApiToken
from payments.platform_clock import platform_time_enter
from payments.platforms import token_authenticate


def platform_clock_middleware(get_response):
    """Each request starts on real time; its API authentication puts it on its platform's clock
    (payments/platform_clock.py) until it ends."""

    def middleware(request):
        with clock.served():
            return get_response(request)

    return middleware


class ApiTokenAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request) -> tuple[None, ApiToken] | None:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header:
            return None
        scheme, _, encoded = header.partition(" ")
        if scheme.lower() != "basic" or not encoded:
            raise exceptions.AuthenticationFailed("Use HTTP Basic authentication with an API token")
        try:
            decoded = base64.b64decode(encoded.strip(), validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            raise exceptions.AuthenticationFailed("Malformed Basic credentials") from None
        client_id, sep, secret = decoded.partition(":")
        if not sep:
            raise exceptions.AuthenticationFailed("Malformed Basic credentials")
        token = token_authenticate(client_id=client_id, secret=secret)
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid API token credentials")
        platform_time_enter(token.platform)
        return None, token

    def authenticate_header(self, request) -> str:
        return 'Basic realm="api"'


class HasTokenPermission(permissions.BasePermission):
    """Reads need VIEW, writes MANAGE, unless the view names its own (`required_permissions`)."""

    def has_permission(self, request, view) -> bool:
        token = request.auth
        if not isinstance(token, ApiToken):
            return False
        overrides = getattr(view, "required_permissions", {})
        default = ApiToken.Permission.VIEW if request.method in permissions.SAFE_METHODS else "MANAGE"
        return token.has_permission(overrides.get(request.method, default))
