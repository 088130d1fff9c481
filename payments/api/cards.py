"""Cards: issue, list, read, update (state, funding sources, spending limit) and reveal."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.urls import reverse
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.api.pagination import paginate
from payments.api.parsing import ApiSerializer, id_filters, parse_body, parse_id_field
from payments.api.schema import operations
from payments.cards import card_create, card_get, card_list, card_reveal, card_update
from payments.errors import FieldError, InvalidInput
from payments.models import Card
from payments.pricing import MAX_AMOUNT
from payments.wire.cards import CardRevealSerializer, CardSerializer, SpendLimitField, render_card
from payments.wire.pages import page_of
from payments.wire.time import utc_timestamp

TAGS = ["Cards"]
_operation = operations(TAGS)

CardListResponseSerializer = page_of(CardSerializer, "CardListResponse", count_required=False)
PLATFORM_STATES = [Card.State.ACTIVE, Card.State.FROZEN, Card.State.CLOSED]


def _funding_source_ids(values: list[str]) -> list[UUID]:
    return [
        parse_id_field("InternalAccount", value, f"fundingSources[{index}]")
        for index, value in enumerate(values)
    ]


class CardCreateSerializer(ApiSerializer):
    cardholderId = serializers.CharField()
    platformCardId = serializers.CharField(max_length=255, required=False)
    threeDSecurePassword = serializers.CharField(
        max_length=64,
        required=False,
        help_text="Optional static 3-D Secure password, for a card program whose issuer takes one (EUR "
        "cards; any other: 400 INVALID_INPUT). Passed to the issuer and not kept; when omitted, the "
        "issuer makes one for the cardholder.",
    )
    form = serializers.ChoiceField(choices=Card.Form.choices)
    fundingSources = serializers.ListField(child=serializers.CharField(), min_length=1, max_length=10)
    maxSpendPerTransaction = serializers.IntegerField(min_value=1, max_value=MAX_AMOUNT, required=False)

    class Meta:
        ref_name = "CardCreateRequest"


class CardUpdateSerializer(ApiSerializer):
    state = serializers.ChoiceField(choices=PLATFORM_STATES, required=False)
    fundingSources = serializers.ListField(
        child=serializers.CharField(), min_length=1, max_length=10, required=False
    )
    maxSpendPerTransaction = SpendLimitField(required=False)

    class Meta:
        ref_name = "CardUpdateRequest"


class CardListQuerySerializer(serializers.Serializer):
    cardholderId = serializers.CharField(required=False)
    accountId = serializers.CharField(required=False)
    platformCardId = serializers.CharField(required=False)
    state = serializers.ChoiceField(choices=Card.State.choices, required=False)
    sortOrder = serializers.ChoiceField(choices=["asc", "desc"], required=False, default="desc")


class CardListCreateApi(APIView):
    @_operation("createCard", body=CardCreateSerializer, responses={201: CardSerializer})
    def post(self, request: Request, body: dict[str, Any]) -> Response:
        card = card_create(
            platform=request.auth.platform,
            cardholder_id=parse_id_field("Customer", body["cardholderId"], "cardholderId"),
            form=body["form"],
            funding_source_ids=_funding_source_ids(body["fundingSources"]),
            platform_card_id=body.get("platformCardId"),
            max_spend_per_transaction=body.get("maxSpendPerTransaction"),
            three_d_secure_password=body.get("threeDSecurePassword"),
        )
        return Response(render_card(card), status=201)

    @_operation("listCards", query=CardListQuerySerializer, responses=CardListResponseSerializer)
    def get(self, request: Request, query: dict[str, Any]) -> Response:
        filters: dict[str, Any] = id_filters(
            query,
            {"cardholderId": ("Customer", "cardholder_id"), "accountId": ("InternalAccount", "account_id")},
        )
        if "platformCardId" in query:
            filters["platform_card_id"] = query["platformCardId"]
        if "state" in query:
            filters["state"] = query["state"]
        cards = card_list(platform=request.auth.platform, filters=filters).prefetch_related("funding_links")
        return Response(
            paginate(cards, request.query_params, render_card, ascending=query.get("sortOrder") == "asc")
        )


class CardDetailApi(APIView):
    @_operation("getCardById", responses=CardSerializer)
    def get(self, request: Request, id: str) -> Response:
        card = card_get(platform=request.auth.platform, card_id=ids.parse("Card", id))
        return Response(render_card(card))

    @_operation("updateCardById", request=CardUpdateSerializer, responses=CardSerializer)
    def patch(self, request: Request, id: str) -> Response:
        card_id = ids.parse("Card", id)
        body = parse_body(CardUpdateSerializer, request.data)
        if not body:
            raise InvalidInput("Supply at least one of state, fundingSources, maxSpendPerTransaction")
        if body.get("state") == Card.State.CLOSED:
            extra = [name for name in ("fundingSources", "maxSpendPerTransaction") if name in body]
            if extra:
                raise InvalidInput(
                    errors=[
                        FieldError(name, "cannot be supplied alongside state: CLOSED", {}) for name in extra
                    ]
                )
        changes: dict[str, Any] = {}
        if "state" in body:
            changes["state"] = body["state"]
        if "fundingSources" in body:
            changes["funding_source_ids"] = _funding_source_ids(body["fundingSources"])
        if "maxSpendPerTransaction" in body:
            changes["max_spend_per_transaction"] = body["maxSpendPerTransaction"]
        card = card_update(platform=request.auth.platform, card_id=card_id, changes=changes)
        return Response(render_card(card))


class CardRevealApi(APIView):
    required_permissions = {"POST": "MANAGE"}

    @_operation("revealCard", request=None, responses=CardRevealSerializer)
    def post(self, request: Request, id: str) -> Response:
        token, expires_at = card_reveal(
            platform=request.auth.platform,
            card_id=ids.parse("Card", id),
            actor=f"api token {request.auth.client_id}",
        )
        url = request.build_absolute_uri(reverse("card-reveal", args=[token]))
        return Response({"panEmbedUrl": url, "expiresAt": utc_timestamp(expires_at)})
