"""The typed client against a live server (a platform is made here; everything else goes through the
client), plus the wire rules it must follow when the service answers PROCESSING or 429, on a mock."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import re
import secrets
import subprocess
import sys
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from celery.app.task import Task
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from payments import clock
from payments.client import (
    BadRequest,
    Conflict,
    Customer,
    Forbidden,
    Gone,
    KeySigner,
    NotFound,
    Quote,
    RateLimited,
    ReconciliationInstructions,
    Refund,
    ServiceClient,
    SignerRequired,
    StillProcessing,
    Transaction,
    Unauthorized,
    wallet_crypto,
)
from payments.client.models import from_wire
from payments.platforms import platform_create
from tests.payments.money_support import consenting_customer, funded_account, quote_body, usd_external
from tests.payments.wallet_signing import wallet

ADDRESS = {"line1": "1 Main Street", "city": "San Francisco", "postalCode": "94105", "country": "US"}
SANDBOX_OTP = "000000"


# --- fixtures --------------------------------------------------------------------------------


@pytest.fixture
def no_broker(monkeypatch):
    """Tasks queued on commit are dropped: reads apply what is due, so no worker is needed."""
    monkeypatch.setattr(Task, "apply_async", lambda self, *args, **kwargs: None)


@pytest.fixture
def credentials(live_server, no_broker) -> tuple[str, str, str]:
    _, token, secret = platform_create(name="Client test platform")
    return f"{live_server.url}/api/2025-10-13", token.client_id, secret


@pytest.fixture
def client(credentials):
    with ServiceClient(*credentials) as service:
        yield service


def individual(client: ServiceClient, n: int = 0, **fields) -> Customer:
    return client.customers.create(
        full_name=fields.pop("full_name", "Jane Smith"),
        email=fields.pop("email", f"jane{n}@example.com"),
        birth_date="1990-01-15",
        nationality="US",
        address=ADDRESS,
        platform_customer_id=f"client-test-{n}",
        **fields,
    )


def otp_login(client: ServiceClient, account_id: str) -> tuple[object, KeySigner]:
    (credential,) = client.credentials.list(account_id)
    challenged = client.credentials.challenge(credential.id)
    session, tek = client.credentials.verify_otp(
        credential.id,
        SANDBOX_OTP,
        challenged.otp_encryption_target_bundle,
        trusted_signer_public_key=client.credentials.service_keys()["otpEncryptionSignerPublicKey"],
    )
    return session, KeySigner(tek)


def stamp_of(header: str, payload: str) -> dict:
    """Decode a Service-Wallet-Signature and check it signs `payload`; returns its JSON."""
    stamp = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))
    public_key = ec.EllipticCurvePublicKey.from_encoded_point(
        ec.SECP256R1(), bytes.fromhex(stamp["publicKey"])
    )
    public_key.verify(bytes.fromhex(stamp["signature"]), payload.encode(), ec.ECDSA(hashes.SHA256()))
    return stamp


def wallet_of(client: ServiceClient, customer: Customer):
    (wallet,) = client.internal_accounts.list(customer_id=customer.id, type="EMBEDDED_WALLET").data
    return wallet


# --- the client stands alone -----------------------------------------------------------------


def test_the_client_imports_neither_django_nor_the_service():
    code = (
        "import sys, payments.client, payments.client.service_client; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('django', 'rest_framework', 'project', 'wallets', 'payments', 'celery')))"
    )
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = json.loads(output.replace("'", '"'))
    assert not [m for m in loaded if m.split(".")[0] != "payments"]
    assert all(m == "payments" or m.startswith("payments.client") for m in loaded), loaded


# --- live: platform resources ----------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_config_and_tokens(client, credentials):
    config = client.config.get()
    assert config.id.startswith("PlatformConfig:")
    assert {c["currencyCode"] for c in config.supported_currencies} >= {"USD", "EUR"}
    updated = client.config.update(webhook_endpoint="https://hooks.example.com/service")
    assert updated.webhook_endpoint == "https://hooks.example.com/service"
    assert client.config.get().webhook_endpoint == "https://hooks.example.com/service"

    token = client.tokens.create("Read only", ["VIEW"])
    assert token.client_secret and token.permissions == ["VIEW"] and token.id.startswith("Token:")
    assert "client_secret" not in repr(token)
    assert client.tokens.get(token.id).client_secret is None
    assert token.id in {t.id for t in client.tokens.iterate(limit=1)}

    base_url, _, _ = credentials
    with ServiceClient(base_url, token.client_id, token.client_secret) as reader:
        assert reader.config.get().id == config.id
        with pytest.raises(Forbidden) as refused:
            reader.tokens.create("Not allowed")
        assert refused.value.status == 403

    client.tokens.delete(token.id)
    with pytest.raises(NotFound) as gone:
        client.tokens.get(token.id)
    assert gone.value.status == 404


@pytest.mark.django_db(transaction=True)
def test_customers_crud_and_the_page_iterator(client):
    created = [individual(client, n) for n in range(5)]
    assert all(c.kyc_status == "APPROVED" and c.customer_type == "INDIVIDUAL" for c in created)
    assert isinstance(created[0].created_at, dt.datetime) and created[0].raw["id"] == created[0].id

    page = client.customers.list(limit=2)
    assert (len(page.data), page.has_more, page.total_count) == (2, True, 5)
    assert page.next_cursor
    walked = list(client.customers.iterate(limit=2))
    assert sorted(c.id for c in walked) == sorted(c.id for c in created)  # three pages, no repeats

    one = created[2]
    assert client.customers.get(one.id).email == "jane2@example.com"
    renamed = client.customers.update(one.id, customer_type="INDIVIDUAL", full_name="Jane Q. Smith")
    assert renamed.full_name == "Jane Q. Smith"
    assert [c.id for c in client.customers.list(platform_customer_id="client-test-2")] == [one.id]

    link = client.customers.kyc_link(one.id)
    assert "/onboarding/" in link.kyc_url

    client.customers.delete(one.id)
    with pytest.raises(Gone) as deleted:
        client.customers.get(one.id)
    assert (deleted.value.status, deleted.value.code) == (410, "CUSTOMER_DELETED")
    assert len(list(client.customers.iterate(limit=2))) == 4


@pytest.mark.django_db(transaction=True)
def test_errors_carry_status_code_message_and_details(client, credentials):
    with pytest.raises(BadRequest) as invalid:
        client.customers.create(
            full_name="Jane Smith", birth_date="15/01/1990", email="not an email", nationality="Narnia"
        )
    error = invalid.value
    assert (error.status, error.code) == (400, "INVALID_INPUT")
    assert error.message and error.user_message == error.message
    assert {e["field"] for e in error.field_errors} == {"birthDate", "email", "nationality"}
    assert all(e["constraint"] for e in error.field_errors)

    with pytest.raises(NotFound) as missing:
        client.customers.get("Customer:0190c0de-0000-7000-8000-000000000000")
    assert missing.value.status == 404 and missing.value.code

    base_url, client_id, _ = credentials
    with ServiceClient(base_url, client_id, "wrong secret") as wrong, pytest.raises(Unauthorized) as denied:
        wrong.config.get()
    assert (denied.value.status, denied.value.code) == (401, "UNAUTHORIZED")


# --- live: wallet flows and the signed retry -------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_email_otp_login_and_signed_changes_end_to_end(client):
    customer = individual(client, email="otp@example.com")
    wallet = wallet_of(client, customer)
    (credential,) = client.credentials.list(wallet.id)
    assert (credential.type, credential.nickname) == ("EMAIL_OTP", "otp@example.com")

    # A wrong code: the service decrypts it and says why.
    challenged = client.credentials.challenge(credential.id)
    with pytest.raises(Unauthorized) as wrong:
        client.credentials.verify_otp(credential.id, "123123", challenged.otp_encryption_target_bundle)
    assert wrong.value.reason

    session, signer = otp_login(client, wallet.id)
    assert session.id.startswith("Session:") and session.account_id == wallet.id
    assert session.expires_at > dt.datetime.now(dt.UTC)
    assert [s.id for s in client.sessions.list(wallet.id)] == [session.id]

    # A contact change the wallet must consent to: 202, stamped with the session key, retried.
    with pytest.raises(SignerRequired) as unsigned:
        client.customers.update(customer.id, customer_type="INDIVIDUAL", email="new@example.com")
    assert unsigned.value.challenge.payload_to_sign and unsigned.value.challenge.request_id
    changed = client.customers.update(
        customer.id, customer_type="INDIVIDUAL", email="new@example.com", signer=signer
    )
    assert changed.email == "new@example.com"
    assert client.credentials.list(wallet.id)[0].nickname == "new@example.com"

    # A stranger's key is refused, with the spec's code.
    with pytest.raises(Unauthorized) as stranger:
        client.internal_accounts.update_privacy(wallet.id, True, KeySigner.generate())
    assert stranger.value.code == "WALLET_SIGNATURE_INVALID"
    assert client.internal_accounts.update_privacy(wallet.id, True, signer).private_enabled is True

    # Export: sealed to our key, opened here, shown once.
    receiver = wallet_crypto.generate_key_pair()
    exported = client.internal_accounts.export(wallet.id, receiver.public_key_hex_uncompressed, signer)
    secret = wallet_crypto.export_bundle_open(
        exported.encrypted_wallet_credentials,
        receiver.private_key_hex,
        trusted_signer_public_hex=client.credentials.service_keys()["exportSignerPublicKey"],
        organization_id=wallet.id,
    )
    assert len(secret.split()) in (12, 24)

    # Refresh to a new key, then log both out.
    fresh = KeySigner.generate()
    refreshed = client.sessions.refresh(session.id, fresh.public_key_hex, signer)
    assert refreshed.id != session.id and refreshed.encrypted_session_signing_key is None
    client.sessions.revoke(refreshed.id, fresh)
    client.sessions.revoke(session.id, signer)
    assert client.sessions.list(wallet.id) == []


@pytest.mark.django_db(transaction=True)
def test_credential_create_needs_the_wallets_consent(client):
    customer = individual(client, email="sms@example.com", phone_number="+14155550123")
    wallet = wallet_of(client, customer)
    _, signer = otp_login(client, wallet.id)
    with pytest.raises(SignerRequired):
        client.credentials.create(wallet.id, "SMS_OTP")
    sms = client.credentials.create(wallet.id, "SMS_OTP", signer=signer)
    assert (sms.type, sms.nickname) == ("SMS_OTP", "+14155550123")
    with pytest.raises(BadRequest) as twice:
        client.credentials.create(wallet.id, "SMS_OTP", signer=signer)
    assert twice.value.code == "SMS_OTP_CREDENTIAL_ALREADY_EXISTS"

    # Revoking the email credential must be stamped by a session of another credential.
    email_credential = next(c for c in client.credentials.list(wallet.id) if c.type == "EMAIL_OTP")
    with pytest.raises(Unauthorized):
        client.credentials.revoke(email_credential.id, signer)
    _, sms_signer = otp_login_with(client, sms)
    client.credentials.revoke(email_credential.id, sms_signer)
    assert [c.type for c in client.credentials.list(wallet.id)] == ["SMS_OTP"]


def otp_login_with(client: ServiceClient, credential) -> tuple[object, KeySigner]:
    challenged = client.credentials.challenge(credential.id)
    session, tek = client.credentials.verify_otp(
        credential.id, SANDBOX_OTP, challenged.otp_encryption_target_bundle, credential_type=credential.type
    )
    return session, KeySigner(tek)


@pytest.mark.django_db(transaction=True)
def test_the_processing_loop_against_the_sandbox_switch(credentials, settings):
    """`Service-Sandbox-Simulate: slow-wallet` makes wallet operations answer 200 PROCESSING first; the
    client re-sends identically with backoff. Its sleep moves the service's clock instead of waiting."""
    settings.WALLET_SANDBOX_SLOW_SECONDS = 3
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock.advance(dt.timedelta(seconds=seconds))

    with (
        ServiceClient(*credentials) as plain,
        ServiceClient(*credentials, sleep=sleep, headers={"Service-Sandbox-Simulate": "slow-wallet"}) as slow,
    ):
        wallet = wallet_of(plain, individual(plain, email="slow@example.com"))
        # challenge and verify: a 200 is a result unless it says PROCESSING
        session, signer = otp_login(slow, wallet.id)
        assert session.id.startswith("Session:")
        assert slept == [0.25, 0.5, 1.0, 2.0] * 2  # exponential backoff, the challenge's then the verify's

        slept.clear()
        slow.sessions.revoke(session.id, signer)  # success is 204: any 200 means processing
        assert slept and plain.sessions.list(wallet.id) == []

        session, signer = otp_login(plain, wallet.id)
        with ServiceClient(
            *credentials,
            sleep=lambda s: None,
            max_processing_wait=1.0,
            headers={"Service-Sandbox-Simulate": "slow-wallet"},
        ) as impatient:
            with pytest.raises(StillProcessing) as waiting:
                impatient.sessions.revoke(session.id, signer)
        assert waiting.value.request_id.startswith("Request:") and waiting.value.waited >= 1.0
        clock.advance(dt.timedelta(seconds=5))
        assert plain.sessions.list(wallet.id) == []  # the service finished it by itself


