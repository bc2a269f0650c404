"""Rules for the free-form inputs several contexts accept: URLs, e-mail addresses and metadata (spec
limits). Shared here so merchants, billing and payments check them alike without importing each other."""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from core_server.kernel.domain.errors import ParameterInvalid

MAX_URL = 500
MAX_METADATA_KEYS = 50
MAX_METADATA_KEY = 40
MAX_METADATA_VALUE = 500
MAX_EMAIL = 254

_EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_WHITESPACE = re.compile(r"\s")  # str.isspace()'s characters (Unicode whitespace), found in C


def validate_url(value: str, param: str) -> str:
    """Absolute http(s) URL with a host, at most 500 characters."""
    if len(value) > MAX_URL:
        raise ParameterInvalid(f"{param} must be at most {MAX_URL} characters.", param=param)
    try:
        parts = urlsplit(value)
    except ValueError as exc:
        raise ParameterInvalid(f"{param} must be a valid URL.", param=param) from exc
    if parts.scheme not in ("http", "https") or not parts.netloc or _WHITESPACE.search(value):
        raise ParameterInvalid(f"{param} must be an absolute http(s) URL.", param=param)
    return value


def validate_email(value: str, param: str) -> str:
    if len(value) > MAX_EMAIL or not _EMAIL_RE.match(value):
        raise ParameterInvalid(f"{param} must be a valid e-mail address.", param=param)
    return value


def validate_metadata(metadata: Mapping[str, str]) -> dict[str, str]:
    """At most 50 keys, key ≤ 40 characters, value a string ≤ 500 characters."""
    if len(metadata) > MAX_METADATA_KEYS:
        raise ParameterInvalid(f"metadata may have at most {MAX_METADATA_KEYS} keys.", param="metadata")
    for key, value in metadata.items():
        if not key or len(key) > MAX_METADATA_KEY:
            raise ParameterInvalid(
                f"metadata keys must be 1 to {MAX_METADATA_KEY} characters.", param=f"metadata[{key}]"
            )
        if len(value) > MAX_METADATA_VALUE:
            raise ParameterInvalid(
                f"metadata values must be at most {MAX_METADATA_VALUE} characters.", param=f"metadata[{key}]"
            )
    return dict(metadata)
