"""How the OpenAPI document names our authentication: HTTP Basic with an API token (`BasicAuth`) and
an agent's Bearer access token (`AgentAuth`), as the reference names them. drf-spectacular finds the
extensions once this module is imported (payments/api/urls.py, which every OpenAPI document is
generated from); without them, it warns once per operation that it cannot resolve the class."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema


def _scheme(target: str, name: str, definition: dict) -> type[OpenApiAuthenticationExtension]:
    """The extension that names the authentication class `target` as the security scheme `name`."""

    def get_security_definition(self, auto_schema: AutoSchema) -> dict:
        return definition

    attrs = {"target_class": target, "name": name, "get_security_definition": get_security_definition}
    return type(f"{name}Scheme", (OpenApiAuthenticationExtension,), attrs)


ApiTokenAuthenticationScheme = _scheme(
    "payments.api.authentication.ApiTokenAuthentication",
    "BasicAuth",
    {"type": "http", "scheme": "basic", "description": "`<api token clientId>:<api token secret>`"},
)
AgentTokenAuthenticationScheme = _scheme(
    "payments.api.authentication.AgentTokenAuthentication",
    "AgentAuth",
    {
        "type": "http",
        "scheme": "bearer",
        "description": "The `accessToken` of POST /agents/device-codes/{code}/redeem; reaches /agents/me only",
    },
)
