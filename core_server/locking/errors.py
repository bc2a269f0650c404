"""The lock service's own errors, so redis-py's exception types never leave `core_server.locking`."""

from __future__ import annotations


class LockServiceUnavailable(Exception):
    """Redis could not be reached, dropped the connection or did not answer within the call timeout.

    Retrying later may work. Nothing can be concluded about the key: an `acquire` that raises this may
    still have taken it (the actor releases on exit, and the TTL bounds it either way). The core answers
    UNAVAILABLE (core_server/rpc/status.py).
    """
