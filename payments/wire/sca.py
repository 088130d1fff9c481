"""The wire shape of `ScaChallenge`, shared by the quote's rendering and the SCA endpoints."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rest_framework import serializers

from payments.models import ScaFactor
from payments.wire.time import utc_timestamp

if TYPE_CHECKING:
    from payments.sca.payment_challenges import ChallengeView

FACTORS = [f.value for f in ScaFactor]


def render_sca_challenge(view: ChallengeView) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": view.id,
        "expiresAt": utc_timestamp(view.expires_at),
        "factor": view.factor,
        "availableFactors": view.available_factors,
    }
    if view.purpose:
        data["purpose"] = view.purpose
    if view.passkey_assertion_options is not None:
        data["passkeyAssertionOptions"] = view.passkey_assertion_options
    return data


class ScaChallengeSerializer(serializers.Serializer):
    """For the OpenAPI document only; built by `render_sca_challenge`."""

    id = serializers.CharField(help_text="ScaChallenge:<uuid>; informational (the quote names its challenge)")
    expiresAt = serializers.DateTimeField(help_text="After this the challenge cannot be authorized")
    factor = serializers.ChoiceField(choices=FACTORS)
    availableFactors = serializers.ListField(child=serializers.ChoiceField(choices=FACTORS))
    purpose = serializers.CharField(
        required=False,
        help_text="Informational step label (CURRENCY_CONVERSION, PAYOUT, …); omitted for a single step",
    )
    passkeyAssertionOptions = serializers.DictField(
        required=False, help_text="WebAuthn request options (JSON form); only when factor is PASSKEY"
    )
    passkeyAllowedOrigins = serializers.ListField(child=serializers.CharField(), required=False)

    class Meta:
        ref_name = "ScaChallenge"


def render_beneficiary_trust_start(view: ChallengeView | None) -> dict[str, Any]:
    """`BeneficiaryTrustStart`: the challenge to satisfy, omitted when none was issued."""
    return {"scaChallenge": render_sca_challenge(view)} if view is not None else {}


def render_beneficiary_trust(trusted: bool) -> dict[str, Any]:
    """`BeneficiaryTrustConfirm`."""
    return {"trusted": trusted}


class BeneficiaryTrustStartSerializer(serializers.Serializer):
    """For the OpenAPI document only; built by `render_beneficiary_trust_start`."""

    scaChallenge = ScaChallengeSerializer(
        required=False, help_text="The challenge to satisfy on confirm; omitted when none is issued"
    )

    class Meta:
        ref_name = "BeneficiaryTrustStart"


class BeneficiaryTrustConfirmSerializer(serializers.Serializer):
    """For the OpenAPI document only; built by `render_beneficiary_trust`."""

    trusted = serializers.BooleanField(help_text="true after a trust, false after an untrust")

    class Meta:
        ref_name = "BeneficiaryTrustConfirm"
