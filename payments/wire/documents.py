"""Documents on the wire: the upload shapes (the API and the hosted pages) and the resource."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from payments.documents import document_file_error
from payments.models import Document
from payments.wire.ids import PublicIdField
from payments.wire.kyc import country_field, without_nulls
from payments.wire.parsing import ApiSerializer
from payments.wire.time import UtcDateTimeField


@extend_schema_field(OpenApiTypes.BINARY)
class DocumentFileField(serializers.Field):
    """The uploaded file, accepted only when its content is a PDF, JPEG or PNG within the size limit.
    Write-only: responses describe the stored document, never echo the upload."""

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("write_only", True)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> Any:
        error = document_file_error(data)
        if error is not None:
            self.constraint = error.constraint  # reported with the error (see parsing.constraint_for)
            raise serializers.ValidationError(error.message)
        return data


class DocumentReplaceSerializer(ApiSerializer):
    file = DocumentFileField()
    documentType = serializers.ChoiceField(choices=Document.Type.choices, source="document_type")
    side = serializers.ChoiceField(choices=Document.Side.choices, required=False)
    country = country_field()
    documentNumber = serializers.CharField(max_length=100, required=False, source="document_number")
    issuingAuthority = serializers.CharField(max_length=255, required=False, source="issuing_authority")


class DocumentUploadSerializer(DocumentReplaceSerializer):
    documentHolder = serializers.CharField(max_length=100)


class DocumentSerializer(serializers.Serializer):
    id = PublicIdField("Document")
    documentHolder = serializers.CharField(source="holder_public_id")
    documentType = serializers.ChoiceField(choices=Document.Type.choices, source="document_type")
    side = serializers.ChoiceField(choices=Document.Side.choices, required=False)
    country = serializers.CharField()
    documentNumber = serializers.CharField(source="document_number", required=False)
    issuingAuthority = serializers.CharField(source="issuing_authority", required=False)
    fileName = serializers.CharField(source="file_name")
    createdAt = UtcDateTimeField(source="created_at")
    updatedAt = UtcDateTimeField(source="updated_at")

    def to_representation(self, instance: Document) -> dict[str, Any]:
        return without_nulls(super().to_representation(instance))
