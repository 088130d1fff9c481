"""Wallet privacy: PATCH /internal-accounts/{id} as a signed retry."""

from __future__ import annotations

import pytest

from tests import factories
from tests.wallets.conftest import Wallet

pytestmark = pytest.mark.django_db


def test_privacy_update_is_a_signed_retry_returning_the_account(wallet: Wallet):
    tek, _ = wallet.otp_login()
    path = f"/internal-accounts/{wallet.account_id}"
    first = wallet.api.patch(path, {"privateEnabled": True})
    assert first.status_code == 202
    wallet.account.refresh_from_db()
    assert wallet.account.private_enabled is False  # nothing changes before the signed retry
    response = wallet.signed_retry("patch", path, {"privateEnabled": True}, first.json(), tek.private_key_hex)
    assert response.status_code == 200, response.content
    account = response.json()
    assert account["id"] == wallet.account_id and account["type"] == "EMBEDDED_WALLET"
    assert account["privateEnabled"] is True
    assert {"balance", "totalBalance", "fundingPaymentInstructions", "status", "customerId"} <= set(account)
    wallet.account.refresh_from_db()
    assert wallet.account.private_enabled is True
    response = wallet.signed("patch", path, {"privateEnabled": False}, tek.private_key_hex)
    assert response.json()["privateEnabled"] is False


def test_privacy_update_validates(wallet: Wallet):
    path = f"/internal-accounts/{wallet.account_id}"
    response = wallet.api.patch(path, {})
    assert (
        response.status_code == 400 and response.json()["details"]["errors"][0]["field"] == "privateEnabled"
    )
    response = wallet.api.patch(path, {"privateEnabled": "yes"})
    assert response.status_code == 400
    assert response.json()["details"]["errors"][0]["constraint"]["type"] == "boolean"


def test_only_the_platforms_embedded_wallets(wallet: Wallet, other_api):
    assert (
        other_api.patch(f"/internal-accounts/{wallet.account_id}", {"privateEnabled": True}).status_code
        == 404
    )
    fiat = factories.InternalAccountFactory(
        customer=wallet.customer, platform=wallet.api.platform, currency="EUR"
    )
    assert (
        wallet.api.patch(f"/internal-accounts/{fiat.public_id}", {"privateEnabled": True}).status_code == 404
    )
