"""The reference interface document, found relative to the repository: `shared/` sits beside it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

REFERENCE = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "openapi.yaml"


def reference_document() -> dict[str, Any]:
    """The parsed reference, a fresh copy each call (callers may change it)."""
    return yaml.safe_load(REFERENCE.read_text())
