"""The OpenAPI document names our API token authentication (HTTP Basic) on each operation (an agent's
Bearer token on the agent's own, `/agents/me`), and making
the document (the docs page's first request) warns nothing: not about it, not about anything else."""

import pytest
import yaml
from drf_spectacular.drainage import GENERATOR_STATS

pytestmark = pytest.mark.django_db


def test_the_first_docs_request_warns_nothing(client, capsys):
    GENERATOR_STATS.reset()  # drf-spectacular prints each warning once per process
    capsys.readouterr()
    response = client.get("/api/2025-10-13/openapi.yaml")
    assert response.status_code == 200
    assert not GENERATOR_STATS, "drf-spectacular warned or failed while making the document"
    assert "Warning" not in capsys.readouterr().err
    document = yaml.safe_load(response.content)
    assert document["components"]["securitySchemes"]["BasicAuth"] == {
        "type": "http",
        "scheme": "basic",
        "description": "`<api token clientId>:<api token secret>`",
    }
    security = [
        (path, operation.get("security"))
        for path, item in document["paths"].items()
        for operation in item.values()
        if isinstance(operation, dict)
    ]
    authenticated = [(path, s) for path, s in security if s is not None]  # None: a public operation
    assert len(authenticated) > len(security) / 2
    for path, s in authenticated:
        scheme = "AgentAuth" if path.startswith("/agents/me") else "BasicAuth"
        assert s == [{scheme: []}], path
