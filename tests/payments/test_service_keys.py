import threading

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.db import connection

from payments import secret_box, service_keys
from payments.models import ServiceKey
from payments.service_keys import service_private_key, service_public_key_hex, service_public_key_pem

pytestmark = pytest.mark.django_db


def _uncompressed_hex(key: ec.EllipticCurvePrivateKey) -> str:
    point = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return point.hex()


def test_a_key_is_generated_once_per_name_and_reused():
    first = service_private_key("webhook-signing")
    again = service_private_key("webhook-signing")
    other = service_private_key("wallet-test")
    assert isinstance(first.curve, ec.SECP256R1)
    assert _uncompressed_hex(first) == _uncompressed_hex(again)
    assert _uncompressed_hex(other) != _uncompressed_hex(first)
    assert ServiceKey.objects.filter(name="webhook-signing").count() == 1


def test_the_private_key_is_stored_sealed_and_the_public_key_as_uncompressed_hex():
    key = service_private_key("webhook-signing")
    row = ServiceKey.objects.get(name="webhook-signing")
    der = key.private_bytes(
        serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    scalar = key.private_numbers().private_value.to_bytes(32, "big")
    assert der.hex() not in row.private_key_sealed and scalar.hex() not in row.private_key_sealed
    assert secret_box.unseal(row.private_key_sealed, purpose="service-key:webhook-signing") == der
    with pytest.raises(secret_box.SecretBoxError):  # sealed for this name only
        secret_box.unseal(row.private_key_sealed, purpose="service-key:other")

    public = service_public_key_hex("webhook-signing")
    assert public == row.public_key_hex == _uncompressed_hex(key)
    assert len(public) == 130 and public.startswith("04") and public == public.lower()


def test_pem_is_the_same_public_key():
    pem = service_public_key_pem("webhook-signing")
    public = serialization.load_pem_public_key(pem.encode())
    signature = service_private_key("webhook-signing").sign(b"hello", ec.ECDSA(hashes.SHA256()))
    public.verify(signature, b"hello", ec.ECDSA(hashes.SHA256()))


def test_no_key_material_in_reprs():
    key = service_private_key("webhook-signing")
    row = ServiceKey.objects.get(name="webhook-signing")
    scalar = f"{key.private_numbers().private_value:x}"
    for text in (repr(key), str(key), repr(row), str(row)):
        assert scalar not in text and row.private_key_sealed not in text


def test_losing_the_creation_race_uses_the_winners_key():
    winner = service_keys._create("raced")
    loser = service_keys._create("raced")  # its INSERT hits the unique name; it reads the winner's row
    assert loser.pk == winner.pk and loser.public_key_hex == winner.public_key_hex
    assert _uncompressed_hex(service_private_key("raced")) == winner.public_key_hex


def test_a_replaced_row_is_never_served_from_the_cache():
    before = service_public_key_hex("rotating")
    ServiceKey.objects.filter(name="rotating").delete()
    key = service_private_key("rotating")  # generates a new one
    assert _uncompressed_hex(key) != before
    assert service_public_key_hex("rotating") == _uncompressed_hex(key)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_first_use_creates_one_key():
    results: list[str] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(8)

    def use() -> None:
        try:
            barrier.wait()
            results.append(_uncompressed_hex(service_private_key("concurrent")))
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=use) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors, errors
    assert len(results) == 8 and len(set(results)) == 1
    assert ServiceKey.objects.filter(name="concurrent").count() == 1
