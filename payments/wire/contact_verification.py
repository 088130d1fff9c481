"""`contactVerification` of a customer: each channel its provider requires, PENDING or VERIFIED
(`payments.contact_verification` has the rules)."""

from __future__ import annotations

from payments.eea import customer_in_eea
from payments.models import ContactVerification, Customer

_CHANNELS = {ContactVerification.Channel.EMAIL: "email", ContactVerification.Channel.PHONE: "phone"}


def contact_of(customer: Customer, channel: str) -> str:
    return customer.email if channel == ContactVerification.Channel.EMAIL else customer.phone_number


def render_contact_verification(customer: Customer) -> dict[str, str] | None:
    """None when the customer's provider requires no contact verification (outside the EU/EEA)."""
    if not customer_in_eea(customer):
        return None
    proved = dict(
        ContactVerification.objects.filter(customer_id=customer.pk).values_list("channel", "verified_contact")
    )
    return {
        name: "VERIFIED"
        if proved.get(channel) and proved[channel] == contact_of(customer, channel)
        else "PENDING"
        for channel, name in _CHANNELS.items()
    }
