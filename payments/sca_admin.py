"""The operator's read-only view of Strong Customer Authentication: each customer's profile (failed
attempts, lock-out, login session), enrolled passkeys and challenges. Nothing secret is shown (a
challenge's code is kept only as an HMAC, and that is left out)."""

from __future__ import annotations

from django.contrib import admin

from payments.models import ScaChallenge, ScaPasskey, ScaProfile
from payments.money_admin import ReadOnlyAdmin


@admin.register(ScaProfile)
class ScaProfileAdmin(ReadOnlyAdmin):
    list_display = ("customer", "failed_attempts", "locked_until", "session_factor", "session_expires_at")
    search_fields = ("customer__email", "customer__platform_customer_id")
    fields = (
        "customer",
        "failed_attempts",
        "locked_until",
        "session_factor",
        "session_started_at",
        "session_expires_at",
        "session_ip_address",
    )


@admin.register(ScaPasskey)
class ScaPasskeyAdmin(ReadOnlyAdmin):
    list_display = ("customer", "name", "credential_id", "last_used_at", "created_at")
    search_fields = ("customer__email", "customer__platform_customer_id", "credential_id")
    fields = (
        "customer",
        "name",
        "credential_id",
        "aaguid",
        "transports",
        "sign_count",
        "last_used_at",
        "created_at",
    )


# What a challenge is for and where it stands: the list's columns and the head of its page.
_CHALLENGE_SUMMARY = ("customer", "kind", "factor", "status", "quote", "step", "purpose", "expires_at")


@admin.register(ScaChallenge)
class ScaChallengeAdmin(ReadOnlyAdmin):
    list_display = ("public_id", *_CHALLENGE_SUMMARY)
    list_filter = ("kind", "factor", "status")
    search_fields = ("customer__email", "customer__platform_customer_id")
    fields = (
        *_CHALLENGE_SUMMARY,
        "codes_sent",
        "last_sent_at",
        "verified_at",
        "created_at",
    )
