"""Identity and business documents: checked by content, stored through Django's default storage.

Files live under `documents/<platform>/` with a name the service chooses and an extension that follows
the sniffed content. They are never served from a public media URL; staff see them through the admin.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any
from uuid import UUID

from django.core.files.storage import default_storage
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.db.models import QuerySet

from payments import ids
from payments.customers import customer_get, customer_get_for_update
from payments.errors import Conflict, FieldError, InvalidInput, first_or_404
from payments.file_types import DOCUMENT_EXTENSIONS, MAX_DOCUMENT_BYTES, SNIFF_BYTES, sniff_document
from payments.kyc_requirements import verification_ready_check
from payments.models import BeneficialOwner, Customer, Document, Platform

_METADATA = ("document_type", "side", "country", "document_number", "issuing_authority")


def document_file_error(file: Any) -> FieldError | None:
    """Why `file` cannot be accepted (missing, empty, too large, not a PDF/JPEG/PNG by content), or None."""
    if not isinstance(file, UploadedFile):
        return FieldError("file", "Attach the document as the multipart field 'file'", {"required": True})
    if file.size is None or file.size > MAX_DOCUMENT_BYTES:
        return FieldError(
            "file",
            f"The file is larger than {MAX_DOCUMENT_BYTES // (1024 * 1024)} MB",
            {"maximum": MAX_DOCUMENT_BYTES},
        )
    if document_file_type(file) is None:
        return FieldError(
            "file",
            "The file is not a PDF, JPEG or PNG (judged by its content, not its name)",
            {"enum": ["application/pdf", "image/jpeg", "image/png"]},
        )
    return None


def document_file_type(file: UploadedFile) -> str | None:
    file.seek(0)
    head = file.read(SNIFF_BYTES)
    file.seek(0)
    return sniff_document(head)


def _check_file(file: Any) -> str:
    error = document_file_error(file)
    if error is not None:
        raise InvalidInput(errors=[error])
    return document_file_type(file)  # type: ignore[return-value]


def _holder(platform: Platform, holder_id: str) -> tuple[Customer, BeneficialOwner | None]:
    """Resolve `Customer:<uuid>` or `BeneficialOwner:<uuid>`; locks the customer row."""
    if isinstance(holder_id, str) and holder_id.startswith(BeneficialOwner.ID_KIND + ":"):
        owner_pk = ids.parse(BeneficialOwner.ID_KIND, holder_id)
        owners = BeneficialOwner.objects.for_platform(platform).filter(pk=owner_pk)
        owner = first_or_404(owners, "BeneficialOwner", "Document holder not found")
        return customer_get_for_update(platform=platform, customer_id=owner.customer_id), owner
    if isinstance(holder_id, str) and holder_id.startswith(Customer.ID_KIND + ":"):
        customer_pk = ids.parse(Customer.ID_KIND, holder_id)
        return customer_get_for_update(platform=platform, customer_id=customer_pk), None
    raise InvalidInput(
        errors=[
            FieldError(
                "documentHolder", "Must be a Customer:<uuid> or BeneficialOwner:<uuid> id", {"type": "string"}
            )
        ]
    )


@contextlib.contextmanager
def _files_removed_on_failure() -> Iterator[list[str]]:
    """Collects stored file names; deletes them if the block (and its transaction) fails.

    Django has no on-rollback hook, so the transaction is opened here rather than by a decorator:
    a commit that fails still raises inside this block."""
    stored: list[str] = []
    try:
        with transaction.atomic():
            yield stored
    except BaseException:
        for name in stored:
            default_storage.delete(name)
        raise


def _store(document: Document, file: UploadedFile, content_type: str, stored: list[str]) -> None:
    name = f"documents/{document.platform_id}/{ids.uuid7()}{DOCUMENT_EXTENSIONS[content_type]}"
    file.seek(0)
    saved = default_storage.save(name, file)
    stored.append(saved)
    document.file.name = saved
    document.file_name = (file.name or "document")[-255:]
    document.content_type = content_type
    document.size = file.size


def document_upload(
    *, platform: Platform, holder_id: str, data: Mapping[str, Any], file: UploadedFile
) -> Document:
    """Store a document for a customer or beneficial owner. `data`: document_type, country and optionally
    side, document_number, issuing_authority. The file is checked by content (PDF, JPEG, PNG) and
    size before anything is written; on any failure no row and no file remain."""
    content_type = _check_file(file)
    with _files_removed_on_failure() as stored:
        customer, owner = _holder(platform, holder_id)
        document = Document(platform=platform, customer=customer, beneficial_owner=owner)
        for name in _METADATA:
            setattr(document, name, data.get(name) or "")
        _store(document, file, content_type, stored)
        document.save(force_insert=True)
        verification_ready_check(customer)
    return document


def document_get(*, platform: Platform, document_id: UUID) -> Document:
    return first_or_404(Document.objects.for_platform(platform).filter(pk=document_id), "Document")


def _get_for_update(platform: Platform, document_id: UUID) -> Document:
    documents = Document.objects.for_platform(platform).select_for_update().filter(pk=document_id)
    document = first_or_404(documents, "Document")
    customer_get(platform=platform, customer_id=document.customer_id)  # 410 once the customer is deleted
    return document


def document_replace(
    *, platform: Platform, document_id: UUID, data: Mapping[str, Any], file: UploadedFile
) -> Document:
    """Replace the file and metadata (PUT): a document the review found unusable is uploaded again.
    The old file is removed once the new one is committed."""
    content_type = _check_file(file)
    with _files_removed_on_failure() as stored:
        document = _get_for_update(platform, document_id)
        old_name = document.file.name
        for name in _METADATA:
            setattr(document, name, data.get(name) or "")
        _store(document, file, content_type, stored)
        document.submitted_at = None
        document.touch()
        document.save()
        verification_ready_check(document.customer)
        transaction.on_commit(lambda: default_storage.delete(old_name))
    return document


@transaction.atomic
def document_delete(*, platform: Platform, document_id: UUID) -> None:
    """Delete a document and its file; one already submitted for a verification review stays (409)."""
    document = _get_for_update(platform, document_id)
    if document.submitted_at is not None:
        raise Conflict(
            f"Document {document.public_id} was submitted for verification and cannot be deleted; "
            "replace it with PUT /documents/{documentId} instead"
        )
    name = document.file.name
    document.delete()
    transaction.on_commit(lambda: default_storage.delete(name))


def document_list(*, platform: Platform, holder_id: str | None = None) -> QuerySet[Document]:
    documents = Document.objects.for_platform(platform)
    if holder_id:
        if holder_id.startswith(BeneficialOwner.ID_KIND + ":"):
            owner = ids.parse_or_none(BeneficialOwner.ID_KIND, holder_id)
            return documents.filter(beneficial_owner_id=owner) if owner else documents.none()
        customer = ids.parse_or_none(Customer.ID_KIND, holder_id)
        return documents.filter(customer_id=customer, beneficial_owner=None) if customer else documents.none()
    return documents


def document_open(document: Document):
    """The stored file, opened for reading (admin review only)."""
    return default_storage.open(document.file.name, "rb")
