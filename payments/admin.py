import json

from django.contrib import admin, messages
from django.utils.html import format_html

# admin_review holds the customer review (queue, documents, approve/reject); importing it registers it.
# money_admin holds the read-only transaction and ledger pages; importing it registers them.
# sca_admin holds the read-only Strong Customer Authentication pages.
# card_admin holds the card and card-transaction pages (staff may freeze a card).
# invitation_admin holds the read-only invitation and contact-verification pages.
# stablecoin_admin holds the read-only stablecoin issuance pages.
# agent_admin holds the read-only agent and agent-action pages.
from payments import (
    admin_review,  # noqa: F401
    agent_admin,  # noqa: F401
    card_admin,  # noqa: F401
    invitation_admin,  # noqa: F401
    money_admin,  # noqa: F401
    sca_admin,  # noqa: F401
    stablecoin_admin,  # noqa: F401
)
from payments.accounts import account_balance, internal_account_status_transition
from payments.admin_base import ReadOnlyInline, ViewAndDeleteAdmin
from payments.errors import ServiceError
from payments.models import (
    ApiToken,
    BulkUploadJob,
    BulkUploadRow,
    ExternalAccount,
    ExternalAccountStatusChange,
    InternalAccount,
    Platform,
    WebhookAttempt,
    WebhookEvent,
)
from payments.webhooks import webhook_redeliver


class ApiTokenInline(admin.TabularInline):
    model = ApiToken
    extra = 0
    fields = ("name", "client_id", "permissions", "created_at")
    readonly_fields = ("client_id", "created_at")
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False  # tokens are created through the API so the secret is shown once to its owner


@admin.register(Platform)
class PlatformAdmin(admin.ModelAdmin):
    list_display = ("name", "uma_domain", "webhook_endpoint", "created_at")
    search_fields = ("name", "uma_domain")
    readonly_fields = ("id", "created_at", "updated_at")
    inlines = [ApiTokenInline]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "platform", "client_id", "created_at")
    search_fields = ("name", "client_id")
    readonly_fields = ("id", "platform", "client_id", "secret_digest", "created_at", "updated_at")
    exclude = ()

    def has_add_permission(self, request) -> bool:
        return False


class WebhookAttemptInline(admin.TabularInline):
    model = WebhookAttempt
    extra = 0
    fields = ("started_at", "url", "status_code", "latency_ms", "error", "response_body")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(WebhookEvent)
class WebhookEventAdmin(ViewAndDeleteAdmin):
    """The delivery log: events are read-only here (a save could overwrite a worker's outcome); the
    redeliver action sends them again with the same id."""

    list_display = ("public_id", "type", "platform", "status", "attempts", "created_at", "delivered_at")
    list_filter = ("status", "type")
    list_select_related = ("platform",)
    search_fields = ("type", "platform__name")
    fields = (
        "public_id",
        "platform",
        "type",
        "status",
        "attempts",
        "next_attempt_at",
        "last_error",
        "created_at",
        "delivered_at",
        "payload_pretty",
    )
    readonly_fields = fields
    inlines = [WebhookAttemptInline]
    actions = ["redeliver"]

    def has_redeliver_permission(self, request) -> bool:
        return request.user.has_perm("payments.change_webhookevent")

    @admin.display(description="payload")
    def payload_pretty(self, obj: WebhookEvent) -> str:
        return format_html("<pre>{}</pre>", obj.pretty_payload())

    @admin.action(description="Redeliver selected events (same event ids)", permissions=["redeliver"])
    def redeliver(self, request, queryset) -> None:
        count = webhook_redeliver(event_ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"{count} webhook event(s) queued for redelivery.", messages.SUCCESS)


class ExternalAccountStatusChangeInline(ReadOnlyInline):
    model = ExternalAccountStatusChange
    fields = ("created_at", "from_status", "to_status", "reason")
    readonly_fields = fields


