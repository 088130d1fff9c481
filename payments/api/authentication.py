"""The two schemes: HTTP Basic with API tokens (clientId as user name, the token secret as password)
for the platform, everywhere but `/agents/me`; and Bearer with an agent's access token
(payments.agents.credentials) for `/agents/me` and below only. Each refuses the other's credentials
with a message saying which to use: platform credentials on an agent operation are a 403, an agent's
token anywhere else a 401 (it is no credential of that scheme)."""

from __future__ import annotations

import base64
import binascii

from rest_framework import authentication, exceptions, permissions

from payments import clock
from payments.agents.credentials import agent_authenticate
from payments.errors import Forbidden
from payments.models import Agent, ApiToken
from payments.platform_clock import platform_time_enter
from payments.platforms import token_authenticate


def platform_clock_middleware(get_response):
    """Each request starts on real time; its API authentication puts it on its platform's clock
    (payments/platform_clock.py) until it ends."""

    def middleware(request):
        with clock.served():
            return get_response(request)

    return middleware


def _found[T: (ApiToken, Agent)](credential: T | None, message: str) -> T:
    """The credential the request's authorization names, its platform's clock entered; or a 401
    saying `message`."""
    if credential is None:
        raise exceptions.AuthenticationFailed(message)
    platform_time_enter(credential.platform)
    return credential


def _authorization(request) -> tuple[str, str] | None:
    """The Authorization header's scheme (lower case) and credentials; None without the header."""
    header = request.META.get("HTTP_AUTHORIZATION", "")
    if not header:
        return None
    scheme, _, credentials = header.partition(" ")
    return scheme.lower(), credentials


class ApiTokenAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request) -> tuple[None, ApiToken] | None:
        if (authorization := _authorization(request)) is None:
            return None
        scheme, encoded = authorization
        if scheme == "bearer":
            raise exceptions.AuthenticationFailed(
                "An agent's access token reaches only /agents/me and below; use HTTP Basic with an API token"
            )
        if scheme != "basic" or not encoded:
            raise exceptions.AuthenticationFailed("Use HTTP Basic authentication with an API token")
        try:
            decoded = base64.b64decode(encoded.strip(), validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            raise exceptions.AuthenticationFailed("Malformed Basic credentials") from None
        client_id, sep, secret = decoded.partition(":")
        if not sep:
            raise exceptions.AuthenticationFailed("Malformed Basic credentials")
        return None, _found(
            token_authenticate(client_id=client_id, secret=secret), "Invalid API token credentials"
        )

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


class AgentTokenAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request) -> tuple[None, Agent] | None:
        if (authorization := _authorization(request)) is None:
            return None
        scheme, token = authorization
        if scheme == "basic":
            raise Forbidden(
                "Platform credentials cannot call agent operations; use the agent's access token "
                "(Authorization: Bearer <accessToken>)"
            )
        if scheme != "bearer" or not token:
            raise exceptions.AuthenticationFailed("Use Bearer authentication with the agent's access token")
        return None, _found(agent_authenticate(token=token.strip()), "Invalid agent access token")

    def authenticate_header(self, request) -> str:
        return 'Bearer realm="agents"'


class IsAgent(permissions.BasePermission):
    def has_permission(self, request, view) -> bool:
        return isinstance(request.auth, Agent)
