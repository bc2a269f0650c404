"""CoreCallGate: a bounded number of core calls per worker, a short line, and a 503 at once past both."""

from __future__ import annotations

import asyncio
import time

import pytest
from connect import errors

from http_gateway.core_client.load_shedding import CoreCallGate
from http_gateway.edge.errors import ApiError


async def _hold(gate: CoreCallGate, request_id: str, release: asyncio.Event, log: list[str]) -> None:
    async with gate.slot(request_id):
        log.append(request_id)
        await release.wait()


def _assert_shed(err: ApiError) -> None:
    assert err.http_status == 503
    assert (err.type, err.code) == (errors.API, errors.SERVICE_UNAVAILABLE.code)
    assert err.headers["Retry-After"] == "1"


async def test_a_call_past_the_slots_and_the_line_is_refused_at_once() -> None:
    gate = CoreCallGate(limit=2, queue=0, wait=5.0)
    release, log = asyncio.Event(), list[str]()
    holders = [asyncio.create_task(_hold(gate, f"r{n}", release, log)) for n in range(2)]
    await asyncio.sleep(0)
    started = time.monotonic()
    with pytest.raises(ApiError) as shed:
        async with gate.slot("r3"):
            pytest.fail("admitted past the bound")
    assert time.monotonic() - started < 0.05  # no wait: the line holds nobody
    _assert_shed(shed.value)
    assert gate.full()
    release.set()
    await asyncio.gather(*holders)
    assert gate.in_flight == 0 and not gate.full()


async def test_a_waiting_call_gets_the_first_freed_slot_in_arrival_order() -> None:
    gate = CoreCallGate(limit=1, queue=2, wait=5.0)
    release_first, release_rest, log = asyncio.Event(), asyncio.Event(), list[str]()
    first = asyncio.create_task(_hold(gate, "first", release_first, log))
    await asyncio.sleep(0)
    waiting = [asyncio.create_task(_hold(gate, name, release_rest, log)) for name in ("second", "third")]
    await asyncio.sleep(0.01)
    assert log == ["first"] and gate.full()
    release_first.set()
    await first
    await asyncio.sleep(0.01)
    assert log == ["first", "second"]  # the freed slot went to the oldest waiter
    assert gate.in_flight == 1
    release_rest.set()
    await asyncio.gather(*waiting)
    assert log == ["first", "second", "third"] and gate.in_flight == 0


async def test_a_call_that_waits_out_its_budget_is_refused_and_leaves_the_line() -> None:
    gate = CoreCallGate(limit=1, queue=4, wait=0.03)
    release, log = asyncio.Event(), list[str]()
    holder = asyncio.create_task(_hold(gate, "holder", release, log))
    await asyncio.sleep(0)
    started = time.monotonic()
    with pytest.raises(ApiError) as shed:
        async with gate.slot("late"):
            pytest.fail("admitted while the slot was held")
    waited = time.monotonic() - started
    assert 0.025 <= waited < 0.1
    _assert_shed(shed.value)
    assert gate.in_flight == 1 and not gate._waiters  # it left the line, and took no slot
    release.set()
    await holder
    assert gate.in_flight == 0


async def test_after_a_wait_ran_out_the_line_closes_for_a_while_and_then_opens_again() -> None:
    now = [100.0]
    gate = CoreCallGate(limit=1, queue=4, wait=0.02, closed_for=1.0, clock=lambda: now[0])
    release, log = asyncio.Event(), list[str]()
    holder = asyncio.create_task(_hold(gate, "holder", release, log))
    await asyncio.sleep(0)
    assert not gate.full()  # the line has room
    with pytest.raises(ApiError):
        async with gate.slot("timed-out"):
            pytest.fail("admitted while the slot was held")
    # A sustained overload, not a burst: with every slot taken, the next request is shed at once, and
    # turned away as it arrives.
    assert gate.full()
    started = time.monotonic()
    with pytest.raises(ApiError):
        async with gate.slot("next"):
            pytest.fail("admitted while the slot was held")
    assert time.monotonic() - started < 0.015
    now[0] += 1.0
    assert not gate.full()  # open again: a burst may wait in line
    release.set()
    await holder
    async with gate.slot("after"):  # a free slot is taken whatever the line
        assert gate.in_flight == 1


async def test_a_later_call_of_an_admitted_request_is_never_shed() -> None:
    gate = CoreCallGate(limit=1, queue=0, wait=0.0)
    async with gate.slot("req_1"):
        async with gate.slot("req_1"):  # e.g. the key looked up, then the operation
            assert gate.in_flight == 2
        with pytest.raises(ApiError):
            async with gate.slot("req_2"):
                pytest.fail("another request admitted past the bound")
    assert gate.in_flight == 0


async def test_a_waiter_that_leaves_the_line_takes_no_slot() -> None:
    gate = CoreCallGate(limit=1, queue=2, wait=5.0)
    release, log = asyncio.Event(), list[str]()
    holder = asyncio.create_task(_hold(gate, "holder", release, log))
    await asyncio.sleep(0)
    gone = asyncio.create_task(_hold(gate, "gone", asyncio.Event(), log))
    after = asyncio.create_task(_hold(gate, "after", release, log))
    await asyncio.sleep(0.01)
    gone.cancel()  # the client went away while in line
    release.set()
    await holder
    await after
    with pytest.raises(asyncio.CancelledError):
        await gone
    assert log == ["holder", "after"]
    assert gate.in_flight == 0


async def test_a_waiter_cancelled_just_after_a_slot_was_handed_to_it_passes_the_slot_on() -> None:
    gate = CoreCallGate(limit=1, queue=2, wait=5.0)
    release, log = asyncio.Event(), list[str]()
    holding = gate.slot("holder")
    await holding.__aenter__()
    gone = asyncio.create_task(_hold(gate, "gone", asyncio.Event(), log))
    after = asyncio.create_task(_hold(gate, "after", release, log))
    await asyncio.sleep(0.01)
    await holding.__aexit__(None, None, None)  # the slot is handed to "gone", which has not run yet
    gone.cancel()
    with pytest.raises(asyncio.CancelledError):
        await gone
    await asyncio.sleep(0.01)
    assert log == ["after"] and gate.in_flight == 1
    release.set()
    await after
    assert gate.in_flight == 0


async def test_no_bound_admits_everything() -> None:
    gate = CoreCallGate(limit=0, queue=0, wait=0.0)
    release, log = asyncio.Event(), list[str]()
    tasks = [asyncio.create_task(_hold(gate, f"r{n}", release, log)) for n in range(50)]
    await asyncio.sleep(0)
    assert len(log) == 50 and not gate.full()
    release.set()
    await asyncio.gather(*tasks)


async def test_requests_on_their_way_count_against_the_slots_until_their_first_call_or_the_horizon() -> None:
    now = [10.0]
    gate = CoreCallGate(limit=2, queue=0, wait=0.05, clock=lambda: now[0])  # no line: shed when taken
    gate.arrived()
    assert not gate.full()
    gate.arrived()
    assert gate.full()  # two on their way to two slots: a third is turned away as it arrives
    async with gate.slot("first"):  # one of them made its call: still two slots spoken for
        assert gate.full()
    assert not gate.full()  # the call ended; the other is still on its way
    gate.arrived()
    assert gate.full()
    now[0] += 0.2  # past the horizon: requests that never called the core count no more
    assert not gate.full()
