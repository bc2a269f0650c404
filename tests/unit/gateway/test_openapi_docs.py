"""`make docs`: the rendered reference names every operation and object and loads nothing from elsewhere."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from http_gateway.operational.openapi import document, operations

ROOT = Path(__file__).resolve().parents[3]


def _renderer():
    spec = importlib.util.spec_from_file_location("render_api_docs", ROOT / "scripts" / "render_api_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_covers_every_operation_and_schema_offline(tmp_path):
    output = tmp_path / "api.html"
    assert _renderer().main(["--output", str(output)]) == 0
    html = output.read_text(encoding="utf-8")
    doc = document()
    for method, path, operation in operations(doc):
        assert f'id="{operation["operationId"]}"' in html, (method, path)
        assert f"{method}</span>{path}</div>" in html, (method, path)
        for alias in operation["x-aliases"]:
            assert f"<code>{alias}</code>" in html
    for name in doc["components"]["schemas"]:
        assert f'id="schema-{name}"' in html
    # Offline: no scripts, stylesheets, images or fonts fetched from anywhere.
    assert not re.search(r"<(script|link|img|iframe)\b", html)
    assert not re.search(r"url\(|@import", html)


def test_prose_escapes_html_and_keeps_code():
    prose = _renderer().prose
    assert str(prose("a `<b>` **c**")) == "<p>a <code>&lt;b&gt;</code> <strong>c</strong></p>"
