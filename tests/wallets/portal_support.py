"""The portal against a live server: a platform of its own (made here, in tests only), the PORTAL_*
settings pointing at the live server, and helpers that drive the pages through Django's test client
with CSRF enforced. The portal reaches the service over real HTTP, as in production."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from celery.app.task import Task
from django.test import Client

from payments.platforms import platform_create
from wallets.portal.service import _client, service_client

SANDBOX_CODE = "000000"


@dataclass
class PortalPlatform:
    platform: object
    client_id: str
    client_secret: str
    site: str  # http://localhost:<port>: WebAuthn and the OIDC redirect need the host name localhost


@pytest.fixture
def portal_platform(live_server, settings, monkeypatch) -> Iterator[PortalPlatform]:
    # Tasks queued on commit are dropped: reads apply what is due, so no worker is needed.
    monkeypatch.setattr(Task, "apply_async", lambda self, *args, **kwargs: None)
    platform, token, secret = platform_create(name="Portal")
    site = live_server.url.replace("127.0.0.1", "localhost")
    settings.PORTAL_SERVICE_BASE_URL = f"{site}/api/2025-10-13"
    settings.PORTAL_CLIENT_ID = token.client_id
    settings.PORTAL_CLIENT_SECRET = secret
    settings.PORTAL_OTP_SIGNER_PUBLIC_KEY = ""
    settings.PORTAL_EXPORT_SIGNER_PUBLIC_KEY = ""
    # The development OIDC provider, served by the live server and trusted by the service there.
    issuer = f"{site}/dev-oidc"
    settings.DEV_OIDC_ENABLED = True
    settings.DEV_OIDC_ISSUER = issuer
    settings.OIDC_ISSUERS = {**settings.OIDC_ISSUERS, issuer: {"jwks_uri": f"{issuer}/jwks"}}
    settings.PORTAL_OIDC_ISSUER = issuer
    settings.PORTAL_OIDC_CLIENT_ID = "portal"
    settings.PORTAL_OIDC_CLIENT_SECRET = "dev-portal-secret"
    settings.WEBAUTHN_RP_ID = settings.PORTAL_WEBAUTHN_RP_ID = "localhost"
    settings.WEBAUTHN_ALLOWED_ORIGINS = [site]
    yield PortalPlatform(platform=platform, client_id=token.client_id, client_secret=secret, site=site)
    # Its keep-alive connection would keep a live-server thread, and that thread's database
    # connection, open until the run ends: a hundred tests in, PostgreSQL runs out of connections.
    service_client().close()
    _client.cache_clear()


class PortalBrowser:
    """Django's test client with CSRF enforced, posting forms the way a browser would."""

    def __init__(self) -> None:
        # Host localhost, as a browser on the live server: the OIDC redirect URI is built from it.
        self.client = Client(enforce_csrf_checks=True, HTTP_HOST="localhost")

    @property
    def csrf(self) -> str:
        return self.client.cookies["csrftoken"].value

    def get(self, path: str, *args, **kwargs):
        return self.client.get(path, *args, **kwargs)

    def post(self, path: str, data: dict | None = None, *, htmx: bool = False, **kwargs):
        if "csrftoken" not in self.client.cookies:
            self.client.get("/login/")
        headers = kwargs.pop("headers", {})
        if htmx:
            headers = {"HX-Request": "true", **headers}
        return self.client.post(
            path, {**(data or {}), "csrfmiddlewaretoken": self.csrf}, headers=headers, **kwargs
        )

    def post_json(self, path: str, data: dict):
        if "csrftoken" not in self.client.cookies:
            self.client.get("/login/")
        return self.client.post(
            path,
            data,
            content_type="application/json",
            headers={"X-CSRFToken": self.csrf, "Accept": "application/json"},
        )

    def signup(self, email: str, full_name: str = "Jane Doe"):
        page = self.get("/signup/")
        assert page.status_code == 200, page.content
        version = re.search(rb'name="terms_version" value="([^"]+)"', page.content).group(1).decode()
        return self.post(
            "/signup/", {"email": email, "full_name": full_name, "terms": "on", "terms_version": version}
        )

    def start_code_login(self, email: str, method: str = "email"):
        """Sign-in with the code asked for (or another `method`; "" lets the portal choose)."""
        self.get("/login/")
        return self.post("/login/", {"email": email, "method": method})

    def enter_code(self, code: str = SANDBOX_CODE, *, htmx: bool = False):
        return self.post("/login/code/", {"code": code}, htmx=htmx)

    def login(self, email: str, code: str = SANDBOX_CODE):
        started = self.start_code_login(email)
        assert started.status_code == 302 and started["Location"] == "/login/code/", started
        done = self.enter_code(code)
        assert done.status_code == 302, done.content.decode()[:2000]
        return done


def signed_up(email: str, full_name: str = "Jane Doe") -> PortalBrowser:
    """A new browser that signed up (approved in the sandbox) and signed in with the email code."""
    browser = PortalBrowser()
    response = browser.signup(email, full_name)
    assert response.status_code == 302 and response["Location"] == "/signup/status/", response
    browser.login(email)
    return browser
