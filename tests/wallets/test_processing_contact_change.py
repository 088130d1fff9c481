"""The slow-wallet switch on PATCH /customers/{id}'s contact change: the signed retry answers 200
PROCESSING, the customer and its credentials change together when the operation settles (task,
sweep, a read of the customer or of a tied wallet, or the identical re-send), and the re-send
answers the customer the fast path answers, once."""

from __future__ import annotations

import datetime as dt

import pytest

from payments import clock
from payments.client import wallet_crypto as client
from payments.models import Customer
from tests.wallets.conftest import Wallet, wallet_for
from wallets.models import AuthCredential, SignedRequest
from wallets.tasks import wallet_operation_settle_task, wallet_operations_settle_due_task

pytestmark = pytest.mark.django_db

SLOW = {"HTTP_SERVICE_SANDBOX_SIMULATE": "slow-wallet"}
DUE = dt.timedelta(seconds=6)  # WALLET_SANDBOX_SLOW_SECONDS is 5
BODY = {"customerType": "INDIVIDUAL", "email": "new@example.com", "fullName": "Jane Q. Doe"}


def _path(wallet: Wallet) -> str:
    return f"/customers/{wallet.customer.public_id}"


def _signed_headers(wallet: Wallet, body: dict) -> dict:
    """Both legs' headers: the 202 challenge of `body`, stamped by a session of the wallet."""
    tek, _ = wallet.otp_login()
    challenge = wallet.api.patch(_path(wallet), body)
    assert challenge.status_code == 202, challenge.content
    return {
        "HTTP_SERVICE_WALLET_SIGNATURE": client.stamp(challenge.json()["payloadToSign"], tek.private_key_hex),
        "HTTP_REQUEST_ID": challenge.json()["requestId"],
    }


def _customer(wallet: Wallet) -> Customer:
    return Customer.objects.get(pk=wallet.customer.pk)


def _email_credential(wallet: Wallet) -> AuthCredential:
    return AuthCredential.objects.get(account=wallet.account, type="EMAIL_OTP", revoked_at__isnull=True)


def _unchanged(wallet: Wallet) -> bool:
    customer = _customer(wallet)
    return (
        customer.email == wallet.customer.email
        and customer.full_name == wallet.customer.full_name
        and _email_credential(wallet).contact == wallet.customer.email
    )


def test_the_retry_processes_then_the_re_send_answers_the_updated_customer(api):
    fast_wallet, slow_wallet = wallet_for(api), wallet_for(api)
    fast = fast_wallet.api.patch(_path(fast_wallet), BODY, **_signed_headers(fast_wallet, BODY))
    assert fast.status_code == 200, fast.content
    body = {**BODY, "email": "slow@example.com"}  # an email is tied to one customer's wallets at a time
    headers = _signed_headers(slow_wallet, body)

    first = api.patch(_path(slow_wallet), body, **headers, **SLOW)
    assert first.status_code == 200, first.content
    assert first.json()["status"] == "PROCESSING" and first.json()["message"]
    assert _unchanged(slow_wallet)
    clock.advance(dt.timedelta(seconds=2))
    again = api.patch(_path(slow_wallet), body, **headers)
    assert (again.status_code, again.json()["status"]) == (200, "PROCESSING")
    assert _unchanged(slow_wallet)

    clock.advance(dt.timedelta(seconds=4))
    done = api.patch(_path(slow_wallet), body, **headers)
    assert done.status_code == 200, done.content
    assert done.json()["email"] == "slow@example.com" and done.json()["fullName"] == "Jane Q. Doe"
    # The same answer the fast path gives: the customer, every field shaped alike.
    assert set(done.json()) == set(fast.json())
    credential = _email_credential(slow_wallet)
    assert credential.nickname == credential.contact == "slow@example.com"
    # Delivered: the Request-Id is spent.
    spent = api.patch(_path(slow_wallet), body, **headers)
    assert (spent.status_code, spent.json()["code"]) == (401, "UNAUTHORIZED")


