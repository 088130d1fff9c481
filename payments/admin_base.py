"""Bases for the operator's admin pages that show records the API owns."""

from __future__ import annotations

from django.contrib import admin


class ViewAndDeleteAdmin(admin.ModelAdmin):
    """Records the platforms create through the API: shown and deletable here, never added or edited."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def get_readonly_fields(self, request, obj=None) -> tuple[str, ...]:
        """Every field shown (its `fields`) unless the page names its own `readonly_fields`."""
        return tuple(self.readonly_fields or self.fields or ())


class ReadOnlyAdmin(ViewAndDeleteAdmin):
    """An admin page that shows and never changes."""

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


def record_fields(model: type, *, hidden: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The names of the model's fields, in their order, less `hidden` (sealed secrets): a read-only
    page's `fields` and `readonly_fields`."""
    return tuple(field.name for field in model._meta.fields if field.name not in hidden)
