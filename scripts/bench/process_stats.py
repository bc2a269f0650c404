"""What the operating system says about the processes under load: CPU time and resident memory."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int | None:
    """Resident set size (KiB) from /proc, or None once the process is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime (fields 14 and 15 of stat)


def machine_busy_seconds() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, all CPUs together."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    total = sum(values[:8])
    return (total - idle) / TICKS, total / TICKS


@dataclass
class CpuMeter:
    """CPU used by named processes and by the whole machine between start() and stop()."""

    pids: dict[str, int]

    def start(self) -> None:
        self._before = {name: cpu_seconds(pid) for name, pid in self.pids.items()}
        self._machine = machine_busy_seconds()

    def stop(self, requests: int) -> dict[str, float]:
        """CPU ms per request for each process, and the machine's busy share (0..1) over the interval."""
        used = {name: cpu_seconds(pid) - self._before[name] for name, pid in self.pids.items()}
        busy, total = machine_busy_seconds()
        busy_share = (busy - self._machine[0]) / max(total - self._machine[1], 1e-9)
        out = {
            f"{name}_cpu_ms_per_req": round(1000 * sec / max(requests, 1), 3) for name, sec in used.items()
        }
        out["machine_busy"] = round(busy_share, 3)
        # Everything the machine spent per request: load generator, database, Redis and other tenants too.
        out["machine_cpu_ms_per_req"] = round(1000 * (busy - self._machine[0]) / max(requests, 1), 3)
        return out
