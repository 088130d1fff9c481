"""Wallet test helpers: a Global Account on a platform, OTP login through the API, signed calls."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from payments.client import wallet_crypto as client
from tests import factories
from wallets import service_keys
from wallets.models import AuthCredential

SANDBOX_CODE = "000000"


@dataclass
class Wallet:
    """One customer's Global Account as the tests drive it through the API."""

    api: Any
    customer: Any
    account: Any

    @property
    def account_id(self) -> str:
        return self.account.public_id

    def credentials(self) -> list[dict]:
        response = self.api.get("/auth/credentials", {"accountId": self.account_id})
        assert response.status_code == 200, response.content
        return response.json()["data"]

    def credential_id(self, credential_type: str = "EMAIL_OTP") -> str:
        return next(c["id"] for c in self.credentials() if c["type"] == credential_type)

    def otp_bundle(self, credential_id: str, *, code: str = SANDBOX_CODE, tek=None) -> tuple[dict, Any]:
        """Challenge the credential and build the verify body for `code`; returns (body, TEK)."""
        response = self.api.post(f"/auth/credentials/{credential_id}/challenge")
        assert response.status_code == 200, response.content
        tek = tek or client.generate_key_pair()
        encrypted = client.otp_bundle_encrypt(
            response.json()["otpEncryptionTargetBundle"],
            code,
            tek.public_key_hex_uncompressed,
            trusted_signer_public_hex=service_keys.public_key(service_keys.Purpose.OTP_QUORUM),
        )
        kind = AuthCredential.objects.get(pk=credential_id.split(":", 1)[1]).type
        return {"type": kind, "encryptedOtpBundle": encrypted}, tek

    def otp_login(self, credential_id: str | None = None) -> tuple[Any, dict]:
        """Full OTP login through the API: returns (the TEK = session key pair, the Session)."""
        credential_id = credential_id or self.credential_id()
        body, tek = self.otp_bundle(credential_id)
        path = f"/auth/credentials/{credential_id}/verify"
        first = self.api.post(path, body)
        assert first.status_code == 202, first.content
        response = self.signed_retry("post", path, body, first.json(), tek.private_key_hex)
        assert response.status_code == 200, response.content
        return tek, response.json()

    def signed_retry(
        self, method: str, path: str, body: Any, challenge: dict, private_key_hex: str, **headers
    ):
        return getattr(self.api, method)(
            path,
            body,
            HTTP_SERVICE_WALLET_SIGNATURE=client.stamp(challenge["payloadToSign"], private_key_hex),
            HTTP_REQUEST_ID=challenge["requestId"],
            **headers,
        )

    def signed(self, method: str, path: str, body: Any, private_key_hex: str, **headers):
        """Both legs: the 202 challenge, then the retry stamped with `private_key_hex`."""
        first = getattr(self.api, method)(path, body)
        assert first.status_code == 202, first.content
        return self.signed_retry(method, path, body, first.json(), private_key_hex, **headers)


def wallet_for(api, **customer_fields) -> Wallet:
    customer, account = factories.approved_customer_with_wallet(platform=api.platform, **customer_fields)
    return Wallet(api=api, customer=customer, account=account)


@pytest.fixture
def wallet(api) -> Wallet:
    return wallet_for(api)
