"""The admin's card pages: read-only, no card number shown; staff with the permission freeze a card
(CARD.STATE_CHANGE sent, an admin log entry recorded), staff without it cannot."""

from __future__ import annotations

import json

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission, User
from django.urls import reverse

from payments.models import Card, CardTransaction, WebhookEvent
from tests.payments.card_support import authorize, cardholder, issue

pytestmark = pytest.mark.django_db


def _staff(client, *codenames: str):
    user = User.objects.create_user("operator", password="x", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(content_type__app_label="payments", codename__in=codenames)
    )
    client.force_login(user)
    return user


def _freeze(client, card: Card):
    return client.post(
        reverse("admin:payments_card_changelist"),
        {"action": "freeze_selected", ACTION_CHECKBOX_NAME: [card.pk]},
    )


def test_pages_show_cards_and_transactions_without_the_number(api, client):
    _staff(client, "view_card", "view_cardtransaction")
    customer, account = cardholder(api)
    wire = issue(api, customer, account)
    authorize(api, wire, 100)
    card = Card.objects.get()
    pan = json.loads(card.secrets)["pan"]
    for url in (
        reverse("admin:payments_card_changelist"),
        reverse("admin:payments_card_change", args=[card.pk]),
        reverse("admin:payments_cardtransaction_changelist"),
        reverse("admin:payments_cardtransaction_change", args=[CardTransaction.objects.get().pk]),
    ):
        page = client.get(url)
        assert page.status_code == 200, url
        assert pan not in page.content.decode() and card.secrets_sealed not in page.content.decode()
    assert card.last4 in client.get(reverse("admin:payments_card_changelist")).content.decode()
    assert _freeze(client, card).status_code == 200  # no freeze action without the change permission
    card.refresh_from_db()
    assert card.status == "ACTIVE"


def test_staff_freezes_a_card_with_an_audit_row(api, client):
    user = _staff(client, "view_card", "change_card")
    customer, account = cardholder(api)
    issue(api, customer, account)
    card = Card.objects.get()
    assert _freeze(client, card).status_code == 302
    card.refresh_from_db()
    assert card.status == "FROZEN"
    entry = LogEntry.objects.get(object_id=str(card.pk))
    assert entry.user == user and "frozen" in entry.get_change_message()
    states = [
        json.loads(e.body)["data"]["state"] for e in WebhookEvent.objects.filter(type="CARD.STATE_CHANGE")
    ]
    assert states == ["ACTIVE", "FROZEN"]
    api.patch(f"/cards/{card.public_id}", {"state": "CLOSED"})
    _freeze(client, card)  # a closed card stays closed
    card.refresh_from_db()
    assert card.status == "CLOSED"
