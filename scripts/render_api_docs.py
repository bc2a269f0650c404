#!/usr/bin/env python3
"""Render the OpenAPI document into one static, offline HTML reference page (`make docs`).

Reads http_gateway/operational/openapi/openapi.json and writes docs/api-reference.html: every operation
grouped by tag with its aliases, credential, parameters, request body and responses, then every schema.
CSS is inline and nothing is loaded from elsewhere, so the file works from disk or any static host.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup, escape

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = ROOT / "http_gateway" / "operational" / "openapi" / "openapi.json"
TEMPLATES = Path(__file__).resolve().parent / "templates"
OUTPUT = ROOT / "docs" / "api-reference.html"
METHODS = ("get", "post", "put", "patch", "delete")
_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*([^*]+)\*\*")


def prose(text: str | None) -> Markup:
    """The document's small Markdown subset: paragraphs, `code` and **bold**; everything else escaped."""
    if not text:
        return Markup("")
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    html = []
    for paragraph in paragraphs:
        body = str(escape(" ".join(paragraph.split())))
        body = _CODE.sub(r"<code>\1</code>", body)
        body = _BOLD.sub(r"<strong>\1</strong>", body)
        html.append(f"<p>{body}</p>")
    return Markup("".join(html))


class Resolver:
    """Follows local `$ref`s and describes schemas as rows (name, type, required, notes, depth)."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document

    def deref(self, node: dict[str, Any]) -> dict[str, Any]:
        while isinstance(node, dict) and "$ref" in node:
            target: Any = self.document
            for part in node["$ref"].lstrip("#/").split("/"):
                target = target[part]
            node = target
        return node

    @staticmethod
    def ref_name(node: dict[str, Any]) -> str | None:
        ref = node.get("$ref") if isinstance(node, dict) else None
        return ref.rsplit("/", 1)[1] if ref else None

    def type_of(self, schema: dict[str, Any]) -> str:
        name = self.ref_name(schema)
        if name:
            return name
        if "const" in schema:
            return json.dumps(schema["const"])
        if "enum" in schema:
            return " | ".join(json.dumps(v) for v in schema["enum"])
        if "anyOf" in schema:
            return " | ".join(self.type_of(s) for s in schema["anyOf"])
        kind = schema.get("type", "any")
        kinds = kind if isinstance(kind, list) else [kind]
        if "array" in kinds:
            return f"array of {self.type_of(schema.get('items', {}))}"
        return " | ".join(kinds)

    @staticmethod
    def notes(schema: dict[str, Any]) -> str:
        limits = []
        for key, label in (
            ("minimum", "≥"),
            ("maximum", "≤"),
            ("minLength", "min length"),
            ("maxLength", "max length"),
            ("maxProperties", "max keys"),
            ("minItems", "min items"),
            ("maxItems", "max items"),
            ("pattern", "pattern"),
            ("default", "default"),
        ):
            if key in schema:
                limits.append(f"{label} {schema[key]}")
        text = schema.get("description", "")
        suffix = f"({', '.join(limits)})" if limits else ""
        return f"{text} {suffix}".strip()

    def rows(self, schema: dict[str, Any], depth: int = 0, seen: frozenset[str] = frozenset()) -> list[dict]:
        """Property rows of an object schema; inline nested objects expand, named schemas link."""
        schema = self.deref(schema) if depth == 0 else schema
        out = []
        required = set(schema.get("required", []))
        for name, prop in schema.get("properties", {}).items():
            out.append(
                {
                    "name": name,
                    "type": self.type_of(prop),
                    "required": name in required,
                    "notes": self.notes(prop),
                    "depth": depth,
                    "link": self.ref_name(prop),
                }
            )
            if "$ref" not in prop and prop.get("type") == "object" and prop.get("properties") and depth < 4:
                out.extend(self.rows(prop, depth + 1, seen))
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            out.append(
                {
                    "name": "<any key>",
                    "type": self.type_of(extra),
                    "required": False,
                    "notes": self.notes(extra),
                    "depth": depth,
                    "link": self.ref_name(extra),
                }
            )
        return out


def operations_by_tag(document: dict[str, Any], resolver: Resolver) -> list[tuple[dict, list[dict]]]:
    tags: dict[str, tuple[dict, list[dict]]] = {tag["name"]: (tag, []) for tag in document.get("tags", [])}
    for path, item in document["paths"].items():
        for method in METHODS:
            if method not in item:
                continue
            operation = item[method]
            parameters = [resolver.deref(p) for p in operation.get("parameters", [])]
            body = operation.get("requestBody")
            content = next(iter(body["content"].items())) if body else None
            responses = []
            for status, response in operation["responses"].items():
                resolved = resolver.deref(response)
                media = []
                for kind, media_type in resolved.get("content", {}).items():
                    schema = media_type.get("schema", {})
                    media.append((kind, resolver.ref_name(schema) or resolver.type_of(schema)))
                description = resolved.get("description", "")
                responses.append({"status": status, "description": description, "media": media})
            tags[operation["tags"][0]][1].append(
                {
                    "method": method.upper(),
                    "path": path,
                    "op": operation,
                    "parameters": parameters,
                    "body": content
                    and {
                        "media": content[0],
                        "required": body.get("required", False),
                        "rows": resolver.rows(content[1]["schema"]),
                        "examples": content[1].get("examples", {}),
                    },
                    "responses": responses,
                }
            )
    return [(tag, ops) for tag, ops in tags.values() if ops]


def render(document: dict[str, Any]) -> str:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["prose"] = prose
    env.filters["json"] = lambda value: json.dumps(value, indent=2, ensure_ascii=False)
    resolver = Resolver(document)
    schemas = [
        (name, schema, resolver.rows(schema)) for name, schema in document["components"]["schemas"].items()
    ]
    return env.get_template("api_reference.html.j2").render(
        info=document["info"],
        groups=operations_by_tag(document, resolver),
        schemas=schemas,
        schemes=document["components"]["securitySchemes"],
        type_of=resolver.type_of,
        schema_names=set(document["components"]["schemas"]),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    html = render(json.loads(DOCUMENT.read_text(encoding="utf-8")))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(html, encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
