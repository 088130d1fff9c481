from __future__ import annotations

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments.api.schema import operations
from payments.sandbox import sandbox_only
from payments.webhooks import webhook_send_test

TAGS = ["Sandbox"]
_operation = operations(TAGS)


class TestWebhookResponseSerializer(serializers.Serializer):
    url = serializers.CharField()
    response_status = serializers.IntegerField()
    response_body = serializers.CharField(allow_blank=True)


class SandboxWebhookTestApi(APIView):
    @_operation(
        "sendTestWebhook",
        request=None,
        responses=TestWebhookResponseSerializer,
        description="Send a TEST webhook to the configured endpoint now and report its answer (sandbox only).",
    )
    def post(self, request: Request) -> Response:
        sandbox_only()
        result = webhook_send_test(platform=request.auth.platform)
        return Response(TestWebhookResponseSerializer(result).data)
