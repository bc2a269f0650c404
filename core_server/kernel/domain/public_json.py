"""What every public object the core renders shares: the JSON alias, the compact encoding and whole
Unix seconds. Written once so the charge, billing, ledger and webhook views cannot drift apart
(issue 22, docs/architecture.md "One path per concept")."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

JSON = dict[str, Any]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def compact_json(value: Any) -> str:
    """No spaces and UTF-8 text as is: every reader (the gateway, a merchant's webhook endpoint)
    parses it, so the shortest faithful encoding is the one the core sends."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def unix_seconds(moment: datetime) -> int:
    """Whole Unix seconds, without passing through a float (a float can round .999999 up)."""
    return (moment - _EPOCH) // timedelta(seconds=1)
