"""`POST /transfer-in` and `POST /transfer-out`: same-currency transfers (deprecated in our docs; use
`POST /quotes` with `immediatelyExecute`). Each is a quote made and executed in one go, so the
amounts, fees, limits, ledger and sandbox outcomes are the quote engine's."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments.account_info.enums import PAYMENT_RAILS
from payments.api.idempotency import IDEMPOTENCY_KEY, idempotent
from payments.api.parsing import ApiSerializer, parse_body
from payments.api.quotes import PURPOSES
from payments.api.schema import operations
from payments.api.transactions import TransactionOneOf, render_transaction
from payments.pricing import MAX_AMOUNT
from payments.transfers import transfer_create, transfer_in_amount, transfer_kinds_check, transfer_out_amount

TAGS = ["Same-Currency Transfers"]


class AccountReferenceSerializer(ApiSerializer):
    accountId = serializers.CharField()


class DestinationReferenceSerializer(ApiSerializer):
    accountId = serializers.CharField()
    paymentRail = serializers.ChoiceField(choices=PAYMENT_RAILS, required=False)


def _optional_amount(help_text: str) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=1, max_value=MAX_AMOUNT, required=False, help_text=help_text)


class TransferInSerializer(ApiSerializer):
    source = AccountReferenceSerializer(help_text="The external account to pull from")
    destination = AccountReferenceSerializer(help_text="The internal account to credit")
    amount = _optional_amount(
        "Optional in the reference, but a pull needs it: the external account's balance is not known here "
        "(400 INVALID_INPUT without it)"
    )


class TransferOutSerializer(ApiSerializer):
    source = AccountReferenceSerializer(help_text="The internal account to debit")
    destination = DestinationReferenceSerializer(help_text="The external account to pay")
    amount = _optional_amount(
        "Without it, the source account's whole available balance is sent (400 INSUFFICIENT_FUNDS when that "
        "is zero)"
    )
    remittanceInformation = serializers.CharField(required=False, allow_blank=True, max_length=80)
    purposeOfPayment = serializers.ChoiceField(choices=PURPOSES, required=False)


def _transfer(request: Request, body: dict[str, Any], *, source_kind: str, destination_kind: str) -> Response:
    source, destination = body["source"]["accountId"], body["destination"]
    transfer_kinds_check(
        source=source,
        destination=destination["accountId"],
        source_kind=source_kind,
        destination_kind=destination_kind,
    )
    if source_kind == "ExternalAccount":
        amount = transfer_in_amount(amount=body.get("amount"))
    else:
        amount = transfer_out_amount(
            platform=request.auth.platform, source_account_id=source, amount=body.get("amount")
        )
    quote = transfer_create(
        platform=request.auth.platform, source=source, destination=destination, amount=amount, texts=body
    )
    return Response(render_transaction(quote.transaction), status=201)


_deprecated_transfer = operations(
    TAGS, parameters=[IDEMPOTENCY_KEY], responses={201: TransactionOneOf}, deprecated=True
)


class TransferInApi(APIView):
    required_permissions = {"POST": "TRANSACT"}

    @_deprecated_transfer(
        "createTransferIn",
        request=TransferInSerializer,
        description="Pull from a customer's external account (ACH or SEPA debit) into an internal account of "
        "the same currency. Deprecated: use POST /quotes with immediatelyExecute.",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        body = parse_body(TransferInSerializer, request.data)
        return _transfer(request, body, source_kind="ExternalAccount", destination_kind="InternalAccount")


class TransferOutApi(APIView):
    required_permissions = {"POST": "TRANSACT"}

    @_deprecated_transfer(
        "createTransferOut",
        request=TransferOutSerializer,
        description="Pay from an internal account to an external account of the same currency; without "
        "`amount`, the source account's whole available balance. Deprecated: use POST /quotes with "
        "immediatelyExecute.",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        body = parse_body(TransferOutSerializer, request.data)
        return _transfer(request, body, source_kind="InternalAccount", destination_kind="ExternalAccount")
