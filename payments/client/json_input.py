"""The one reader of JSON that comes from outside (request bodies, stamps, tokens, webhook answers),
for the service and the portal alike; like the rest of the client it imports nothing of the service.

It refuses, with the path of the offending value, what would otherwise fail deep inside the service:
nesting beyond MAX_DEPTH (the decoder recurses, ~1,500 levels exhaust the stack), and NUL characters or
unpaired surrogates in any string or key (PostgreSQL cannot store them, UTF-8 cannot encode them)."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from itertools import accumulate
from typing import Any

MAX_DEPTH = 64
# A string literal (an unterminated one runs to the end, where the decoder stops too): brackets inside
# strings nest nothing. Possessive, and matching at every quote, so the scan stays linear; a run of
# plain characters is one step of the inner loop (three times faster than a step per character).
_STRING = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
# A NUL or surrogate can only reach a parsed string through a \u escape (raw ones are invalid JSON or
# invalid UTF-8), so bodies without such an escape skip the walk over every string.
_SUSPECT_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F])")
_BAD_CHARACTER = re.compile("[\x00\ud800-\udfff]")
TEXT_CONSTRAINT = {"pattern": "^[^\\u0000\\uD800-\\uDFFF]*$"}


class JsonRefused(ValueError):
    """Not JSON the service accepts. `path` names the offending value ("" is the whole document)."""

    def __init__(self, message: str, *, path: str = "", constraint: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.constraint = constraint or {}


def loads(data: bytes | str, **options: Any) -> Any:
    """`json.loads` after a flat scan of the nesting depth, then a check of every string and key.
    `options` go to `json.loads` (object_pairs_hook, parse_constant); NaN and Infinity are refused."""
    options.setdefault("parse_constant", _no_constant)
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    # Nothing nests deeper than it has opening brackets, so most documents need no scan.
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and (depth := _depth(raw)) > MAX_DEPTH:
        raise JsonRefused(
            f"JSON is nested {depth} levels deep; at most {MAX_DEPTH} are accepted",
            constraint={"maxDepth": MAX_DEPTH},
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise JsonRefused("JSON must be encoded as UTF-8") from None
    try:
        if text.startswith("\ufeff"):  # what json.loads says before it decodes
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        value = _decoder(tuple(sorted(options.items()))).decode(text)
    except RecursionError:  # a hook may nest deeper than the scan can see; never a 500
        raise JsonRefused(f"JSON is nested more than {MAX_DEPTH} levels deep") from None
    except ValueError as exc:
        raise JsonRefused(f"Malformed JSON: {exc}") from None
    if _SUSPECT_ESCAPE.search(text):
        _check_strings(value)
    return value


def loads_object(data: bytes | str, **options: Any) -> dict[str, Any]:
    """A request body: `loads`, and the document must be a JSON object."""
    value = loads(data, **options)
    if not isinstance(value, dict):
        raise JsonRefused("The request body must be a JSON object", constraint={"type": "object"})
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


@lru_cache(maxsize=16)
def _decoder(options: tuple[tuple[str, Any], ...]) -> json.JSONDecoder:
    """A decoder per set of options, built once: `json.loads` with options builds one per call, which
    costs as much as decoding a small document."""
    return json.JSONDecoder(**dict(options))


def _depth(raw: bytes) -> int:
    brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def _check_strings(value: Any) -> None:
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if _BAD_CHARACTER.search(item):
                raise _bad_text(path, "value")
        elif isinstance(item, dict):
            for key, sub in item.items():
                sub_path = f"{path}.{_printable(key)}" if path else _printable(key)
                if _BAD_CHARACTER.search(key):
                    raise _bad_text(sub_path, "key")
                stack.append((sub, sub_path))
        elif isinstance(item, list):
            stack.extend((sub, f"{path}[{i}]") for i, sub in enumerate(item))


def _printable(key: str) -> str:
    """The key as a path segment, with NUL and surrogates shown as their \\u escapes."""
    return _BAD_CHARACTER.sub(lambda m: f"\\u{ord(m.group()):04x}", key)


def _bad_text(path: str, what: str) -> JsonRefused:
    return JsonRefused(
        f"A JSON {what} must not contain NUL characters or unpaired surrogates",
        path=path,
        constraint=TEXT_CONSTRAINT,
    )
