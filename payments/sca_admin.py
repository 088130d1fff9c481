"""The operator's view of Strong Customer Authentication: each customer's profile (failed attempts,
lock-out, login session), enrolled passkeys and TOTP factors, challenges, and factor resets, where
staff record a liveness check's outcome (production: no liveness provider is connected). Nothing
secret is shown (codes, TOTP secrets and recovery codes are kept sealed or as digests, and left out)."""

from __future__ import annotations

from django.contrib import admin, messages

from payments.admin_base import ReadOnlyAdmin
from payments.errors import ServiceError
from payments.models import ScaChallenge, ScaFactorReset, ScaPasskey, ScaProfile, ScaTotp
from payments.sca.resets import sca_factor_reset_review


@admin.register(ScaProfile)
class ScaProfileAdmin(ReadOnlyAdmin):
    list_display = (
        "customer",
        "failed_attempts",
        "locked_until",
        "suspended",
        "session_factor",
        "session_expires_at",
    )
    search_fields = ("customer__email", "customer__platform_customer_id")
    fields = (
        "customer",
        "failed_attempts",
        "locked_until",
        "suspended",
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


@admin.register(ScaTotp)
class ScaTotpAdmin(ReadOnlyAdmin):
    list_display = ("customer", "name", "last_used_at", "created_at")
    search_fields = ("customer__email", "customer__platform_customer_id")
    fields = ("customer", "name", "last_used_at", "created_at")


@admin.register(ScaFactorReset)
class ScaFactorResetAdmin(ReadOnlyAdmin):
    list_display = ("public_id", "customer", "factor", "status", "expires_at", "decided_at", "completed_at")
    list_filter = ("factor", "status")
    search_fields = ("customer__email", "customer__platform_customer_id")
    fields = list_display[1:]
    actions = ("liveness_passed", "liveness_rejected")

    def has_review_permission(self, request) -> bool:
        return request.user.has_perm("payments.change_scafactorreset")

    def _review(self, request, queryset, *, passed: bool) -> None:
        for reset in queryset:
            try:
                reviewed = sca_factor_reset_review(reset=reset, passed=passed)
            except ServiceError as exc:
                self.message_user(request, f"{reset.public_id}: {exc.message}", messages.ERROR)
            else:
                self.message_user(request, f"{reset.public_id}: {reviewed.status}", messages.SUCCESS)

    @admin.action(description="The liveness check passed", permissions=["review"])
    def liveness_passed(self, request, queryset) -> None:
        self._review(request, queryset, passed=True)

    @admin.action(description="The liveness check failed", permissions=["review"])
    def liveness_rejected(self, request, queryset) -> None:
        self._review(request, queryset, passed=False)
