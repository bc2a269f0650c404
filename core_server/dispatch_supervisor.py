"""DispatchSupervisor: the core's webhook dispatcher in a child process the core owns (WEBHOOK_DISPATCH).

Why a process: deliveries sharing the core's one interpreter with the request path waited a turn of a
loop that 64 connections of creates keep full, and took their CPU from the creates (BENCHMARKS.md,
"Speed, round 5"). The child (`python -m core_server.dispatch_process`, same interpreter, environment and
settings) runs the same `WebhookDispatcher` on a loop of its own.

What the core keeps of it:
- its life: the child dies with the core, even on SIGKILL (it asks the kernel for SIGKILL at its
  parent's death, and checks that its parent is still the core otherwise); a child that dies alone is
  started again after a back-off that doubles up to `MAX_BACKOFF_SECONDS`; the core's graceful stop is
  passed on as SIGTERM, which gives the sends in flight the dispatcher's own grace.
- its claims: made in the core's name (`--core`), so they go with the core's heartbeat. Those of a child
  that died are handed back before the next one starts (`release_abandoned`): the core's heartbeat goes
  on, so they would otherwise wait for their leases.
- its metrics: the child reports the delivery outcomes it counted over a pipe, and the core adds them to
  its own counter, served on its metrics port (prometheus_client stays single-process).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable

from core_server.metrics import count_reported_attempts
from core_server.webhooks.application.webhook_dispatcher import SHUTDOWN_GRACE_SECONDS

logger = logging.getLogger(__name__)

CHILD_MODULE = "core_server.dispatch_process"
FIRST_BACKOFF_SECONDS = 0.5
MAX_BACKOFF_SECONDS = 30.0
STABLE_SECONDS = 60.0
"""A child that ran this long before it died was healthy: the next restart waits the first back-off."""
REPORTS_END_SECONDS = 1.0
"""How long the reports of a child that exited are read before its pipe is closed (they end at EOF)."""
STOP_MARGIN_SECONDS = 3.0
"""Beyond the sends' grace, what a stopping child gets to record them and close before it is killed."""


class DispatchSupervisor:
    """Starts, restarts and stops the dispatcher process of the core named `core`."""

    def __init__(
        self,
        core: str,
        release_abandoned: Callable[[], Awaitable[int]],
        *,
        grace: float = SHUTDOWN_GRACE_SECONDS,
        first_backoff: float = FIRST_BACKOFF_SECONDS,
        max_backoff: float = MAX_BACKOFF_SECONDS,
    ) -> None:
        self._core = core
        self._release_abandoned = release_abandoned
        self._grace = grace
        self._first_backoff = first_backoff
        self._max_backoff = max_backoff
        self._process: asyncio.subprocess.Process | None = None
        self._reports: asyncio.Task[None] | None = None
        self.starts = 0

    @property
    def pid(self) -> int | None:
        """The running child's pid, if one runs."""
        return self._process.pid if self._process is not None else None

    async def run_forever(self) -> None:
        """Keeps a child running until cancelled; then stops it gracefully (SIGTERM, then SIGKILL after
        the grace and its margin) before returning, whatever further cancels arrive meanwhile."""
        loop = asyncio.get_running_loop()
        backoff = self._first_backoff
        try:
            while True:
                started = loop.time()
                try:
                    await self._start()
                    assert self._process is not None
                    # Waits for the child's exit: it only ends by dying (or by our SIGTERM at shutdown,
                    # which cancels this task first).
                    code = await self._process.wait()
                    await self._end_reports()
                    logger.error("webhook dispatcher process %d exited (%s)", self._process.pid, code)
                except asyncio.CancelledError:
                    raise
                except Exception:  # noqa: BLE001 - a start that failed is retried like a death
                    logger.exception("webhook dispatcher process could not be started")
                self._process = None
                if loop.time() - started >= STABLE_SECONDS:
                    backoff = self._first_backoff
                await self._hand_back_claims()
                logger.info("starting the webhook dispatcher process again in %.1f s", backoff)
                # Sleeps the back-off: a child that cannot start (the database down) is not spun.
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, self._max_backoff)
        finally:
            stopping = asyncio.ensure_future(self._stop())
            while not stopping.done():
                # The core's stop cancels its jobs again and again (task_stop.py); the stop is bounded on
                # its own (SIGKILL after the grace), and the core must not go on while the child still
                # sends on its claims.
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.shield(stopping)

    async def close(self) -> None:
        """Nothing left once `run_forever` ended: the child was stopped there."""

    async def _start(self) -> None:
        read_fd, write_fd = os.pipe()
        try:
            self._process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                CHILD_MODULE,
                "--core",
                self._core,
                "--parent-pid",
                str(os.getpid()),
                "--report-fd",
                str(write_fd),
                stdin=asyncio.subprocess.DEVNULL,
                pass_fds=(write_fd,),
            )
        except BaseException:
            os.close(read_fd)
            raise
        finally:
            os.close(write_fd)  # the child's copy is the only writer: its death ends the reports
        self.starts += 1
        logger.info("webhook dispatcher process %d started for %s", self._process.pid, self._core)
        self._reports = asyncio.create_task(self._read_reports(read_fd), name="webhook-dispatch-reports")

    async def _read_reports(self, read_fd: int) -> None:
        """Adds each report line of the child to this core's metrics, until the child's end closes it."""
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        pipe = os.fdopen(read_fd, "rb", buffering=0)
        transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
        try:
            # Waits for the next line; EOF once the child (the only writer) has exited.
            async for line in reader:
                count_reported_attempts(line)
        finally:
            transport.close()

    async def _end_reports(self) -> None:
        """The last reports of an exited child (written before its exit, read here before EOF)."""
        if self._reports is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._reports, REPORTS_END_SECONDS)
            self._reports = None

    async def _hand_back_claims(self) -> None:
        try:
            released = await self._release_abandoned()
        except Exception as exc:  # noqa: BLE001 - the claims then lapse with their leases instead
            logger.warning("could not hand back the dead dispatcher's claims: %s", type(exc).__name__)
            return
        if released:
            logger.info("handed back %d delivery claims of the dead dispatcher process", released)

    async def _stop(self) -> None:
        process = self._process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
            try:
                # Waits for the child's own stop: its sends in flight, their records, its connections.
                await asyncio.wait_for(process.wait(), self._grace + STOP_MARGIN_SECONDS)
            except TimeoutError:
                logger.warning("webhook dispatcher process %d did not stop in time; killed", process.pid)
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
            logger.info("webhook dispatcher process %d stopped (%s)", process.pid, process.returncode)
        await self._end_reports()
