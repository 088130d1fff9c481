"""What every wallet view shares: the signed-retry attempt (body, headers, sandbox switch), rendering results."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from payments.api.parsing import ApiSerializer, parse_body, request_json
from payments.api.schema import operations
from payments.api.signed_retry import SIGNED_RETRY_PARAMETERS, slow_wallet_requested
from wallets.crypto import InvalidKey, public_key_from_hex
from wallets.signed_retry import Attempt, Challenge, Outcome, Processing
from wallets.wire import AuthSignedRequestChallengeSerializer, WalletOperationProcessingSerializer

PROCESSING_RESPONSE = OpenApiResponse(
    WalletOperationProcessingSerializer,
    description="Still processing: re-send the identical request (a 200 is a result only without status PROCESSING)",
)
REVOKE_RESPONSES = {204: None, 202: AuthSignedRequestChallengeSerializer, 200: PROCESSING_RESPONSE}


def created_responses(created: Any, challenge: Any = AuthSignedRequestChallengeSerializer) -> dict[int, Any]:
    """The answers of a signed-retry operation that creates something: 201 `created`, 202 the
    challenge, 200 PROCESSING."""
    return {201: created, 202: challenge, 200: PROCESSING_RESPONSE}


TAGS = ["Embedded Wallet Auth"]
operation = operations(TAGS)
signed_operation = operations(TAGS, parameters=SIGNED_RETRY_PARAMETERS)

CLIENT_PUBLIC_KEY_PATTERN = r"^(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$"
UNCOMPRESSED_KEY_PATTERN = r"^04[0-9a-fA-F]{128}$"


def signed_retry_attempt(request: Request) -> Attempt:
    """The request as the signed-retry engine sees it: the whole JSON body as sent (never parsed
    fields: the retry's body must be the first leg's, every key of it), the two headers and the
    sandbox switch. Parse the body only when `attempt.first_leg`."""
    return Attempt(
        body=request_json(request),
        signature=request.headers.get("Service-Wallet-Signature") or None,
        request_id=request.headers.get("Request-Id") or None,
        simulate_slow=slow_wallet_requested(request),
    )


def first_leg_body(
    attempt: Attempt, parser: type[serializers.Serializer] | dict[str, type[serializers.Serializer]]
) -> dict[str, Any] | None:
    """The parsed body on the first leg, None on the signed retry (the engine compares its raw body).
    A dict of serializers by `type` parses a discriminated body (see `parse_typed`)."""
    if not attempt.first_leg:
        return None
    if isinstance(parser, dict):
        return parse_typed(parser, attempt.body)
    return parse_body(parser, attempt.body)


def signed_request_parsed(
    request: Request, parser: type[serializers.Serializer]
) -> tuple[Attempt, dict[str, Any] | None]:
    """The attempt and its parsed body (None on a signed retry; see `first_leg_body`)."""
    attempt = signed_retry_attempt(request)
    return attempt, first_leg_body(attempt, parser)


def keyed_signed_response(
    request: Request,
    parser: type[serializers.Serializer],
    operation: Callable[..., Challenge | Outcome | Processing],
    **arguments: Any,
) -> Response:
    """A signed-retry operation whose answer is sealed to the `clientPublicKey` of its first leg (a
    session refresh, a wallet export): the key comes from the first leg's body, None on the retry."""
    attempt = signed_retry_attempt(request)
    data = first_leg_body(attempt, parser)
    return render(
        operation(
            platform=request.auth.platform,
            client_public_key=data and data["clientPublicKey"],
            attempt=attempt,
            **arguments,
        )
    )


def render(result: Challenge | Outcome | Processing) -> Response:
    if isinstance(result, Challenge):
        return Response(result.body(), status=202)
    if isinstance(result, Processing):
        return Response(result.body(), status=200)
    if result.status == 204:
        return Response(status=204)
    return Response(result.body, status=result.status)


def _on_the_curve(value: str) -> None:
    try:
        public_key_from_hex(value)
    except InvalidKey:
        raise serializers.ValidationError("Not a point on P-256.", code="invalid") from None


def client_key_field(*, pattern: str = CLIENT_PUBLIC_KEY_PATTERN, **kwargs: Any) -> serializers.RegexField:
    # Never trimmed: the OIDC nonce is the hash of the exact string sent.
    return serializers.RegexField(
        pattern, max_length=130, trim_whitespace=False, validators=[_on_the_curve], **kwargs
    )


def parse_typed(by_type: dict[str, type[serializers.Serializer]], data: Any) -> dict[str, Any]:
    """Parse a body whose `type` chooses the serializer (the reference's discriminated oneOfs)."""

    class TypeOnly(ApiSerializer):
        type = serializers.ChoiceField(choices=list(by_type))

    kind = parse_body(TypeOnly, data)["type"]
    return dict(parse_body(by_type[kind], data))