# --- wire rules on a mock transport ----------------------------------------------------------


def mock_client(handler, **kwargs) -> ServiceClient:
    return ServiceClient(
        "https://service.example/api/2025-10-13",
        "id",
        "secret",
        transport=httpx.MockTransport(handler),
        **kwargs,
    )


def test_a_429_is_retried_after_retry_after():
    answers = [
        httpx.Response(429, headers={"Retry-After": "3"}, json={"status": 429, "code": "RATE_LIMITED"})
    ]
    answers.append(httpx.Response(200, json={"id": "Platform:1"}))
    slept: list[float] = []

    with mock_client(lambda request: answers.pop(0), sleep=slept.append) as service:
        assert service.config.get().id == "Platform:1"
    assert slept == [3.0]


def test_rate_limited_is_raised_when_the_retries_are_spent_or_the_wait_is_too_long():
    def limited(request):
        return httpx.Response(
            429,
            headers={"Retry-After": "2"},
            json={
                "status": 429,
                "code": "RATE_LIMITED",
                "message": "Slow down",
                "details": {"retryAfterSeconds": 2},
            },
        )

    slept: list[float] = []
    with mock_client(limited, sleep=slept.append, rate_limit_retries=2) as service:
        with pytest.raises(RateLimited) as spent:
            service.credentials.challenge("AuthMethod:1")
    assert slept == [2.0, 2.0]
    assert (spent.value.status, spent.value.code, spent.value.retry_after) == (429, "RATE_LIMITED", 2.0)

    slept.clear()
    with mock_client(limited, sleep=slept.append, max_retry_after=1) as service:
        with pytest.raises(RateLimited) as at_once:
            service.credentials.challenge("AuthMethod:1")
    assert slept == [] and at_once.value.retry_after == 2.0  # the caller shows the cool-down


