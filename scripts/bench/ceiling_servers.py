"""The bare building blocks the charge path is measured against, each run as its own process.

    ceiling_servers.py sanic  --port P                    # bare Sanic JSON POST /echo (framework limit)
    ceiling_servers.py grpc   --port P                    # trivial grpc.aio unary server (answers the bytes)
    ceiling_servers.py twohop --port P --grpc-target T    # Sanic POST /echo making one unary call to T
    ceiling_servers.py naive-core --port P --database-url D   # grpc.aio: one transaction, charge + event
    ceiling_servers.py naive --port P --grpc-target T     # Sanic POST /charges → naive-core, 201 + JSON

They run the way the gateway and core run (one process, uvloop, no access log), so the ratio of an
operation to a ceiling says how much of the budget the application itself spends. `naive` and
`naive-core` are the peer rather than a ceiling: the same parts wired the obvious way.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import signal
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

GRPC_METHOD = "/bench.Echo/Echo"


def run_sanic(port: int, grpc_target: str | None) -> None:
    import grpc
    from sanic import Request, Sanic
    from sanic.response import HTTPResponse, json

    app = Sanic("bench_ceiling", configure_logging=False)
    app.config.ACCESS_LOG = False

    if grpc_target is None:

        @app.post("/echo")
        async def echo(request: Request) -> HTTPResponse:
            body = request.json
            return json({"ok": True, "amount": body.get("amount")}, status=201)

    else:

        @app.before_server_start
        async def open_channel(app: Sanic) -> None:
            # One channel for the process, opened in the worker's loop (as the gateway does).
            app.ctx.channel = grpc.aio.insecure_channel(grpc_target)
            app.ctx.echo = app.ctx.channel.unary_unary(GRPC_METHOD)

        @app.post("/echo")
        async def echo_twohop(request: Request) -> HTTPResponse:
            body = request.json
            reply = await app.ctx.echo(request.body, timeout=10.0)
            return json({"ok": True, "amount": body.get("amount"), "bytes": len(reply)}, status=201)

    app.run(host="127.0.0.1", port=port, single_process=True, access_log=False, motd=False)


async def serve_grpc(port: int) -> None:
    import grpc

    async def echo(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        return request

    await serve_unary(port, "bench.Echo", "Echo", echo)


async def serve_unary(port: int, service: str, method: str, handler: Any) -> None:
    """A grpc.aio server of one generic unary method on loopback, until SIGTERM or SIGINT."""
    import grpc

    server = grpc.aio.server()
    generic = grpc.method_handlers_generic_handler(
        service, {method: grpc.unary_unary_rpc_method_handler(handler)}
    )
    server.add_generic_rpc_handlers((generic,))
    if server.add_insecure_port(f"127.0.0.1:{port}") == 0:
        raise RuntimeError(f"cannot bind 127.0.0.1:{port}")
    await server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop(1.0)


# The naive peer of a charge create: what someone wiring the same parts in an afternoon gets. No
# authentication, rate limit, idempotency, actor, fencing, webhook deliveries or logging; JSON bytes over
# a generic gRPC method, two INSERTs in one psycopg transaction. Our create must not be slower.
NAIVE_METHOD = "/bench.NaiveCharges/Create"
MERCHANT = "m_naive"
# The core's pool size (core_server/config.py: DB_POOL_MAX, default 20), opened full from the start.
POOL_SIZE = 20
CURRENCIES = frozenset({"usd", "eur", "gbp"})

INSERT_MERCHANT = """
INSERT INTO merchants (id, email, password_hash, created_at)
VALUES (%s, 'naive@bench.example', 'x', now())
ON CONFLICT (id) DO NOTHING"""

INSERT_CHARGE = """
INSERT INTO charges (id, merchant_id, environment, amount, currency, status, description, metadata,
                     return_url, cancel_url, expires_at, created_at)
