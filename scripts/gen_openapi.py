#!/usr/bin/env python3
"""Bundle http_gateway/operational/openapi/source/*.yaml into its openapi.json (the served document).

The YAML files are the source (one per area, with YAML anchors for repeated parts); the JSON is
generated and committed so the gateway serves it without a YAML parser. `--check` exits 1 when the
committed JSON differs from a fresh bundle (tests run it, like `make protos-check`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
SOURCE_DIR = ROOT / "http_gateway" / "operational" / "openapi" / "source"
OUTPUT = ROOT / "http_gateway" / "operational" / "openapi" / "openapi.json"
ANCHORS_KEY = "x-anchors"  # each file's home for YAML anchors; not part of the document


def _merge(into: dict[str, Any], extra: dict[str, Any], where: str) -> None:
    """Deep-merge mappings; the same leaf defined in two files is an error, never a silent override."""
    for key, value in extra.items():
        if key in into and isinstance(into[key], dict) and isinstance(value, dict):
            _merge(into[key], value, f"{where}/{key}")
        elif key in into:
            raise SystemExit(f"error: {where}/{key} is defined in more than one source file")
        else:
            into[key] = value


def bundle(source_dir: Path = SOURCE_DIR) -> dict[str, Any]:
    document: dict[str, Any] = {}
    for path in sorted(source_dir.glob("*.yaml")):
        part = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        part.pop(ANCHORS_KEY, None)
        _merge(document, part, path.name)
    # Round-trip through JSON: anchors become plain copies and no YAML-only type survives.
    document = json.loads(json.dumps(document))
    for operation in _operations(document):
        body = operation.get("requestBody", {}).get("content", {}).get("application/json")
        if body is not None:
            _optional_fields_take_null(body["schema"])
    return document


def _operations(document: dict[str, Any]) -> list[dict[str, Any]]:
    methods = ("get", "put", "post", "patch", "delete")
    return [op for item in document.get("paths", {}).values() for m, op in item.items() if m in methods]


def _optional_fields_take_null(schema: dict[str, Any]) -> None:
    """The gateway reads an explicit `null` as an absent field (http_gateway/edge/validation.py, one rule
    for every JSON body), so every optional property of a JSON request body says it takes null, at any
    depth. Applied here, once, rather than spelled out on each field of the YAML source."""
    required = set(schema.get("required", ()))
    for name, prop in schema.get("properties", {}).items():
        if prop.get("type") == "object":
            _optional_fields_take_null(prop)
        if name not in required:
            schema["properties"][name] = _nullable(prop)


def _nullable(prop: dict[str, Any]) -> dict[str, Any]:
    kind = prop.get("type")
    if isinstance(kind, str) or (isinstance(kind, list) and "null" not in kind):
        prop = {**prop, "type": [*([kind] if isinstance(kind, str) else kind), "null"]}
        if "enum" in prop and None not in prop["enum"]:
            prop["enum"] = [*prop["enum"], None]
        return prop
    if kind is None:
        return {"anyOf": [prop, {"type": "null"}]}
    return prop


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if openapi.json is stale")
    args = parser.parse_args(argv)
    text = render(bundle())
    if args.check:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print(f"error: {OUTPUT.relative_to(ROOT)} is stale; run `make openapi`", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
