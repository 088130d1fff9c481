"""The operator's delivery log in the admin, and its redeliver action."""

import pytest
from django.db import transaction
from django.urls import reverse

from payments.models import WebhookEvent
from payments.webhook_types import WebhookType
from payments.webhooks import webhook_emit
from tests.factories import PlatformFactory
from tests.payments.webhook_receiver import FakeBroker, Receiver, Reply

pytestmark = pytest.mark.django_db


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


@pytest.fixture
def broker(monkeypatch, django_capture_on_commit_callbacks) -> FakeBroker:
    return FakeBroker(django_capture_on_commit_callbacks).install(monkeypatch)


@pytest.fixture
def failed_event(receiver, broker, settings, django_capture_on_commit_callbacks) -> WebhookEvent:
    """An event whose only attempt got a 500, out of a one-attempt schedule."""
    settings.WEBHOOK_MAX_ATTEMPTS = 1
    receiver.replies = [Reply(500, b"database on fire")]
    platform = PlatformFactory(name="Acme Pay", webhook_endpoint=receiver.url)
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        event = webhook_emit(
            platform=platform, type=WebhookType.EXTERNAL_ACCOUNT_STATUS_UPDATED, data={"status": "ACTIVE"}
        )
    broker.run()
    event.refresh_from_db()
    assert event.status == WebhookEvent.Status.FAILED
    return event


def test_the_delivery_log_lists_events(admin_client, failed_event):
    page = admin_client.get(reverse("admin:payments_webhookevent_changelist")).content.decode()
    assert "EXTERNAL_ACCOUNT.STATUS_UPDATED" in page
    assert "Acme Pay" in page and "FAILED" in page and failed_event.public_id in page


def test_the_event_page_shows_the_payload_and_its_attempts(admin_client, failed_event):
    url = reverse("admin:payments_webhookevent_change", args=[failed_event.pk])
    page = admin_client.get(url).content.decode()
    assert "&quot;type&quot;: &quot;EXTERNAL_ACCOUNT.STATUS_UPDATED&quot;" in page  # pretty-printed payload
    assert "500" in page and "database on fire" in page and "endpoint answered 500" in page
    assert "Save" not in page  # read-only: saving could overwrite a worker's outcome


def test_redeliver_sends_the_same_event_again(
    admin_client, failed_event, receiver, broker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            reverse("admin:payments_webhookevent_changelist"),
            {"action": "redeliver", "_selected_action": [str(failed_event.pk)]},
            follow=True,
        )
    assert "queued for redelivery" in response.content.decode()
    failed_event.refresh_from_db()
    assert failed_event.status == WebhookEvent.Status.PENDING and failed_event.attempts == 0
    assert broker.queued == [(str(failed_event.pk), None)]

    broker.run()
    failed_event.refresh_from_db()
    assert failed_event.status == WebhookEvent.Status.DELIVERED
    assert receiver.event_ids() == [failed_event.public_id] * 2
    assert receiver.requests[0].body == receiver.requests[1].body
    assert [a.status_code for a in failed_event.delivery_attempts.all()] == [500, 200]
