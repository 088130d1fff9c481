import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from payments import documents
from payments.file_types import MAX_DOCUMENT_BYTES
from payments.models import Document
from tests.conftest import API
from tests.payments.kyc_support import (
    EXE,
    JPEG,
    PDF,
    PNG,
    business,
    create,
    individual,
    owner,
    stored_files,
    upload,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def customer(api):
    return create(api, individual("Jane 003"))


def test_a_pdf_named_png_is_stored_as_a_pdf(api, customer, media):
    response = upload(
        api,
        customer["id"],
        content=PDF,
        name="scan.png",
        documentNumber="X123",
        issuingAuthority="HMPO",
        side="FRONT",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["id"].startswith("Document:")
    assert body["documentHolder"] == customer["id"]
    assert body["documentType"] == "PASSPORT"
    assert body["fileName"] == "scan.png"
    assert (body["documentNumber"], body["issuingAuthority"], body["side"], body["country"]) == (
        "X123",
        "HMPO",
        "FRONT",
        "GB",
    )
    document = Document.objects.get()
    assert document.content_type == "application/pdf"
    assert document.file.name.endswith(".pdf")
    (path,) = stored_files(media)
    assert path.suffix == ".pdf"
    assert path.read_bytes() == PDF


@pytest.mark.parametrize(("content", "media_type"), [(PNG, "image/png"), (JPEG, "image/jpeg")])
def test_images_are_accepted_by_content(api, customer, content, media_type):
    assert upload(api, customer["id"], content=content, name="photo.bin").status_code == 201
    assert Document.objects.get().content_type == media_type


@pytest.mark.parametrize(
    ("content", "name"),
    [
        (EXE, "passport.jpg"),
        (b"<html><script>alert(1)</script>", "id.png"),
        (b"", "empty.pdf"),
        (b"GIF89a....", "x.gif"),
    ],
)
def test_anything_else_is_refused_and_nothing_is_stored(api, customer, media, content, name):
    response = upload(api, customer["id"], content=content, name=name)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "INVALID_INPUT"
    (error,) = body["details"]["errors"]
    assert error["field"] == "file"
    assert "PDF, JPEG or PNG" in error["message"]
    assert Document.objects.count() == 0
    assert stored_files(media) == []


def test_oversize_files_are_refused(api, customer, media):
    response = upload(api, customer["id"], content=PDF + b"0" * MAX_DOCUMENT_BYTES, name="big.pdf")
    assert response.status_code == 400
    (error,) = response.json()["details"]["errors"]
    assert error["field"] == "file"
    assert error["constraint"]["maximum"] == MAX_DOCUMENT_BYTES
    assert Document.objects.count() == 0
    assert stored_files(media) == []


def test_every_invalid_field_is_listed(api, customer, media):
    response = api.client.post(
        API + "/documents",
        {"documentType": "SELFIE_STICK", "country": "gb", "file": SimpleUploadedFile("a.exe", EXE)},
        format="multipart",
    )
    assert response.status_code == 400
    fields = {e["field"] for e in response.json()["details"]["errors"]}
    assert fields == {"documentHolder", "documentType", "country", "file"}
    response = api.client.post(API + "/documents", {"documentHolder": customer["id"]}, format="multipart")
    fields = {e["field"] for e in response.json()["details"]["errors"]}
    assert fields == {"documentType", "country", "file"}
    assert stored_files(media) == []


def test_json_is_not_accepted(api, customer):
    response = api.post("/documents", {"documentHolder": customer["id"]})
    assert response.status_code == 415


def test_a_failed_transaction_leaves_no_file(api, customer, media, monkeypatch):
    def broken_save(self, *args, **kwargs):
        raise RuntimeError("database went away")

    monkeypatch.setattr(Document, "save", broken_save)
    with pytest.raises(RuntimeError):
        documents.document_upload(
            platform=api.platform,
            holder_id=customer["id"],
            data={"document_type": "PASSPORT", "country": "GB"},
            file=SimpleUploadedFile("p.pdf", PDF),
        )
    assert stored_files(media) == []


def test_unknown_holders(api, customer, media):
    response = upload(api, "Customer:01a20134-1f98-73ea-8942-959ba2de39a8")
    assert response.status_code == 404 and response.json()["code"] == "USER_NOT_FOUND"
    assert upload(api, "BeneficialOwner:01a20134-1f98-73ea-8942-959ba2de39a8").status_code == 404
    response = upload(api, "Quote:01a20134-1f98-73ea-8942-959ba2de39a8")
    assert response.status_code == 400
    assert response.json()["details"]["errors"][0]["field"] == "documentHolder"
    assert stored_files(media) == []


def test_documents_of_beneficial_owners(api):
    biz = create(api, business("RC-001"))
    owner_id = api.post("/beneficial-owners", owner(biz["id"])).json()["id"]
    body = upload(api, owner_id, content=PNG, name="owner.png").json()
    assert body["documentHolder"] == owner_id
    company = upload(api, biz["id"], document_type="CERTIFICATE_OF_INCORPORATION").json()
    listed = api.get("/documents", {"documentHolder": owner_id}).json()
    assert [d["id"] for d in listed["data"]] == [body["id"]]
    assert [d["id"] for d in api.get("/documents", {"documentHolder": biz["id"]}).json()["data"]] == [
        company["id"]
    ]
    assert api.get("/documents").json()["totalCount"] == 2
    assert api.get("/documents", {"documentHolder": "junk"}).json()["data"] == []


def test_get_replace_delete(api, customer, media, django_capture_on_commit_callbacks):
    created = upload(api, customer["id"], content=PDF, name="first.pdf").json()
    assert api.get(f"/documents/{created['id']}").json() == created
    (old_file,) = stored_files(media)

    with django_capture_on_commit_callbacks(execute=True):
        response = api.client.put(
            API + f"/documents/{created['id']}",
            {"documentType": "NATIONAL_ID", "country": "FR", "file": SimpleUploadedFile("second.jpg", JPEG)},
            format="multipart",
        )
    assert response.status_code == 200, response.json()
    replaced = response.json()
    assert replaced["id"] == created["id"]
    assert (replaced["documentType"], replaced["country"], replaced["fileName"]) == (
        "NATIONAL_ID",
        "FR",
        "second.jpg",
    )
    (new_file,) = stored_files(media)
    assert new_file != old_file and new_file.suffix == ".jpg"
    assert Document.objects.get().content_type == "image/jpeg"

    bad = api.client.put(
        API + f"/documents/{created['id']}",
        {"documentType": "PASSPORT", "country": "FR", "file": SimpleUploadedFile("x.pdf", EXE)},
        format="multipart",
    )
    assert bad.status_code == 400
    assert stored_files(media) == [new_file]
    assert Document.objects.get().document_type == "NATIONAL_ID"

    with django_capture_on_commit_callbacks(execute=True):
        assert api.delete(f"/documents/{created['id']}").status_code == 204
    assert Document.objects.count() == 0
    assert stored_files(media) == []
    assert api.get(f"/documents/{created['id']}").status_code == 404


def test_documents_are_isolated_per_platform(api, other_api, customer, media):
    created = upload(api, customer["id"]).json()
    assert other_api.get(f"/documents/{created['id']}").status_code == 404
    assert other_api.delete(f"/documents/{created['id']}").status_code == 404
    response = other_api.client.put(
        API + f"/documents/{created['id']}",
        {"documentType": "PASSPORT", "country": "FR", "file": SimpleUploadedFile("x.pdf", PDF)},
        format="multipart",
    )
    assert response.status_code == 404
    assert other_api.get("/documents").json()["totalCount"] == 0
    assert other_api.get("/documents", {"documentHolder": customer["id"]}).json()["data"] == []
    response = upload(other_api, customer["id"])
    assert response.status_code == 404 and response.json()["code"] == "USER_NOT_FOUND"
    assert len(stored_files(media)) == 1
    assert Document.objects.count() == 1


def test_files_have_no_public_url(api, customer, client):
    upload(api, customer["id"])
    name = Document.objects.get().file.name
    assert client.get("/media/" + name).status_code == 404
    assert client.get("/" + name).status_code == 404
