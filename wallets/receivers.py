"""How wallets hears about payments' events without payments importing wallets."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_save
from django.dispatch import receiver

from payments.customers import contact_change_requested
from payments.models import InternalAccount
from wallets.contact import contact_change_guard
from wallets.credentials import wallet_bootstrap


@receiver(post_save, sender=InternalAccount, dispatch_uid="wallets.account_created")
def account_created(
    sender: type, instance: InternalAccount, created: bool, raw: bool = False, **kwargs: Any
) -> None:
    """A Global Account (EMBEDDED_WALLET) starts with its wallet and an EMAIL_OTP credential."""
    if created and not raw and instance.is_embedded_wallet:
        wallet_bootstrap(instance)


@receiver(contact_change_requested, dispatch_uid="wallets.contact_change")
def contact_change(sender: type, **kwargs: Any) -> dict[str, Any] | None:
    return contact_change_guard(
        customer=kwargs["customer"],
        changes=kwargs["changes"],
        body=kwargs["body"],
        wallet_signature=kwargs["wallet_signature"],
        request_id=kwargs["request_id"],
    )