def test_without_the_switch_the_retry_answers_at_once(wallet: Wallet):
    headers = _signed_headers(wallet, BODY)
    response = wallet.api.patch(_path(wallet), BODY, **headers)
    assert response.status_code == 200 and response.json()["email"] == "new@example.com"
    assert _customer(wallet).full_name == "Jane Q. Doe"
    request = SignedRequest.objects.get(kind="CONTACT_UPDATE")
    assert (request.status, request.settle_at) == ("COMPLETED", None)


def test_a_read_of_the_customer_settles_it(wallet: Wallet):
    headers = _signed_headers(wallet, BODY)
    assert wallet.api.patch(_path(wallet), BODY, **headers, **SLOW).json()["status"] == "PROCESSING"
    assert wallet.api.get(_path(wallet)).json()["email"] == wallet.customer.email  # not due yet
    clock.advance(DUE)
    shown = wallet.api.get(_path(wallet)).json()  # no worker needed
    assert shown["email"] == "new@example.com" and shown["fullName"] == "Jane Q. Doe"
    assert _email_credential(wallet).contact == "new@example.com"
    done = wallet.api.patch(_path(wallet), BODY, **headers)
    assert done.status_code == 200 and done.json()["email"] == "new@example.com"


def test_a_read_of_a_tied_wallets_credentials_settles_it(wallet: Wallet):
    headers = _signed_headers(wallet, BODY)
    wallet.api.patch(_path(wallet), BODY, **headers, **SLOW)
    clock.advance(DUE)
    assert {c["nickname"] for c in wallet.credentials() if c["type"] == "EMAIL_OTP"} == {"new@example.com"}
    assert _customer(wallet).email == "new@example.com"


def test_the_task_and_the_sweep_settle_it(api):
    wallet, other = wallet_for(api), wallet_for(api)
    headers = _signed_headers(wallet, BODY)
    api.patch(_path(wallet), BODY, **headers, **SLOW)
    request = SignedRequest.objects.get(kind="CONTACT_UPDATE", status="PROCESSING")
    wallet_operation_settle_task.apply(args=[str(request.pk)])
    assert _unchanged(wallet)  # not due: the task leaves it
    clock.advance(DUE)
    wallet_operation_settle_task.apply(args=[str(request.pk)])
    assert _customer(wallet).email == "new@example.com"

    body = {**BODY, "email": "other@example.com"}
    other_headers = _signed_headers(other, body)
    api.patch(_path(other), body, **other_headers, **SLOW)
    clock.advance(DUE)
    assert wallet_operations_settle_due_task.apply().get() == 1
    assert _customer(other).email == "other@example.com"


def test_a_failure_while_processing_is_the_re_sends_answer(api):
    wallet, other = wallet_for(api), wallet_for(api)
    headers = _signed_headers(wallet, BODY)
    assert api.patch(_path(wallet), BODY, **headers, **SLOW).json()["status"] == "PROCESSING"
    # Meanwhile another customer's wallet takes the address.
    taken = {"customerType": "INDIVIDUAL", "email": "new@example.com"}
    assert api.patch(_path(other), taken, **_signed_headers(other, taken)).status_code == 200
    clock.advance(DUE)
    response = api.patch(_path(wallet), BODY, **headers)
    assert (response.status_code, response.json()["code"]) == (409, "EMAIL_OTP_EMAIL_ALREADY_EXISTS")
    assert _unchanged(wallet)  # all or nothing: not even fullName
    assert api.patch(_path(wallet), BODY, **headers).status_code == 401  # delivered: spent


def test_the_switch_is_sandbox_only_on_the_patch(wallet: Wallet, settings):
    headers = _signed_headers(wallet, BODY)
    settings.SANDBOX, settings.PRODUCTION = False, True
    response = wallet.api.patch(_path(wallet), BODY, **headers, **SLOW)
    assert response.status_code == 200 and response.json()["email"] == "new@example.com"
