import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from tests.conftest import API, basic

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_create_platform_prints_working_credentials():
    out = io.StringIO()
    call_command("create_platform", "--name", "Scripted", stdout=out)
    created = json.loads(out.getvalue())
    assert set(created) == {"platformId", "clientId", "clientSecret"}
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic(created["clientId"], created["clientSecret"]))
    body = client.get(f"{API}/config").json()
    assert body["id"] == created["platformId"]


def test_production_mode_without_keys_refuses_to_start(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "SERVICE_SECRETS_KEY")}
    env.update(SERVICE_ENVIRONMENT="production", DATA_DIR=str(tmp_path))
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode != 0
    assert "SECRET_KEY must be set in production mode" in result.stderr
