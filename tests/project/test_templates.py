"""Every template of the project: nothing in one prints as raw template text."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)
# Django's `{# … #}` comment is one line only: one that goes on past the line end is printed as text.
UNCLOSED_COMMENT = re.compile(r"\{#(?![^\n]*#\})")


def templates() -> list[Path]:
    return [
        path
        for folder in ("templates", "payments", "wallets", "project")
        for path in (ROOT / folder).rglob("*.html")
        if "templates" in path.parts
    ]


def test_no_template_has_a_comment_that_spans_lines():
    assert len(templates()) >= 30
    found = [
        f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, match.start()) + 1}"
        for path in templates()
        for text in [path.read_text(encoding="utf-8")]
        for match in UNCLOSED_COMMENT.finditer(text)
    ]
    assert not found, f"use {{% comment %}} for comments over several lines: {found}"


def test_the_check_finds_a_comment_that_spans_lines():
    assert UNCLOSED_COMMENT.search("<p>{# a note\n that goes on #}</p>")
    assert not UNCLOSED_COMMENT.search("<p>{# a note #}</p>\n{% comment %}long\nnote{% endcomment %}")
