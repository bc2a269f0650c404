"""CoreCallGate: a bounded number of core calls per worker, a short line, and a 503 at once past both."""

from __future__ import annotations

import asyncio
import time

import pytest
from connect import errors

from http_gateway.core_client.load_shedding import EN_ROUTE_HORIZON, CoreCallGate
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


async def test_requests_on_their_way_count_against_the_slots_until_their_first_call() -> None:
    now = [10.0]
    gate = CoreCallGate(limit=2, queue=0, wait=0.05, clock=lambda: now[0])  # no line: shed when taken
    gate.arrived("first")
    assert not gate.full()
    gate.arrived("second")
    assert gate.full()  # two on their way to two slots: a third is turned away as it arrives
    async with gate.slot("first"):  # one of them made its call: still two slots spoken for
        assert gate.full()
    assert not gate.full()  # the call ended; the other is still on its way
    gate.arrived("third")
    assert gate.full()
    now[0] += 0.5  # a slow way (a lagging loop, a slow Redis round trip) still holds its slot
    assert gate.full()
    gate.left("third")  # answered without a core call (a 400, a 401): what it held is free again
    assert not gate.full()
    gate.arrived("fourth")
    now[0] += EN_ROUTE_HORIZON + 0.1  # one that vanished without an answer counts no longer
    assert not gate.full()


async def test_requests_on_their_way_hold_places_in_the_open_line_too() -> None:
    gate = CoreCallGate(limit=1, queue=2, wait=5.0)
    release, log = asyncio.Event(), list[str]()
    holder = asyncio.create_task(_hold(gate, "holder", release, log))
    await asyncio.sleep(0)
    # The slot is taken and the line is open with two places: two requests are let in on their way to
    # them, and a third is turned away as it arrives, before the first two have reached the line.
    gate.arrived("a")
    assert not gate.full()
    gate.arrived("b")
    assert gate.full()
    waiting = [asyncio.create_task(_hold(gate, name, release, log)) for name in ("a", "b")]
    await asyncio.sleep(0.01)
    assert len(gate._waiters) == 2 and gate.full()  # in line now, no longer on their way
    release.set()
    await asyncio.gather(holder, *waiting)
    assert log == ["holder", "a", "b"] and gate.in_flight == 0 and not gate.full()


async def test_a_burst_let_in_while_the_line_was_open_is_not_shed_at_the_line_after_its_work() -> None:
    """Under the old rule every request arriving while the line had room was let in, however many were
    already on their way to it: a burst of 20 against one slot and one place did its key check and
    rate-limit round trip, and 19 of it were then shed at the line."""
    gate = CoreCallGate(limit=1, queue=1, wait=0.02)
    release, log = asyncio.Event(), list[str]()
    holder = asyncio.create_task(_hold(gate, "holder", release, log))
    await asyncio.sleep(0)
    let_in = []
    for n in range(20):
        if not gate.full():
            gate.arrived(f"burst-{n}")
            let_in.append(f"burst-{n}")
    assert let_in == ["burst-0"]  # one place in line, so one let in; 19 turned away on arrival
    release.set()
    await holder
    async with gate.slot("burst-0"):  # the slot freed meanwhile: no wait, no 503
        assert gate.in_flight == 1
