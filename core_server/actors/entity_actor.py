"""EntityActor: the per-entity mailbox loop with lease-guarded activation, idle passivation and drain on stop.

Invariants (what the lease, the single consumer and the storage fence protect together):

1. One consumer task per actor reads the inbox, so turns (`receive` calls) never interleave and run in
   arrival order. Inside a turn, other coroutines (new asks, the renew task, `stop()`) may run at every
   await, but they only append to the inbox or close intake; they never touch subclass state.
2. `receive` runs only between a successful `lease.acquire` + `on_activate` and the release of the lease.
   If the lease is not had within `acquire_wait`, every queued ask fails with `EntityBusy` and `receive`
   is never called. If `acquire` or `on_activate` raises, every queued ask fails with that exception.
3. The lease is renewed every ttl/3. A failed renewal closes intake at once: queued asks fail with
   `LeaseLost`, the in-flight turn (if any) is allowed to finish. The lease alone cannot make that turn
   safe (a paused process can outlive its TTL): the storage fence taken in `on_activate` does, by
   rejecting writes from a stale holder (the lead's `StaleFence`).
4. An exception whose class has a truthy `stops_actor` attribute fails its own ask, then stops the actor:
   queued asks fail with `ActorStopped`. Any other exception goes to its caller and the actor keeps going.
5. Every refusal (`ActorStopped`, `EntityBusy`, `LeaseLost`) means `receive` never ran for that message.
   When a hard stop cancels a turn in flight (`stop_all` grace ran out), its caller gets `TurnInterrupted`
   instead: the outcome is unknown, and callers holding an idempotency claim keep it.
6. Closing intake and draining the inbox happen in one synchronous step, so no ask is lost between them:
   an ask either lands in an inbox that will be served or drained, or `offer` returns False and the
   registry waits for this actor to finish (lease released, left the registry) before activating anew.
7. On every stop after a successful `on_activate`, `on_deactivate` runs before the lease is released;
   it must not assume the lease or the fence is still held (the stop may be due to losing them).
8. State lives only for a busy period: after `idle_timeout` seconds with an empty inbox the actor
   passivates, so `on_activate` reloads state on each activation.
"""

from __future__ import annotations

import abc
import asyncio
import logging
from collections.abc import Callable
from typing import Any

from core_server.actors.envelope import Envelope
from core_server.actors.errors import ActorStopped, EntityBusy, LeaseLost, TurnInterrupted
from core_server.actors.lease import EntityLease
from core_server.task_stop import cancel_and_wait

logger = logging.getLogger(__name__)


