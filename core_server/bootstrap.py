"""The only place concrete adapters are built and wired (cosmicpython's bootstrap).

Past 500 lines on purpose: it is the one wiring point of the core and of the webhook dispatcher process
the core starts (`build_dispatcher` serves both), so a wiring change is read and made in one file.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import timedelta

import redis.asyncio as aioredis

from core_server.actors import ActorRegistry
from core_server.billing.application.billing_run import BILLING_BATCH, BillingRun
from core_server.billing.application.customer_balances import CustomerBalanceService
from core_server.billing.application.customers import CustomerService
from core_server.billing.application.invoice_collection import InvoicePayer
from core_server.billing.application.invoices import InvoiceService
from core_server.billing.application.payment_methods import PaymentMethodService
from core_server.billing.application.plans import PlanService
from core_server.billing.application.portal_sessions import PortalSessionService
from core_server.billing.application.references import BillingReferences
from core_server.billing.application.subscription_actor import SubscriptionActor
from core_server.billing.application.subscriptions import SubscriptionService
from core_server.billing.application.tax_rates import TaxRateService
from core_server.billing.storage.clock_limits import PgClockLimits
from core_server.billing.storage.customer_balance_repository import PgCustomerBalances
from core_server.billing.storage.customer_repository import PgCustomerRepository
from core_server.billing.storage.payment_method_repository import PgPaymentMethodRepository
from core_server.billing.storage.plan_repository import PgPlanRepository, PgPriceRepository
from core_server.billing.storage.portal_session_purge import PgPortalSessionPurge
from core_server.billing.storage.portal_session_repository import PgPortalSessionRepository
from core_server.billing.storage.subscription_repository import PgSubscriptionRepository
from core_server.billing.storage.tax_rate_repository import PgTaxRateRepository
from core_server.config import Settings
from core_server.db.migrate import apply_migrations
from core_server.db.notify_listener import PgNotifyWakeups
from core_server.db.pool import DbPool, check_pooled_timeouts
from core_server.developer_tools.application.cli_sessions import CliSessionService
from core_server.developer_tools.application.cli_stream import CliEventStream
from core_server.developer_tools.application.sandbox_reset import TestResetService
from core_server.developer_tools.storage.cli_session_repository import PgCliSessionRepository
from core_server.developer_tools.storage.sandbox_data_store import PgTestDataStore
from core_server.developer_tools.storage.sandbox_event_log import PgTestEventLog
from core_server.dispatch_supervisor import DispatchSupervisor
from core_server.dispatch_wiring import DISPATCH_DB_CONNECTIONS, build_dispatcher, open_settings_pool
from core_server.kernel.application.clocks import MerchantClocks, SystemClock, TestClockService
from core_server.kernel.application.heartbeat import CoreHeartbeat, CoreLiveness
from core_server.kernel.application.idempotency import IdempotentRunner
from core_server.kernel.application.ports import Clock
from core_server.kernel.application.retention_sweep import RetentionRule, RetentionSweep
from core_server.kernel.application.timer_sweep import TimerSweep
from core_server.kernel.domain.retention import IDEMPOTENCY_KEY_LIFETIME
from core_server.kernel.storage.clock_offsets import CLOCK_CHANNEL, PgClockOffsets
from core_server.kernel.storage.heartbeats import PgHeartbeats
from core_server.kernel.storage.idempotency_purge import PgIdempotencyPurge
from core_server.kernel.storage.idempotency_store import PgIdempotencyStore
from core_server.kernel.storage.job_claims import PgJobClaims
from core_server.kernel.storage.outbox import DeliveryAnnouncer
from core_server.ledger.application.ledger import LedgerService
from core_server.ledger.application.payout_run import PayoutRun
from core_server.ledger.application.payouts import PayoutService
from core_server.ledger.storage.ledger_repository import PgLedgerRepository
from core_server.ledger.storage.payout_repository import PgPayoutRepository
from core_server.locking.redis_client import close_redis, connect_redis
from core_server.locking.redis_lease import RedisLeaseFactory
from core_server.merchants.application.api_keys import ApiKeyService
from core_server.merchants.application.merchants import MerchantService
from core_server.merchants.storage.api_key_repository import PgApiKeyRepository
from core_server.merchants.storage.login_attempts import RedisLoginAttempts
from core_server.merchants.storage.merchant_repository import PgMerchantRepository
from core_server.payments.application.charge_actor import ChargeActor, ChargeActorDeps
from core_server.payments.application.charge_timers import ChargeTimer
from core_server.payments.application.charge_view import ChargeViews
from core_server.payments.application.charges import ChargeService
from core_server.payments.application.checkout import CheckoutService
from core_server.payments.application.invoice_charges import InvoiceCharges
from core_server.payments.processors.live_processor import UnconfiguredLiveProcessor
from core_server.payments.processors.routing import EnvironmentProcessors
from core_server.payments.processors.sandbox_processor import SandboxProcessor
from core_server.payments.storage.charge_repository import PgChargeRepository
from core_server.sealing import payout_accounts, sealers
from core_server.security.kdf_pool import KdfPool
from core_server.security.keyring import derive_key
from core_server.security.tokens import JwtIssuer
from core_server.webhook_delivery import DispatcherOnLoop, WebhookDelivery
from core_server.webhooks.application.events import EventService
from core_server.webhooks.application.webhook_dispatcher import WebhookDispatcher
from core_server.webhooks.application.webhooks import WebhookEndpointService
from core_server.webhooks.senders.host_resolver import SystemHostResolver
from core_server.webhooks.storage.delivery_queue import PgDeliveryQueue
from core_server.webhooks.storage.event_purge import PgEventPurge
from core_server.webhooks.storage.event_repository import PgEventRepository
from core_server.webhooks.storage.webhook_endpoint_repository import PgWebhookEndpointRepository

logger = logging.getLogger(__name__)

PORTAL_SESSION_AFTERLIFE = timedelta(days=1)
"""How long an expired portal session's row is kept before the retention sweep deletes it."""


