import pytest
from django.test import Client, override_settings

pytestmark = pytest.mark.django_db


def _assert_error_shape(response, status, code):
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["status"] == status
    assert body["code"] == code
    assert isinstance(body["message"], str) and body["message"]
    return body


def test_malformed_json_answers_400(api):
    response = api.client.patch("/api/2025-10-13/config", "{not json", content_type="application/json")
    _assert_error_shape(response, 400, "INVALID_INPUT")


def test_wrong_content_type_answers_415(api):
    response = api.client.patch("/api/2025-10-13/config", "umaDomain=x", content_type="text/plain")
    _assert_error_shape(response, 415, "UNSUPPORTED_MEDIA_TYPE")


def test_three_invalid_fields_are_all_listed(api):
    response = api.patch(
        "/config",
        {
            "umaDomain": 42,
            "embeddedWalletConfig": {"otpLength": 99},
            "feeConfigs": [
                {
                    "feeType": "NOPE",
                    "sourceCurrency": "USD",
                    "variableFeeBps": 1,
                    "fixedFee": {"amount": 0, "currency": "USD"},
                }
            ],
        },
    )
    body = _assert_error_shape(response, 400, "INVALID_INPUT")
    errors = {e["field"]: e for e in body["details"]["errors"]}
    assert set(errors) == {"umaDomain", "embeddedWalletConfig.otpLength", "feeConfigs[0].feeType"}
    assert errors["umaDomain"]["constraint"]["type"] == "string"
    assert errors["embeddedWalletConfig.otpLength"]["constraint"]["maximum"] == 12
    assert errors["feeConfigs[0].feeType"]["constraint"]["enum"] == ["CROSS_CURRENCY_TRANSACTION"]


@pytest.mark.parametrize(
    "body, field",
    [
        ({"embeddedWalletConfig": {"otpLength": "6"}}, "embeddedWalletConfig.otpLength"),
        ({"embeddedWalletConfig": {"alphanumeric": "yes"}}, "embeddedWalletConfig.alphanumeric"),
        ({"supportedCurrencies": {"currencyCode": "USD"}}, "supportedCurrencies"),
        ({"embeddedWalletConfig": "x"}, "embeddedWalletConfig"),
    ],
)
def test_wrong_json_types_are_refused_not_coerced(api, body, field):
    response = api.patch("/config", body)
    errors = _assert_error_shape(response, 400, "INVALID_INPUT")["details"]["errors"]
    assert [e["field"] for e in errors] == [field]


def test_a_json_array_body_is_refused(api):
    response = api.patch("/config", [1, 2])
    _assert_error_shape(response, 400, "INVALID_INPUT")


def test_a_host_the_service_does_not_serve_answers_json_400(api):
    response = api.client.get("/api/2025-10-13/config", HTTP_HOST="|MzsR3[")
    _assert_error_shape(response, 400, "INVALID_INPUT")
    assert Client().get("/", HTTP_HOST="|MzsR3[").status_code == 400  # pages keep Django's own


def test_unknown_route_answers_json_404(api):
    _assert_error_shape(api.get("/no-such-thing"), 404, "NOT_FOUND")
    _assert_error_shape(api.client.get("/api/2025-10-13/no/such/thing/"), 404, "NOT_FOUND")


@pytest.mark.parametrize("method", ["get", "post", "put", "patch", "delete", "options"])
@pytest.mark.parametrize(
    "path",
    [
        "/api/2025-10-13/no-such-thing",
        "/api/2025-10-13/customers/x/y/z",
        "/api/2025-10-13/../../admin/",
        "/api/2025-10-13/customers/../config",
        "/api/2025-10-13",
        "/api/2024-01-01/config",
        "/api/",
    ],
)
def test_every_method_on_an_unknown_api_path_answers_json_404_even_with_csrf_checks(api, method, path):
    client = Client(
        enforce_csrf_checks=True, HTTP_AUTHORIZATION=api.client._credentials["HTTP_AUTHORIZATION"]
    )
    body = {} if method == "get" else {"data": "{}", "content_type": "application/json"}
    _assert_error_shape(getattr(client, method)(path, **body), 404, "NOT_FOUND")


@pytest.mark.parametrize(
    "method, path", [("delete", "/config"), ("post", "/transactions"), ("put", "/quotes")]
)
def test_a_wrong_method_on_a_known_path_answers_json_405_even_with_csrf_checks(api, method, path):
    client = Client(
        enforce_csrf_checks=True, HTTP_AUTHORIZATION=api.client._credentials["HTTP_AUTHORIZATION"]
    )
    response = getattr(client, method)("/api/2025-10-13" + path, "{}", content_type="application/json")
    _assert_error_shape(response, 405, "METHOD_NOT_ALLOWED")


def test_wrong_method_answers_json_405(api):
    body = _assert_error_shape(api.delete("/config"), 405, "METHOD_NOT_ALLOWED")
    assert "DELETE" in body["message"]


def test_oversized_body_answers_413(api):
    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000):
        response = api.patch("/config", {"umaDomain": "x" * 5000})
    _assert_error_shape(response, 413, "PAYLOAD_TOO_LARGE")


def test_unexpected_failure_answers_json_500_without_internals(api, monkeypatch):
    def boom(**kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr("payments.api.config.config_update", boom)
    api.client.raise_request_exception = False
    body = _assert_error_shape(api.patch("/config", {"umaDomain": "x.example"}), 500, "INTERNAL_ERROR")
    assert "secret internals" not in str(body)


def test_an_integer_field_without_bounds_refuses_what_no_integer_column_holds():
    """A request field that declares no bounds still answers 400, not a 500 at the INSERT (#13)."""
    from rest_framework import serializers

    from payments.errors import InvalidInput
    from payments.wire.parsing import INT64_MAX, INT64_MIN, ApiSerializer, parse_body

    class Body(ApiSerializer):
        count = serializers.IntegerField()
        counts = serializers.ListField(child=serializers.IntegerField(), required=False)

    assert parse_body(Body, {"count": INT64_MAX, "counts": [INT64_MIN]}) == {
        "count": INT64_MAX,
        "counts": [INT64_MIN],
    }
    for body, field, constraint in (
        ({"count": 2**63}, "count", {"maximum": INT64_MAX}),
        ({"count": -(2**70)}, "count", {"minimum": INT64_MIN}),
        ({"count": 1, "counts": [1, 2**70]}, "counts[1]", {"maximum": INT64_MAX}),
    ):
        with pytest.raises(InvalidInput) as refused:
            parse_body(Body, body)
        (error,) = refused.value.details["errors"]
        assert error["field"] == field
        assert constraint.items() <= error["constraint"].items()
