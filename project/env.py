"""Reading settings from the environment, and the development secrets file used when none are given."""

from __future__ import annotations

import base64
import json
import os
import secrets
from pathlib import Path

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, *, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f"{name} must be a boolean (1/0, true/false), got {raw!r}")


def env_int(name: str, *, default: int) -> int:
    raw = os.environ.get(name)
    return default if raw is None or raw == "" else int(raw)


def env_list(name: str, *, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def load_or_create_dev_secrets(data_dir: Path) -> dict[str, str]:
    """Secrets for sandbox runs without configuration: generated once, kept in the data directory."""
    path = data_dir / "dev-secrets.json"
    if path.exists():
        return json.loads(path.read_text())
    data_dir.mkdir(parents=True, exist_ok=True)
    values = {
        "SECRET_KEY": secrets.token_urlsafe(50),
        "SERVICE_SECRETS_KEY": base64.urlsafe_b64encode(secrets.token_bytes(32)).decode(),
    }
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        json.dump(values, fh)
    try:
        os.link(tmp, path)  # first writer wins when several processes start at once
    except FileExistsError:
        pass
    tmp.unlink(missing_ok=True)
    return json.loads(path.read_text())
