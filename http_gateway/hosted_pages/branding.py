"""A merchant's brand colour, checked (it goes into a stylesheet URL) and turned into theme CSS."""

from __future__ import annotations

import re

# A neutral slate for merchants without a (valid) brand colour.
DEFAULT_BRAND = "334155"
_HEX_COLOR = re.compile(r"#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})")


def brand_hex(value: str | None) -> str:
    """The brand colour as six lowercase hex digits (no '#'); anything else falls back to the default."""
    match = _HEX_COLOR.fullmatch(value or "")
    if match is None:
        return DEFAULT_BRAND
    digits = match.group(1).lower()
    return "".join(c * 2 for c in digits) if len(digits) == 3 else digits


def brand_text_hex(brand: str) -> str:
    """White or near-black text on the brand colour, whichever contrasts more (WCAG luminance)."""

    def channel(i: int) -> float:
        c = int(brand[i : i + 2], 16) / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    lum = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4)
    dark_lum = 0.0116  # #111827
    return "ffffff" if 1.05 / (lum + 0.05) >= (lum + 0.05) / (dark_lum + 0.05) else "111827"


def theme_css(brand: str) -> str:
    """Custom properties of one brand colour: a stylesheet, because the CSP forbids inline styles."""
    return f":root {{\n  --brand: #{brand};\n  --brand-text: #{brand_text_hex(brand)};\n}}\n"
