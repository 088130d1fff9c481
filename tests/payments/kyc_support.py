"""Request bodies and uploads shared by the customer/KYC API tests."""

from __future__ import annotations

import struct
import zlib

from django.core.files.uploadedfile import SimpleUploadedFile

from tests.conftest import API

PDF = b"%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x00" * 32
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 32
EXE = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff" + b"\x00" * 32

ADDRESS = {
    "line1": "1 Main Street",
    "city": "San Francisco",
    "state": "CA",
    "postalCode": "94105",
    "country": "US",
}


def individual(full_name: str = "Jane Smith", **fields) -> dict:
    """A complete individual (everything verification asks for except the identity document)."""
    return {
        "customerType": "INDIVIDUAL",
        "fullName": full_name,
        "birthDate": "1990-01-15",
        "nationality": "GB",
        "address": dict(ADDRESS),
        "email": "jane@example.com",
        **fields,
    }


def business(registration_number: str = "5523041", **fields) -> dict:
    return {
        "customerType": "BUSINESS",
        "businessInfo": {
            "legalName": "Acme Corporation",
            "country": "US",
            "registrationNumber": registration_number,
            "incorporatedOn": "2018-03-14",
            "taxId": "47-1234567",
        },
        "address": dict(ADDRESS),
        **fields,
    }


def owner(customer_id: str, last_name: str = "Doe", **fields) -> dict:
    return {
        "customerId": customer_id,
        "roles": ["UBO", "DIRECTOR"],
        "ownershipPercentage": 60,
        "personalInfo": {
            "firstName": "John",
            "lastName": last_name,
            "birthDate": "1980-02-03",
            "nationality": "US",
            "address": dict(ADDRESS),
            "idType": "SSN",
            "identifier": "123-45-6789",
        },
        **fields,
    }


def create(api, body: dict) -> dict:
    response = api.post("/customers", body)
    assert response.status_code == 201, response.json()
    return response.json()


def upload(
    api, holder: str, *, content: bytes = PDF, name: str = "passport.pdf", document_type="PASSPORT", **fields
):
    data = {
        "documentHolder": holder,
        "documentType": document_type,
        "country": "GB",
        "file": SimpleUploadedFile(name, content, content_type="application/octet-stream"),
        **fields,
    }
    return api.client.post(API + "/documents", data, format="multipart")


def stored_files(media_root) -> list:
    return [p for p in media_root.rglob("*") if p.is_file()] if media_root.exists() else []


def png(width: int = 96, height: int = 64) -> bytes:
    """A real PNG: a blue card with a lighter band, so the preview visibly shows it."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = []
    for y in range(height):
        colour = bytes((120, 160, 240)) if height // 3 < y < 2 * height // 3 else bytes((35, 80, 200))
        rows.append(b"\x00" + colour * width)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"".join(rows)))
        + chunk(b"IEND", b"")
    )
