"""Customer contact changes that touch wallet OTP credentials (the signed retry on `PATCH /customers/{id}`).

Payments' `customer_update` asks `contact_change_guard` (through `payments.wallet_seam`) before it
changes `email` or `phone_number`. When the customer has active EMAIL_OTP credentials (for an email
change) or SMS_OTP credentials (for a phone change) on its Global Accounts, the change needs the
wallet's consent: the first PATCH answers 202, and the signed retry (stamped by an active session
of any of those wallets) updates every tied credential and the customer (the whole PATCH), in one
transaction: all or nothing. Rules of the reference:

- email and phone number in the same PATCH → 400;
- the new value already tied to another OTP credential of the platform → 409 EMAIL_OTP_EMAIL_ALREADY_EXISTS;
- the tied credentials changed between the legs → 409 EMAIL_OTP_CREDENTIAL_SET_CHANGED;
- a credential that cannot be updated → 424 EMAIL_OTP_CREDENTIAL_SYNC_FAILED (customer unchanged).

The operation applies the PATCH from the body recorded with its challenge, through payments'
`customer_update_consented`, so a settlement needs no request. With the sandbox's slow-wallet switch
the retry answers 200 PROCESSING and the change is applied when the operation settles (task,
sweep, GET /customers/{id}, GET /auth/credentials or /auth/sessions of a tied wallet, or the
identical re-send, which then answers the customer, or the operation's error, once).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import UUID

from django.db import DatabaseError, transaction

from payments import ids
from payments.customers import customer_update_consented
from payments.errors import BadRequest
from payments.models import Customer, InternalAccount, Platform
from payments.wallet_seam import ContactChangeAnswer
from wallets import signed_retry
from wallets.errors import ContactAlreadyUsed, CredentialSetChanged, CredentialSyncFailed
from wallets.models import AuthCredential, CredentialType, SignedRequest
from wallets.signed_retry import Attempt, Operation, Outcome, Processing, SignedBy

_FIELDS = {
    "email": ("email", CredentialType.EMAIL_OTP),
    "phone_number": ("phoneNumber", CredentialType.SMS_OTP),
}


def _tied(customer_id: Any, credential_type: str):
    return AuthCredential.objects.filter(
        account__customer_id=customer_id,
        account__type=InternalAccount.Type.EMBEDDED_WALLET,
        type=credential_type,
        revoked_at__isnull=True,
    ).order_by("pk")


def _in_use_check(*, platform_id: Any, customer_id: Any, credential_type: str, value: str) -> None:
    taken = (
        AuthCredential.objects.filter(
            platform_id=platform_id, type=credential_type, contact__iexact=value, revoked_at__isnull=True
        )
        .exclude(account__customer_id=customer_id)
        .exists()
    )
    if taken:
        raise ContactAlreadyUsed(f"{value} is already tied to a {credential_type} credential")


def contact_change_guard(
    *,
    customer: Customer,
    changes: Mapping[str, Any],
    body: Any,
    wallet_signature: str | None,
    request_id: str | None,
    simulate_slow: bool = False,
) -> ContactChangeAnswer | None:
    """Asked by payments' `customer_update` (through `payments.wallet_seam`), inside its transaction
    (with the customer row locked on a first leg; a retry's operation locks it after the request
    row, as a settlement does), whenever a PATCH changes `email` or `phone_number` or carries a
    signed-retry header (`changes` holds the validated changes, `body` the whole JSON body as sent,
    which a signed retry must repeat; `wallet_signature` and `request_id` are the
    `Service-Wallet-Signature` and `Request-Id` headers, or None; `simulate_slow` the sandbox's
    slow-wallet switch). It may:

    - return None (never to a request with a signed-retry header): the update goes ahead;
    - answer 202 with a signed-retry challenge `{payloadToSign, requestId, expiresAt}`: nothing is
      applied (rows the guard writes are committed);
    - answer with no body: the retry's operation applied the update (answer the customer);
    - answer 200 PROCESSING, or the error its settled operation recorded: nothing more is applied;
    - raise a ServiceError (401 wallet-signature codes, 409, 424): nothing is applied.
    """
    attempt = Attempt(
        body=body, signature=wallet_signature, request_id=request_id, simulate_slow=simulate_slow
    )
    if not attempt.first_leg:
        # The retry does what its challenge recorded, if its body is the challenged one (whatever it
        # changes now); if no credential is tied any more, the operation answers 409
        # EMAIL_OTP_CREDENTIAL_SET_CHANGED (or 401 if it names no challenge).
        result = signed_retry.retry_complete(
            platform=customer.platform,
            kind=SignedRequest.Kind.CONTACT_UPDATE,
            target=customer.public_id,
            attempt=attempt,
            record_failures=False,  # payments' transaction rolls the customer back with us
        )
        if isinstance(result, Processing):
            return ContactChangeAnswer(200, result.body())
        return ContactChangeAnswer(result.status, result.body)  # a settled error, or body None: done
    changing = [name for name in _FIELDS if name in changes and changes[name] != getattr(customer, name)]
    tied = {name: list(_tied(customer.pk, _FIELDS[name][1])) for name in changing}
    if not any(tied.values()):
        return None
    if all(name in changes for name in _FIELDS):
        raise BadRequest(
            "Change email and phoneNumber in separate requests: this customer has wallet OTP credentials"
        )
    (name,) = changing
    wire_name, credential_type = _FIELDS[name]
    value = changes[name]
    if not value:
        raise BadRequest(f"{wire_name} cannot be removed while wallet {credential_type} credentials use it")
    _in_use_check(
        platform_id=customer.platform_id,
        customer_id=customer.pk,
        credential_type=credential_type,
        value=value,
    )
    credentials = tied[name]
    challenge = signed_retry.challenge_issue(
        operation=Operation.on_customer(
            customer, kind=SignedRequest.Kind.CONTACT_UPDATE, account_ids=[c.account_id for c in credentials]
        ),
        signed_by=SignedBy.any_session(),
        body=body,
        parameters={wire_name: value, "credentialIds": [c.public_id for c in credentials]},
        params={
            "field": name,
            "value": value,
            "credentialIds": [str(c.pk) for c in credentials],
            "body": body,  # the whole update, applied with the credentials
        },
    )
    return ContactChangeAnswer(202, challenge.body())


@signed_retry.performs(SignedRequest.Kind.CONTACT_UPDATE)
def contact_update_perform(request: SignedRequest) -> Outcome:
    name, value = request.params["field"], request.params["value"]
    credential_type = _FIELDS[name][1]
    customer_id = ids.parse(Customer.ID_KIND, request.target)
    credentials = list(_tied(customer_id, credential_type).select_for_update())
    if [str(c.pk) for c in credentials] != request.params["credentialIds"]:
        raise CredentialSetChanged()
    _in_use_check(
        platform_id=request.platform_id, customer_id=customer_id, credential_type=credential_type, value=value
    )
    try:
        with transaction.atomic():
            for credential in credentials:
                credential.nickname = value
                credential.contact = value
                credential.touch()
                credential.save(update_fields=["nickname", "contact", "updated_at"])
    except DatabaseError:
        raise CredentialSyncFailed() from None
    platform = Platform.objects.get(pk=request.platform_id)
    body = request.params.get("body")
    if body is None:  # recorded before bodies were kept (an upgrade's 5-minute window): the contact alone
        customer_type = Customer.objects.values_list("customer_type", flat=True).get(pk=customer_id)
        body = {"customerType": customer_type, _FIELDS[name][0]: value}
    customer_update_consented(platform=platform, customer_id=customer_id, body=body)
    return Outcome(200)  # payments answers the customer as it then is


def contact_changes_settle_due(*, customer_id: UUID) -> None:
    """Settle the customer's due contact changes (`payments.wallet_seam`: a read of the customer)."""
    signed_retry.requests_settle_due(
        kind=SignedRequest.Kind.CONTACT_UPDATE, target=ids.render(Customer.ID_KIND, customer_id)
    )
