"""The checkout pages' CSS and JS and the per-brand theme CSS, served by the hosted-pages kit."""

from __future__ import annotations

from pathlib import Path

from http_gateway.hosted_pages.assets import Asset, StaticAssets
from http_gateway.hosted_pages.branding import theme_css

PREFIX = "/checkout-assets"
STATIC_DIR = Path(__file__).resolve().parent / "static"
STATIC = StaticAssets(PREFIX, STATIC_DIR)
ASSETS: dict[str, Asset] = STATIC.assets
asset_url = STATIC.url
theme_url = STATIC.theme_url
serve_asset = STATIC.serve

__all__ = ["ASSETS", "PREFIX", "Asset", "asset_url", "serve_asset", "theme_css", "theme_url"]