def test_the_signed_retry_and_processing_resends_are_identical_requests():
    signer = KeySigner.generate()
    seen: list[httpx.Request] = []
    payload = '{"organizationId":"InternalAccount:1","requestId":"Request:9","type":"X"}'
    answers = [
        httpx.Response(
            202,
            json={"payloadToSign": payload, "requestId": "Request:9", "expiresAt": "2030-01-01T00:00:00Z"},
        ),
        httpx.Response(200, json={"status": "PROCESSING", "message": "still"}),
        httpx.Response(200, json={"status": "PROCESSING", "message": "still"}),
        httpx.Response(
            201,
            json={
                "id": "AuthMethod:2",
                "accountId": "InternalAccount:1",
                "type": "SMS_OTP",
                "nickname": "+1",
            },
        ),
    ]

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answers.pop(0)

    slept: list[float] = []
    with mock_client(handler, sleep=slept.append) as service:
        created = service.credentials.create("InternalAccount:1", "SMS_OTP", signer=signer)
    assert created.id == "AuthMethod:2"
    first, *retries = seen
    assert "Service-Wallet-Signature" not in first.headers and "Request-Id" not in first.headers
    assert len(retries) == 3 and slept == [0.25, 0.5]
    assert (
        len({(r.content, r.headers["Service-Wallet-Signature"], r.headers["Request-Id"]) for r in retries})
        == 1
    )
    assert retries[0].content == first.content
    assert retries[0].headers["Request-Id"] == "Request:9"
    assert (
        stamp_of(retries[0].headers["Service-Wallet-Signature"], payload)["publicKey"]
        == signer.public_key_hex
    )


