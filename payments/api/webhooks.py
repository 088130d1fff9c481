from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments.errors import Forbidden
from payments.webhooks import webhook_send_test


class TestWebhookResponseSerializer(serializers.Serializer):
    url = serializers.CharField()
    response_status = serializers.IntegerField()
    response_body = serializers.CharField(allow_blank=True)


class SandboxWebhookTestApi(APIView):
    @extend_schema(
        operation_id="sendTestWebhook",
        request=None,
        responses=TestWebhookResponseSerializer,
        tags=["Sandbox"],
        description="Send a TEST webhook to the configured endpoint now and report its answer (sandbox only).",
    )
    def post(self, request: Request) -> Response:
        if settings.PRODUCTION:
            raise Forbidden("Sandbox endpoints are not available in production mode")
        result = webhook_send_test(platform=request.auth.platform)
        return Response(TestWebhookResponseSerializer(result).data)
