"""How wallets hears that payments inserted a Global Account."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_save
from django.dispatch import receiver

from payments.models import InternalAccount
from wallets.credentials import wallet_bootstrap


@receiver(post_save, sender=InternalAccount, dispatch_uid="wallets.account_created")
def account_created(
    sender: type, instance: InternalAccount, created: bool, raw: bool = False, **kwargs: Any
) -> None:
    """A Global Account (EMBEDDED_WALLET) starts with its wallet and an EMAIL_OTP credential."""
    if created and not raw and instance.is_embedded_wallet:
        wallet_bootstrap(instance)
