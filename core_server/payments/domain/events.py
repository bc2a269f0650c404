"""Charge events: what happened to a charge, written to the outbox with the state that caused it."""

from __future__ import annotations

import enum


class ChargeEventType(enum.Enum):
    CREATED = "charge.created"
    COMPLETED = "charge.completed"
    FAILED = "charge.failed"
    REFUNDED = "charge.refunded"
    DISPUTED = "charge.disputed"
