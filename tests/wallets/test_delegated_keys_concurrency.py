"""Delegated keys on PostgreSQL: flows racing to activate keys for one card funding source leave exactly
one ACTIVE key; every other flow is answered 409 and its key stays PENDING."""

from __future__ import annotations

import pytest

from payments.client import wallet_crypto as client
from tests.wallets.test_concurrency import _send_all
from tests.wallets.test_delegated_keys import PATH, body_for, card_wallet, two_legs
from wallets.models import DelegatedKey

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

FLOWS = 8


def test_flows_racing_to_active_leave_exactly_one_active_key(api):
    wallet, card, tek = card_wallet(api)
    body = body_for(wallet, card)
    challenges = [two_legs(wallet, body, tek.private_key_hex) for _ in range(FLOWS)]
    headers = [
        {
            "HTTP_SERVICE_WALLET_SIGNATURE": client.stamp(c["payloadToSign"], tek.private_key_hex),
            "HTTP_REQUEST_ID": c["requestId"],
        }
        for c in challenges
    ]
    responses = _send_all(api, "post", PATH, body, headers)
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [409] * (FLOWS - 1), [r.content for r in responses]
    assert DelegatedKey.objects.filter(status="ACTIVE").count() == 1
    assert DelegatedKey.objects.filter(status="PENDING").count() == FLOWS - 1
    [active] = [r.json() for r in responses if r.status_code == 201]
    listed = api.get(PATH, {"fundingSourceId": active["fundingSourceId"]}).json()["data"]
    assert [k["id"] for k in listed if k["status"] == "ACTIVE"] == [active["id"]]