VALUES (%(id)s, %(merchant_id)s, 'test', %(amount)s, %(currency)s, 'pending', %(description)s,
        %(metadata)s, %(return_url)s, %(cancel_url)s, %(expires_at)s, %(created_at)s)"""

INSERT_EVENT = """
INSERT INTO events (id, merchant_id, environment, type, object_id, payload, created_at)
VALUES (%(event_id)s, %(merchant_id)s, 'test', 'charge.created', %(id)s, %(payload)s, %(created_at)s)"""


def _charge(body: dict[str, Any], now: datetime) -> dict[str, Any]:
    return {
        "id": "ch_" + secrets.token_hex(12),
        "object": "charge",
        "amount": body["amount"],
        "currency": body["currency"],
        "status": "pending",
        "description": body.get("description"),
        "metadata": body.get("metadata") or {},
        "return_url": body["return_url"],
        "cancel_url": body.get("cancel_url"),
        "livemode": False,
        "created": int(now.timestamp()),
        "expires_at": int((now + timedelta(hours=24)).timestamp()),
    }


async def serve_naive_core(port: int, database_url: str) -> None:
    import grpc
    from psycopg.types.json import Jsonb
    from psycopg_pool import AsyncConnectionPool

    pool = AsyncConnectionPool(database_url, min_size=POOL_SIZE, max_size=POOL_SIZE, open=False)
    await pool.open(wait=True, timeout=30.0)
    async with pool.connection() as conn:
        await conn.execute(INSERT_MERCHANT, (MERCHANT,))

    async def create(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
        now = datetime.now(UTC)
        charge = _charge(json.loads(request), now)
        params = {
            **charge,
            "merchant_id": MERCHANT,
            "metadata": Jsonb(charge["metadata"]),
            "expires_at": now + timedelta(hours=24),
            "created_at": now,
            "event_id": "evt_" + secrets.token_hex(12),
            "payload": Jsonb(charge),
        }
        # Not autocommit: the block is one transaction, committed when it ends.
        async with pool.connection() as conn:
            await conn.execute(INSERT_CHARGE, params)
            await conn.execute(INSERT_EVENT, params)
        return json.dumps(charge).encode()

    try:
        await serve_unary(port, "bench.NaiveCharges", "Create", create)
    finally:
        await pool.close()


def run_naive_core(port: int, database_url: str) -> None:
    import uvloop

    uvloop.install()  # as core_server.main does
    asyncio.run(serve_naive_core(port, database_url))


def _invalid(body: Any) -> str | None:
    """The minimal checks: a JSON object with an integer amount in range, a known currency, a return_url."""
    if not isinstance(body, dict):
        return "body must be a JSON object"
    amount = body.get("amount")
    if not isinstance(amount, int) or isinstance(amount, bool) or not 50 <= amount <= 99_999_999:
        return "amount must be an integer between 50 and 99999999"
    if body.get("currency") not in CURRENCIES:
        return "currency must be one of " + ", ".join(sorted(CURRENCIES))
    if not isinstance(body.get("return_url"), str):
        return "return_url is required"
    return None


def run_naive_gateway(port: int, grpc_target: str) -> None:
    import grpc
    from sanic import Request, Sanic
    from sanic.response import HTTPResponse
    from sanic.response import json as json_response

    app = Sanic("bench_naive", configure_logging=False)
    app.config.ACCESS_LOG = False

    @app.before_server_start
    async def open_channel(app: Sanic) -> None:
        # One channel for the process, opened in the worker's loop (as the gateway does).
        app.ctx.channel = grpc.aio.insecure_channel(grpc_target)
        app.ctx.create = app.ctx.channel.unary_unary(NAIVE_METHOD)

    @app.post("/charges")
    async def create_charge(request: Request) -> HTTPResponse:
        try:
            body = json.loads(request.body)
        except ValueError:
            body = None
        problem = _invalid(body)
        if problem is not None:
            return json_response({"error": {"message": problem}}, status=400)
        reply = await app.ctx.create(request.body, timeout=10.0)
        return HTTPResponse(reply, status=201, content_type="application/json")

    app.run(host="127.0.0.1", port=port, single_process=True, access_log=False, motd=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("kind", choices=("sanic", "grpc", "twohop", "naive-core", "naive"))
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--grpc-target")
    parser.add_argument("--database-url")
    args = parser.parse_args(argv)
    if args.kind in ("naive-core", "naive"):
        if args.kind == "naive-core" and not args.database_url:
            parser.error("naive-core needs --database-url")
        if args.kind == "naive" and not args.grpc_target:
            parser.error("naive needs --grpc-target")
        if args.kind == "naive-core":
            run_naive_core(args.port, args.database_url)
        else:
            run_naive_gateway(args.port, args.grpc_target)
        return 0
    if args.kind == "grpc":
        import uvloop

        uvloop.install()  # as core_server.main does
        asyncio.run(serve_grpc(args.port))
        return 0
    if args.kind == "twohop" and not args.grpc_target:
        parser.error("twohop needs --grpc-target")
    run_sanic(args.port, args.grpc_target if args.kind == "twohop" else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
