"""An uploaded document served to a browser (admin review and the hosted onboarding preview)."""

from __future__ import annotations

from django.http import FileResponse

from payments.documents import document_open
from payments.models import Document


def document_file_response(document: Document, *, filename: str) -> FileResponse:
    """The stored file shown inline, with the type sniffed at upload and never sniffed again by the
    browser."""
    response = FileResponse(
        document_open(document), content_type=document.content_type, as_attachment=False, filename=filename
    )
    response["X-Content-Type-Options"] = "nosniff"
    return response
