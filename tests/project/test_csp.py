"""The Content-Security-Policy header on every kind of response, and the origins it may list."""

from __future__ import annotations

import pytest
from django.conf import settings

from project.csp import url_origin
from tests.payments.kyc_support import create, individual

pytestmark = pytest.mark.django_db

STRICT = (
    "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self' " + " ".join(settings.CSP_FORM_ACTION)
).strip() + f"; frame-src 'self' {url_origin(settings.PORTAL_SERVICE_BASE_URL)}"


def test_portal_onboarding_admin_and_api_answer_under_the_policy(client, api):
    link = api.post(f"/customers/{create(api, individual())['id']}/kyc-link", {}).json()["kycUrl"]
    for path in ("/", "/login/", link.split("testserver")[-1], "/admin/login/"):
        response = client.get(path, follow=True)
        assert response.status_code == 200, path
        assert response["Content-Security-Policy"] == STRICT, path
        assert b"<script>" not in response.content and b" hx-on" not in response.content, path
    assert api.get("/config")["Content-Security-Policy"] == STRICT


def test_api_docs_load_their_script_from_a_url(client):
    page = client.get("/api/2025-10-13/docs/")
    assert page["Content-Security-Policy"] == STRICT + "; img-src 'self' data:"  # Swagger UI's icons
    assert b"<script>" not in page.content and b"<style>" not in page.content
    script = client.get("/api/2025-10-13/docs/?script=")
    assert script.status_code == 200 and script["Content-Type"].startswith("application/javascript")
    assert b"SwaggerUIBundle" in script.content


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("https://accounts.example.com/o/oauth2", "https://accounts.example.com"),
        ("http://localhost:8000/dev-oidc", "http://localhost:8000"),
        ("http://127.0.0.1:51234/oauth/callback?x=1", "http://127.0.0.1:51234"),
        ("http://[::1]:8000/cb", "http://[::1]:8000"),
        ("HTTPS://Example.COM/", "https://example.com"),
        ("com.example.app:/callback", None),
        ("http://localhost:port/cb", None),
        ("javascript:alert(1)", None),
        ("", None),
    ],
)
def test_url_origin(url, origin):
    assert url_origin(url) == origin
