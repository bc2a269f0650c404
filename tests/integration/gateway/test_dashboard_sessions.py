"""Dashboard sessions against the real Redis: the idle hour, the token's expiry, sign-out, the mode and
the one-shot flash message (http_gateway/dashboard/sessions.py)."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator

import pytest

from http_gateway.dashboard.sessions import IDLE_SECONDS, LIVE, TEST, SessionStore
from http_gateway.pipeline.rate_limit import connect_redis

pytestmark = pytest.mark.integration

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def redis() -> AsyncIterator[tuple[object, str]]:
    client = connect_redis(REDIS_URL)
    ns = f"test-dash-{uuid.uuid4().hex[:12]}"
    try:
        yield client, ns
    finally:
        keys = [k async for k in client.scan_iter(match=f"{ns}:*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()


async def test_a_session_starts_in_test_mode_and_lives_an_idle_hour(redis) -> None:
    client, ns = redis
    store = SessionStore(client, ns, now=Clock())
    session = await store.create("acct_1", "jwt", 3600)
    assert session.environment == TEST and session.test_mode
    loaded = await store.load(session.session_id)
    assert loaded is not None and loaded.merchant_id == "acct_1" and loaded.csrf == session.csrf
    keys = [k async for k in client.scan_iter(match=f"{ns}:*")]
    assert len(keys) == 1 and session.session_id.encode() not in keys[0]  # the id is stored hashed
    ttl = await client.ttl(keys[0])
    assert IDLE_SECONDS - 5 <= ttl <= IDLE_SECONDS
    await client.expire(keys[0], 10)
    await store.load(session.session_id)  # a page view renews the idle hour
    assert await client.ttl(keys[0]) > IDLE_SECONDS - 5
    await client.delete(keys[0])  # what Redis does after an idle hour
    assert await store.load(session.session_id) is None


async def test_a_session_ends_with_its_token(redis) -> None:
    client, ns = redis
    clock = Clock()
    store = SessionStore(client, ns, now=clock)
    session = await store.create("acct_1", "jwt", 600)
    clock.now += 599
    assert await store.load(session.session_id) is not None
    clock.now += 1
    assert await store.load(session.session_id) is None
    assert [k async for k in client.scan_iter(match=f"{ns}:*")] == []


async def test_sign_out_mode_and_flash(redis) -> None:
    client, ns = redis
    store = SessionStore(client, ns, now=Clock())
    session = await store.create("acct_1", "jwt", 3600)
    live = await store.switch_environment(session, LIVE)
    assert (await store.load(session.session_id)).environment == LIVE  # type: ignore[union-attr]
    await store.flash(live, "Saved.")
    assert await store.take_flash(live) == {"message": "Saved.", "kind": "success"}
    assert await store.take_flash(live) is None  # one shot
    assert await store.load("not-a-session") is None and await store.load("") is None
    await store.end(session.session_id)
    assert await store.load(session.session_id) is None
