"""The API's JSON body parser: every body goes through payments.client.json_input, and must be an object."""

from __future__ import annotations

from typing import Any

from rest_framework.parsers import JSONParser

from payments.client import json_input
from payments.errors import FieldError, InvalidInput


class JsonObjectParser(JSONParser):
    """UTF-8 JSON (RFC 8259), an object at the top, nested at most json_input.MAX_DEPTH levels, no NUL
    or unpaired surrogate in any string or key; anything else is a 400 naming the offending value."""

    def parse(self, stream, media_type=None, parser_context=None) -> dict[str, Any]:
        try:
            return json_input.loads_object(stream.read())
        except json_input.JsonRefused as exc:
            raise InvalidInput(
                exc.message, errors=[FieldError(exc.path or "body", exc.message, exc.constraint)]
            ) from None
