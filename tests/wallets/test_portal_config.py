"""The portal's configuration: where its API token comes from, its key for secrets at rest, and the
production checks. No live server needed."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ImproperlyConfigured

from wallets.portal import checks, sealing, service


def test_sandbox_reads_the_platform_that_make_run_wrote(settings, tmp_path):
    settings.PORTAL_CLIENT_ID = settings.PORTAL_CLIENT_SECRET = ""
    settings.DATA_DIR = tmp_path
    with pytest.raises(ImproperlyConfigured, match="run `make run` once"):
        service.portal_credentials()
    (tmp_path / "portal-credentials.json").write_text(json.dumps({"clientId": "id1", "clientSecret": "s1"}))
    assert service.portal_credentials() == ("id1", "s1")
    settings.PORTAL_CLIENT_ID, settings.PORTAL_CLIENT_SECRET = "id2", "s2"
    assert service.portal_credentials() == ("id2", "s2")
    client = service.service_client()
    assert client.base_url == settings.PORTAL_SERVICE_BASE_URL


def test_production_needs_its_own_credentials_and_key(settings, tmp_path):
    settings.PRODUCTION, settings.SANDBOX = True, False
    settings.PORTAL_CLIENT_ID = settings.PORTAL_CLIENT_SECRET = settings.PORTAL_SECRETS_KEY = ""
    settings.DATA_DIR = tmp_path
    (tmp_path / "portal-credentials.json").write_text(json.dumps({"clientId": "id", "clientSecret": "s"}))
    with pytest.raises(ImproperlyConfigured, match="must be set in production"):
        service.portal_credentials()  # the sandbox file is not used in production
    with pytest.raises(ImproperlyConfigured, match="PORTAL_SECRETS_KEY"):
        sealing.seal(b"x", purpose="p")
    ids = {problem.id for problem in checks.portal_production_settings()}
    assert ids == {"wallets_portal.E001", "wallets_portal.W001"}


def test_sealed_values_open_only_for_their_purpose(settings):
    sealed = sealing.seal(b"secret", purpose="portal-session-key:1:Session:a")
    assert b"secret" not in sealed.encode() and sealed.startswith("v1.")
    assert sealing.unseal(sealed, purpose="portal-session-key:1:Session:a") == b"secret"
    with pytest.raises(sealing.UnsealFailed):
        sealing.unseal(sealed, purpose="portal-session-key:2:Session:a")
    settings.PORTAL_SECRETS_KEY = "B" * 43 + "="
    with pytest.raises(sealing.UnsealFailed):
        sealing.unseal(sealed, purpose="portal-session-key:1:Session:a")


def test_the_portal_reaches_the_service_only_through_the_client():
    """DESIGN.md: portal code never imports the service's domain modules or models. Every page of the
    portal (sign-in, security, money, send, quotes, SCA), its forms and template tags are held to it."""
    import ast
    from pathlib import Path

    root = Path(service.__file__).parent
    modules = {path.relative_to(root).as_posix() for path in root.rglob("*.py")}
    moved = {
        "views/money.py",
        "views/send.py",
        "views/quotes.py",
        "views/sca.py",
        "sca_steps.py",
        "payees.py",
        "money.py",
        "code_step.py",
        "templatetags/portal_money.py",
        "templatetags/portal_sca.py",
    }
    assert moved <= modules, moved - modules
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            for name in names:
                top = name.split(".")[0]
                if top == "payments":
                    assert name == "payments.client" or name.startswith("payments.client."), (path, name)
                elif top == "wallets":
                    assert name.startswith("wallets.portal"), (path, name)
                elif top == "project":  # the site's own policy helpers, shared by every page it serves
                    assert name == "project.csp", (path, name)


def test_the_portal_is_one_home():
    """One package, one template root, one URL namespace: nothing of the portal is left in payments."""
    from pathlib import Path

    from django.conf import settings
    from django.urls import reverse

    base = Path(settings.BASE_DIR)
    assert not list((base / "payments" / "portal").glob("*.py"))
    assert not list((base / "payments" / "templatetags").glob("*.py"))
    assert not list((base / "payments" / "templates" / "payments" / "portal").glob("*.html"))
    for name in ("money-home", "send", "quote-confirm", "sca-security", "sca-login-code", "login-code"):
        assert reverse(f"portal:{name}", args=["Quote:x"] if name == "quote-confirm" else [])