def test_a_200_is_a_result_for_verify_unless_it_says_processing():
    answers = [
        httpx.Response(200, json={"status": "PROCESSING", "message": "still"}),
        httpx.Response(
            200,
            json={
                "id": "Session:1",
                "accountId": "InternalAccount:1",
                "type": "OAUTH",
                "nickname": "jane@example.com",
                "expiresAt": "2030-01-01T00:00:00Z",
                "encryptedSessionSigningKey": "bundle",
            },
        ),
    ]
    slept: list[float] = []
    with mock_client(lambda request: answers.pop(0), sleep=slept.append) as service:
        session = service.credentials.verify_oauth("AuthMethod:1", "a.b.c", "04" + "11" * 64)
    assert session.encrypted_session_signing_key == "bundle" and slept == [0.25]
    assert "bundle" not in repr(session)


def test_a_wallet_funded_execute_stamps_the_quotes_payload():
    payload = '{"type":"ACTIVITY_TYPE_SIGN_TRANSACTION_V2","organizationId":"InternalAccount:1"}'
    quote = {
        "id": "Quote:1",
        "status": "PENDING",
        "createdAt": "2025-10-03T12:00:00Z",
        "expiresAt": "2025-10-03T12:05:00Z",
        "source": {"sourceType": "ACCOUNT", "accountId": "InternalAccount:1"},
        "destination": {"destinationType": "ACCOUNT", "accountId": "ExternalAccount:1"},
        "sendingCurrency": {"code": "USDC", "name": "USD Coin", "symbol": "USDC", "decimals": 6},
        "receivingCurrency": {"code": "EUR", "name": "Euro", "symbol": "€", "decimals": 2},
        "totalSendingAmount": 1_000_000,
        "totalReceivingAmount": 92,
        "exchangeRate": 10869.565217,
        "feesIncluded": 0,
        "transactionId": "Transaction:1",
        "paymentInstructions": [
            {"accountOrWalletInfo": {"accountType": "EMBEDDED_WALLET", "payloadToSign": payload}}
        ],
    }
    seen: list[httpx.Request] = []

    def handler(request):
        seen.append(request)
        return httpx.Response(
            200, json={**quote, "status": "PROCESSING"} if request.method == "POST" else quote
        )

    signer = KeySigner.generate()
    with mock_client(handler) as service:
        executed = service.quotes.execute("Quote:1", signer=signer)
    assert isinstance(executed, Quote) and executed.status == "PROCESSING"
    assert str(executed.exchange_rate) == "10869.565217"
    get, post = seen
    assert (get.method, post.url.path) == ("GET", "/api/2025-10-13/quotes/Quote:1/execute")
    assert post.headers["Idempotency-Key"]
    assert stamp_of(post.headers["Service-Wallet-Signature"], payload)["publicKey"] == signer.public_key_hex


