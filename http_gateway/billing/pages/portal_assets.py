"""The portal's stylesheet and per-brand theme CSS, served by the gateway itself (no CDN)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from sanic import Request
from sanic.exceptions import NotFound
from sanic.response import HTTPResponse, raw

from http_gateway.billing.pages.portal_view import brand_text_hex

PREFIX = "/portal-assets"
STATIC_DIR = Path(__file__).resolve().parent / "static"
_CSS = "text/css; charset=utf-8"
_THEME = re.compile(r"theme-([0-9a-f]{6})\.css")
_STYLESHEET = (STATIC_DIR / "portal.css").read_bytes()
_VERSION = hashlib.sha256(_STYLESHEET).hexdigest()[:12]
# The stylesheet URL carries its content hash, so it may be cached; the theme's colour is its content.
_HEADERS = {"Cache-Control": "public, max-age=86400", "X-Content-Type-Options": "nosniff"}
_THEME_HEADERS = {"Cache-Control": "public, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff"}


def stylesheet_url() -> str:
    return f"{PREFIX}/portal.css?v={_VERSION}"


def theme_url(brand: str) -> str:
    return f"{PREFIX}/theme-{brand}.css"


async def serve_asset(request: Request, name: str) -> HTTPResponse:
    theme = _THEME.fullmatch(name)
    if theme is not None:
        brand = theme.group(1)
        css = f":root {{\n  --brand: #{brand};\n  --brand-text: #{brand_text_hex(brand)};\n}}\n"
        return raw(css.encode(), content_type=_CSS, headers=_THEME_HEADERS)
    if name != "portal.css":
        raise NotFound(f"No asset {name!r}")
    return raw(_STYLESHEET, content_type=_CSS, headers=_HEADERS)
