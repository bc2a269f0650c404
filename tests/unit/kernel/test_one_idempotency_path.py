"""Every mutating RPC goes through the one idempotency path, `kernel/transport/idempotent_rpc.py`.

The server is built as the core builds it (`main.build_server`), over a core whose services are poisoned
(any use fails the test) and whose runner is a spy. Every registered RPC whose request message has an
`idempotency` field is then called with a key: it must reach the runner, with that key, from the kernel
path and from nowhere else, before it touches a service. A servicer with a hand-written `runner.run`, one
that ignores the key, or one that works before claiming it fails here, naming the RPC.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from connect.v1 import common_pb2

from core_server import main
from core_server.kernel.transport import idempotent_rpc
from core_server.rpc.method_table import MethodTable

KERNEL_PATH = idempotent_rpc.__name__
KEY = "key-of-the-probe"
CALLER = common_pb2.Caller(merchant_id="acct_probe", environment=common_pb2.ENVIRONMENT_TEST)
# An RPC with an `idempotency` field that is no mutation, and why.
NOT_MUTATING = {
    "connect.v1.IdempotencyService/CheckIdempotencyKey": "the key check itself (409 before 400)",
}
# Besides the kernel path, the runner is driven only by keys the application makes for itself.
RUNNER_CALLERS = {
    Path("core_server/kernel/transport/idempotent_rpc.py"),
    Path("core_server/billing/application/cancel_refunds.py"),  # the cancel refund's own key, no RPC
}
ROOT = Path(__file__).resolve().parents[3]


class Entered(BaseException):
    """The runner was reached: the probe ends here (BaseException: `@rpc` maps only Exceptions)."""


class Bypassed(BaseException):
    """Something other than the runner was used first."""


class Poison:
    """A service of the core: any use before the runner is a bypass."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        raise Bypassed(f"used {self._name}.{attribute} before the runner")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise Bypassed(f"called {self._name} before the runner")

    def __bool__(self) -> bool:
        raise Bypassed(f"tested {self._name} before the runner")


class SpyRunner:
    """Records who reached it with which key, then stops the call."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, str, str | None]] = []

    def _enter(self, method: str, caller: str, request: Any) -> None:
        self.entries.append((method, caller, getattr(request, "key", None)))
        raise Entered

    async def run(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        self._enter("run", sys._getframe(1).f_globals["__name__"], request)

    async def check(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        self._enter("check", sys._getframe(1).f_globals["__name__"], request)


class ProbeCore:
    """`Core` as build_server reads it: the spy runner, settings, and a poisoned service for the rest."""

    def __init__(self, runner: SpyRunner) -> None:
        self.runner = runner
        self.settings = type("Settings", (), {"auth_token": "", "max_in_flight_rpcs": 0})()

    def __getattr__(self, name: str) -> Any:
        return Poison(f"core.{name}")


class RecordingServer:
    def __init__(self) -> None:
        self.services: dict[str, dict[str, Any]] = {}

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        # build_server hands its services over in one MethodTable (core_server/rpc/method_table.py).
        for handler in handlers:
            if isinstance(handler, MethodTable):
                self.services.update({name: dict(methods) for name, methods in handler.services.items()})

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        self.services[service] = handlers


class ProbeContext:
    def invocation_metadata(self) -> tuple[()]:
        return ()

    def set_trailing_metadata(self, metadata: Any) -> None:
        pass

    async def abort(self, code: grpc.StatusCode, message: str, trailing_metadata: Any = ()) -> None:
        raise Bypassed(f"answered {code.name} ({message}) before the runner")


def registered(monkeypatch: pytest.MonkeyPatch, runner: SpyRunner) -> dict[str, dict[str, Any]]:
    server = RecordingServer()
    monkeypatch.setattr(main.grpc.aio, "server", lambda **_: server)
    main.build_server(ProbeCore(runner))  # type: ignore[arg-type]
    return {name: handlers for name, handlers in server.services.items() if name.startswith("connect.v1.")}


def keyed_request(handler: Any) -> Any:
    request = handler.request_deserializer(b"")
    if "idempotency" not in request.DESCRIPTOR.fields_by_name:
        return None
    request.idempotency.key = KEY
    request.idempotency.fingerprint = "fingerprint"
    if "caller" in request.DESCRIPTOR.fields_by_name:
        request.caller.CopyFrom(CALLER)
    return request


async def probe(method: Callable[[Any, Any], Awaitable[Any]], request: Any, runner: SpyRunner) -> str | None:
    """None when the call reached the runner through the kernel path with its key; else what went wrong."""
    runner.entries.clear()
    try:
        await method(request, ProbeContext())
    except Entered:
        how, caller, key = runner.entries[-1]
        if caller != KERNEL_PATH:
            return f"reached runner.{how} from {caller}, not through {KERNEL_PATH}"
        if key != KEY:
            return f"reached the runner without the request's key (got {key!r})"
        return None
    except Bypassed as exc:
        return str(exc)
    return "answered without reaching the runner"


async def test_every_keyed_rpc_goes_through_the_kernel_path(monkeypatch: pytest.MonkeyPatch) -> None:
    runner = SpyRunner()
    services = registered(monkeypatch, runner)
    assert set(main.SERVICE_NAMES) <= set(services), "build_server registers every service it names"
    failures: dict[str, str] = {}
    probed = []
    for service, handlers in sorted(services.items()):
        for name, handler in sorted(handlers.items()):
            request = keyed_request(handler)
            rpc_name = f"{service}/{name}"
            if request is None or rpc_name in NOT_MUTATING:
                continue
            probed.append(rpc_name)
            failure = await probe(handler.unary_unary, request, runner)
            if failure is not None:
                failures[rpc_name] = failure
    assert failures == {}
    assert len(probed) >= 42, probed  # the API's mutating RPCs (42 today): the enumeration cannot go empty
    assert set(NOT_MUTATING) <= {f"{s}/{n}" for s, handlers in services.items() for n in handlers}


async def test_the_probe_catches_a_hand_written_runner_call() -> None:
    """The check above can fail: a servicer that drives the runner itself is named for it."""

    class HandWritten:
        def __init__(self, runner: SpyRunner) -> None:
            self._runner = runner

        async def Mutate(self, request: Any, context: Any) -> Any:
            return await self._runner.run(request.idempotency, bytes, lambda claim: None)

    runner = SpyRunner()
    request = type("Request", (), {"idempotency": type("Key", (), {"key": KEY})()})()
    failure = await probe(HandWritten(runner).Mutate, request, runner)
    assert failure is not None and "not through" in failure


def _runner_calls(path: Path) -> list[int]:
    """Lines that name `<…runner…>.run` (called or not)."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "run"
            and "runner" in ast.unparse(node.value).lower()
        ):
            lines.append(node.lineno)
    return lines


def test_only_the_kernel_path_drives_the_runner() -> None:
    """Outside the RPCs too: a use case that takes a Claim never runs the runner itself."""
    callers = {
        path.relative_to(ROOT): lines
        for path in sorted((ROOT / "core_server").rglob("*.py"))
        if (lines := _runner_calls(path))
    }
    assert set(callers) == RUNNER_CALLERS, callers
