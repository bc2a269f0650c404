"""ScanGate: a bounded number of heavy reads at once, the rest in order, none waiting past the time-out."""

from __future__ import annotations

import asyncio

import pytest

from core_server.db.scan_gate import LIST_CONCURRENCY, ScanGate, gate_for


async def test_no_more_than_the_limit_run_at_once_and_the_rest_go_in_arrival_order() -> None:
    gate = ScanGate(2, timeout=5.0)
    running = 0
    most = 0
    started: list[int] = []
    release = asyncio.Event()

    async def read(n: int) -> None:
        nonlocal running, most
        async with gate.slot():
            started.append(n)
            running += 1
            most = max(most, running)
            await release.wait()
            running -= 1

    tasks = [asyncio.create_task(read(n)) for n in range(6)]
    await asyncio.sleep(0.01)
    assert started == [0, 1]
    release.set()
    await asyncio.gather(*tasks)
    assert most == 2
    assert started == [0, 1, 2, 3, 4, 5]


async def test_a_wait_past_the_timeout_raises_timeout_error_and_leaves_the_slots_intact() -> None:
    gate = ScanGate(1, timeout=0.05)
    held = asyncio.Event()
    done = asyncio.Event()

    async def holder() -> None:
        async with gate.slot():
            held.set()
            await done.wait()

    task = asyncio.create_task(holder())
    await held.wait()
    with pytest.raises(TimeoutError):
        async with gate.slot():
            pass
    done.set()
    await task
    async with gate.slot():  # the timed-out waiter took no slot with it
        pass


async def test_a_failing_read_gives_its_slot_back() -> None:
    gate = ScanGate(1, timeout=0.05)
    with pytest.raises(RuntimeError):
        async with gate.slot():
            raise RuntimeError("statement failed")
    async with gate.slot():
        pass


def test_limit_below_one_is_refused() -> None:
    with pytest.raises(ValueError):
        ScanGate(0, timeout=1.0)


class _Pool:
    timeout = 0.05


def test_every_repository_of_one_pool_shares_its_gate() -> None:
    pool, other = _Pool(), _Pool()
    assert gate_for(pool) is gate_for(pool)  # charges, customers, events… one bound for the process
    assert gate_for(other) is not gate_for(pool)


async def test_the_shared_gate_waits_no_longer_than_the_pool_would() -> None:
    gate = gate_for(_Pool())
    held = [gate.slot() for _ in range(LIST_CONCURRENCY)]
    for slot in held:
        await slot.__aenter__()
    with pytest.raises(TimeoutError):
        async with gate.slot():
            pass
    for slot in held:
        await slot.__aexit__(None, None, None)
