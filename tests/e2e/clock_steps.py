"""Walks a merchant's sandbox clock to a moment in the steps DESIGN §10.5 allows.

One advance may move TEST time at most two intervals of the merchant's shortest live price (2 years with
none); a test that needs to go further walks: it asks for the target, and while that is refused it
advances to the limit the refusal names (`… to ≤ <unix>`), so every timer still fires in order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import httpx

from tests.e2e.api_client import API

ADVANCE = f"{API}/test_helpers/clock/advance"
_LIMIT = re.compile(r"to ≤ (\d+)")
MAX_STEPS = 1_000


def walk_clock(client: httpx.Client, auth: Mapping[str, str], to: int) -> int:
    """Advances the TEST clock to `to` in allowed steps; returns the clock's `now` (== `to`)."""
    for _ in range(MAX_STEPS):
        answer = client.post(ADVANCE, json={"to": to}, headers=dict(auth))
        if answer.status_code == 200:
            return int(answer.json()["now"])
        step = limit_of(answer)
        stepped = client.post(ADVANCE, json={"to": step}, headers=dict(auth))
        assert stepped.status_code == 200, stepped.text
    raise AssertionError(f"the clock did not reach {to} in {MAX_STEPS} steps")


def limit_of(answer: httpx.Response) -> int:
    """The limit a refused advance names (400 parameter_invalid on `to`)."""
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == "parameter_invalid" and error["param"] == "to", answer.text
    found = _LIMIT.search(error["message"])
    assert found, answer.text
    return int(found.group(1))
