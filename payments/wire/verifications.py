"""KYC/KYB verifications on the wire; also the `data` of the `VERIFICATION.*` webhooks."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from payments.models import Document, Verification
from payments.wire.ids import PublicIdField
from payments.wire.time import UtcDateTimeField


class VerificationErrorSerializer(serializers.Serializer):
    resourceId = serializers.CharField()
    type = serializers.CharField()
    field = serializers.CharField(required=False)
    acceptedDocumentTypes = serializers.ListField(
        child=serializers.ChoiceField(choices=Document.Type.choices), required=False
    )
    reason = serializers.CharField()


class VerificationSerializer(serializers.Serializer):
    id = PublicIdField("Verification")
    customerId = PublicIdField("Customer", source="customer_id")
    verificationStatus = serializers.ChoiceField(choices=Verification.Status.choices, source="status")
    errors = VerificationErrorSerializer(many=True)
    createdAt = UtcDateTimeField(source="created_at")
    updatedAt = UtcDateTimeField(source="updated_at")

    def to_representation(self, instance: Verification) -> dict[str, Any]:
        data = super().to_representation(instance)
        data["errors"] = list(instance.errors or [])  # stored in the wire shape
        return data
