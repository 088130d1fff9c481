"""The headers of a signed retry as the HTTP interface reads and documents them, and the sandbox's
slow-wallet switch: shared by the wallet views (`wallets/api/`) and the customer PATCH, whose
contact change is a signed retry too."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import OpenApiParameter
from rest_framework.request import Request

SIMULATE_HEADER = "Service-Sandbox-Simulate"
SLOW_WALLET = "slow-wallet"

SIGNATURE_PARAMETER = OpenApiParameter(
    "Service-Wallet-Signature",
    str,
    OpenApiParameter.HEADER,
    description="On the signed retry: the stamp over the challenge's payloadToSign",
)
REQUEST_ID_PARAMETER = OpenApiParameter(
    "Request-Id", str, OpenApiParameter.HEADER, description="On the signed retry: the challenge's requestId"
)
SIMULATE_PARAMETER = OpenApiParameter(
    SIMULATE_HEADER,
    str,
    OpenApiParameter.HEADER,
    enum=[SLOW_WALLET],
    description=(
        "Sandbox only (ignored in production): `slow-wallet` makes the operation (a signed retry: its "
        "retry) answer 200 PROCESSING first; re-send the identical request until it answers with the outcome"
    ),
)
SIGNED_RETRY_PARAMETERS = [SIGNATURE_PARAMETER, REQUEST_ID_PARAMETER, SIMULATE_PARAMETER]


def slow_wallet_requested(request: Request) -> bool:
    """Whether the request turns the sandbox's slow-wallet switch on (never in production)."""
    return settings.SANDBOX and request.headers.get(SIMULATE_HEADER, "").strip().lower() == SLOW_WALLET
