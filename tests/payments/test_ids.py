import pytest

from payments import ids
from payments.errors import ResourceNotFound


def test_render_and_parse_round_trip():
    value = ids.uuid7()
    assert ids.parse("Quote", ids.render("Quote", value)) == value


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Quote:",
        "Quote:not-a-uuid",
        "Customer:0196a3c1-7f00-7000-8000-000000000001",
        "0196a3c1-7f00-7000-8000-000000000001",
        None,
        5,
    ],
)
def test_parse_refuses_other_kinds_and_garbage_as_not_found(text):
    with pytest.raises(ResourceNotFound) as caught:
        ids.parse("Quote", text)
    assert caught.value.code == "QUOTE_NOT_FOUND"
    assert caught.value.status == 404


def test_customer_not_found_uses_the_spec_code():
    with pytest.raises(ResourceNotFound) as caught:
        ids.parse("Customer", "nope")
    assert caught.value.code == "USER_NOT_FOUND"
