from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.api.pagination import paginate
from payments.api.parsing import parse_body
from payments.api.schema import operations
from payments.documents import (
    document_delete,
    document_get,
    document_list,
    document_replace,
    document_upload,
)
from payments.wire.documents import DocumentReplaceSerializer, DocumentSerializer, DocumentUploadSerializer
from payments.wire.pages import page_of

TAGS = ["Documents"]
_operation = operations(TAGS)


DocumentListResponseSerializer = page_of(DocumentSerializer, "DocumentListResponse")


class DocumentListUploadApi(APIView):
    parser_classes = [MultiPartParser]

    @_operation("uploadDocument", body=DocumentUploadSerializer, responses={201: DocumentSerializer})
    def post(self, request: Request, body: dict[str, Any]) -> Response:
        document = document_upload(
            platform=request.auth.platform, holder_id=body["documentHolder"], data=body, file=body["file"]
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
        request=DocumentReplaceSerializer,
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
