"""Rendezvous ranking of cores per entity, and the pinned call's choice of channel."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import grpc

from http_gateway.core_client.affinity import ranked
from http_gateway.core_client.grpc_clients import CoreClients, PinnedCore

CORES = ["10.0.0.1:50051", "10.0.0.2:50051", "10.0.0.3:50051"]
IDS = [f"ch_{n:032d}" for n in range(3_000)]


def _first(entity_id: str, addresses: list[str]) -> str:
    return addresses[ranked(entity_id, addresses)[0]]


def test_every_gateway_ranks_alike_whatever_order_it_lists_the_cores_in() -> None:
    backwards = list(reversed(CORES))
    assert all(_first(i, CORES) == _first(i, backwards) for i in IDS)


def test_entities_spread_evenly_over_the_cores() -> None:
    share = Counter(_first(i, CORES) for i in IDS)
    assert set(share) == set(CORES)
    assert all(900 <= n <= 1_100 for n in share.values()), share


def test_removing_a_core_moves_only_its_own_entities() -> None:
    without_last = CORES[:2]
    moved = [i for i in IDS if _first(i, CORES) != CORES[2] and _first(i, without_last) != _first(i, CORES)]
    assert moved == []


def test_the_ranking_is_a_permutation_of_the_cores() -> None:
    assert sorted(ranked("ch_x", CORES)) == [0, 1, 2]
    assert ranked("ch_x", []) == []


@dataclass
class _Channel:
    state: grpc.ChannelConnectivity

    def get_state(self, try_to_connect: bool = False) -> grpc.ChannelConnectivity:
        return self.state


def _clients(states: list[grpc.ChannelConnectivity]) -> tuple[CoreClients, object]:
    balanced = object()
    cores = tuple(
        PinnedCore(address, _Channel(state), {balanced: f"{address} twin"})
        for address, state in zip(CORES, states, strict=True)
    )
    clients = CoreClients(None, None, None, None, None, None, cores=cores, addresses=tuple(CORES))
    return clients, balanced


READY, IDLE = grpc.ChannelConnectivity.READY, grpc.ChannelConnectivity.IDLE
DOWN, CONNECTING = grpc.ChannelConnectivity.TRANSIENT_FAILURE, grpc.ChannelConnectivity.CONNECTING


def test_a_pinned_call_takes_the_first_ranked_core_that_is_connected_or_idle() -> None:
    order = ranked("ch_x", CORES)
    states = [READY] * 3
    clients, method = _clients(states)
    assert clients.pinned(method, "ch_x") == f"{CORES[order[0]]} twin"

    states[order[0]] = DOWN
    states[order[1]] = IDLE
    clients, method = _clients(states)
    assert clients.pinned(method, "ch_x") == f"{CORES[order[1]]} twin"

    states[order[1]] = CONNECTING
    clients, method = _clients(states)
    assert clients.pinned(method, "ch_x") == f"{CORES[order[2]]} twin"


def test_with_no_usable_core_or_a_single_address_the_call_stays_balanced() -> None:
    clients, method = _clients([DOWN, CONNECTING, DOWN])
    assert clients.pinned(method, "ch_x") is method
    single = CoreClients(None, None, None, None, None, None)
    assert single.pinned(method, "ch_x") is method
