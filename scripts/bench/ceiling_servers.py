"""The bare building blocks the charge path is measured against, each run as its own process.

    ceiling_servers.py sanic  --port P                    # bare Sanic JSON POST /echo (framework limit)
    ceiling_servers.py grpc   --port P                    # trivial grpc.aio unary server (answers the bytes)
    ceiling_servers.py twohop --port P --grpc-target T    # Sanic POST /echo making one unary call to T

They run the way the gateway and core run (one process, uvloop, no access log), so the ratio of an
operation to a ceiling says how much of the budget the application itself spends.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys

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

    server = grpc.aio.server()
    handler = grpc.method_handlers_generic_handler(
        "bench.Echo", {"Echo": grpc.unary_unary_rpc_method_handler(echo)}
    )
    server.add_generic_rpc_handlers((handler,))
    if server.add_insecure_port(f"127.0.0.1:{port}") == 0:
        raise RuntimeError(f"cannot bind 127.0.0.1:{port}")
    await server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop(1.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("kind", choices=("sanic", "grpc", "twohop"))
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--grpc-target")
    args = parser.parse_args(argv)
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