def test_an_error_without_the_service_shape_still_raises_a_service_error():
    with mock_client(lambda request: httpx.Response(409, text="<html>conflict</html>")) as service:
        with pytest.raises(Conflict) as conflict:
            service.customers.get("Customer:1")
    assert (conflict.value.status, conflict.value.code) == (409, "HTTP_409")


# --- live: OAuth login with tokens from the development OIDC provider ------------------------


def dev_oidc_id_token(site: str, email: str, nonce: str | None = None) -> str:
    """Sign in at /dev-oidc/ as a browser would, then exchange the code as the portal's backend would."""
    verifier = secrets.token_urlsafe(48)
    params = {
        "response_type": "code",
        "client_id": "portal",
        "redirect_uri": f"{site}/oauth/callback",
        "scope": "openid email",
        "state": secrets.token_urlsafe(8),
        "code_challenge": base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
        .rstrip(b"=")
        .decode(),
        "code_challenge_method": "S256",
        **({"nonce": nonce} if nonce else {}),
    }
    with httpx.Client(base_url=site) as browser:
        url = "/dev-oidc/authorize?" + urlencode(params)
        page = browser.get(url)
        csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        signed_in = browser.post(url, data={"email": email, "csrfmiddlewaretoken": csrf})
        assert signed_in.status_code == 302, signed_in.text
        (code,) = parse_qs(urlsplit(signed_in.headers["Location"]).query)["code"]
        tokens = browser.post(
            "/dev-oidc/token",
            data={
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": params["redirect_uri"],
                "code_verifier": verifier,
            },
            auth=("portal", "dev-portal-secret"),
        )
    assert tokens.status_code == 200, tokens.text
    return tokens.json()["id_token"]


