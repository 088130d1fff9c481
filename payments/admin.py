from django.contrib import admin, messages
from django.utils.html import format_html

# admin_review holds the customer review (queue, documents, approve/reject); importing it registers it.
from payments import admin_review  # noqa: F401
from payments.models import ApiToken, Platform, WebhookAttempt, WebhookEvent
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
class WebhookEventAdmin(admin.ModelAdmin):
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

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_redeliver_permission(self, request) -> bool:
        return request.user.has_perm("payments.change_webhookevent")

    @admin.display(description="payload")
    def payload_pretty(self, obj: WebhookEvent) -> str:
        return format_html("<pre>{}</pre>", obj.pretty_payload())

    @admin.action(description="Redeliver selected events (same event ids)", permissions=["redeliver"])
    def redeliver(self, request, queryset) -> None:
        count = webhook_redeliver(event_ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"{count} webhook event(s) queued for redelivery.", messages.SUCCESS)
