"""The benches' webhook receiver: a process of its own on loopback that answers 200 to every POST and notes
the endpoint (its path), the event id, `time.time_ns()` once the body is in, and whether the signature
verifies under that endpoint's secret. A process of its own, so no client of the bench shares its loop.
Used by webhook_bench.py and webhook_capacity.py.

    python scripts/bench/bench_receiver.py OUT   # serves until stdin closes, then writes OUT (JSON lines)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "protos")]


async def _receive() -> list[tuple[str, str, int, bool]]:
    """Serves until stdin closes; the first stdin line is {path: endpoint secret}. Returns the records
    (path, event id, receive ns, signature ok)."""
    from core_server.webhooks.domain.webhook_signature import verify_signature as verify

    records: list[tuple[str, str, int, bool]] = []
    secrets_by_path: dict[str, str] = {}
    loop = asyncio.get_running_loop()
    closed = asyncio.Event()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.split(b"\r\n")
                path = lines[0].split(b" ")[1].decode("ascii", "replace")
                headers: dict[bytes, bytes] = {}
                for line in lines[1:]:
                    name, _, value = line.partition(b":")
                    headers[name.strip().lower()] = value.strip()
                length = int(headers.get(b"content-length", b"0"))
                body = await reader.readexactly(length) if length else b""
                t_ns = time.time_ns()
                close = headers.get(b"connection", b"").lower() == b"close"
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n"
                    + (b"Connection: close\r\n" if close else b"")
                    + b"\r\n"
                )
                try:
                    event_id = str(json.loads(body)["id"])
                except (ValueError, KeyError, TypeError):
                    event_id = ""
                secret = secrets_by_path.get(path)
                header = headers.get(b"service-signature", b"").decode("ascii", "replace")
                records.append((path, event_id, t_ns, bool(secret) and verify(body, header, secret or "")))
                await writer.drain()
                if close:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, IndexError, ValueError):
            pass
        except asyncio.CancelledError:
            return  # the bench is over: no traceback for a kept-alive connection cut at shutdown
        finally:
            writer.close()

    def read_stdin() -> None:
        first = sys.stdin.readline()
        with contextlib.suppress(ValueError):
            loop.call_soon_threadsafe(secrets_by_path.update, json.loads(first or "{}"))
        sys.stdin.read()  # until the bench closes our stdin
        loop.call_soon_threadsafe(closed.set)

    server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=1024)
    port = server.sockets[0].getsockname()[1]
    print(f"port {port}", flush=True)
    threading.Thread(target=read_stdin, daemon=True).start()
    await closed.wait()
    server.close()
    return records


class Receiver:
    """The receiver process: its URL, then (after `stop`) its records."""

    def __init__(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="webhook-bench-")
        self._out = Path(self._dir.name) / "received.jsonl"
        self._proc = subprocess.Popen(
            [sys.executable, __file__, str(self._out)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline().split()
        if len(line) != 2 or line[0] != "port":
            self._proc.kill()
            raise RuntimeError("the webhook receiver did not start")
        self.base_url = f"http://127.0.0.1:{line[1]}"
        self.pid = self._proc.pid

    def set_secrets(self, by_path: dict[str, str]) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.write(json.dumps(by_path) + "\n")
        self._proc.stdin.flush()

    def stop(self) -> list[tuple[str, str, int, bool]]:
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        self._proc.wait(timeout=60)
        lines = self._out.read_text().splitlines()
        self._dir.cleanup()
        return [(p, e, int(t), bool(ok)) for p, e, t, ok in map(json.loads, lines)]

    def kill(self) -> None:
        self._proc.kill()
        self._proc.wait()
        self._dir.cleanup()


def main(argv: list[str]) -> int:
    with contextlib.suppress(ImportError):
        import uvloop

        uvloop.install()
    records = asyncio.run(_receive())
    Path(argv[0]).write_text("".join(json.dumps(r) + "\n" for r in records))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
