"""How the OpenAPI document names our authentication: HTTP Basic with an API token (`BasicAuth`) and
an agent's Bearer access token (`AgentAuth`), as the reference names them. drf-spectacular finds the extension once this module is imported
(PaymentsConfig.ready); without it, it warns once per operation that it cannot resolve the class."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema


class ApiTokenAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = "payments.api.authentication.ApiTokenAuthentication"
    name = "BasicAuth"

    def get_security_definition(self, auto_schema: AutoSchema) -> dict:
        return {
            "type": "http",
            "scheme": "basic",
            "description": "`<api token clientId>:<api token secret>`",
        }


class AgentTokenAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = "payments.api.authentication.AgentTokenAuthentication"
    name = "AgentAuth"

    def get_security_definition(self, auto_schema: AutoSchema) -> dict:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "The `accessToken` of POST /agents/device-codes/{code}/redeem; reaches /agents/me only",
        }
