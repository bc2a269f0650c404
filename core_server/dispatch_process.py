"""`python -m core_server.dispatch_process`: a core's webhook dispatcher in a process of its own.

Started and supervised by its core (dispatch_supervisor.py), never by an operator: it reads the core's
environment, and delivers under the core's name (`--core`) so its claims go with the core's heartbeat.
It must never outlive the core: an orphan would go on sending on claims that lapsed with the core's
heartbeat while another core takes them over. So it asks Linux to SIGKILL it when its parent dies
(PR_SET_PDEATHSIG), and, as the portable fallback and for the moment before that request took effect,
checks every `PARENT_CHECK_SECONDS` that its parent is still the core, and exits at once otherwise.

SIGTERM (the core's graceful stop) stops the dispatcher with its own grace for the sends in flight; SIGINT
is the core's to act on (a terminal sends it to the whole process group). The delivery outcomes counted
here go to the core over `--report-fd`, a line of counts every `REPORT_SECONDS` and a last one at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import ctypes.util
import dataclasses
import logging
import os
import signal
import sys

from connect.gc_tuning import freeze_startup_objects, tune_for_serving

from core_server.config import Settings
from core_server.dispatch_wiring import build_dispatch_side
from core_server.logging_setup import configure_logging
from core_server.metrics import attempt_report, attempts_counted
from core_server.task_stop import cancel_and_wait
from core_server.webhooks.application.webhook_dispatcher import SHUTDOWN_GRACE_SECONDS

logger = logging.getLogger(__name__)

PARENT_CHECK_SECONDS = 0.5
REPORT_SECONDS = 0.25
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
ORPHAN_EXIT_CODE = 70


def die_with_parent(parent_pid: int) -> None:
    """Asks the kernel to SIGKILL this process when its parent dies (Linux); exits at once if the parent
    is already gone (it may have died before the request was made)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            logger.warning("PR_SET_PDEATHSIG refused (errno %d): the parent check alone", ctypes.get_errno())
    if os.getppid() != parent_pid:
        os._exit(ORPHAN_EXIT_CODE)


async def watch_parent(parent_pid: int) -> None:
    """Exits the process at once when the core is gone: nothing more may be sent on its claims."""
    while True:
        # Sleeps between checks (no event to wait for: the parent's death tells nobody here); the kernel's
        # SIGKILL usually comes first.
        await asyncio.sleep(PARENT_CHECK_SECONDS)
        if os.getppid() != parent_pid:
            break
    logger.error("the core (pid %d) is gone; the webhook dispatcher process exits", parent_pid)
    logging.shutdown()
    os._exit(ORPHAN_EXIT_CODE)


class AttemptReports:
    """Sends the core the outcomes counted since the last report, over a pipe of the core's."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        os.set_blocking(fd, False)  # a core that stopped reading never stops the deliveries
        self._sent = dict.fromkeys(attempts_counted(), 0)

    def flush(self) -> None:
        counted = attempts_counted()
        new = {outcome: n - self._sent[outcome] for outcome, n in counted.items()}
        if not any(new.values()):
            return
        try:
            os.write(self._fd, attempt_report(new))  # under PIPE_BUF: all of it or nothing
        except BlockingIOError:
            return  # the pipe is full: these go with the next report
        except OSError:
            return  # the core is gone: watch_parent ends this process
        self._sent = counted

    async def run_forever(self) -> None:
        while True:
            # Sleeps between reports: a scrape is seconds apart, a report costs a write.
            await asyncio.sleep(REPORT_SECONDS)
            self.flush()


async def serve(settings: Settings, parent_pid: int, report_fd: int) -> int:
    """Delivers until SIGTERM; returns the exit code (1 if the dispatcher ended on its own)."""
    watch = asyncio.create_task(watch_parent(parent_pid), name="parent-watch")
    side = await build_dispatch_side(settings)
    reports = AttemptReports(report_fd)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, lambda: None)  # the core decides, and sends SIGTERM
    freeze_startup_objects()
    dispatching = asyncio.create_task(side.delivery.run_forever(), name="webhook-dispatcher")
    reporting = asyncio.create_task(reports.run_forever(), name="attempt-reports")
    stopped = asyncio.create_task(stop.wait())
    logger.info("webhook dispatcher process %d delivering for %s", os.getpid(), settings.process_name)
    # Waits for SIGTERM, or for the dispatcher to end on its own (a bug: the core starts another).
    await asyncio.wait({dispatching, stopped}, return_when=asyncio.FIRST_COMPLETED)
    code = 0 if stop.is_set() else 1
    if code:
        logger.error("the webhook dispatcher ended on its own: %r", dispatching.exception())
    # The sends in flight get their grace inside the dispatcher's stop; re-cancelled only after it.
    await cancel_and_wait(dispatching, recancel=SHUTDOWN_GRACE_SECONDS + 1.0)
    await cancel_and_wait(reporting, stopped)
    reports.flush()  # the outcomes of the last sends, before the core reads EOF
    await side.close()
    await cancel_and_wait(watch)
    logger.info("webhook dispatcher process %d stopped", os.getpid())
    return code


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--core", required=True, help="the core's process name, which the claims carry")
    parser.add_argument("--parent-pid", type=int, required=True)
    parser.add_argument("--report-fd", type=int, required=True)
    args = parser.parse_args(argv)
    configure_logging("webhook-dispatcher")  # first, so even a refused PR_SET_PDEATHSIG logs one JSON line
    die_with_parent(args.parent_pid)
    settings = dataclasses.replace(Settings.from_env(), process_name=args.core)
    tune_for_serving()
    with contextlib.suppress(ImportError):  # uvloop is optional on platforms without it
        import uvloop

        uvloop.install()
    try:
        code = asyncio.run(serve(settings, args.parent_pid, args.report_fd))
    except Exception:  # noqa: BLE001 - logged as one JSON line; the core starts another after a back-off
        logger.exception("the webhook dispatcher process failed")
        code = 1
    logging.shutdown()
    sys.exit(code)


if __name__ == "__main__":
    main()
