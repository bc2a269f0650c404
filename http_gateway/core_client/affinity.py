"""Which core serves an entity: the same one from every gateway, while it is up.

Every request about one charge goes to one core, so between the steps of a flow (checkout, capture,
refund) the charge's actor stays active there, instead of being passivated by one core and activated
again by the other (a lease handover, a fence bump and a reload per step), which round-robin did for
every other step. Rendezvous (highest random weight) hashing ranks the cores for each entity: every
gateway ranks alike without talking to the others, whatever order its CORE_GRPC_ADDR lists them in, and
when a core is down only its own entities move, each to its next-ranked core, and they come back when
it returns. Affinity only saves work: the Redis lease and the row fence keep one charge's writes
serialized whichever core takes them.

gRPC's own `ring_hash` policy keyed by a request header (gRFC A76) would do this inside the channel,
but grpcio 1.85 still gates the header key behind GRPC_EXPERIMENTAL_RING_HASH_SET_REQUEST_HASH_KEY,
and without the flag every call fails with INTERNAL ("hash attribute not present"): one unset
variable away from an outage. Once it is on by default, this module and the pinned channels can go.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence


def ranked(entity_id: str, addresses: Sequence[str]) -> list[int]:
    """Indexes into `addresses`, the core to prefer first; the same in every process."""
    key = entity_id.encode()
    return sorted(range(len(addresses)), key=lambda i: _weight(addresses[i], key), reverse=True)


def _weight(address: str, key: bytes) -> bytes:
    # A keyed hash of (core, entity): independent across cores, stable across processes (unlike hash()).
    return hashlib.blake2b(key, digest_size=8, key=address.encode()[:64]).digest()
