"""The development OIDC provider: discovery, JWKS, the authorization-code flow with PKCE, ID tokens the
service accepts with real signature checks, and its absence in production."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import os
import re
import secrets
import subprocess
import sys
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from django.test import Client
from joserfc import jwt
from joserfc.jwk import KeySet

from payments import clock
from payments.client import wallet_crypto
from project.dev_oidc.server import CODE_SECONDS
from wallets import oidc

pytestmark = pytest.mark.django_db

BASE = "/dev-oidc"
CLIENT_ID, CLIENT_SECRET = "portal", "dev-portal-secret"
REDIRECT_URI = "http://localhost:51234/oauth/callback"  # loopback: any port


def browser(**kwargs) -> Client:
    """Plain http is allowed on loopback hosts only (authlib's transport check, RFC 8252), as in development."""
    return Client(HTTP_HOST="localhost", **kwargs)


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    return verifier, b64url(hashlib.sha256(verifier.encode()).digest())


def basic(client_id: str = CLIENT_ID, secret: str = CLIENT_SECRET) -> str:
    return "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()


def authorize_url(**overrides) -> str:
    params = {
        "response_type": "code",
        "client_id": CLIENT_ID,
        "redirect_uri": REDIRECT_URI,
        "scope": "openid email",
        "state": "state-123",
        "nonce": "nonce-" + secrets.token_hex(8),
        "code_challenge": pkce()[1],
        "code_challenge_method": "S256",
    }
    params.update(overrides)
    return f"{BASE}/authorize?" + urlencode({k: v for k, v in params.items() if v is not None})


def sign_in(user_agent: Client, url: str, email: str = "jane@example.com"):
    page = user_agent.get(url)
    assert page.status_code == 200, page.content
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.content).group(1).decode()
    return user_agent.post(url, {"email": email, "csrfmiddlewaretoken": token})