@pytest.mark.django_db(transaction=True)
def test_oauth_credential_and_login_with_the_dev_provider(client, live_server):
    site = live_server.url.replace("127.0.0.1", "localhost")
    wallet = wallet_of(client, individual(client, email="oauth@example.com"))
    _, otp_signer = otp_login(client, wallet.id)

    oauth = client.credentials.create(
        wallet.id, "OAUTH", oidc_token=dev_oidc_id_token(site, "oauth@example.com"), signer=otp_signer
    )
    assert (oauth.type, oauth.nickname) == ("OAUTH", "oauth@example.com")

    # Legacy flow (uncompressed key): the session key comes sealed to it.
    key = KeySigner.generate()
    token = dev_oidc_id_token(site, "oauth@example.com", nonce=sha256_hex(key.public_key_hex_uncompressed))
    session = client.credentials.verify_oauth(oauth.id, token, key.public_key_hex_uncompressed)
    session_key = wallet_crypto.credential_bundle_open(
        session.encrypted_session_signing_key, key.private_key_hex
    )
    sealed_signer = KeySigner(session_key.hex())

    # Client-held key (compressed): no bundle; our own key is the session key.
    held = KeySigner.generate()
    token = dev_oidc_id_token(site, "oauth@example.com", nonce=sha256_hex(held.public_key_hex))
    held_session = client.credentials.verify_oauth(oauth.id, token, held.public_key_hex)
    assert held_session.encrypted_session_signing_key is None

    # Either OAuth session may remove the email credential (a different credential's session).
    email = next(c for c in client.credentials.list(wallet.id) if c.type == "EMAIL_OTP")
    client.credentials.revoke(email.id, sealed_signer)
    assert [c.type for c in client.credentials.list(wallet.id)] == ["OAUTH"]
    client.sessions.revoke(held_session.id, held)
    assert [s.id for s in client.sessions.list(wallet.id)] == [session.id]


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_ownership_verification_of_a_self_custody_wallet(client):
    customer = individual(client, 41)
    signer = wallet("SOLANA")
    account = client.external_accounts.create(
        currency=signer.currency,
        account_info=signer.account_info(),
        customer_id=customer.id,
        ownership_type="FIRST_PARTY",
    )
    assert account.status == "PENDING_OWNERSHIP_VERIFICATION"
    issued = client.external_accounts.ownership_challenge(account.id)
    assert issued.method == "WALLET_SIGNATURE" and issued.expires_at > dt.datetime.now(dt.UTC)
    verified = client.external_accounts.verify_ownership(account.id, signer.sign(issued.message_to_sign))
    assert verified.status == "ACTIVE"
    with pytest.raises(Conflict):
        client.external_accounts.ownership_challenge(account.id, "LIVENESS")


