"""The portal's stylesheet and per-brand theme CSS, served by the hosted-pages kit."""

from __future__ import annotations

from pathlib import Path

from http_gateway.hosted_pages.assets import StaticAssets

PREFIX = "/portal-assets"
STATIC_DIR = Path(__file__).resolve().parent / "static"
STATIC = StaticAssets(PREFIX, STATIC_DIR)
theme_url = STATIC.theme_url
serve_asset = STATIC.serve


def stylesheet_url() -> str:
    return STATIC.url("portal.css")