def code_for(email: str = "jane@example.com", **params) -> tuple[str, str]:
    """Sign in through the login page; returns (code, code_verifier)."""
    verifier, challenge = pkce()
    response = sign_in(
        browser(enforce_csrf_checks=True), authorize_url(code_challenge=challenge, **params), email
    )
    assert response.status_code == 302, response.content
    location = urlsplit(response["Location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == params.get("redirect_uri", REDIRECT_URI)
    query = parse_qs(location.query)
    assert query["state"] == ["state-123"]
    return query["code"][0], verifier


def exchange(code: str, verifier: str, *, authorization: str | None = None, **extra):
    data = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": REDIRECT_URI,
        "code_verifier": verifier,
    }
    return browser().post(f"{BASE}/token", {**data, **extra}, HTTP_AUTHORIZATION=authorization or basic())


def jwks() -> KeySet:
    return KeySet.import_key_set(browser().get(f"{BASE}/jwks").json())


# --- discovery and keys ----------------------------------------------------------------------


def test_discovery_names_the_issuer_and_its_endpoints(settings):
    response = browser().get(f"{BASE}/.well-known/openid-configuration")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    document = response.json()
    issuer = settings.DEV_OIDC_ISSUER
    assert document["issuer"] == issuer
    assert document["authorization_endpoint"] == f"{issuer}/authorize"
    assert document["token_endpoint"] == f"{issuer}/token"
    assert document["jwks_uri"] == f"{issuer}/jwks"
    assert document["code_challenge_methods_supported"] == ["S256"]
    assert document["response_types_supported"] == ["code"]
    assert document["id_token_signing_alg_values_supported"] == ["RS256"]
    assert "openid" in document["scopes_supported"]
    assert settings.OIDC_ISSUERS[issuer] == {"jwks_uri": f"{issuer}/jwks"}  # the service trusts it


def test_jwks_publishes_one_public_rsa_key_made_once():
    keys = browser().get(f"{BASE}/jwks").json()["keys"]
    assert len(keys) == 1
    (key,) = keys
    assert (key["kty"], key["alg"], key["use"]) == ("RSA", "RS256", "sig")
    assert key["kid"] and key["n"] and key["e"]
    assert not {"d", "p", "q", "dp", "dq", "qi"} & set(key)
    assert browser().get(f"{BASE}/jwks").json()["keys"] == keys  # stable

    from project.dev_oidc.models import SigningKey

    (row,) = SigningKey.objects.all()
    assert "PRIVATE" not in row.private_key_sealed and row.kid == key["kid"]


# --- the flow --------------------------------------------------------------------------------


def test_authorization_code_with_pkce_gives_an_id_token_that_verifies(settings):
    client_key = wallet_crypto.generate_key_pair().public_key_hex_uncompressed
    nonce = hashlib.sha256(client_key.encode()).hexdigest()  # what the portal sends for the service
    code, verifier = code_for("Jane@Example.com", nonce=nonce)

    response = exchange(code, verifier)
    assert response.status_code == 200, response.content
    assert "no-store" in response["Cache-Control"]
    tokens = response.json()
    assert tokens["token_type"].lower() == "bearer" and tokens["access_token"]

    id_token = jwt.decode(tokens["id_token"], jwks(), algorithms=["RS256"])
    claims = id_token.claims
    assert id_token.header["kid"] == jwks().keys[0].kid
    assert claims["iss"] == settings.DEV_OIDC_ISSUER
    assert claims["aud"] == CLIENT_ID
    assert claims["nonce"] == nonce
    assert claims["email"] == "Jane@Example.com"
    assert claims["sub"] and claims["exp"] > claims["iat"] >= int(clock.now().timestamp()) - 5

    # The same address (any case) is the same subject; another address is another.
    assert _sub_for("jane@example.com") == claims["sub"]
    assert _sub_for("john@example.com") != claims["sub"]


def _sub_for(email: str) -> str:
    code, verifier = code_for(email)
    token = exchange(code, verifier).json()["id_token"]
    return jwt.decode(token, jwks()).claims["sub"]


def test_the_service_accepts_the_token_with_its_production_signature_check(monkeypatch):
    """wallets.oidc fetches the issuer's JWKS over HTTP in production; serve it from this provider."""
    django = browser()

    def fetch(request: httpx.Request) -> httpx.Response:
        answer = django.get(request.url.path)
        return httpx.Response(
            answer.status_code, content=answer.content, headers={"Content-Type": "application/json"}
        )

    monkeypatch.setattr(oidc, "_http_client", lambda: httpx.Client(transport=httpx.MockTransport(fetch)))
    client_key = wallet_crypto.generate_key_pair().public_key_hex_uncompressed
    code, verifier = code_for(nonce=oidc.nonce_for(client_key))
    token = exchange(code, verifier).json()["id_token"]

    claims = oidc.oidc_token_check(token=token, client_public_key=client_key, production=True)
    assert (claims.aud, claims.email) == (CLIENT_ID, "jane@example.com")

    header, payload, _signature = token.split(".")
    forged = ".".join([header, payload, b64url(b"not the signature")])
    with pytest.raises(oidc.OidcInvalid):
        oidc.oidc_token_check(token=forged, client_public_key=client_key, production=True)


def test_client_secret_post_works_too():
    code, verifier = code_for()
    response = exchange(code, verifier, authorization="", client_id=CLIENT_ID, client_secret=CLIENT_SECRET)
    assert response.status_code == 200, response.content


# --- refusals --------------------------------------------------------------------------------


def test_a_wrong_verifier_is_refused():
    code, _ = code_for()
    response = exchange(code, pkce()[0])
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"
    missing = exchange(code, "")
    assert missing.status_code == 400 and "id_token" not in missing.json()


def test_a_code_is_used_once():
    code, verifier = code_for()
    assert exchange(code, verifier).status_code == 200
    again = exchange(code, verifier)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"


def test_a_code_expires():
    code, verifier = code_for()
    clock.advance(dt.timedelta(seconds=CODE_SECONDS + 1))
    assert exchange(code, verifier).json()["error"] == "invalid_grant"


def test_a_wrong_client_secret_is_refused():
    code, verifier = code_for()
    response = exchange(code, verifier, authorization=basic(secret="guess"))
    assert response.status_code == 401 and response.json()["error"] == "invalid_client"
    assert exchange(code, verifier).status_code == 200  # a failed attempt does not use the code


@pytest.mark.parametrize(
    "params",
    [
        {"code_challenge": None, "code_challenge_method": None},
        {"code_challenge_method": "plain"},
        {"code_challenge_method": None},
    ],
    ids=["no-pkce", "plain", "no-method"],
)
def test_pkce_with_s256_is_required(params):
    response = browser().get(authorize_url(**params))
    assert response.status_code == 302
    query = parse_qs(urlsplit(response["Location"]).query)
    assert query["error"] == ["invalid_request"] and query["state"] == ["state-123"]


def test_unknown_clients_and_redirect_uris_are_not_redirected_to():
    for params in (
        {"client_id": "stranger"},
        {"redirect_uri": "https://evil.example/oauth/callback"},
        {"redirect_uri": "http://localhost:51234/elsewhere"},
    ):
        response = browser().get(authorize_url(**params))
        assert response.status_code in (400, 401) and "Location" not in response, params


def test_the_login_form_needs_its_csrf_token():
    user_agent = browser(enforce_csrf_checks=True)
    url = authorize_url()
    assert user_agent.get(url).status_code == 200
    assert user_agent.post(url, {"email": "jane@example.com"}).status_code == 403


def test_the_login_form_wants_an_email_address():
    response = sign_in(browser(enforce_csrf_checks=True), authorize_url(), email="not an address")
    assert response.status_code == 200 and b"valid email" in response.content


def test_a_replayed_nonce_is_refused():
    code_for(nonce="same-nonce")
    response = browser().get(authorize_url(nonce="same-nonce"))
    assert response.status_code == 302 and "error=invalid_request" in response["Location"]


# --- switched off ----------------------------------------------------------------------------


def test_disabled_it_answers_404(settings):
    settings.DEV_OIDC_ENABLED = False
    for path in ("/.well-known/openid-configuration", "/jwks", "/authorize", "/token"):
        method = browser().post if path == "/token" else browser().get
        assert method(BASE + path).status_code == 404, path


def test_production_mode_leaves_it_out(tmp_path):
    code = (
        "import django; django.setup(); from django.conf import settings; from django.urls import resolve, Resolver404\n"
        "try:\n    resolve('/dev-oidc/jwks'); mounted = True\nexcept Resolver404:\n    mounted = False\n"
        "print(settings.DEV_OIDC_ENABLED, mounted, any('dev-oidc' in i for i in settings.OIDC_ISSUERS))"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "project.settings",
        "SERVICE_ENVIRONMENT": "production",
        "SECRET_KEY": "test-" + secrets.token_hex(16),
        "SERVICE_SECRETS_KEY": b64url(secrets.token_bytes(32)),
        "DATA_DIR": str(tmp_path),
    }
    env.pop("DEV_OIDC_ENABLED", None)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=_project_root(), check=True
    )
    assert result.stdout.split() == ["False", "False", "False"]


def _project_root() -> str:
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_plain_http_is_refused_off_loopback():
    response = Client(HTTP_HOST="127.0.0.1").get(authorize_url())
    assert response.status_code == 200  # 127.0.0.1 is loopback too
    assert json.loads(Client().get(authorize_url()).content)["error"] == "insecure_transport"  # testserver
