"""Ids of charges, refunds and disputes."""

from __future__ import annotations

import re

from core_server.kernel.domain.ids import new_id

CHARGE_ID_RE = re.compile(r"^ch_[A-Za-z0-9]{32}$")


def new_refund_id() -> str:
    return new_id("re_", 32)


def new_dispute_id() -> str:
    return new_id("dp_", 24)


def is_charge_id(value: str) -> bool:
    return bool(CHARGE_ID_RE.match(value))
