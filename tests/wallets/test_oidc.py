from __future__ import annotations

import base64
import json
from datetime import timedelta
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.core.cache import cache
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from joserfc import jws
from joserfc.jwk import ECKey, Key, RSAKey

from payments import clock
from wallets import oidc
from wallets.oidc import (
    OidcError,
    OidcIdentity,
    OidcInvalid,
    OidcKeysUnavailable,
    OidcMalformed,
    nonce_for,
    oidc_token_check,
)

GOOGLE = "https://accounts.google.com"
ISSUER = "https://issuer.test"
DISCOVERED = "https://discovered.test"
DISCOVERY_URL = f"{DISCOVERED}/.well-known/openid-configuration"
AUDIENCE = "1234567.apps.example"
SUBJECT = "1122334455"

_CLIENT_KEY = ec.generate_private_key(ec.SECP256R1()).public_key()
CPK = _CLIENT_KEY.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint).hex()
CPK_COMPRESSED = _CLIENT_KEY.public_bytes(Encoding.X962, PublicFormat.CompressedPoint).hex()

RSA_KEY = RSAKey.generate_key(2048, parameters={"kid": "rsa-1"}, private=True)
EC_KEY = ECKey.generate_key("P-256", parameters={"kid": "ec-1"}, private=True)
ROTATED_KEY = RSAKey.generate_key(2048, parameters={"kid": "rsa-2"}, private=True)
FORGER_KEY = RSAKey.generate_key(2048, parameters={"kid": "rsa-1"}, private=True)


_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


_DROP = object()


def claims(**changes: Any) -> dict[str, Any]:
    now = clock.now().timestamp()
    base = {
        "iss": GOOGLE,
        "aud": AUDIENCE,
        "sub": SUBJECT,
        "email": "user@example.com",
        "iat": int(now),
        "exp": int(now) + 3600,
        "nonce": nonce_for(CPK),
    }
    base.update(changes)
    return {key: value for key, value in base.items() if value is not _DROP}


def sandbox_token(payload: Any = None, *, header: Any = None, signature: str = "dummy-signature") -> str:
    header = header if header is not None else {"alg": "RS256", "kid": "abc123", "typ": "JWT"}
    payload = payload if payload is not None else claims()
    return ".".join([b64url(json.dumps(header).encode()), b64url(json.dumps(payload).encode()), signature])


def signed_token(
    payload: dict[str, Any], *, key: Key = RSA_KEY, alg: str = "RS256", kid: str | None = None
) -> str:
    header = {"alg": alg, "typ": "JWT", "kid": kid if kid is not None else key.kid}
    return jws.serialize_compact(header, json.dumps(payload).encode(), key)


def check(token: str, *, client_public_key: str | None = CPK, production: bool = False, **kwargs):
    return oidc_token_check(token=token, client_public_key=client_public_key, production=production, **kwargs)


