"""Webhook endpoints: sealed secrets, the limit of 10, PATCH rules, scoping, and SSRF checks with DNS."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core_server.bootstrap import Core
from core_server.kernel.application.owner import Owner
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import NotFound, ParameterInvalid
from core_server.kernel.domain.sealed import Sealed
from core_server.sealing import sealers
from core_server.webhooks.domain.webhook_endpoint import WebhookEndpointStatus
from tests.integration.core.factories import new_charge, new_owner
from tests.webhook_receivers import WebhookReceiver, start_receiver

pytestmark = pytest.mark.integration

PUBLIC = "93.184.215.14"


class FakeResolver:
    """DNS answers chosen by the test: the attacker controls their zone, so we do too."""

    def __init__(self, answers: dict[str, list[str]]) -> None:
        self.answers = answers

    async def resolve(self, host: str, port: int) -> list[str]:
        return self.answers.get(host, [])


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    with start_receiver() as running:
        yield running


async def test_the_secret_is_shown_once_and_stored_only_sealed(isolated_core: Core) -> None:
    core = isolated_core
    owner = await new_owner(core)
    created = await core.webhooks.create(owner, "http://localhost:4242/hook", ["charge.created"], "dev")
    assert created.secret is not None and created.secret.startswith("whsec_") and len(created.secret) == 38
    assert (await core.webhooks.get(owner, created.id)).secret is None
    assert all(e.secret is None for e in await core.webhooks.list(owner))
    async with core.pool.connection() as conn:
        row = await (
            await conn.execute("SELECT * FROM webhook_endpoints WHERE id = %s", (created.id,))
        ).fetchone()
    assert row is not None
    assert created.secret.encode() not in bytes(row["secret_sealed"])
    assert created.secret not in str(row)
    box = sealers(core.settings)["webhook-secret"]
    assert row["secret_key_id"] == box.current_id
    assert box.open(Sealed(row["secret_key_id"], bytes(row["secret_sealed"])), created.id) == created.secret


async def test_at_most_ten_endpoints_per_merchant_across_environments(isolated_core: Core) -> None:
    core = isolated_core
    owner = await new_owner(core)
    live = Owner(owner.merchant_id, Environment.LIVE)
    for n in range(5):
        await core.webhooks.create(owner, f"http://localhost/{n}", ["*"], None)
        await core.webhooks.create(live, f"https://{PUBLIC}/{n}", ["*"], None)
    with pytest.raises(ParameterInvalid, match="at most 10"):
        await core.webhooks.create(owner, "http://localhost/11", ["*"], None)
    assert len(await core.webhooks.list(owner)) == 5  # each environment sees its own
    first = (await core.webhooks.list(owner))[0]
    await core.webhooks.delete(owner, first.id)
    await core.webhooks.create(owner, "http://localhost/again", ["*"], None)


async def test_patch_changes_only_what_it_names_and_enabling_restarts_the_failure_count(
    isolated_core: Core,
) -> None:
    core = isolated_core
    owner = await new_owner(core)
    endpoint = await core.webhooks.create(owner, "http://localhost/a", ["charge.created"], "note")
    async with core.pool.connection() as conn:
        await conn.execute(
            "UPDATE webhook_endpoints SET status = 'failing', consecutive_failures = 7 WHERE id = %s",
            (endpoint.id,),
        )
    renamed = await core.webhooks.update(owner, endpoint.id, url="http://localhost/b", events=["*"])
    assert (renamed.url, renamed.events, renamed.description) == ("http://localhost/b", ("*",), "note")
    assert renamed.status is WebhookEndpointStatus.FAILING  # the platform's verdict survives a PATCH
    cleared = await core.webhooks.update(owner, endpoint.id, description="", status="enabled")
    assert cleared.description is None and cleared.status is WebhookEndpointStatus.ENABLED
    async with core.pool.connection() as conn:
        row = await (
            await conn.execute(
                "SELECT consecutive_failures FROM webhook_endpoints WHERE id = %s", (endpoint.id,)
            )
        ).fetchone()
    assert row is not None and row["consecutive_failures"] == 0
    with pytest.raises(ParameterInvalid) as info:
        await core.webhooks.update(owner, endpoint.id, status="failing")
    assert info.value.param == "status"
    with pytest.raises(ParameterInvalid) as info:
        await core.webhooks.update(owner, endpoint.id, events=["charge.nope"])
    assert info.value.param == "events"


async def test_endpoints_are_invisible_to_other_merchants_and_the_other_environment(
    isolated_core: Core,
) -> None:
    core = isolated_core
    owner = await new_owner(core)
    endpoint = await core.webhooks.create(owner, "http://localhost/a", ["*"], None)
    for other in (await new_owner(core), Owner(owner.merchant_id, Environment.LIVE)):
        with pytest.raises(NotFound):
            await core.webhooks.get(other, endpoint.id)
        with pytest.raises(NotFound):
            await core.webhooks.update(other, endpoint.id, url="http://localhost/x")
        with pytest.raises(NotFound):
            await core.webhooks.delete(other, endpoint.id)
    await core.webhooks.delete(owner, endpoint.id)
    with pytest.raises(NotFound):
        await core.webhooks.get(owner, endpoint.id)


async def test_live_hosts_must_resolve_to_public_addresses_only(
    isolated_core: Core, monkeypatch: pytest.MonkeyPatch
) -> None:
    core = isolated_core
    live = Owner((await new_owner(core)).merchant_id, Environment.LIVE)
    resolver = FakeResolver(
        {
            "shop.example": [PUBLIC],
            "evil.example": [PUBLIC, "10.0.0.8"],
            "meta.example": ["169.254.169.254"],
            "loop.example": ["127.0.0.1"],
        }
    )
    monkeypatch.setattr(core.webhooks, "_resolver", resolver)
    await core.webhooks.create(live, "https://shop.example/hook", ["*"], None)
    for host in ("evil.example", "meta.example", "loop.example", "nowhere.example"):
        with pytest.raises(ParameterInvalid) as info:
            await core.webhooks.create(live, f"https://{host}/hook", ["*"], None)
        assert info.value.param == "url"
    test = Owner(live.merchant_id, Environment.TEST)
    await core.webhooks.create(test, "http://loop.example/hook", ["*"], None)  # loopback is fine in TEST
    await core.webhooks.create(test, "http://nowhere.example/hook", ["*"], None)  # may resolve later
    with pytest.raises(ParameterInvalid):
        await core.webhooks.create(test, "http://meta.example/hook", ["*"], None)


async def test_each_delivery_resolves_again_and_connects_only_to_the_checked_address(
    isolated_core: Core, receiver: WebhookReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    core = isolated_core
    owner = await new_owner(core)
    monkeypatch.setattr(core.webhooks, "_resolver", FakeResolver({"rebind.example": [PUBLIC]}))
    rebinding = await core.webhooks.create(
        owner, f"http://rebind.example:{receiver.port}/rebind", ["*"], None
    )
    pinned = await core.webhooks.create(owner, f"http://receiver.test:{receiver.port}/pinned", ["*"], None)
    # At delivery time the attacker's DNS points at the metadata service; receiver.test is our receiver.
    monkeypatch.setattr(
        core.dispatcher,
        "_resolver",
        FakeResolver({"rebind.example": ["169.254.169.254"], "receiver.test": ["127.0.0.1"]}),
    )
    await new_charge(core, owner)
    assert await core.dispatcher.drain() == 2

    (arrived,) = receiver.received("/pinned")
    assert arrived.headers["host"] == f"receiver.test:{receiver.port}"
    assert receiver.received("/rebind") == []
    page = await core.webhooks.deliveries(owner, rebinding.id, limit=10, starting_after=None)
    (attempt,) = page.items[0].attempts
    assert (
        attempt.status_code is None
        and attempt.error == "endpoint host points to a reserved or link-local address"
    )
    assert pinned.id != rebinding.id
