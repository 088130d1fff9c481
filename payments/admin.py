from django.contrib import admin

from payments.models import ApiToken, Platform


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
