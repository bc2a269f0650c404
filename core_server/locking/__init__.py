"""Cross-process entity leases backed by Redis."""

from __future__ import annotations

from core_server.locking.errors import LockServiceUnavailable
from core_server.locking.redis_lease import LeaseScripts, RedisLease, RedisLeaseFactory

__all__ = ["LeaseScripts", "LockServiceUnavailable", "RedisLease", "RedisLeaseFactory"]
