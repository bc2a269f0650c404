"""The supported Service-Version values: the one place that lists them."""

from __future__ import annotations

from connect import errors

from http_gateway.edge.errors import ApiError

# Oldest first; the last entry is the latest stable version, used when the header is absent.
SUPPORTED_VERSIONS: tuple[str, ...] = ("2024-11-01", "2025-06-01")
LATEST_VERSION = SUPPORTED_VERSIONS[-1]
HEADER = "Service-Version"


def resolve_version(header_value: str | None) -> str:
    """Spec: the header is optional and absent means latest; DESIGN: an unknown value is a 400."""
    if header_value is None or header_value.strip() == "":
        return LATEST_VERSION
    value = header_value.strip()
    if value not in SUPPORTED_VERSIONS:
        raise ApiError.of(
            errors.API_VERSION_INVALID,
            f"Unknown Service-Version {value[:40]!r}; supported: {', '.join(SUPPORTED_VERSIONS)}.",
            HEADER,
        )
    return value