@admin.register(ExternalAccount)
class ExternalAccountAdmin(ViewAndDeleteAdmin):
    """Read-only: accounts are created through the API and change status only through
    `payments.external_accounts.external_account_status_transition`."""

    list_display = (
        "public_id",
        "account_type",
        "currency",
        "status",
        "beneficiary_verification_status",
        "customer",
        "platform",
        "created_at",
        "deleted_at",
    )
    list_filter = ("status", "beneficiary_verification_status", "account_type", "currency")
    list_select_related = ("customer", "platform")
    search_fields = (
        "platform_account_id",
        "customer__platform_customer_id",
        "customer__full_name",
        "customer__email",
        "platform__name",
    )
    fields = (
        "public_id",
        "platform",
        "customer",
        "account_type",
        "currency",
        "status",
        "ownership_type",
        "platform_account_id",
        "default_uma_deposit_account",
        "beneficiary_verification_status",
        "beneficiary_verified_name",
        "account_info_pretty",
        "created_at",
        "updated_at",
        "deleted_at",
    )
    readonly_fields = fields
    inlines = [ExternalAccountStatusChangeInline]

    @admin.display(description="account info")
    def account_info_pretty(self, obj: ExternalAccount) -> str:
        return format_html("<pre>{}</pre>", json.dumps(obj.account_info, indent=2, ensure_ascii=False))


@admin.register(InternalAccount)
class InternalAccountAdmin(ViewAndDeleteAdmin):
    """Read-only but for its status: an operator freezes an account (compliance or fraud signals) and
    unfreezes it, through `payments.accounts.internal_account_status_transition` (needs the "Can
    change internal account" permission). Accounts are provisioned by the service, never deleted."""

    list_display = ("public_id", "type", "currency", "status", "customer", "platform", "created_at")
    list_filter = ("status", "type", "currency")
    list_select_related = ("customer", "platform")
    search_fields = ("customer__platform_customer_id", "customer__full_name", "platform__name")
    fields = (
        "public_id",
        "platform",
        "customer",
        "type",
        "currency",
        "status",
        "balance",
        "created_at",
        "updated_at",
    )
    readonly_fields = fields
    actions = ("freeze_selected", "unfreeze_selected")

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # the ledger holds its postings

    def has_freeze_permission(self, request) -> bool:
        return request.user.has_perm("payments.change_internalaccount")

    @admin.display(description="balance")
    def balance(self, account: InternalAccount) -> str:
        return f"{account_balance(account)} {account.currency} (smallest unit)"

    def _move(self, request, queryset, to: str, done: str) -> None:
        moved = 0
        for account in queryset.order_by("pk"):
            try:
                internal_account_status_transition(account, to)
            except ServiceError as exc:
                self.message_user(request, f"{account.public_id}: {exc.message}", messages.ERROR)
            else:
                moved += 1
        if moved:
            self.message_user(
                request, f"{moved} {'account' if moved == 1 else 'accounts'} {done}.", messages.SUCCESS
            )

    @admin.action(description="Freeze selected accounts", permissions=["freeze"])
    def freeze_selected(self, request, queryset) -> None:
        self._move(request, queryset, InternalAccount.Status.FROZEN, "frozen")

    @admin.action(description="Unfreeze selected accounts", permissions=["freeze"])
    def unfreeze_selected(self, request, queryset) -> None:
        self._move(request, queryset, InternalAccount.Status.ACTIVE, "unfrozen")


class FailedBulkUploadRowInline(ReadOnlyInline):
    """Only the failed rows: a file holds up to 10,000, and the failures are what staff look at."""

    model = BulkUploadRow
    verbose_name_plural = "failed rows"
    fields = ("row_number", "data", "error")
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).filter(status=BulkUploadRow.Status.FAILED)


# A job's identity and progress: the list's columns and the head of its page.
_BULK_JOB_PROGRESS = (
    "public_id",
    "platform",
    "status",
    "file_name",
    "total",
    "processed",
    "successful",
    "failed",
)


@admin.register(BulkUploadJob)
class BulkUploadJobAdmin(ViewAndDeleteAdmin):
    list_display = (*_BULK_JOB_PROGRESS, "created_at", "completed_at")
    list_filter = ("status",)
    list_select_related = ("platform",)
    search_fields = ("file_name", "platform__name")
    fields = (*_BULK_JOB_PROGRESS, "failure_reason", "created_at", "updated_at", "completed_at")
    readonly_fields = fields
    inlines = [FailedBulkUploadRowInline]
