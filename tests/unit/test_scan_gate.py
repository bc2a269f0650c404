"""ScanGate: a bounded number of heavy reads at once, the rest in order, none waiting past the time-out."""

from __future__ import annotations

import asyncio

import pytest

from core_server.db.scan_gate import LIST_CONCURRENCY, ScanGate, gate_for, point_read_gate_for


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
    with pytest.raises(ValueError):
        ScanGate(4, per_tenant=0, timeout=1.0)


class Reads:
    """Lists held open until released one by one, recording who started when."""

    def __init__(self, gate: ScanGate) -> None:
        self.gate = gate
        self.started: list[str] = []
        self.release: dict[str, asyncio.Event] = {}
        self.tasks: list[asyncio.Task[None]] = []

    def start(self, tenant: str, name: str) -> None:
        self.release[name] = asyncio.Event()

        async def read() -> None:
            async with self.gate.slot(tenant):
                self.started.append(name)
                await self.release[name].wait()

        self.tasks.append(asyncio.create_task(read()))

    async def settle(self) -> None:
        for _ in range(5):
            await asyncio.sleep(0)


async def test_one_tenant_holds_at_most_its_share_and_another_tenant_starts_at_once() -> None:
    """DESIGN §10.9: one merchant's parallel lists cannot take every slot of the core."""
    reads = Reads(ScanGate(4, per_tenant=2, timeout=5.0))
    for n in range(6):
        reads.start("acct_busy", f"busy{n}")
    await reads.settle()
    assert reads.started == ["busy0", "busy1"]  # two slots stay free for everyone else
    reads.start("acct_other", "other0")
    await reads.settle()
    assert reads.started == ["busy0", "busy1", "other0"]
    for event in reads.release.values():
        event.set()
    await asyncio.gather(*reads.tasks)
    assert reads.started[3:] == ["busy2", "busy3", "busy4", "busy5"]  # its own lists in arrival order


async def test_freed_slots_go_round_robin_across_waiting_tenants() -> None:
    reads = Reads(ScanGate(2, per_tenant=2, timeout=5.0))
    for n in range(4):
        reads.start("a", f"a{n}")
    await reads.settle()
    for n in range(2):
        reads.start("b", f"b{n}")
    reads.start("c", "c0")
    await reads.settle()
    assert reads.started == ["a0", "a1"]
    # Each freed slot goes to the next tenant in turn, not to the tenant that queued first and most.
    for done in ("a0", "a1"):
        reads.release[done].set()
        await reads.settle()
    assert reads.started == ["a0", "a1", "b0", "c0"]
    for event in reads.release.values():
        event.set()
    await asyncio.gather(*reads.tasks)
    assert sorted(reads.started[4:]) == ["a2", "a3", "b1"]


async def test_a_waiter_that_times_out_leaves_its_turn_to_the_next() -> None:
    gate = ScanGate(1, per_tenant=1, timeout=0.05)
    reads = Reads(gate)
    reads.start("a", "a0")
    await reads.settle()
    with pytest.raises(TimeoutError):
        async with gate.slot("b"):
            pass
    reads.start("c", "c0")
    await reads.settle()
    reads.release["a0"].set()
    await reads.settle()
    assert reads.started == ["a0", "c0"]
    reads.release["c0"].set()
    await asyncio.gather(*reads.tasks)
    async with gate.slot("b"):  # every slot came back
        pass


class _Pool:
    timeout = 0.05


def test_every_repository_of_one_pool_shares_its_gate() -> None:
    pool, other = _Pool(), _Pool()
    assert gate_for(pool) is gate_for(pool)  # charges, customers, events… one bound for the process
    assert gate_for(other) is not gate_for(pool)


async def test_the_shared_gate_waits_no_longer_than_the_pool_would() -> None:
    gate = gate_for(_Pool())
    held = [gate.slot(f"acct_{n}") for n in range(LIST_CONCURRENCY)]
    for slot in held:
        await slot.__aenter__()
    with pytest.raises(TimeoutError):
        async with gate.slot():
            pass
    for slot in held:
        await slot.__aexit__(None, None, None)


def test_point_reads_have_a_gate_of_their_own_per_pool() -> None:
    pool = _Pool()
    assert point_read_gate_for(pool) is point_read_gate_for(pool)
    assert point_read_gate_for(pool) is not gate_for(pool)  # a point read never queues behind a list
