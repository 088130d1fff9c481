"""The HTTP side of webhooks: the sandbox test endpoint, the public key in GET /config, the command."""

import base64
import io
import json
import socket

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.core.management import call_command

from payments.models import WebhookEvent
from tests.payments.webhook_receiver import Receiver, Reply

pytestmark = pytest.mark.django_db


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def test_config_shows_the_webhook_signing_public_key(api, other_api):
    key = api.get("/config").json()["webhookSigningPublicKey"]
    assert len(key) == 130 and key.startswith("04") and key == key.lower()
    assert other_api.get("/config").json()["webhookSigningPublicKey"] == key  # one service-wide key
    # PATCH answers with the configuration too, key included.
    assert api.patch("/config", {"umaDomain": "pay.example.com"}).json()["webhookSigningPublicKey"] == key


def test_the_command_prints_the_same_key_as_pem(api):
    key_hex = api.get("/config").json()["webhookSigningPublicKey"]
    out = io.StringIO()
    call_command("webhook_public_key", stdout=out)
    public = serialization.load_pem_public_key(out.getvalue().encode())
    point = public.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    assert point.hex() == key_hex


def test_sandbox_test_webhook_success(api, receiver):
    receiver.replies = [Reply(200, b'{"received":true}', content_type="application/json")]
    api.patch("/config", {"webhookEndpoint": receiver.url})
    response = api.post("/sandbox/webhooks/test")
    assert response.status_code == 200, response.json()
    assert response.json() == {
        "url": receiver.url,
        "response_status": 200,
        "response_body": '{"received":true}',
    }

    (request,) = receiver.requests
    body = json.loads(request.body)
    assert body["type"] == "TEST" and body["data"] == {} and body["id"].startswith("Webhook:")
    public_hex = api.get("/config").json()["webhookSigningPublicKey"]
    public_key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex(public_hex))
    signature = base64.b64decode(request.headers["X-Service-Signature"])
    public_key.verify(signature, request.body, ec.ECDSA(hashes.SHA256()))
    event = WebhookEvent.objects.get(platform=api.platform)
    assert event.type == "TEST" and event.status == WebhookEvent.Status.DELIVERED  # in the delivery log


def test_sandbox_test_webhook_without_endpoint(api):
    response = api.post("/sandbox/webhooks/test")
    assert response.status_code == 400
    assert response.json()["code"] == "WEBHOOK_ENDPOINT_NOT_SET"


def test_sandbox_test_webhook_non_2xx_answer_is_a_delivery_error(api, receiver):
    receiver.replies = [Reply(401, b"bad signature")]
    api.patch("/config", {"webhookEndpoint": receiver.url})
    response = api.post("/sandbox/webhooks/test")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "WEBHOOK_DELIVERY_ERROR" and body["status"] == 400
    assert body["details"] == {"url": receiver.url, "response_status": 401, "response_body": "bad signature"}
    assert len(receiver.requests) == 1  # sent once, not retried
    assert WebhookEvent.objects.get(platform=api.platform).status == WebhookEvent.Status.FAILED


def test_sandbox_test_webhook_unreachable_endpoint(api):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/hooks"
    api.patch("/config", {"webhookEndpoint": url})
    response = api.post("/sandbox/webhooks/test")
    assert response.status_code == 400
    assert response.json()["code"] == "WEBHOOK_DELIVERY_ERROR"
    assert response.json()["details"]["url"] == url
    assert "ConnectError" in response.json()["message"]


def test_sandbox_test_webhook_is_forbidden_in_production(api, receiver, settings):
    api.patch("/config", {"webhookEndpoint": receiver.url})
    settings.PRODUCTION = True
    response = api.post("/sandbox/webhooks/test")
    assert response.status_code == 403
    assert response.json()["code"] == "FORBIDDEN"
    assert receiver.requests == []


def test_sandbox_test_webhook_needs_manage_permission(receiver):
    from tests.conftest import Api
    from tests.factories import platform_with_token

    viewer = Api(*platform_with_token(permissions=["VIEW"]))
    assert viewer.post("/sandbox/webhooks/test").status_code == 403
