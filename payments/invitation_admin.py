"""Admin pages for invitations and customers' contact verification: read-only, as the API owns them."""

from __future__ import annotations

from django.contrib import admin

from payments.admin_base import ViewAndDeleteAdmin
from payments.models import ContactVerification, Invitation
from payments.wire.invitations import invitation_status


@admin.register(Invitation)
class InvitationAdmin(ViewAndDeleteAdmin):
    list_display = (
        "code",
        "inviter_uma",
        "shown_status",
        "invitee_uma",
        "platform",
        "created_at",
        "claimed_at",
    )
    list_filter = ("status",)
    list_select_related = ("platform",)
    search_fields = ("code", "inviter_uma", "invitee_uma", "platform__name")
    fields = (
        "code",
        "platform",
        "inviter",
        "inviter_uma",
        "first_name",
        "amount_to_send",
        "currency",
        "shown_status",
        "expires_at",
        "invitee_uma",
        "claimed_by_platform",
        "claimed_at",
        "cancelled_at",
        "created_at",
    )

    @admin.display(description="status")
    def shown_status(self, invitation: Invitation) -> str:
        return invitation_status(invitation)


@admin.register(ContactVerification)
class ContactVerificationAdmin(ViewAndDeleteAdmin):
    """What an operator needs when a customer says the code never came: where it went, when it
    lapses, and whether the channel is locked. Never the code (only its digest is kept)."""

    list_display = (
        "customer",
        "channel",
        "verified_contact",
        "verified_at",
        "failed_attempts",
        "locked_until",
    )
    list_filter = ("channel",)
    list_select_related = ("customer",)
    search_fields = ("customer__platform_customer_id", "contact", "verified_contact")
    fields = (
        "customer",
        "channel",
        "contact",
        "code_expires_at",
        "failed_attempts",
        "locked_until",
        "codes_in_window",
        "window_started_at",
        "verified_contact",
        "verified_at",
    )

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
