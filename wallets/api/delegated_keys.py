from __future__ import annotations

from uuid import UUID

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments.api.parsing import ApiSerializer, parse_id_field, parse_query
from payments.wire.signed_requests import SignedRequestChallengeSerializer
from wallets.api.common import (
    created_responses,
    operation,
    render,
    signed_operation,
    signed_request_parsed,
)
from wallets.delegated_keys import (
    FUNDING_SOURCE_KIND,
    delegated_key_create,
    delegated_key_get,
    delegated_key_list,
    delegated_key_revoke,
)
from wallets.wire import DelegatedKeySerializer, delegated_key_rendered


class DelegatedKeyCreateSerializer(ApiSerializer):
    cardId = serializers.CharField()
    internalAccountId = serializers.CharField()
    nickname = serializers.CharField(min_length=1, max_length=256)


class DelegatedKeyListQuerySerializer(serializers.Serializer):
    accountId = serializers.CharField(required=False)
    fundingSourceId = serializers.CharField(required=False)


class DelegatedKeyListResponseSerializer(serializers.Serializer):
    data = DelegatedKeySerializer(many=True)


class DelegatedKeyChallengeSerializer(SignedRequestChallengeSerializer):
    class Meta:
        ref_name = "DelegatedKeySignedRequestChallenge"


class DelegatedKeyListCreateApi(APIView):
    @operation(
        "listDelegatedKeys",
        parameters=[DelegatedKeyListQuerySerializer],
        responses=DelegatedKeyListResponseSerializer,
    )
    def get(self, request: Request) -> Response:
        keys = delegated_key_list(platform=request.auth.platform, **_list_filters(request))
        return Response({"data": [delegated_key_rendered(key) for key in keys]})

    @signed_operation(
        "createDelegatedKey",
        request=DelegatedKeyCreateSerializer,
        responses=created_responses(DelegatedKeySerializer, DelegatedKeyChallengeSerializer),
    )
    def post(self, request: Request) -> Response:
        attempt, data = signed_request_parsed(request, DelegatedKeyCreateSerializer)
        if data is not None:
            data = {
                "cardId": parse_id_field("Card", data["cardId"], "cardId"),
                "internalAccountId": parse_id_field(
                    "InternalAccount", data["internalAccountId"], "internalAccountId"
                ),
                "nickname": data["nickname"],
            }
        return render(delegated_key_create(platform=request.auth.platform, data=data, attempt=attempt))


def _list_filters(request: Request) -> dict[str, UUID | None]:
    """`accountId` and `fundingSourceId` as ids (None when absent; a malformed one is 400)."""
    query = parse_query(DelegatedKeyListQuerySerializer, request.query_params)
    fields = {
        "accountId": ("account_id", "InternalAccount"),
        "fundingSourceId": ("funding_source_id", FUNDING_SOURCE_KIND),
    }
    return {
        name: parse_id_field(kind, query[field], field) if query.get(field) else None
        for field, (name, kind) in fields.items()
    }


class DelegatedKeyDetailApi(APIView):
    @operation("getDelegatedKeyById", responses=DelegatedKeySerializer)
    def get(self, request: Request, id: str) -> Response:
        return Response(delegated_key_rendered(delegated_key_get(platform=request.auth.platform, key_id=id)))

    @operation("revokeDelegatedKey", responses={204: None})
    def delete(self, request: Request, id: str) -> Response:
        delegated_key_revoke(platform=request.auth.platform, key_id=id)
        return Response(status=204)