@dataclass
class Core:
    """Everything the servicers and background jobs need, plus what must be closed at shutdown."""

    settings: Settings
    pool: DbPool
    redis: aioredis.Redis
    charge_actors: ActorRegistry
    views: ChargeViews
    charges: ChargeService
    checkout: CheckoutService
    tax_rates: TaxRateService
    plans: PlanService
    merchants: MerchantService
    api_keys: ApiKeyService
    runner: IdempotentRunner
    sweeps: list[TimerSweep]
    test_clock: TestClockService
    clock_listener: PgNotifyWakeups
    webhooks: WebhookEndpointService
    events: EventService
    delivery: WebhookDelivery
    deliveries: PgDeliveryQueue
    retention: RetentionSweep
    customers: CustomerService
    payment_methods: PaymentMethodService
    customer_balances: CustomerBalanceService
    invoice_charges: InvoiceCharges
    subscription_actors: ActorRegistry
    subscriptions: SubscriptionService
    invoices: InvoiceService
    portal: PortalSessionService
    ledger: LedgerService
    payouts: PayoutService
    cli_sessions: CliSessionService
    cli_stream: CliEventStream
    test_reset: TestResetService
    extras: dict[str, object] = field(default_factory=dict)
    kdf_pool: KdfPool | None = None
    heartbeat: CoreHeartbeat | None = None
    dispatch_pool: DbPool | None = None
    announcer: DeliveryAnnouncer | None = None

    @property
    def dispatcher(self) -> WebhookDispatcher:
        """The dispatcher on this core's loop (WEBHOOK_DISPATCH=inline, as the integration tests run it)."""
        if not isinstance(self.delivery, DispatcherOnLoop):
            raise RuntimeError("this core delivers from a process of its own (WEBHOOK_DISPATCH=process)")
        return self.delivery.dispatcher

    def sweep(self, name: str) -> TimerSweep:
        return next(sweep for sweep in self.sweeps if sweep.name == name)

    @property
    def actor_registries(self) -> list[ActorRegistry]:
        """Every kind of actor this core runs; each is drained and releases its leases at shutdown."""
        return [self.charge_actors, self.subscription_actors]

    async def close(self, grace: float = 5.0) -> None:
        await asyncio.gather(*(registry.stop_all(grace) for registry in self.actor_registries))
        if self.heartbeat is not None:
            await self.heartbeat.stop()  # after the actors: no turn of this core can write any more
        await self.clock_listener.close()
        await self.delivery.close()
        await close_redis(self.redis)
        if self.announcer is not None:
            await self.announcer.close()
        if self.dispatch_pool is not None:
            await self.dispatch_pool.close()
        await self.pool.close()
        if self.kdf_pool is not None:
            self.kdf_pool.close()


