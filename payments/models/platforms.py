from __future__ import annotations

import datetime as dt

from django.db import models

from payments.models.base import PlatformScoped, PublicRecord


class Platform(PublicRecord):
    """An API client of the service and its configuration (`/config`)."""

    ID_KIND = "PlatformConfig"

    name = models.CharField(max_length=200)
    uma_domain = models.CharField(max_length=253, blank=True)
    proxy_uma_subdomain = models.CharField(max_length=63, blank=True)
    webhook_endpoint = models.CharField(max_length=2048, blank=True)
    supported_currencies = models.JSONField(default=list, blank=True)
    is_regulated_financial_institution = models.BooleanField(default=False)
    embedded_wallet_config = models.JSONField(null=True, blank=True)
    card_tokenization_2fa_config = models.JSONField(null=True, blank=True)
    # Active platform fees in the wire shape (FeeConfig), at most one per (feeType, sourceCurrency);
    # kept on the row so an authenticated read of the configuration is a single query.
    fee_configs = models.JSONField(default=list, blank=True)
    # Money limits in US cents (other currencies at the sandbox mid rate); empty: the settings default
    # (TRANSACTION_SIZE_LIMIT_USD_CENTS, DAILY_VOLUME_LIMIT_USD_CENTS). See payments/limits.py.
    transaction_size_limit = models.BigIntegerField(
        null=True, blank=True, help_text="US cents per transaction; empty: the service default"
    )
    daily_volume_limit = models.BigIntegerField(
        null=True, blank=True, help_text="US cents per customer per UTC day; empty: the service default"
    )
    # Set when it issues its first card (never cleared): until then it has no card transactions, and
    # GET /transactions, read on every page, leaves their query out.
    has_cards = models.BooleanField(default=False, editable=False)
    # How far its sandbox clock runs ahead of real time (payments/sandbox_clock.py); never negative.
    sandbox_clock_offset = models.DurationField(default=dt.timedelta(0), editable=False)

    def __str__(self) -> str:
        return self.name


class ApiToken(PlatformScoped):
    ID_KIND = "Token"

    Permission = models.TextChoices("Permission", "VIEW TRANSACT MANAGE")

    name = models.CharField(max_length=200)
    permissions = models.JSONField(default=list)
    client_id = models.CharField(max_length=32, unique=True)
    # HMAC-SHA256 of the secret under a server key; the secret itself is never stored.
    secret_digest = models.CharField(max_length=64)

    def __str__(self) -> str:
        return f"{self.name} ({self.client_id})"

    def has_permission(self, permission: str) -> bool:
        return permission in self.permissions
