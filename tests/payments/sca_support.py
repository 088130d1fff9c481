"""Test helpers for Strong Customer Authentication: EU customers, SCA logins, software passkeys."""

from __future__ import annotations

from typing import Any

from payments.models import Customer
from tests.wallets.soft_authenticator import SoftAuthenticator, b64url_decode

EU_ADDRESS = {"line1": "Hauptstraße 1", "city": "Berlin", "postalCode": "10115", "country": "DE"}
PHONE = "+4915112345678"
SANDBOX_SCA_CODE = "123456"
ORIGIN = "http://localhost:8000"  # in the default WEBAUTHN_ALLOWED_ORIGINS
IP = "203.0.113.42"


def sca_path(path: str, customer: Customer | str) -> str:
    customer_id = customer if isinstance(customer, str) else customer.public_id
    return f"{path}?customerId={customer_id}"


def sca_login(api, customer: Customer, code: str = SANDBOX_SCA_CODE):
    started = api.post(sca_path("/sca/login/start", customer), {"factor": "SMS_OTP"})
    assert started.status_code == 200, started.json()
    return api.post(
        sca_path("/sca/login/complete", customer),
        {
            "factor": "SMS_OTP",
            "challengeId": started.json()["challengeId"],
            "code": code,
            "endUserIpAddress": IP,
        },
    )


def webauthn_json(flat: dict[str, Any]) -> dict[str, Any]:
    """The soft authenticator's flat wire object → the browser's `credential.toJSON()` form."""
    response = {
        ("clientDataJSON" if key == "clientDataJson" else key): value
        for key, value in flat.items()
        if key != "credentialId"
    }
    return {
        "id": flat["credentialId"],
        "rawId": flat["credentialId"],
        "type": "public-key",
        "response": response,
    }


def options_challenge(options: dict[str, Any]) -> str:
    """The text whose UTF-8 bytes are the WebAuthn challenge of request options."""
    return b64url_decode(options["challenge"]).decode("utf-8")


def enroll_passkey(
    api, customer: Customer, authenticator: SoftAuthenticator | None = None
) -> SoftAuthenticator:
    authenticator = authenticator or SoftAuthenticator("localhost", ORIGIN)
    started = api.post(sca_path("/sca/factors", customer), {"type": "PASSKEY"})
    assert started.status_code == 200, started.json()
    attestation = authenticator.register(started.json()["options"]["challenge"])
    confirmed = api.post(
        sca_path("/sca/factors/confirm", customer),
        {"type": "PASSKEY", "origin": ORIGIN, "credential": webauthn_json(attestation), "name": "Laptop"},
    )
    assert confirmed.status_code == 200, confirmed.json()
    authenticator.credential_id = confirmed.json()["factor"]["credentialId"]
    return authenticator


def passkey_proof(authenticator: SoftAuthenticator, options: dict[str, Any], **bend: Any) -> dict[str, Any]:
    assertion = authenticator.assert_(options_challenge(options), authenticator.credential_id, **bend)
    return {"passkeyAssertion": webauthn_json(assertion), "origin": ORIGIN}


def enroll_totp(api, customer: Customer, *, code: str | None = None) -> tuple[str, list[str]]:
    """Enroll a TOTP factor (with the app's current code, or `code`): its base32 secret and its
    recovery codes."""
    import pyotp

    from payments import clock

    started = api.post(sca_path("/sca/factors", customer), {"type": "TOTP"})
    assert started.status_code == 200, started.json()
    secret = started.json()["secretBase32Encoded"]
    confirmed = api.post(
        sca_path("/sca/factors/confirm", customer),
        {
            "type": "TOTP",
            "secret": started.json()["secret"],
            "code": code or pyotp.TOTP(secret).at(clock.now()),
        },
    )
    assert confirmed.status_code == 200, confirmed.json()
    return secret, confirmed.json()["recoveryCodes"]


def mid_step() -> None:
    """Move the clock to the middle of a 30-second TOTP step, so that a test has 15 seconds either
    side before its codes change."""
    import datetime as dt

    from payments import clock

    clock.advance(dt.timedelta(seconds=15 - clock.now().timestamp() % 30))


def totp_login(api, customer: Customer, code: str):
    started = api.post(sca_path("/sca/login/start", customer), {"factor": "TOTP"})
    assert started.status_code == 200, started.json()
    assert started.json() == {"factor": "TOTP"}
    return api.post(
        sca_path("/sca/login/complete", customer), {"factor": "TOTP", "code": code, "endUserIpAddress": IP}
    )
