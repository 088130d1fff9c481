from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from authlib.oauth2 import OAuth2Error
from django import forms
from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from project.csp import allow_form_redirect
from project.dev_oidc import keys
from project.dev_oidc.server import SCOPES, DevUser, authorization_server, issuer


def dev_oidc_enabled(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """404 unless DEV_OIDC_ENABLED, checked on every request (the URLs are mounted only when enabled)."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not settings.DEV_OIDC_ENABLED:
            raise Http404("The development OIDC provider is disabled")
        return view(request, *args, **kwargs)

    return wrapper


@dev_oidc_enabled
@require_GET
def discovery_view(request: HttpRequest) -> JsonResponse:
    base = issuer()
    return JsonResponse(
        {
            "issuer": base,
            "authorization_endpoint": f"{base}/authorize",
            "token_endpoint": f"{base}/token",
            "jwks_uri": f"{base}/jwks",
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": [keys.ALGORITHM],
            "scopes_supported": list(SCOPES),
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "code_challenge_methods_supported": ["S256"],
            "claims_supported": [
                "iss",
                "sub",
                "aud",
                "iat",
                "exp",
                "auth_time",
                "nonce",
                "email",
                "email_verified",
            ],
        }
    )


@dev_oidc_enabled
@require_GET
def jwks_view(request: HttpRequest) -> JsonResponse:
    return JsonResponse(keys.jwks())


class LoginForm(forms.Form):
    email = forms.EmailField(max_length=254, widget=forms.EmailInput(attrs={"autofocus": True}))


@dev_oidc_enabled
@never_cache
@require_http_methods(["GET", "POST"])
def authorize_view(request: HttpRequest) -> HttpResponse:
    """Validates the authorization request (client, redirect URI, PKCE, nonce), then asks for an email
    address; any address signs in. The form posts back to this URL, query string included."""
    server = authorization_server()
    try:
        grant = server.get_consent_grant(request)
    except OAuth2Error as error:
        return server.handle_error_response(request, error)
    form = LoginForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = DevUser(form.cleaned_data["email"])
        return server.create_authorization_response(request, grant_user=user, grant=grant)
    response = render(
        request,
        "dev_oidc/login.html",
        {"form": form, "client_id": grant.client.get_client_id(), "scope": grant.request.scope or ""},
    )
    # The form's post is answered with a redirect to the client's (validated) redirect URI.
    return allow_form_redirect(response, grant.redirect_uri)


@csrf_exempt  # a back-channel call authenticated by the client's secret, not a browser form
@dev_oidc_enabled
@never_cache
@require_POST
def token_view(request: HttpRequest) -> HttpResponse:
    return authorization_server().create_token_response(request)
