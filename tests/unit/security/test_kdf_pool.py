"""KdfPool (core_server/security/kdf_pool.py): at most `workers` hashes run at once, at most `max_waiting`
more wait, and the next one is refused at once instead of queueing; the event loop stays free meanwhile."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time

import pytest

from core_server.merchants.domain.merchant import hash_password, verify_password
from core_server.security.kdf_pool import KDF_NICE, KdfPool, KdfPoolSaturated


class Gate:
    """A blocking job whose threads wait until released, counting how many run at once."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self._lock = threading.Lock()
        self.running = 0
        self.most = 0

    def job(self) -> str:
        with self._lock:
            self.running += 1
            self.most = max(self.most, self.running)
        self.release.wait(10)
        with self._lock:
            self.running -= 1
        return "done"


async def test_beyond_workers_plus_waiting_is_refused_at_once_and_concurrency_is_bounded() -> None:
    pool = KdfPool(workers=2, max_waiting=3)
    gate = Gate()
    try:
        admitted = [asyncio.create_task(pool.run(gate.job)) for _ in range(5)]
        await asyncio.sleep(0.05)
        assert pool.admitted == 5
        started = time.perf_counter()
        with pytest.raises(KdfPoolSaturated):
            await pool.run(gate.job)
        assert time.perf_counter() - started < 0.5  # refused, not queued behind the blocked jobs
        gate.release.set()
        assert await asyncio.gather(*admitted) == ["done"] * 5
        assert gate.most == 2
        assert pool.admitted == 0
        assert await pool.run(gate.job) == "done"  # room again once they finished
    finally:
        gate.release.set()
        pool.close()


async def test_the_event_loop_keeps_running_while_every_worker_hashes() -> None:
    pool = KdfPool(workers=2, max_waiting=8)
    try:
        stored = hash_password("correct horse")
        hashing = [asyncio.create_task(pool.run(verify_password, "guess", stored)) for _ in range(10)]
        ticks = 0
        while not all(task.done() for task in hashing):
            await asyncio.sleep(0.01)
            ticks += 1
        assert await asyncio.gather(*hashing) == [False] * 10
        # Ten scrypt hashes take several hundred ms; the loop ticked all along instead of blocking.
        assert ticks >= 5
        assert pool.peak == 10
    finally:
        pool.close()


def _own_priority() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
async def test_kdf_threads_run_at_the_lowest_priority_and_the_loop_thread_does_not() -> None:
    pool = KdfPool(workers=1, max_waiting=0)
    try:
        assert await pool.run(_own_priority) == KDF_NICE
        assert _own_priority() < KDF_NICE  # the event loop's thread keeps its priority
    finally:
        pool.close()
