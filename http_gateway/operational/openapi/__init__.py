"""The REST contract: the OpenAPI 3.1 document served at GET /openapi.json, and how to read it.

openapi.json is generated from source/*.yaml by scripts/gen_openapi.py and committed, so the gateway
needs no YAML parser. Each operation lists its alias paths (`/connect/v1/…`, `/v1/…`) in `x-aliases`;
`documented_routes` expands them, which is what the route-coverage test compares with Sanic's router.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

DOCUMENT_PATH = Path(__file__).resolve().with_name("openapi.json")
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


@functools.cache
def _document() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DOCUMENT_PATH.read_text(encoding="utf-8"))
    return loaded


def document() -> dict[str, Any]:
    """A private copy of the document (callers may change it)."""
    return copy.deepcopy(_document())


def served_document(public_base_url: str) -> dict[str, Any]:
    """The document with `servers` naming this gateway's public address."""
    served = document()
    served["servers"] = [{"url": public_base_url or "/", "description": "This gateway."}]
    return served


def operations(doc: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(METHOD, canonical path, operation object) for every operation of `doc`."""
    for path, item in doc.get("paths", {}).items():
        for method in HTTP_METHODS:
            if method in item:
                yield method.upper(), path, item[method]


def documented_routes(doc: dict[str, Any]) -> set[tuple[str, str]]:
    """(METHOD, path) of every operation under its canonical path and each of its `x-aliases`."""
    routes: set[tuple[str, str]] = set()
    for method, path, operation in operations(doc):
        for each in (path, *operation.get("x-aliases", ())):
            routes.add((method, each))
    return routes
