"""The only place concrete adapters are built and wired (cosmicpython's bootstrap)."""

from __future__ import annotations

import hashlib
import hmac
import logging
from dataclasses import dataclass, field
from datetime import timedelta

import redis.asyncio as aioredis
from psycopg_pool import AsyncConnectionPool

from core_server.actors import ActorRegistry
from core_server.application.api_keys import ApiKeyService
from core_server.application.charge_actor import ChargeActor, ChargeActorDeps
from core_server.application.charges import ChargeService
from core_server.application.checkout import CheckoutService
from core_server.application.clocks import SingleClock, SystemClock
from core_server.application.events import EventService
from core_server.application.idempotency import IdempotentRunner
from core_server.application.merchants import MerchantService
from core_server.application.ports import Clock
from core_server.application.timer_sweep import TimerSweep
from core_server.application.webhook_dispatcher import WebhookDispatcher
from core_server.application.webhooks import WebhookEndpointService
from core_server.config import Settings
from core_server.locking.redis_lease import RedisLeaseFactory
from core_server.processors.live_processor import UnconfiguredLiveProcessor
from core_server.processors.routing import EnvironmentProcessors
from core_server.processors.sandbox_processor import SandboxProcessor
from core_server.security.secret_box import SecretBox
from core_server.security.tokens import JwtIssuer
from core_server.senders.host_resolver import SystemHostResolver
from core_server.senders.webhook_sender import HttpWebhookSender
from core_server.storage.api_key_repository import PgApiKeyRepository
from core_server.storage.charge_repository import PgChargeRepository
from core_server.storage.delivery_queue import PgDeliveryQueue
from core_server.storage.delivery_wakeups import PgNotifyWakeups
from core_server.storage.event_repository import PgEventRepository
from core_server.storage.idempotency_store import PgIdempotencyStore
from core_server.storage.merchant_repository import PgMerchantRepository
from core_server.storage.migrate import apply_migrations
from core_server.storage.pool import open_pool
from core_server.storage.webhook_endpoint_repository import PgWebhookEndpointRepository

logger = logging.getLogger(__name__)


@dataclass
class Core:
    """Everything the servicers and background jobs need, plus what must be closed at shutdown."""

    settings: Settings
    pool: AsyncConnectionPool
    redis: aioredis.Redis
    charge_actors: ActorRegistry
    charges: ChargeService
    checkout: CheckoutService
    merchants: MerchantService
    api_keys: ApiKeyService
    runner: IdempotentRunner
    expiration: TimerSweep
    authorizations: TimerSweep
    webhooks: WebhookEndpointService
    events: EventService
    dispatcher: WebhookDispatcher
    webhook_sender: HttpWebhookSender
    deliveries: PgDeliveryQueue
    answer_box: SecretBox  # seals stored idempotent answers that carry a secret (API key creation)
    extras: dict[str, object] = field(default_factory=dict)

    async def close(self, grace: float = 5.0) -> None:
        await self.charge_actors.stop_all(grace)
        await self.webhook_sender.close()
        await self.redis.aclose()
        await self.pool.close()


def derive_key(master: bytes, label: str) -> bytes:
    """Separate keys per purpose from DATA_ENCRYPTION_KEY, so one use never weakens another."""
    return hmac.new(master, label.encode(), hashlib.sha256).digest()


async def build_core(settings: Settings, clock: Clock | None = None) -> Core:
    clock = clock or SystemClock()
    clocks = SingleClock(clock)
    pool = await open_pool(
        settings.database_url, max_size=settings.db_pool_max, timeout=settings.db_pool_timeout_seconds
    )
    await apply_migrations(pool)
    redis = aioredis.from_url(
        settings.redis_url, socket_timeout=2.0, socket_connect_timeout=2.0, health_check_interval=10
    )
    leases = RedisLeaseFactory(
        redis, namespace=settings.redis_namespace, ttl_ms=settings.lease_ttl_ms, owner=settings.process_name
    )
    idempotency_store = PgIdempotencyStore(
        pool,
        derive_key(settings.data_encryption_key, "idempotency-fingerprint"),
        claim_lease=timedelta(seconds=settings.idempotency_claim_seconds),
    )
    # The repository claims a create's key in the create's own statement, with the store's fingerprints.
    charge_repo = PgChargeRepository(pool, settings.checkout_base_url, idempotency_store)
    merchants_repo = PgMerchantRepository(pool)
    runner = IdempotentRunner(idempotency_store, clock)
    deps = ChargeActorDeps(
        charges=charge_repo,
        clocks=clocks,
        processors=EnvironmentProcessors(test=SandboxProcessor(), live=UnconfiguredLiveProcessor()),
        fingerprint_key=derive_key(settings.data_encryption_key, "card-fingerprint"),
    )
    charge_actors = ActorRegistry(
        lambda charge_id: ChargeActor(
            charge_id, leases("charge", charge_id), deps, acquire_wait=settings.lease_wait_seconds
        ),
        idle_timeout=settings.actor_idle_seconds,
        name="charge",
    )
    sealer = SecretBox(derive_key(settings.data_encryption_key, "webhook-secret"))
    resolver = SystemHostResolver()
    deliveries = PgDeliveryQueue(pool)
    sender = HttpWebhookSender(max_connections=settings.webhook_concurrency)
    dispatcher = WebhookDispatcher(
        deliveries, sender, resolver, sealer, clocks, PgNotifyWakeups(settings.database_url),
        concurrency=settings.webhook_concurrency,
        per_endpoint=settings.webhook_endpoint_concurrency,
        timeout=settings.webhook_timeout_seconds,
        lease=timedelta(seconds=settings.webhook_lease_seconds),
        poll_interval=settings.webhook_poll_seconds,
    )
    return Core(
        settings=settings,
        pool=pool,
        redis=redis,
        charge_actors=charge_actors,
        charges=ChargeService(charge_repo, charge_actors, clocks, runner, ask_timeout=settings.ask_timeout_seconds),
        checkout=CheckoutService(
            charge_repo, merchants_repo, charge_actors, clocks, runner, ask_timeout=settings.ask_timeout_seconds
        ),
        merchants=MerchantService(merchants_repo, JwtIssuer(settings.jwt_signing_key, clock), clock),
        api_keys=ApiKeyService(PgApiKeyRepository(pool), clock),
        runner=runner,
        expiration=TimerSweep(
            "expiration", charge_repo.due_for_expiry, charge_actors, clocks, leases,
            ask_timeout=settings.ask_timeout_seconds, interval=settings.expiry_interval_seconds,
        ),
        authorizations=TimerSweep(
            "async-authorizations", charge_repo.due_authorizations, charge_actors, clocks, leases,
            ask_timeout=settings.ask_timeout_seconds, interval=settings.authorization_interval_seconds,
        ),
        webhooks=WebhookEndpointService(
            PgWebhookEndpointRepository(pool), deliveries, sealer, resolver, clocks
        ),
        events=EventService(PgEventRepository(pool), clocks),
        dispatcher=dispatcher,
        webhook_sender=sender,
        deliveries=deliveries,
        answer_box=SecretBox(derive_key(settings.data_encryption_key, "idempotent-answer")),
    )
