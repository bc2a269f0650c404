"""A webhook host whose DNS never answers: refused at a LIVE registration (400 on `url`), and a failed
attempt with no detail at delivery, each after WEBHOOK_DNS_TIMEOUT_SECONDS, not the delivery time-out.

The real SystemHostResolver runs, with its look-up function replaced by one that really blocks its
thread (no public DNS name hangs deterministically)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from core_server.bootstrap import Core
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import ParameterInvalid
from core_server.webhooks.domain.webhook_delivery import DeliveryStatus
from core_server.webhooks.senders.host_resolver import SystemHostResolver
from tests.integration.core.factories import new_charge, new_owner

pytestmark = pytest.mark.integration


@pytest.fixture
def hanging_dns(isolated_core: Core) -> Iterator[SystemHostResolver]:
    release = threading.Event()

    def never_answers(host: str, port: int) -> list[tuple[Any, ...]]:
        release.wait(10)
        return []

    resolver = SystemHostResolver(timeout=0.3, lookup=never_answers)
    # The core's own wiring, with this resolver in place of the one bootstrap built.
    isolated_core.webhooks._resolver = resolver  # noqa: SLF001
    isolated_core.dispatcher._resolver = resolver  # noqa: SLF001
    try:
        yield resolver
    finally:
        release.set()


async def test_a_live_registration_whose_dns_hangs_is_refused_on_url(
    isolated_core: Core, hanging_dns: SystemHostResolver
) -> None:
    owner = await new_owner(isolated_core, Environment.LIVE)
    started = time.monotonic()
    with pytest.raises(ParameterInvalid) as refused:
        await isolated_core.webhooks.create(owner, "https://hooks.shop.example/in", ["*"], None)
    assert refused.value.param == "url" and "could not be resolved" in refused.value.message
    assert time.monotonic() - started < 2.0


async def test_a_delivery_whose_dns_hangs_is_a_failed_attempt_without_detail(
    isolated_core: Core, hanging_dns: SystemHostResolver
) -> None:
    core = isolated_core
    owner = await new_owner(core)  # TEST: a host that does not resolve yet is accepted
    endpoint = await core.webhooks.create(owner, "https://hooks.shop.example/in", ["*"], None)
    await new_charge(core, owner)
    started = time.monotonic()
    assert await core.dispatcher.drain() == 1
    assert time.monotonic() - started < core.settings.webhook_timeout_seconds
    page = await core.webhooks.deliveries(owner, endpoint.id, limit=1, starting_after=None)
    (delivery,) = page.items
    (attempt,) = delivery.attempts
    assert delivery.status is DeliveryStatus.PENDING
    assert (attempt.status_code, attempt.error, attempt.succeeded) == (None, "connection failed", False)
