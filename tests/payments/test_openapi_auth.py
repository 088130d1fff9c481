"""The OpenAPI document names our API token authentication (HTTP Basic) on each operation, and making
the document (the docs page's first request) warns nothing about it."""

import pytest
import yaml

pytestmark = pytest.mark.django_db


def test_the_first_docs_request_does_not_warn_about_our_authentication(client, capsys):
    capsys.readouterr()
    response = client.get("/api/2025-10-13/openapi.yaml")
    assert response.status_code == 200
    assert "could not resolve authenticator" not in capsys.readouterr().err
    document = yaml.safe_load(response.content)
    assert document["components"]["securitySchemes"]["BasicAuth"] == {
        "type": "http",
        "scheme": "basic",
        "description": "`<api token clientId>:<api token secret>`",
    }
    security = [
        operation.get("security")
        for path in document["paths"].values()
        for operation in path.values()
        if isinstance(operation, dict)
    ]
    authenticated = [s for s in security if s is not None]  # None: a public operation
    assert len(authenticated) > len(security) / 2
    assert all(s == [{"BasicAuth": []}] for s in authenticated)
