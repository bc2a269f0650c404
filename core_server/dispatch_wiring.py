"""The webhook dispatcher's wiring, apart from the rest of the core's: `build_dispatcher` makes the one
dispatcher of either WEBHOOK_DISPATCH mode (bootstrap.py calls it for a dispatcher on the core's loop), and
`build_dispatch_side` the whole of a dispatcher process (dispatch_process.py). Kept apart so that a
dispatcher process imports only what delivery needs, not every service of the core: it starts with each
core, restarts, and each start used to import the whole core."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from core_server.config import Settings
from core_server.db.notify_listener import PgNotifyWakeups
from core_server.db.pool import DbPool, open_pool
from core_server.kernel.application.clocks import MerchantClocks, SystemClock
from core_server.kernel.storage.clock_offsets import CLOCK_CHANNEL, PgClockOffsets
from core_server.kernel.storage.job_claims import PgJobClaims
from core_server.kernel.storage.outbox import DELIVERY_CHANNEL
from core_server.sealing import sealers
from core_server.webhook_delivery import DispatcherOnLoop
from core_server.webhooks.application.webhook_dispatcher import WebhookDispatcher
from core_server.webhooks.senders.host_resolver import SystemHostResolver
from core_server.webhooks.senders.webhook_sender import HttpWebhookSender
from core_server.webhooks.storage.delivery_queue import PgDeliveryQueue

DISPATCH_DB_CONNECTIONS = 4
"""The webhook dispatcher's own connections, at most: a claim, a record, the NOTIFY after creates and the
one to the other cores, each at most one at a time. One is opened at start, the others on demand, so an
idle core holds one more session than DB_POOL_MAX's, not four. With WEBHOOK_DISPATCH=process the core's
pool of this size only ever opens one (the NOTIFY after creates), and the dispatcher process has a pool
of this size of its own (one open, the claim, the record and its NOTIFY to the other cores on demand)."""


async def open_settings_pool(settings: Settings, *, min_size: int, max_size: int) -> DbPool:
    """A pool with the server-side time-outs and keepalives of `settings` (the core's, the dispatcher's)."""
    return await open_pool(
        settings.database_url,
        pooled=bool(settings.database_pooler),
        min_size=min_size,
        max_size=max_size,
        timeout=settings.db_pool_timeout_seconds,
        statement_timeout=settings.db_statement_timeout_seconds,
        idle_in_transaction_timeout=settings.db_idle_in_transaction_timeout_seconds,
        keepalive_idle=settings.db_keepalive_idle_seconds,
    )


def build_dispatcher(
    settings: Settings, pool: DbPool, jobs: PgJobClaims, clocks: MerchantClocks
) -> DispatcherOnLoop:
    """The one webhook dispatcher, wherever it runs (WEBHOOK_DISPATCH): on the core's loop, or in the core's
    dispatcher process (`build_dispatch_side`). `pool` is the dispatcher's own (claims and records wait
    for nobody else's statements, issue 27); `jobs` names the core, so its claims go with the core's
    heartbeat."""
    sender = HttpWebhookSender(max_connections=settings.webhook_concurrency)
    dispatcher = WebhookDispatcher(
        PgDeliveryQueue(pool, jobs),
        sender,
        SystemHostResolver(timeout=settings.webhook_dns_timeout_seconds),
        sealers(settings)["webhook-secret"],
        clocks,
        PgNotifyWakeups(settings.listen_url, DELIVERY_CHANNEL),
        concurrency=settings.webhook_concurrency,
        per_endpoint=settings.webhook_endpoint_concurrency,
        per_merchant=settings.webhook_merchant_concurrency,
        reserve=settings.webhook_reserved_slots,  # None: a quarter of the slots
        timeout=settings.webhook_timeout_seconds,
        lease=timedelta(seconds=settings.webhook_lease_seconds),
        poll_interval=settings.webhook_poll_seconds,
        allow_private_targets=settings.webhook_allow_private_targets,
        starts_per_turn=settings.webhook_starts_per_turn,
        gather=settings.webhook_gather_seconds,
    )
    return DispatcherOnLoop(dispatcher, sender)


@dataclass
class DispatchSide:
    """A dispatcher process's whole wiring (dispatch_process.py): only what delivery needs. No Redis, no
    migrations (its core applied them before it started it) and no heartbeat: its claims name the core
    and go with the core's."""

    delivery: DispatcherOnLoop
    pool: DbPool
    clock_listener: PgNotifyWakeups

    async def close(self) -> None:
        await self.delivery.close()
        await self.clock_listener.close()
        await self.pool.close()


async def build_dispatch_side(settings: Settings) -> DispatchSide:
    """The dispatcher of the core named `settings.process_name`, with a pool, a LISTEN on the sandbox
    clocks' channel and clock offsets of its own (psycopg connections belong to one loop)."""
    pool = await open_settings_pool(settings, min_size=1, max_size=DISPATCH_DB_CONNECTIONS)
    offsets = PgClockOffsets(pool)
    clock_listener = PgNotifyWakeups(settings.listen_url, CLOCK_CHANNEL)
    await clock_listener.start(offsets.forget)
    jobs = PgJobClaims(
        pool, settings.process_name, lapse=timedelta(seconds=settings.core_heartbeat_lapse_seconds)
    )
    delivery = build_dispatcher(settings, pool, jobs, MerchantClocks(SystemClock(), offsets))
    return DispatchSide(delivery, pool, clock_listener)
