"""Webhook events for customer and verification state changes.

Called inside the transaction that makes the change (the outbox row commits with it). `data` is rendered
with the API's own serializers, so an event carries what a GET of the resource would show."""

from __future__ import annotations

from payments.models import Customer, CustomerStatus, Verification
from payments.webhook_types import WebhookType
from payments.webhooks import webhook_emit

_CUSTOMER_EVENTS = {
    (False, CustomerStatus.APPROVED): WebhookType.CUSTOMER_KYC_APPROVED,
    (False, CustomerStatus.REJECTED): WebhookType.CUSTOMER_KYC_REJECTED,
    (False, CustomerStatus.PENDING): WebhookType.CUSTOMER_KYC_PENDING,
    (True, CustomerStatus.APPROVED): WebhookType.CUSTOMER_KYB_APPROVED,
    (True, CustomerStatus.REJECTED): WebhookType.CUSTOMER_KYB_REJECTED,
    (True, CustomerStatus.PENDING): WebhookType.CUSTOMER_KYB_PENDING,
}


def customer_status_changed(customer: Customer) -> None:
    """UNVERIFIED and HOLD have no event type in the reference; every other status has one."""
    event = _CUSTOMER_EVENTS.get((customer.is_business, customer.status))
    if event is None:
        return
    from payments.api.customers import render_customer

    webhook_emit(platform=customer.platform, type=event, data=render_customer(customer))


def verification_status_changed(verification: Verification) -> None:
    from payments.api.verifications import VerificationSerializer

    webhook_emit(
        platform=verification.platform,
        type=WebhookType(f"VERIFICATION.{verification.status}"),
        data=dict(VerificationSerializer(verification).data),
    )
