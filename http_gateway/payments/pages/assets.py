"""The checkout pages' CSS and JS, served by the gateway itself (no CDN), plus the per-brand theme CSS."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from sanic import Request
from sanic.exceptions import NotFound
from sanic.response import HTTPResponse, raw

from http_gateway.payments.pages.view import brand_text_hex

PREFIX = "/checkout-assets"
STATIC_DIR = Path(__file__).resolve().parent / "static"
_CONTENT_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
_THEME = re.compile(r"theme-([0-9a-f]{6})\.css")
# URLs carry a content hash (?v=…), so a changed file is a new URL and the old one may be kept long.
_CACHE = "public, max-age=86400"
_THEME_CACHE = "public, max-age=31536000, immutable"  # the colour is the whole content


@dataclass(frozen=True, slots=True)
class Asset:
    body: bytes
    content_type: str
    version: str


def _load() -> dict[str, Asset]:
    assets: dict[str, Asset] = {}
    for path in sorted(STATIC_DIR.iterdir()):
        if path.suffix in _CONTENT_TYPES:
            body = path.read_bytes()
            assets[path.name] = Asset(
                body, _CONTENT_TYPES[path.suffix], hashlib.sha256(body).hexdigest()[:12]
            )
    return assets


ASSETS: dict[str, Asset] = _load()


def asset_url(name: str) -> str:
    return f"{PREFIX}/{name}?v={ASSETS[name].version}"


def theme_url(brand: str) -> str:
    return f"{PREFIX}/theme-{brand}.css"


def theme_css(brand: str) -> str:
    """Custom properties of one brand colour: a stylesheet, because the CSP forbids inline styles."""
    return f":root {{\n  --brand: #{brand};\n  --brand-text: #{brand_text_hex(brand)};\n}}\n"


def _headers(cache: str) -> dict[str, str]:
    return {"Cache-Control": cache, "X-Content-Type-Options": "nosniff"}


async def serve_asset(request: Request, name: str) -> HTTPResponse:
    theme = _THEME.fullmatch(name)
    if theme is not None:
        css = theme_css(theme.group(1)).encode()
        return raw(css, content_type=_CONTENT_TYPES[".css"], headers=_headers(_THEME_CACHE))
    asset = ASSETS.get(name)
    if asset is None:
        raise NotFound(f"No asset {name!r}")
    return raw(asset.body, content_type=asset.content_type, headers=_headers(_CACHE))
