"""ActorRegistry: finds or activates an entity's actor in this process, routes asks to it, stops them all."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from core_server.actors.entity_actor import EntityActor
from core_server.actors.envelope import Envelope
from core_server.actors.errors import ActorStopped
from core_server.task_stop import cancel_and_wait

logger = logging.getLogger(__name__)


class ActorRegistry:
    """Process-local directory of live actors of one kind (e.g. name="charge").

    At most one actor per entity id lives here at any time: an actor stays registered until its consumer
    task has ended (lease released), and an ask that finds it closing waits for that end before
    activating a fresh one. So no ask is lost and no two actors in one process serve one entity.
    """

    def __init__(
        self,
        factory: Callable[[str], EntityActor],
        *,
        idle_timeout: float = 0.2,
        name: str,
    ) -> None:
        # idle_timeout is short on purpose: another core process may be waiting for the same lease.
        self._factory = factory
        self._idle_timeout = idle_timeout
        self._name = name
        self._actors: dict[str, EntityActor] = {}
        self._closed = False

    @property
    def name(self) -> str:
        return self._name

    @property
    def active_count(self) -> int:
        """Actors in memory, including ones activating or deactivating (not yet released)."""
        return len(self._actors)

    async def ask(self, entity_id: str, message: Any, timeout: float) -> Any:  # noqa: ASYNC109 - per-ask deadline
        """Deliver `message` to the entity's actor and return its reply, or raise its exception.

        `timeout` bounds the wait for the turn: a closing actor, lease acquisition, the queue. A message
        whose turn has not begun by then is withdrawn (the actor skips it) and TimeoutError means it
        never ran. A turn that has begun is waited for past the deadline and its outcome returned: the
        caller's idempotency claim must not be released while the write it guards may still commit,
        or a retry would run it a second time. Cancelling the caller withdraws a message not yet begun
        and otherwise leaves the turn to finish unobserved.
        """
        reply: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        envelope = Envelope(message, reply)
        try:
            async with asyncio.timeout(timeout):
                await self._deliver(entity_id, envelope)
                # await: the turn runs in the actor's task; shielded so a timeout leaves `reply` alone.
                return await asyncio.shield(reply)
        except TimeoutError:
            if not envelope.began:
                reply.cancel()  # same step as the check: the actor skips it
                raise
        except asyncio.CancelledError:
            if not envelope.began:
                reply.cancel()
            else:
                reply.add_done_callback(_consume)  # nobody will read it; no "never retrieved" warning
            raise
        # await: the turn is under way and bounded by its own I/O time-outs.
        return await reply

    async def _deliver(self, entity_id: str, envelope: Envelope) -> None:
        while True:
            if self._closed:
                raise ActorStopped(entity_id, f"registry {self._name} is stopped")
            actor = self._actors.get(entity_id)
            if actor is None:
                actor = self._activate(entity_id)
            if actor.offer(envelope):
                return
            # The actor is closing (idle, stopped, lease lost): wait until it has released its lease and
            # left the registry, then activate a fresh one.
            # await: other asks for this id may wait here too; the first to resume activates, the rest
            # find that new actor on their next pass.
            await actor.wait_stopped()
            if self._actors.get(entity_id) is actor:  # on_exit always unregisters; this is belt and braces
                del self._actors[entity_id]

    def _activate(self, entity_id: str) -> EntityActor:
        actor = self._factory(entity_id)
        self._actors[entity_id] = actor
        actor.start(
            idle_timeout=self._idle_timeout,
            name=f"actor:{self._name}:{entity_id}",
            on_exit=self._forget,
        )
        return actor

    def _forget(self, actor: EntityActor) -> None:
        if self._actors.get(actor.entity_id) is actor:
            del self._actors[actor.entity_id]

    async def stop_all(self, grace: float) -> None:
        """Graceful shutdown: refuse new asks, fail queued ones with ActorStopped, let in-flight turns
        finish for up to `grace` seconds, then cancel what is left; leases are released either way."""
        self._closed = True
        actors = list(self._actors.values())
        for actor in actors:
            actor.stop()
        tasks = {actor.task for actor in actors if actor.task is not None}
        if not tasks:
            return
        # await: in-flight turns finish and leases are released; asks waiting in _deliver wake and see
        # _closed.
        _, pending = await asyncio.wait(tasks, timeout=grace)
        if pending:
            logger.warning(
                "registry %s: %d actor(s) still busy after %.1fs, cancelling", self._name, len(pending), grace
            )
            # await: cancelled turns unwind; their cleanup still releases the leases (a second cancel
            # only after a second, for a first one a client library swallowed).
            await cancel_and_wait(*pending, recancel=1.0)
        logger.info("registry %s: stopped %d actor(s)", self._name, len(actors))


def _consume(reply: asyncio.Future[Any]) -> None:
    if not reply.cancelled():
        reply.exception()
