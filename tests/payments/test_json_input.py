"""JSON from outside: nesting beyond 64 levels, NUL and unpaired surrogates, and non-object bodies are
400s naming what was refused, on the API and the portal alike; never a 500, never a stored row."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payments.client import json_input
from payments.models import Customer, ExternalAccount
from tests import factories
from tests.conftest import API
from tests.payments.kyc_support import individual

DEEP = "[" * 5000 + "]" * 5000


def json_values(text: st.SearchStrategy[str]) -> st.SearchStrategy:
    return st.recursive(
        st.none() | st.booleans() | st.integers() | text,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
        max_leaves=20,
    )


clean_text = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\x00"), max_size=8)
any_text = st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from('\x00[]{}"\\'), max_size=8)


def _nested(depth: int) -> str:
    return '{"a": ' * depth + '"[{[{"' + "}" * depth


@given(json_values(clean_text))
def test_what_the_reader_accepts_it_reads_like_the_standard_decoder(value):
    text = json.dumps(value, ensure_ascii=False)
    assert json_input.loads(text) == json.loads(text)
    assert json_input.loads(text.encode()) == json.loads(text)


@given(json_values(any_text))
def test_a_document_is_refused_exactly_when_a_string_or_key_holds_a_nul(value):
    text = json.dumps(value)
    try:
        json_input.loads(text)
        refused = False
    except json_input.JsonRefused:
        refused = True
    assert refused == ("\\u0000" in text)


@pytest.mark.parametrize("depth", [1, 63, 64])
def test_nesting_up_to_the_limit_is_read_and_brackets_inside_strings_do_not_count(depth):
    assert json_input.loads(_nested(depth)) == json.loads(_nested(depth))


@pytest.mark.parametrize("text", [_nested(65), DEEP, "[" * 200_000])
def test_nesting_beyond_the_limit_is_refused_before_decoding(text):
    with pytest.raises(json_input.JsonRefused) as refused:
        json_input.loads(text)
    assert refused.value.constraint == {"maxDepth": 64}


@pytest.mark.parametrize(
    "text, path",
    [
        ('{"a": "x\\u0000"}', "a"),
        ('{"a": {"b\\u0000c": 1}}', "a.b\\u0000c"),
        ('[1, {"b": ["ok", "\\udc00"]}]', "[1].b[1]"),
        ('{"k\\ud800": true}', "k\\ud800"),
        ('"\\ud83d"', ""),
    ],
)
def test_nul_and_unpaired_surrogates_are_refused_with_their_path(text, path):
    with pytest.raises(json_input.JsonRefused) as refused:
        json_input.loads(text)
    assert refused.value.path == path


@given(st.text(alphabet='[]{}"\\a', max_size=150))
def test_the_depth_is_what_a_character_walk_outside_strings_finds(text):
    """The scan (a regex that skips string literals) against the plain definition."""
    depths = [0]
    in_string = escaped = False
    for char in text:
        if in_string:
            in_string, escaped = (escaped or char != '"'), (not escaped and char == "\\")
        elif char == '"':
            in_string = True
        elif char in "[]{}":
            depths.append(depths[-1] + (1 if char in "[{" else -1))
    assert json_input._depth(text.encode()) == max(depths[1:], default=0)


@pytest.mark.parametrize("text", ["\ufeff{}", "\ufeff[1]", "[1] x", "{'a': 1}", "NaN", "[Infinity]"])
def test_malformed_json_is_refused_with_the_standard_decoders_message(text):
    """The reader keeps one decoder per set of options; its messages stay those of `json.loads`."""
    with pytest.raises(json_input.JsonRefused) as refused:
        json_input.loads(text)
    try:
        json.loads(text, parse_constant=json_input._no_constant)
    except ValueError as exc:
        expected = str(exc)
    assert refused.value.message == f"Malformed JSON: {expected}"


def test_a_surrogate_pair_is_a_character_and_is_read():
    assert json_input.loads('{"emoji": "\\ud83d\\ude00"}') == {"emoji": "\U0001f600"}


# --- the API ---------------------------------------------------------------------------------------


def _refused(response, field="body"):
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["status"] == 400 and body["code"] == "INVALID_INPUT"
    assert [e["field"] for e in body["details"]["errors"]] == [field]
    return body["details"]["errors"][0]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "method, path",
    [
        ("patch", "/config"),
        ("post", "/customers"),
        ("post", "/quotes"),
        ("post", "/customers/external-accounts"),
        ("post", "/auth/credentials"),
        ("post", "/tokens"),
    ],
)
def test_deep_json_answers_400_on_api_writes(api, method, path):
    response = getattr(api.client, method)(API + path, DEEP, content_type="application/json")
    assert _refused(response)["constraint"] == {"maxDepth": 64}


@pytest.mark.django_db
def test_nul_in_a_free_form_account_field_is_refused_and_nothing_is_stored(api):
    body = {
        "currency": "USD",
        "accountInfo": {
            "accountType": "USD_ACCOUNT",
            "accountNumber": "123456789",
            "routingNumber": "021000021",
            "bankName": "Bank\u0000",
            "beneficiary": {"beneficiaryType": "INDIVIDUAL", "fullName": "Jane Doe"},
        },
    }
    error = _refused(api.post("/customers/external-accounts", body), "accountInfo.bankName")
    assert error["constraint"] == json_input.TEXT_CONSTRAINT
    body["accountInfo"]["bankName"] = "Bank"
    body["accountInfo"]["beneficiary"]["fullName"] = "Jane \ud800"
    raw = json.dumps(body)  # ensure_ascii writes the lone surrogate as an escape, as a client would
    response = api.client.post(API + "/customers/external-accounts", raw, content_type="application/json")
    _refused(response, "accountInfo.beneficiary.fullName")
    assert not ExternalAccount.objects.exists()


@pytest.mark.django_db
def test_nul_in_a_free_form_key_is_refused(api):
    raw = '{"source": {"sourceType": "ACCOUNT"}, "senderCustomerInfo": {"name\\u0000": "x"}}'
    response = api.client.post(API + "/quotes", raw, content_type="application/json")
    _refused(response, "senderCustomerInfo.name\\u0000")


@pytest.mark.django_db
@pytest.mark.parametrize("raw", ["null", "[]", "[{}]", '"x"', "12", "true"])
def test_a_body_that_is_not_an_object_answers_400(api, raw):
    customer = factories.CustomerFactory(platform=api.platform)
    for path in (f"/customers/Customer:{customer.pk}/kyc-link", "/customers", "/config"):
        method = api.client.patch if path == "/config" else api.client.post
        error = _refused(method(API + path, raw, content_type="application/json"))
        assert error["constraint"] == {"type": "object"}
    assert Customer.objects.count() == 1


@pytest.mark.django_db
def test_every_api_write_refuses_deep_json_without_a_server_error(api):
    """Whatever each write checks first (path ids, permissions), deep JSON never reaches the decoder."""
    from payments.models import Customer
    from tests.payments.agent_support import AgentApi, connected_agent
    from tests.payments.test_openapi import _implemented_operations

    customer = api.post("/customers", individual()).json()
    _, token = connected_agent(api, Customer.objects.get(pk=customer["id"].split(":")[1]))
    agent_client = AgentApi(token).client  # the agent's own operations take its token
    for route, method in sorted(_implemented_operations()):
        if method not in ("POST", "PATCH", "PUT"):
            continue
        path = route.replace("{customerId}", customer["id"])
        client = agent_client if path.startswith("/agents/me") else api.client
        response = getattr(client, method.lower())(API + path, DEEP, content_type="application/json")
        assert response.status_code in (400, 404, 415), (method, path, response.content[:200])


# --- the portal ------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("raw", [DEEP, '{"email": "a@b.example\\u0000"}', "not json"])
def test_portal_json_posts_answer_400_in_the_portals_shape(client, raw):
    response = client.post("/login/passkey/options/", raw, content_type="application/json")
    assert response.status_code == 400
    assert "cannot read" in response.json()["error"]
