"""The 202 answer of an operation that needs the wallet's signature (a signed retry)."""

from __future__ import annotations

from rest_framework import serializers


class SignedRequestChallengeSerializer(serializers.Serializer):
    payloadToSign = serializers.CharField()
    requestId = serializers.CharField()
    expiresAt = serializers.DateTimeField()
