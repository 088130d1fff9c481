"""Settings whose defaults follow where `make run` serves (HOST, PORT)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from project.bench.live_system import ROOT


def _setting(name: str, tmp_path, **env: str):
    environment = {k: v for k, v in os.environ.items() if k != "WEBAUTHN_ALLOWED_ORIGINS"}
    environment.update(DATA_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="project.settings", **env)
    code = f"import json; from django.conf import settings; print(json.dumps(settings.{name}))"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_passkey_origins_follow_the_port_and_host(tmp_path):
    assert _setting("WEBAUTHN_ALLOWED_ORIGINS", tmp_path, PORT="8123") == [
        "http://localhost:8123",
        "http://127.0.0.1:8123",
    ]
    assert "http://sandbox.test:9000" in _setting(
        "WEBAUTHN_ALLOWED_ORIGINS", tmp_path, HOST="sandbox.test", PORT="9000"
    )
    assert _setting("WEBAUTHN_ALLOWED_ORIGINS", tmp_path, WEBAUTHN_ALLOWED_ORIGINS="https://a.test") == [
        "https://a.test"
    ]
