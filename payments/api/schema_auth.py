"""How the OpenAPI document names our authentication: HTTP Basic with an API token, the `BasicAuth`
scheme SPECTACULAR_SETTINGS declares. drf-spectacular finds the extension once this module is imported
(payments/api/urls.py, which every OpenAPI document is generated from); without it, it warns once per operation that it cannot resolve the class."""

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
