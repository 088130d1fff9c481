"""Property: whatever order flows start, activate and get revoked in, a card funding source has at most
one ACTIVE delegated key; an activation succeeds exactly when none is ACTIVE; and a card authorization
is funded from the wallet exactly while one is."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.wallets.test_delegated_keys import PATH, approved, body_for, card_wallet, two_legs
from wallets.models import DelegatedKey

pytestmark = pytest.mark.django_db

steps = st.lists(
    st.tuples(st.sampled_from(["start", "activate", "revoke", "authorize"]), st.integers(0, 5)),
    min_size=1,
    max_size=12,
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=steps)
def test_any_order_of_flows_keeps_one_active_key(api, steps):
    wallet, card, tek = card_wallet(api)
    body = body_for(wallet, card)
    waiting: list[dict] = []  # second challenges of flows left at PENDING
    for what, pick in steps:
        active = list(DelegatedKey.objects.filter(card_id=card["id"].split(":", 1)[1], status="ACTIVE"))
        if what == "start":
            first = api.post(PATH, body)
            if active:
                assert first.status_code == 409
                continue
            waiting.append(two_legs(wallet, body, tek.private_key_hex))
        elif what == "activate" and waiting:
            challenge = waiting.pop(pick % len(waiting))
            answer = wallet.signed_retry("post", PATH, body, challenge, tek.private_key_hex)
            assert answer.status_code == (409 if active else 201), answer.content
        elif what == "revoke":
            keys = list(
                DelegatedKey.objects.filter(card_id=card["id"].split(":", 1)[1]).exclude(status="CHALLENGED")
            )
            if keys:
                key = keys[pick % len(keys)]
                answer = api.delete(f"{PATH}/{key.public_id}")
                assert answer.status_code == (204 if key.status == "ACTIVE" else 400)
        elif what == "authorize":
            assert approved(api, card) == bool(active)
        assert DelegatedKey.objects.filter(card_id=card["id"].split(":", 1)[1], status="ACTIVE").count() <= 1
