"""List responses on the wire: `{data, hasMore, nextCursor, totalCount}`."""

from __future__ import annotations

from collections.abc import Callable

from rest_framework import serializers


def page_of(
    item: type[serializers.Serializer] | serializers.Field,
    name: str,
    *,
    paginated: bool = True,
    count_required: bool = True,
    counted: bool = True,
    required: bool = True,
) -> type[serializers.Serializer]:
    """The list response component (`{data, hasMore, nextCursor, totalCount}`) for the docs; `item` is
    the item's serializer class, or a list field (of a oneOf: `PolymorphicProxySerializer(many=True)`).
    `count_required=False` where the reference leaves `totalCount` optional, `counted=False` where it
    has none, `required=False` where it requires neither `data` nor `hasMore`. A `paginated` page's
    operation takes the page parameters (`payments.api.schema.operations` documents them)."""
    data = item(many=True, required=required) if isinstance(item, type) else item
    fields: dict[str, Callable | serializers.Field] = {"data": data}
    if paginated:
        fields.update(
            hasMore=serializers.BooleanField(required=required),
            nextCursor=serializers.CharField(required=False),
        )
        if counted:
            fields["totalCount"] = serializers.IntegerField(required=count_required and required)
    return type(name, (serializers.Serializer,), {**fields, "paginated": paginated})