async def build_core(settings: Settings, clock: Clock | None = None) -> Core:
    clock = clock or SystemClock()
    pool = await open_settings_pool(settings, min_size=2, max_size=settings.db_pool_max)
    if settings.database_pooler:
        # The server connections must carry the time-outs a pooled client cannot send (docs/operations.md).
        await check_pooled_timeouts(
            pool, settings.db_statement_timeout_seconds, settings.db_idle_in_transaction_timeout_seconds
        )
    await apply_migrations(pool)
    offsets = PgClockOffsets(pool)
    clocks = MerchantClocks(clock, offsets)
    clock_listener = PgNotifyWakeups(settings.listen_url, CLOCK_CHANNEL)
    await clock_listener.start(offsets.forget)
    redis = connect_redis(
        settings.redis_url,
        max_connections=settings.redis_pool_max,
        sentinels=settings.redis_sentinels,
        service=settings.redis_sentinel_service,
    )
    heartbeats = PgHeartbeats(pool, settings.process_name)
    # A dead core's leases go with its heartbeat, like its claims (DESIGN §10.9).
    liveness = CoreLiveness(
        heartbeats.beat_since, clock, lapse=timedelta(seconds=settings.core_heartbeat_lapse_seconds)
    )
    leases = RedisLeaseFactory(
        redis,
        namespace=settings.redis_namespace,
        ttl_ms=settings.lease_ttl_ms,
        owner=settings.process_name,
        holder_lapsed=liveness.lapsed,
    )
    idempotency_store = PgIdempotencyStore(
        pool,
        derive_key(settings.fingerprint_master, "idempotency-fingerprint"),
        claim_lease=timedelta(seconds=settings.idempotency_claim_seconds),
        process=settings.process_name,
        heartbeat_lapse=timedelta(seconds=settings.core_heartbeat_lapse_seconds),
    )
    heartbeat = CoreHeartbeat(
        heartbeats.beat,
        heartbeats.purge_before,
        heartbeats.forget,
        clock,
        interval=settings.core_heartbeat_seconds,
    )
    # Beating before the first request: this core's claims are alive from the start.
    await heartbeat.start()
    # The dispatcher's claims and records go over connections of its own (issue 27): queued behind the
    # requests' turns in the shared pool they took 20–400 ms each under a full request load, and
    # deliveries fell behind without bound; here they wait for nobody but each other, and take at most
    # DISPATCH_DB_CONNECTIONS of the database's sessions, whatever the load. The NOTIFY after a write that
    # queued deliveries goes over them too (outbox.py: no NOTIFY inside the writes' own commits).
    dispatch_pool = await open_settings_pool(settings, min_size=1, max_size=DISPATCH_DB_CONNECTIONS)
    announcer = DeliveryAnnouncer(dispatch_pool)
    # Every sweep's claims (kernel/storage/job_claims.py) name this core and go with its heartbeat.
    jobs = PgJobClaims(
        pool, settings.process_name, lapse=timedelta(seconds=settings.core_heartbeat_lapse_seconds)
    )
    job_claim = timedelta(seconds=settings.job_claim_seconds)
    # The repository claims a create's key in the create's own statement, with the store's fingerprints.
    charge_repo = PgChargeRepository(pool, idempotency_store, jobs, announcer)
    views = ChargeViews(settings.checkout_base_url)
    accounts = payout_accounts(settings)
    merchants_repo = PgMerchantRepository(pool, accounts)
    # Account numbers stored in clear before migration 0023 are sealed now (idempotent; DESIGN §10.9).
    await merchants_repo.seal_clear_accounts()
    boxes = sealers(settings)
    # Seals the stored answers that carry a secret (idempotent_rpc's `sealed`: API key and portal creations).
    runner = IdempotentRunner(idempotency_store, clock, answer_sealer=boxes["idempotent-answer"])
    deps = ChargeActorDeps(
        charges=charge_repo,
        clocks=clocks,
        processors=EnvironmentProcessors(test=SandboxProcessor(), live=UnconfiguredLiveProcessor()),
        fingerprint_key=derive_key(settings.fingerprint_master, "card-fingerprint"),
        views=views,
    )
    charge_actors = ActorRegistry(
        lambda charge_id: ChargeActor(
            charge_id, leases("charge", charge_id), deps, acquire_wait=settings.lease_wait_seconds
        ),
        idle_timeout=settings.actor_idle_seconds,
        name="charge",
    )
    sealer = boxes["webhook-secret"]
    resolver = SystemHostResolver(timeout=settings.webhook_dns_timeout_seconds)
    deliveries = PgDeliveryQueue(pool, jobs)
    # WEBHOOK_DISPATCH=process (the default): a child process delivers, with a pool, LISTEN and clock
    # offsets of its own (dispatch_process.py); its claims name this core all the same. `inline`: the
    # same dispatcher, on this core's loop and its dispatch pool.
    dispatch: WebhookDelivery
    if settings.webhook_dispatch == "inline":
        dispatch = build_dispatcher(settings, dispatch_pool, jobs, clocks)
    else:
        dispatch = DispatchSupervisor(settings.process_name, deliveries.release_abandoned)
    retention = RetentionSweep(
        [
            RetentionRule("idempotency_keys", IDEMPOTENCY_KEY_LIFETIME, PgIdempotencyPurge(pool)),
            RetentionRule("events", timedelta(seconds=settings.event_retention_seconds), PgEventPurge(pool)),
            # A day after it expired: its link shows the expired page either way.
            RetentionRule("portal_sessions", PORTAL_SESSION_AFTERLIFE, PgPortalSessionPurge(pool)),
            # Claims a crashed core never handed back, a day after they lapsed.
            RetentionRule("job_claims", timedelta(days=1), jobs),
        ],
        clock,
        jobs,
        interval=settings.retention_interval_seconds,
        lease=job_claim,
    )
    ask_timeout = settings.ask_timeout_seconds
    # Sign-up and login hash in a small bounded pool, so a login flood cannot starve payment calls.
    kdf_pool = KdfPool(settings.login_kdf_workers, settings.login_kdf_queue, settings.login_kdf_per_address)
    sweeps = [
        TimerSweep(
            "expiration",
            ChargeTimer(charge_repo.due_for_expiry, charge_actors, ask_timeout=ask_timeout),
            clock,
            jobs,
            interval=settings.expiry_interval_seconds,
            lease=job_claim,
        ),
        TimerSweep(
            "async-authorizations",
            ChargeTimer(charge_repo.due_authorizations, charge_actors, ask_timeout=ask_timeout),
            clock,
            jobs,
            interval=settings.authorization_interval_seconds,
            lease=job_claim,
        ),
    ]
    subscription_repo = PgSubscriptionRepository(pool, idempotency_store, jobs, announcer)
    charges = ChargeService(charge_repo, charge_actors, clocks, views, ask_timeout=ask_timeout)
    tax_rates = TaxRateService(PgTaxRateRepository(pool), clocks)
    plans = PlanService(PgPlanRepository(pool), PgPriceRepository(pool), clocks)
    customers = CustomerService(PgCustomerRepository(pool), clocks)
    payment_methods = PaymentMethodService(
        PgPaymentMethodRepository(pool), boxes["payment-method-token"], clocks
    )
    invoice_charges = InvoiceCharges(charge_repo, deps.processors, clocks, views, deps.fingerprint_key)
    balances = PgCustomerBalances(pool)
    payer = InvoicePayer(balances, payment_methods, invoice_charges)
    subscription_actors = ActorRegistry(
        lambda subscription_id: SubscriptionActor(
            subscription_id,
            leases("subscription", subscription_id),
            subscription_repo,
            clocks,
            payer,
            acquire_wait=settings.lease_wait_seconds,
        ),
        idle_timeout=settings.actor_idle_seconds,
        name="subscription",
    )
    subscriptions = SubscriptionService(
        subscription_repo,
        subscription_actors,
        plans,
        customers,
        tax_rates,
        charges,
        balances,
        clocks,
        runner,
        ask_timeout=ask_timeout,
    )
    payout_repo = PgPayoutRepository(pool, accounts, jobs)
    payouts = PayoutService(payout_repo, clocks)
    billing_run = BillingRun(
        subscription_repo,
        subscriptions,
        subscription_actors,
        BillingReferences(plans, customers, tax_rates),
        ask_timeout=ask_timeout,
    )
    # A new default payment method retries what its customer's subscriptions owe (DESIGN §9).
    customers.on_default_changed(billing_run.retry_open_invoices)
    payment_methods.on_default_changed(billing_run.retry_open_invoices)
    sweeps.append(
        TimerSweep(
            "billing",
            billing_run,
            clock,
            jobs,
            interval=settings.billing_interval_seconds,
            lease=job_claim,
            next_wake=offsets.next_midnight,
            batch=BILLING_BATCH,
            parallel=settings.billing_parallel,
        )
    )
    # After the billing run: a clock advance runs the sweeps in this order, so the credits of the invoices
    # it pays are booked before the payout run looks for what became available.
    sweeps.append(
        TimerSweep(
            "payouts",
            PayoutRun(payout_repo, payouts),
            clock,
            jobs,
            # Payouts fall due at 00:00 of the merchant's clock: the sweep wakes then (within a second).
            interval=settings.billing_interval_seconds,
            lease=job_claim,
            next_wake=offsets.next_midnight,
        )
    )
    # The customer portal (DESIGN §9): its pages beside the hosted checkout unless PORTAL_BASE_URL.
    portal = PortalSessionService(
        PgPortalSessionRepository(pool),
        customers,
        payment_methods,
        subscriptions,
        InvoiceService(subscription_repo),
        plans,
        tax_rates,
        merchants_repo,
        clocks,
        portal_base_url=settings.portal_base_url or settings.checkout_base_url,
        form_key=derive_key(settings.fingerprint_master, "portal-anti-forgery"),
    )
    # `payconnect listen` (DESIGN §10.6): session secrets are derived from (merchant, device name).
    cli_sessions = CliSessionService(
        PgCliSessionRepository(pool), clocks, derive_key(settings.fingerprint_master, "cli-session-secret")
    )
    cli_stream = CliEventStream(
        cli_sessions,
        PgTestEventLog(pool),
        clocks,
        poll_interval=settings.cli_stream_poll_seconds,
        keepalive_interval=settings.cli_stream_keepalive_seconds,
    )
    return Core(
        settings=settings,
        pool=pool,
        redis=redis,
        charge_actors=charge_actors,
        views=views,
        charges=charges,
        checkout=CheckoutService(
            charge_repo,
            merchants_repo,
            charge_actors,
            clocks,
            ask_timeout=settings.ask_timeout_seconds,
        ),
        tax_rates=tax_rates,
        plans=plans,
        merchants=MerchantService(
            merchants_repo,
            JwtIssuer(settings.jwt_signing_key, clock),
            clock,
            attempts=RedisLoginAttempts(redis, namespace=settings.redis_namespace),
            kdf=kdf_pool,
        ),
        api_keys=ApiKeyService(PgApiKeyRepository(pool), clock),
        runner=runner,
        sweeps=sweeps,
        test_clock=TestClockService(clock, offsets, sweeps, limits=PgClockLimits(pool)),
        clock_listener=clock_listener,
        webhooks=WebhookEndpointService(
            PgWebhookEndpointRepository(pool),
            deliveries,
            sealer,
            resolver,
            clocks,
            allow_private_targets=settings.webhook_allow_private_targets,
        ),
        events=EventService(PgEventRepository(pool), clocks),
        customers=customers,
        invoice_charges=invoice_charges,
        subscription_actors=subscription_actors,
        subscriptions=subscriptions,
        invoices=InvoiceService(subscription_repo),
        portal=portal,
        ledger=LedgerService(PgLedgerRepository(pool), clocks),
        payouts=payouts,
        cli_sessions=cli_sessions,
        cli_stream=cli_stream,
        test_reset=TestResetService(PgTestDataStore(pool), offsets.forget),
        payment_methods=payment_methods,
        customer_balances=CustomerBalanceService(balances, customers, clocks),
        delivery=dispatch,
        deliveries=deliveries,
        dispatch_pool=dispatch_pool,
        announcer=announcer,
        retention=retention,
        kdf_pool=kdf_pool,
        heartbeat=heartbeat,
    )