class Provider:
    """The identity providers' HTTP side, served through httpx.MockTransport."""

    def __init__(self) -> None:
        self.keys: list[Key] = [RSA_KEY, EC_KEY]
        self.requests: list[str] = []
        self.discovery_issuer = DISCOVERED
        self.fail = False

    def handle(self, request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        self.requests.append(url)
        if self.fail:
            return httpx.Response(503)
        if url in (f"{ISSUER}/jwks", f"{DISCOVERED}/keys"):
            return httpx.Response(200, json={"keys": [key.as_dict(private=False) for key in self.keys]})
        if url == DISCOVERY_URL:
            return httpx.Response(
                200, json={"issuer": self.discovery_issuer, "jwks_uri": f"{DISCOVERED}/keys"}
            )
        return httpx.Response(404)

    def jwks_fetches(self) -> int:
        return sum(1 for url in self.requests if url.endswith(("/jwks", "/keys")))


@pytest.fixture(autouse=True)
def provider(settings, monkeypatch) -> Provider:
    settings.OIDC_ISSUERS = {
        GOOGLE: {"discovery": f"{GOOGLE}/.well-known/openid-configuration"},
        ISSUER: {"jwks_uri": f"{ISSUER}/jwks"},
        DISCOVERED: {"discovery": DISCOVERY_URL},
    }
    settings.OIDC_JWKS_CACHE_SECONDS = 3600
    cache.clear()
    served = Provider()
    # Every HTTP call goes to the fake provider: tests never reach the network.
    monkeypatch.setattr(
        oidc, "_http_client", lambda: httpx.Client(transport=httpx.MockTransport(served.handle))
    )
    yield served
    cache.clear()


# Sandbox: claims


def test_sandbox_token_is_accepted():
    result = check(sandbox_token())
    assert (result.iss, result.aud, result.sub, result.email) == (
        GOOGLE,
        AUDIENCE,
        SUBJECT,
        "user@example.com",
    )
    assert result.nonce == nonce_for(CPK)
    assert result.identity == OidcIdentity(iss=GOOGLE, sub=SUBJECT, aud=AUDIENCE)


def test_sandbox_accepts_any_signature_segment(provider):
    for signature in ("", "x", "c2lnbmF0dXJl", "dummy"):
        check(sandbox_token(signature=signature))
    assert provider.requests == []


def test_iat_59_seconds_old_is_fresh():
    token = sandbox_token()
    clock.advance(timedelta(seconds=59))
    check(token)


def test_iat_61_seconds_old_is_invalid():
    token = sandbox_token()
    clock.advance(timedelta(seconds=61))
    with pytest.raises(OidcInvalid, match="too old"):
        check(token)


def test_iat_5_seconds_ahead_is_within_skew():
    check(sandbox_token(claims(iat=clock.now().timestamp() + 5)))


def test_iat_6_seconds_ahead_is_invalid():
    with pytest.raises(OidcInvalid, match="future"):
        check(sandbox_token(claims(iat=clock.now().timestamp() + 6)))


def test_exp_in_the_past_is_invalid():
    with pytest.raises(OidcInvalid, match="expired"):
        check(sandbox_token(claims(exp=int(clock.now().timestamp()) - 1)))


def test_exp_reached_while_waiting_is_invalid():
    token = sandbox_token(claims(exp=int(clock.now().timestamp()) + 30))
    clock.advance(timedelta(seconds=31))
    with pytest.raises(OidcInvalid, match="expired"):
        check(token)


@pytest.mark.parametrize("name", ["iat", "exp"])
@pytest.mark.parametrize("value", [_DROP, "1700000000", True, None, 10**30, [1]])
def test_dates_must_be_numeric(name, value):
    with pytest.raises(OidcInvalid, match=f"{name} must be a numeric date"):
        check(sandbox_token(claims(**{name: value})))


def test_float_dates_are_numeric():
    now = clock.now().timestamp()
    check(sandbox_token(claims(iat=now - 0.5, exp=now + 10.25)))


def test_nonce_of_the_exact_key_string():
    check(sandbox_token(claims(nonce=nonce_for(CPK_COMPRESSED))), client_public_key=CPK_COMPRESSED)


@pytest.mark.parametrize(
    "sent_key",
    [CPK_COMPRESSED, CPK.upper(), CPK + "\n", " " + CPK],
    ids=["compressed-form-of-same-point", "upper-case-hex", "trailing-newline", "leading-space"],
)
def test_nonce_of_a_reserialised_key_is_invalid(sent_key):
    # The token's nonce is over the uncompressed lowercase string; the same point sent any
    # other way does not match, because the nonce is over the exact string.
    with pytest.raises(OidcInvalid, match="nonce does not match"):
        check(sandbox_token(), client_public_key=sent_key)


@pytest.mark.parametrize(
    "nonce",
    [_DROP, nonce_for(CPK).upper(), 12, "", "é" * 64],
    ids=["missing", "upper-case", "number", "empty", "not-hex"],
)
def test_nonce_missing_or_wrong_is_invalid(nonce):
    with pytest.raises(OidcInvalid, match="nonce"):
        check(sandbox_token(claims(nonce=nonce)))


def test_nonce_is_not_checked_without_a_client_key():
    assert check(sandbox_token(claims(nonce=_DROP)), client_public_key=None).nonce is None


def test_aud_one_element_array_is_accepted():
    assert check(sandbox_token(claims(aud=[AUDIENCE]))).aud == AUDIENCE


@pytest.mark.parametrize("aud", [[AUDIENCE, "other"], [], "", [""], 7, [7], _DROP, {"a": 1}])
def test_aud_shapes_that_are_invalid(aud):
    with pytest.raises(OidcInvalid, match="aud must be"):
        check(sandbox_token(claims(aud=aud)))


@pytest.mark.parametrize("iss", ["https://evil.example", "accounts.google.com", "", 5, _DROP])
def test_unsupported_issuer_is_invalid(iss):
    with pytest.raises(OidcInvalid, match="unsupported issuer"):
        check(sandbox_token(claims(iss=iss)))


@pytest.mark.parametrize("sub", [_DROP, "", 1122334455, None])
def test_sub_missing_or_empty_is_invalid(sub):
    with pytest.raises(OidcInvalid, match="sub must be"):
        check(sandbox_token(claims(sub=sub)))


def test_expected_identity_must_match():
    token = sandbox_token()
    check(token, expected=OidcIdentity(iss=GOOGLE, sub=SUBJECT, aud=AUDIENCE))
    for other in (
        OidcIdentity(iss=ISSUER, sub=SUBJECT, aud=AUDIENCE),
        OidcIdentity(iss=GOOGLE, sub="other", aud=AUDIENCE),
        OidcIdentity(iss=GOOGLE, sub=SUBJECT, aud="other"),
    ):
        with pytest.raises(OidcInvalid, match="identity does not match"):
            check(token, expected=other)


def test_email_is_optional():
    assert check(sandbox_token(claims(email=_DROP))).email is None
    assert check(sandbox_token(claims(email=42))).email is None


# Malformed tokens


def _segments(*parts: str) -> str:
    return ".".join(parts)


_HEADER = b64url(b'{"alg":"RS256"}')
_PAYLOAD = b64url(json.dumps({"sub": "x"}).encode())


@pytest.mark.parametrize(
    "token",
    [
        _segments(_HEADER, _PAYLOAD),
        _segments(_HEADER, _PAYLOAD, "sig", "extra"),
        _segments(_HEADER, _PAYLOAD + "*", "sig"),
        _segments(_HEADER, "abcde", "sig"),  # a length no base64 can have
        _segments(_HEADER, b64url(b"[1, 2, 3]"), "sig"),
        _segments(_HEADER, b64url(b'"a string"'), "sig"),
        _segments(_HEADER, b64url(b"{not json"), "sig"),
        _segments(_HEADER, b64url(b'{"iat": NaN}'), "sig"),
        _segments(_HEADER, b64url(b'{"sub": "a", "sub": "b"}'), "sig"),
        _segments(_HEADER, b64url(b"\xff\xfe{}"), "sig"),
        _segments(_HEADER, "", "sig"),
        _segments(b64url(b"[]"), _PAYLOAD, "sig"),
        _segments("not-json", _PAYLOAD, "sig"),
        _segments(_HEADER, _PAYLOAD, "sig+/"),
        _segments(_HEADER, _PAYLOAD[:-1] + ("B" if _PAYLOAD[-1] == "A" else "A"), "sig"),
        "sandbox-valid-oidc-token",
        "",
        "a" * (oidc.MAX_TOKEN_LENGTH + 1),
    ],
    ids=lambda token: token[:40] or "empty",
)
def test_malformed_tokens(token):
    with pytest.raises(OidcMalformed):
        check(token)


def test_non_string_token_is_malformed():
    with pytest.raises(OidcMalformed):
        check(None)  # type: ignore[arg-type]


def test_non_canonical_base64_is_malformed():
    padding = ""
    while len(payload := b64url(json.dumps(claims(pad=padding)).encode())) % 4 == 0:
        padding += "x"
    # Same decoded bytes, different text: an unused low bit set in the last character.
    tweaked = payload[:-1] + _ALPHABET[_ALPHABET.index(payload[-1]) ^ 1]
    assert base64.urlsafe_b64decode(tweaked + "==") == base64.urlsafe_b64decode(payload + "==")
    check(f"{_HEADER}.{payload}.sig")
    with pytest.raises(OidcMalformed):
        check(f"{_HEADER}.{tweaked}.sig")


# Production


def test_production_rs256_token_is_verified(provider):
    result = check(signed_token(claims(iss=ISSUER)), production=True)
    assert result.iss == ISSUER
    assert provider.jwks_fetches() == 1


def test_production_es256_token_is_verified():
    check(signed_token(claims(iss=ISSUER), key=EC_KEY, alg="ES256"), production=True)


def test_production_discovery_finds_the_jwks(provider):
    check(signed_token(claims(iss=DISCOVERED)), production=True)
    assert provider.requests == [DISCOVERY_URL, f"{DISCOVERED}/keys"]


def test_production_discovery_naming_another_issuer_is_refused(provider):
    provider.discovery_issuer = "https://impostor.test"
    with pytest.raises(OidcKeysUnavailable):
        check(signed_token(claims(iss=DISCOVERED)), production=True)


def test_production_provider_outage(provider):
    provider.fail = True
    with pytest.raises(OidcInvalid, match="keys unavailable") as excinfo:
        check(signed_token(claims(iss=ISSUER)), production=True)
    assert isinstance(excinfo.value, OidcKeysUnavailable)


def test_production_token_signed_by_another_key_is_invalid():
    with pytest.raises(OidcInvalid, match="signature invalid"):
        check(signed_token(claims(iss=ISSUER), key=FORGER_KEY), production=True)


def test_production_dummy_signature_is_invalid():
    with pytest.raises(OidcInvalid, match="signature invalid"):
        check(sandbox_token(claims(iss=ISSUER), header={"alg": "RS256", "kid": "rsa-1"}), production=True)


def test_production_sandbox_token_without_known_kid_is_invalid():
    with pytest.raises(OidcInvalid):
        check(sandbox_token(claims(iss=ISSUER)), production=True)


@pytest.mark.parametrize("alg", ["none", "HS256", "RS512", None])
def test_production_other_algorithms_are_invalid(alg, provider):
    header = {"alg": alg, "kid": "rsa-1"} if alg else {"kid": "rsa-1"}
    with pytest.raises(OidcInvalid, match="unsupported signing algorithm"):
        check(sandbox_token(claims(iss=ISSUER), header=header, signature=""), production=True)
    assert provider.requests == []


def test_production_algorithm_must_fit_the_key():
    # An ES256 header pointing at the RSA key must not be verified with it (or vice versa).
    token = signed_token(claims(iss=ISSUER), key=EC_KEY, alg="ES256", kid="rsa-1")
    with pytest.raises(OidcInvalid):
        check(token, production=True)


def test_production_unsupported_issuer_fetches_nothing(provider):
    with pytest.raises(OidcInvalid, match="unsupported issuer"):
        check(signed_token(claims(iss="https://evil.example")), production=True)
    assert provider.requests == []


def test_production_claim_checks_still_apply():
    token = signed_token(claims(iss=ISSUER))
    with pytest.raises(OidcInvalid, match="nonce"):
        check(token, production=True, client_public_key=CPK_COMPRESSED)
    with pytest.raises(OidcInvalid, match="identity does not match"):
        check(token, production=True, expected=OidcIdentity(iss=ISSUER, sub="x", aud=AUDIENCE))
    check(token, production=True, expected=OidcIdentity(iss=ISSUER, sub=SUBJECT, aud=AUDIENCE))
    clock.advance(timedelta(seconds=61))
    with pytest.raises(OidcInvalid, match="too old"):
        check(token, production=True)


def test_production_future_iat_beyond_skew_is_invalid():
    with pytest.raises(OidcInvalid, match="future"):
        check(signed_token(claims(iss=ISSUER, iat=clock.now().timestamp() + 6)), production=True)


def test_production_keys_are_cached(provider):
    check(signed_token(claims(iss=ISSUER)), production=True)
    check(signed_token(claims(iss=ISSUER), key=EC_KEY, alg="ES256"), production=True)
    assert provider.jwks_fetches() == 1


def test_production_cache_lives_in_django_cache(provider):
    check(signed_token(claims(iss=ISSUER)), production=True)
    cache.clear()
    check(signed_token(claims(iss=ISSUER)), production=True)
    assert provider.jwks_fetches() == 2


def test_production_unknown_kid_triggers_one_refetch(provider):
    check(signed_token(claims(iss=ISSUER)), production=True)
    provider.keys = [ROTATED_KEY]  # the issuer rotated its keys

    check(signed_token(claims(iss=ISSUER), key=ROTATED_KEY), production=True)
    assert provider.jwks_fetches() == 2

    # A forged kid within the cool-down window does not make us fetch again.
    with pytest.raises(OidcInvalid, match="no issuer key"):
        check(signed_token(claims(iss=ISSUER), key=FORGER_KEY, kid="made-up"), production=True)
    assert provider.jwks_fetches() == 2


def test_production_unknown_kid_after_a_fresh_fetch_is_not_refetched(provider):
    with pytest.raises(OidcInvalid, match="no issuer key"):
        check(signed_token(claims(iss=ISSUER), key=FORGER_KEY, kid="made-up"), production=True)
    assert provider.jwks_fetches() == 1


def test_production_refetch_still_unknown_is_invalid(provider):
    check(signed_token(claims(iss=ISSUER)), production=True)
    with pytest.raises(OidcInvalid, match="no issuer key"):
        check(signed_token(claims(iss=ISSUER), key=FORGER_KEY, kid="made-up"), production=True)
    assert provider.jwks_fetches() == 2


def test_production_token_without_kid_tries_the_matching_keys():
    token = jws.serialize_compact({"alg": "RS256"}, json.dumps(claims(iss=ISSUER)).encode(), RSA_KEY)
    check(token, production=True)


@hypothesis_settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_single_character_change_in_the_payload_fails(data):
    token = signed_token(claims(iss=ISSUER))
    header, payload, signature = token.split(".")
    check(token, production=True)

    index = data.draw(st.integers(min_value=0, max_value=len(payload) - 1))
    replacement = data.draw(
        st.one_of(st.sampled_from(_ALPHABET), st.characters(codec="utf-8")).filter(
            lambda c: c != payload[index]
        )
    )
    tampered = payload[:index] + replacement + payload[index + 1 :]
    with pytest.raises(OidcError):
        check(f"{header}.{tampered}.{signature}", production=True)
