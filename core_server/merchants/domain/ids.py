"""Ids of merchants and API keys."""

from __future__ import annotations

from core_server.kernel.domain.ids import new_id


def new_merchant_id() -> str:
    return new_id("acct_", 24)


def new_api_key_id() -> str:
    return new_id("key_", 24)
