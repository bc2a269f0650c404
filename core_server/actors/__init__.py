"""Generic asyncio actor runtime: one actor per entity, one turn at a time, lease-guarded activation."""

from __future__ import annotations

from core_server.actors.entity_actor import EntityActor
from core_server.actors.envelope import Envelope
from core_server.actors.errors import ActorError, ActorStopped, EntityBusy, LeaseLost, TurnInterrupted
from core_server.actors.lease import EntityLease, LeaseFactory
from core_server.actors.registry import ActorRegistry

__all__ = [
    "ActorError",
    "ActorRegistry",
    "ActorStopped",
    "EntityActor",
    "EntityBusy",
    "EntityLease",
    "Envelope",
    "LeaseFactory",
    "LeaseLost",
    "TurnInterrupted",
]
