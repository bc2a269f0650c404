"""Static assets served by the gateway itself (no CDN): content-hashed URLs and per-brand theme CSS."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from sanic import Request
from sanic.exceptions import NotFound
from sanic.response import HTTPResponse, raw

from http_gateway.hosted_pages.branding import theme_css

CONTENT_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
_THEME = re.compile(r"theme-([0-9a-f]{6})\.css")
# URLs carry a content hash (?v=…), so a changed file is a new URL and the old one may be kept long.
_CACHE = "public, max-age=86400"
_THEME_CACHE = "public, max-age=31536000, immutable"  # the colour is the whole content


@dataclass(frozen=True, slots=True)
class Asset:
    body: bytes
    content_type: str
    version: str


def load_assets(directory: Path) -> dict[str, Asset]:
    assets: dict[str, Asset] = {}
    for path in sorted(directory.iterdir()):
        if path.suffix in CONTENT_TYPES:
            body = path.read_bytes()
            version = hashlib.sha256(body).hexdigest()[:12]
            assets[path.name] = Asset(body, CONTENT_TYPES[path.suffix], version)
    return assets


def _headers(cache: str) -> dict[str, str]:
    return {"Cache-Control": cache, "X-Content-Type-Options": "nosniff"}


class StaticAssets:
    """The files of one folder under one URL prefix, plus `theme-<hex>.css` for any brand colour."""

    def __init__(self, prefix: str, directory: Path) -> None:
        self.prefix = prefix
        self.assets = load_assets(directory)

    def url(self, name: str) -> str:
        return f"{self.prefix}/{name}?v={self.assets[name].version}"

    def theme_url(self, brand: str) -> str:
        return f"{self.prefix}/theme-{brand}.css"

    async def serve(self, request: Request, name: str) -> HTTPResponse:
        theme = _THEME.fullmatch(name)
        if theme is not None:
            css = theme_css(theme.group(1)).encode()
            return raw(css, content_type=CONTENT_TYPES[".css"], headers=_headers(_THEME_CACHE))
        asset = self.assets.get(name)
        if asset is None:
            raise NotFound(f"No asset {name!r}")
        return raw(asset.body, content_type=asset.content_type, headers=_headers(_CACHE))
