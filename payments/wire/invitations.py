"""`UmaInvitation` on the wire, for the API and the INVITATION.CLAIMED webhook alike."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import serializers

from payments import clock
from payments.models import Invitation
from payments.wire.kyc import without_nulls
from payments.wire.money import CurrencyAmountSerializer, currency_amount
from payments.wire.parsing import ApiSerializer
from payments.wire.time import UtcDateTimeField


def invitation_status(invitation: Invitation) -> str:
    """A PENDING invitation past its `expires_at` reads as EXPIRED (EXPIRED is never stored)."""
    if (
        invitation.status == Invitation.Status.PENDING
        and invitation.expires_at is not None
        and invitation.expires_at <= clock.now()
    ):
        return Invitation.Status.EXPIRED
    return invitation.status


class _AmountToSendSerializer(CurrencyAmountSerializer):
    def to_representation(self, invitation: Invitation) -> dict[str, Any] | None:
        if invitation.amount_to_send is None:
            return None
        return currency_amount(invitation.amount_to_send, invitation.currency)


class UmaInvitationSerializer(serializers.Serializer):
    code = serializers.CharField()
    createdAt = UtcDateTimeField(source="created_at")
    claimedAt = UtcDateTimeField(source="claimed_at", required=False)
    url = serializers.SerializerMethodField()
    expiresAt = UtcDateTimeField(source="expires_at", required=False)
    inviterUma = serializers.CharField(source="inviter_uma")
    inviteeUma = serializers.CharField(source="invitee_uma", required=False)
    status = serializers.ChoiceField(choices=Invitation.Status.choices)
    firstName = serializers.CharField(source="first_name", required=False)
    amountToSend = _AmountToSendSerializer(source="*", required=False)

    def get_url(self, invitation: Invitation) -> str:
        return settings.INVITATION_URL_BASE + invitation.code

    def to_representation(self, invitation: Invitation) -> dict[str, Any]:
        data = super().to_representation(invitation)
        data["status"] = invitation_status(invitation)
        return without_nulls(data)


class UmaInvitationCreateSerializer(ApiSerializer):
    inviterUma = serializers.CharField(max_length=320)
    firstName = serializers.CharField(max_length=255, required=False)
    amountToSend = serializers.IntegerField(min_value=1, max_value=2**63 - 1, required=False)
    expiresAt = serializers.DateTimeField(required=False)


class UmaInvitationClaimSerializer(ApiSerializer):
    inviteeUma = serializers.CharField(max_length=320)


def render_invitation(invitation: Invitation) -> dict[str, Any]:
    return UmaInvitationSerializer(invitation).data
