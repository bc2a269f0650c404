"""The EntityLease and LeaseFactory ports the actor runtime needs from a cross-process lock."""

from __future__ import annotations

from typing import Protocol


class EntityLease(Protocol):
    """A time-bounded, owner-checked lock on one entity, held by one actor activation.

    The lease keeps two processes from serving the same entity at once; it is NOT what makes writes
    safe (a paused holder can outlive its TTL) — the storage fence is. One lease object serves one
    activation: acquire once, renew while busy, release once.
    """

    @property
    def ttl_ms(self) -> int:
        """Lifetime of the lease after acquire/renew, in milliseconds; the actor renews every ttl/3."""
        ...

    async def acquire(self, wait_s: float) -> bool:
        """Try to take the lease, waiting at most `wait_s` seconds; False if another owner kept it."""
        ...

    async def renew(self) -> bool:
        """Push the expiry out by ttl if still ours; False if it expired or another owner has it."""
        ...

    async def release(self) -> None:
        """Give the lease up if still ours; a no-op if it expired or belongs to someone else."""
        ...


class LeaseFactory(Protocol):
    """Builds the lease for one entity of one kind (e.g. `("charge", "ch_123")`)."""

    def __call__(self, kind: str, entity_id: str) -> EntityLease: ...