# --- transactions as the service renders them --------------------------------------------------


@pytest.mark.django_db
def test_a_transaction_parses_its_refund_reconciliation_and_counterparty(api):
    customer, _ = consenting_customer(api.platform)
    source = funded_account(customer, 100_000)
    payee = usd_external(api.platform, customer, account_number="1234567010")  # refund pending 5 minutes
    quote = api.post("/quotes", quote_body(source.public_id, payee.public_id, 1_000)).json()
    api.post(f"/quotes/{quote['id']}/execute")
    txn = from_wire(Transaction, api.get(f"/transactions/{quote['transactionId']}").json())
    assert isinstance(txn.refund, Refund) and txn.refund.status == "PENDING" and txn.refund.settled_at is None
    assert txn.refund.reference.startswith("RF-") and txn.refund.initiated_at.tzinfo is not None
    assert isinstance(txn.reconciliation_instructions, ReconciliationInstructions)
    assert txn.refund.reference == "RF-" + txn.reconciliation_instructions.reference
    clock.advance(dt.timedelta(minutes=6))
    settled = from_wire(Transaction, api.get(f"/transactions/{quote['transactionId']}").json())
    assert settled.refund.status == "COMPLETED" and settled.refund.settled_at > settled.refund.initiated_at

    entries = api.get("/config").json()["supportedCurrencies"]
    entries = [
        {**e, "requiredCounterpartyFields": [{"name": "FULL_NAME", "mandatory": True}]}
        if e["currencyCode"] == "USD"
        else e
        for e in entries
    ]
    api.patch("/config", {"supportedCurrencies": entries})
    body = quote_body(source.public_id, "", 1_000)
    body["destination"] = {"destinationType": "UMA_ADDRESS", "umaAddress": "$success.usd@sandbox.uma.example"}
    uma = api.post("/quotes", body).json()
    api.post(f"/quotes/{uma['id']}/execute")
    paid = from_wire(Transaction, api.get(f"/transactions/{uma['transactionId']}").json())
    assert paid.counterparty_information == {"FULL_NAME": "Sam Sandbox"}
    assert paid.reconciliation_instructions.transaction_hash
    assert from_wire(Quote, uma).counterparty_information == {"FULL_NAME": "Sam Sandbox"}


def test_the_client_verifies_a_customers_email_and_phone(client: ServiceClient):
    paris = {"line1": "1 Rue de Rivoli", "city": "Paris", "postalCode": "75001", "country": "FR"}
    customer = client.customers.create(
        full_name="Anne Martin",
        email="anne@example.fr",
        phone_number="+33612345678",
        birth_date="1990-01-15",
        nationality="FR",
        address=paris,
        platform_customer_id="client-test-eu",
    )
    assert customer.contact_verification == {"email": "PENDING", "phone": "PENDING"}
    for channel in ("email", "phone"):
        client.customers.send_verification_code(customer.id, channel)
        customer = client.customers.confirm_verification(customer.id, channel, "123456")
    assert customer.contact_verification == {"email": "VERIFIED", "phone": "VERIFIED"}
