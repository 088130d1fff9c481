"""What an uploaded identity document really is, judged from its first bytes (never its name).

Pure Python (no Django). Only PDF, JPEG and PNG are accepted; anything else (executables,
archives, scripts, HTML, SVG…) sniffs as None whatever its file name or declared content type.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

MAX_DOCUMENT_BYTES: Final = 10 * 1024 * 1024
"""Largest identity document we accept: 10 MiB."""

SNIFF_BYTES: Final = 8
"""How many leading bytes ``sniff_document`` needs (the PNG signature is the longest)."""

ACCEPTED_DOCUMENT_TYPES: Final = ("application/pdf", "image/jpeg", "image/png")

DOCUMENT_EXTENSIONS: Final[Mapping[str, str]] = MappingProxyType(
    {"application/pdf": ".pdf", "image/jpeg": ".jpg", "image/png": ".png"}
)
"""Extension to store a sniffed document under, so the stored name follows the content."""

# A PDF must start with its "%PDF-1.x"/"%PDF-2.x" header here; readers that tolerate leading junk
# would let a polyglot through. JPEG is SOI followed by the first marker's 0xFF.
_SIGNATURES: Final = (
    (re.compile(rb"%PDF-[12]\.[0-9]"), "application/pdf"),
    (re.compile(rb"\xff\xd8\xff"), "image/jpeg"),
    (re.compile(rb"\x89PNG\r\n\x1a\n"), "image/png"),
)


def sniff_document(head: bytes) -> str | None:
    """The media type of a document from its first ``SNIFF_BYTES`` (or more) bytes, else None."""
    if not isinstance(head, bytes | bytearray | memoryview):
        return None
    head = bytes(head[:SNIFF_BYTES])
    for signature, media_type in _SIGNATURES:
        if signature.match(head):
            return media_type
    return None
