"""Not-found answers of payments that leak nothing about other tenants' objects."""

from __future__ import annotations

from core_server.kernel.domain.errors import NotFound


def charge_not_found(charge_id: str) -> NotFound:
    """One message for unknown and foreign charges, so the answer leaks nothing."""
    return NotFound(f"No such charge: '{charge_id}'", param="id")


def dispute_not_found(dispute_id: str) -> NotFound:
    """Unknown and foreign disputes alike; never the charge's id, which would leak another merchant's."""
    return NotFound(f"No such dispute: '{dispute_id[:100]}'", param="id")
