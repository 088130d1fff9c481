from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.api.pagination import paginate
from payments.api.parsing import CHANGED_BETWEEN, ApiSerializer, ChangedBetweenQuery
from payments.api.schema import operations
from payments.models import ApiToken
from payments.platforms import token_create, token_delete, token_get, token_list
from payments.wire.ids import PublicIdField
from payments.wire.pages import page_of
from payments.wire.time import UtcDateTimeField

TAGS = ["API Tokens"]
_operation = operations(TAGS)


class ApiTokenCreateSerializer(ApiSerializer):
    name = serializers.CharField(min_length=1, max_length=200)
    permissions = serializers.ListField(
        child=serializers.ChoiceField(choices=ApiToken.Permission.choices), min_length=1
    )


class ApiTokenSerializer(serializers.Serializer):
    id = PublicIdField("Token")
    name = serializers.CharField()
    permissions = serializers.ListField(child=serializers.CharField())
    clientId = serializers.CharField(source="client_id")
    createdAt = UtcDateTimeField(source="created_at")
    updatedAt = UtcDateTimeField(source="updated_at")


class ApiTokenCreatedSerializer(ApiTokenSerializer):
    clientSecret = serializers.CharField()


class TokenListQuerySerializer(ChangedBetweenQuery):
    name = serializers.CharField(required=False)


TokenListResponseSerializer = page_of(ApiTokenSerializer, "TokenListResponse")


_TOKEN_FILTERS = {"name": "name", **CHANGED_BETWEEN}  # query parameter: token_list's filter


class TokenListCreateApi(APIView):
    @_operation("createToken", body=ApiTokenCreateSerializer, responses={201: ApiTokenCreatedSerializer})
    def post(self, request: Request, body: dict[str, Any]) -> Response:
        token, secret = token_create(
            platform=request.auth.platform, name=body["name"], permissions=body["permissions"]
        )
        return Response({**ApiTokenSerializer(token).data, "clientSecret": secret}, status=201)

    @_operation("listTokens", query=TokenListQuerySerializer, responses=TokenListResponseSerializer)
    def get(self, request: Request, query: dict[str, Any]) -> Response:
        tokens = token_list(
            platform=request.auth.platform, filters={_TOKEN_FILTERS[k]: v for k, v in query.items()}
        )
        return Response(paginate(tokens, request.query_params, lambda t: ApiTokenSerializer(t).data))


class TokenDetailApi(APIView):
    @_operation("getTokenById", responses=ApiTokenSerializer)
    def get(self, request: Request, tokenId: str) -> Response:
        token = token_get(platform=request.auth.platform, token_id=ids.parse("Token", tokenId))
        return Response(ApiTokenSerializer(token).data)

    @_operation("deleteTokenById", responses={204: None})
    def delete(self, request: Request, tokenId: str) -> Response:
        token_delete(platform=request.auth.platform, token_id=ids.parse("Token", tokenId))
        return Response(status=204)
