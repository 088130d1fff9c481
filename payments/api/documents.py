from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema_field
from rest_framework import serializers
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.api.fields import PublicIdField, UtcDateTimeField
from payments.api.kyc_shapes import country_field, page_of, without_nulls
from payments.api.pagination import PAGE_PARAMETERS, paginate
from payments.api.parsing import ApiSerializer, parse_body
from payments.api.schema import operations
from payments.documents import (
    document_delete,
    document_file_error,
    document_get,
    document_list,
    document_replace,
    document_upload,
)
from payments.models import Document

TAGS = ["Documents"]
_operation = operations(TAGS)


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


DocumentListResponseSerializer = page_of(DocumentSerializer, "DocumentListResponse")


class DocumentListUploadApi(APIView):
    parser_classes = [MultiPartParser]

    @_operation(
        "uploadDocument",
        request={"multipart/form-data": DocumentUploadSerializer},
        responses={201: DocumentSerializer},
    )
    def post(self, request: Request) -> Response:
        data = parse_body(DocumentUploadSerializer, request.data)
        document = document_upload(
            platform=request.auth.platform, holder_id=data["documentHolder"], data=data, file=data["file"]
        )
        return Response(DocumentSerializer(document).data, status=201)

    @_operation(
        "listDocuments",
        parameters=[
            OpenApiParameter(
                "documentHolder",
                str,
                description="Filter by document holder ID (Customer or BeneficialOwner)",
            ),
            *PAGE_PARAMETERS,
        ],
        responses=DocumentListResponseSerializer,
    )
    def get(self, request: Request) -> Response:
        documents = document_list(
            platform=request.auth.platform, holder_id=request.query_params.get("documentHolder")
        )
        return Response(paginate(documents, request.query_params, lambda d: DocumentSerializer(d).data))


class DocumentDetailApi(APIView):
    parser_classes = [MultiPartParser]

    @_operation("getDocument", responses=DocumentSerializer)
    def get(self, request: Request, documentId: str) -> Response:
        document = document_get(platform=request.auth.platform, document_id=ids.parse("Document", documentId))
        return Response(DocumentSerializer(document).data)

    @_operation(
        "replaceDocument",
        request={"multipart/form-data": DocumentReplaceSerializer},
        responses=DocumentSerializer,
    )
    def put(self, request: Request, documentId: str) -> Response:
        document_id = ids.parse("Document", documentId)
        data = parse_body(DocumentReplaceSerializer, request.data)
        document = document_replace(
            platform=request.auth.platform, document_id=document_id, data=data, file=data["file"]
        )
        return Response(DocumentSerializer(document).data)

    @_operation("deleteDocument", responses={204: None})
    def delete(self, request: Request, documentId: str) -> Response:
        document_delete(platform=request.auth.platform, document_id=ids.parse("Document", documentId))
        return Response(status=204)