class EntityActor(abc.ABC):
    """Base class for one entity's actor; subclasses implement `receive` and load state in `on_activate`."""

    def __init__(
        self,
        entity_id: str,
        lease: EntityLease | None,
        *,
        acquire_wait: float = 1.0,
        renew_interval: float | None = None,
    ) -> None:
        self.entity_id = entity_id
        self.lease = lease
        self._acquire_wait = acquire_wait
        if renew_interval is None and lease is not None:
            renew_interval = lease.ttl_ms / 3000.0
        self._renew_interval = renew_interval
        # None is the wake-up sentinel put by `_close_intake` so an idle consumer notices the stop.
        self._inbox: asyncio.Queue[Envelope | None] = asyncio.Queue()
        self._accepting = True
        self._closing = False
        self._closed = asyncio.Event()  # set with _closing: ends a wait for the lease at once
        self._woken = False
        self._release_due = False
        self._idle_timeout: float | None = None
        self._on_exit: Callable[[EntityActor], None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._renew_task: asyncio.Task[None] | None = None

    # -- hooks ---------------------------------------------------------------------------------------

    async def on_activate(self) -> None:  # noqa: B027 - optional hook
        """Load state (and take the storage fence); runs after the lease is had, before the first turn."""

    async def on_deactivate(self) -> None:  # noqa: B027 - optional hook
        """Flush or forget state; runs before the lease is released. The lease may already be lost."""

    @abc.abstractmethod
    async def receive(self, message: Any) -> Any:
        """Handle one message; the return value or exception goes to that message's caller."""

    # -- control -------------------------------------------------------------------------------------

    def start(
        self,
        *,
        idle_timeout: float | None = None,
        name: str | None = None,
        on_exit: Callable[[EntityActor], None] | None = None,
    ) -> None:
        """Spawn the consumer task; `on_exit` runs synchronously once the lease has been released."""
        if self._task is not None:
            raise RuntimeError(f"actor {self.entity_id} already started")
        self._idle_timeout = idle_timeout
        self._on_exit = on_exit
        self._task = asyncio.create_task(self._run(), name=name or f"actor:{self.entity_id}")
        self._task.add_done_callback(self._log_crash)

    @property
    def task(self) -> asyncio.Task[None] | None:
        """The consumer task (None before `start`); done once the lease is released."""
        return self._task

    @property
    def accepting(self) -> bool:
        """True while `offer` will queue messages."""
        return self._accepting

    def offer(self, envelope: Envelope) -> bool:
        """Queue `envelope` unless intake is closed; False means: wait for this actor to end, then retry."""
        if not self._accepting:
            return False
        self._inbox.put_nowait(envelope)
        return True

    async def ask(self, message: Any) -> Any:
        """Send `message` and await its reply; for direct use without a registry (tests, tools)."""
        reply: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if not self.offer(Envelope(message, reply)):
            raise ActorStopped(self.entity_id, "not accepting messages")
        # await: the turn runs in the consumer task; cancelling here makes the actor skip it if not begun.
        return await reply

    def stop(self) -> None:
        """Close intake, fail queued asks with ActorStopped; the in-flight turn finishes, then deactivate."""
        self._close_intake(lambda: ActorStopped(self.entity_id, "actor stopped"))

    async def wait_stopped(self) -> None:
        """Wait until the consumer task has ended (lease released); never cancels it."""
        if self._task is not None:
            # await: asyncio.wait does not cancel the task if our caller is cancelled.
            await asyncio.wait({self._task})

    # -- internals -----------------------------------------------------------------------------------

    def _close_intake(self, make_error: Callable[[], BaseException]) -> None:
        """Stop intake and fail everything queued, in one synchronous step (invariant 6)."""
        self._accepting = False
        self._closing = True
        self._closed.set()
        self._fail_queued(make_error)
        if not self._woken:
            self._woken = True
            self._inbox.put_nowait(None)

    def _fail_queued(self, make_error: Callable[[], BaseException]) -> None:
        while True:
            try:
                envelope = self._inbox.get_nowait()
            except asyncio.QueueEmpty:
                return
            if envelope is not None and not envelope.reply_to.done():
                envelope.reply_to.set_exception(make_error())

    async def _run(self) -> None:
        activated = False
        try:
            activated = await self._activate()
            if activated:
                await self._serve()
        finally:
            await self._deactivate(activated)

    async def _activate(self) -> bool:
        if self.lease is not None:
            # From here on, release on exit: a cancelled acquire may still have taken the key.
            self._release_due = True
            try:
                # await: asks keep queuing while another process may hold the lease for up to acquire_wait.
                acquired = await self._acquire_unless_closed(self.lease)
            except Exception as exc:
                logger.warning("actor %s: lease acquire failed: %r", self.entity_id, exc)
                acquire_error: Exception = exc  # `exc` is unbound after the except block
                self._close_intake(lambda: acquire_error)
                return False
            if self._closing:
                return False  # stopped while waiting: nothing ran; the exit still releases what we took
            if not acquired:
                self._release_due = False
                logger.info("actor %s: lease busy after %.3fs", self.entity_id, self._acquire_wait)
                self._close_intake(lambda: EntityBusy(self.entity_id, "lease held by another process"))
                return False
            if self._renew_interval is not None and self._renew_interval > 0:
                self._renew_task = asyncio.create_task(
                    self._renew_loop(self.lease, self._renew_interval), name=f"lease-renew:{self.entity_id}"
                )
        if self._closing:
            return False  # stop() or a lost renewal arrived while we waited for the lease
        try:
            # await: state load (e.g. taking the fence in Postgres); asks keep queuing, renewals keep running.
            await self.on_activate()
        except Exception as exc:
            logger.warning("actor %s: on_activate failed: %r", self.entity_id, exc)
            activate_error: Exception = exc  # `exc` is unbound after the except block
            self._close_intake(lambda: activate_error)
            return False
        logger.debug("actor %s: activated", self.entity_id)
        return True

    async def _acquire_unless_closed(self, lease: EntityLease) -> bool:
        """`lease.acquire`, abandoned as soon as intake closes: a shutdown need not wait out another
        owner's lease for a turn that will never run (stop() has already failed the queued asks)."""
        acquiring = asyncio.ensure_future(lease.acquire(self._acquire_wait))
        closed = asyncio.ensure_future(self._closed.wait())
        try:
            # await: whichever comes first, the lease or the stop.
            await asyncio.wait({acquiring, closed}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            closed.cancel()
            if not acquiring.done():
                acquiring.cancel()
        if not acquiring.done() or acquiring.cancelled():
            # await: let the cancelled SET NX unwind; a key it may have taken is released on exit.
            await cancel_and_wait(acquiring)
            return False
        return acquiring.result()

    async def _serve(self) -> None:
        while not self._closing:
            try:
                async with asyncio.timeout(self._idle_timeout):
                    # await: idle point; new asks, stop() or a lost renewal can arrive here.
                    envelope = await self._inbox.get()
            except TimeoutError:
                # A get cancelled by the timeout leaves any just-put item in the queue, so check again.
                if self._inbox.empty():
                    self._accepting = False  # same step as the check: no ask can slip in between
                    logger.debug("actor %s: idle, passivating", self.entity_id)
                    return
                continue
            if envelope is None or envelope.reply_to.done():
                continue  # wake-up sentinel, or a caller that gave up before its turn began
            envelope.began = True  # same step as the check above: the caller can no longer withdraw it
            if not await self._turn(envelope):
                return

    async def _turn(self, envelope: Envelope) -> bool:
        """Run one message; False if the actor must stop after it."""
        reply = envelope.reply_to
        try:
            # await: the turn; other asks queue behind it, the renew task may close intake meanwhile.
            result = await self.receive(envelope.message)
        except Exception as exc:
            if not reply.done():
                reply.set_exception(exc)
            if getattr(type(exc), "stops_actor", False):
                logger.warning("actor %s: stopping after %r", self.entity_id, exc)
                name = type(exc).__name__
                self._close_intake(lambda: ActorStopped(self.entity_id, f"actor stopped after {name}"))
                return False
            return True
        except BaseException:
            # Cancelled by a hard stop (stop_all grace ran out) or a process-level exit: the turn may
            # have done part of its work, so its caller must not be told that nothing ran.
            if not reply.done():
                reply.set_exception(
                    TurnInterrupted(self.entity_id, "cancelled during its turn; outcome unknown")
                )
            raise
        if not reply.done():
            reply.set_result(result)
        return True

    async def _renew_loop(self, lease: EntityLease, interval: float) -> None:
        while True:
            # await: turns run while we sleep.
            await asyncio.sleep(interval)
            try:
                async with asyncio.timeout(interval):
                    # await: a turn may be in flight; if this fails it still finishes (the fence guards it).
                    renewed = await lease.renew()
            except Exception as exc:
                # A renewal we cannot confirm counts as lost: better refuse work than run unguarded.
                logger.warning("actor %s: lease renew failed: %r", self.entity_id, exc)
                renewed = False
            if not renewed:
                logger.warning("actor %s: lease lost, closing intake", self.entity_id)
                self._close_intake(lambda: LeaseLost(self.entity_id, "lease renewal failed"))
                return

    async def _deactivate(self, activated: bool) -> None:
        self._accepting = False
        self._closing = True
        # Anything still queued here never ran (e.g. the consumer was cancelled mid-turn).
        self._fail_queued(lambda: ActorStopped(self.entity_id, "actor stopped"))
        try:
            if activated:
                try:
                    # await: asks arriving now see offer() == False and wait for this task to end.
                    await self.on_deactivate()
                except Exception:
                    logger.exception("actor %s: on_deactivate failed", self.entity_id)
            await self._stop_renewing()
            if self._release_due and self.lease is not None:
                self._release_due = False
                try:
                    # await: waiting asks activate a fresh actor only after this returns.
                    await self.lease.release()
                except Exception as exc:
                    logger.warning("actor %s: lease release failed (expires by TTL): %r", self.entity_id, exc)
        finally:
            # The task may have been cancelled mid-cleanup; make sure no lease renewals outlive it.
            if self._renew_task is not None:
                self._renew_task.cancel()
            logger.debug("actor %s: deactivated", self.entity_id)
            if self._on_exit is not None:
                self._on_exit(self)

    async def _stop_renewing(self) -> None:
        task, self._renew_task = self._renew_task, None
        if task is not None:
            # await: only the renew task's own cleanup runs here.
            await cancel_and_wait(task)

    def _log_crash(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            logger.error("actor %s crashed", self.entity_id, exc_info=task.exception())
