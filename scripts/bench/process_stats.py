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


def _stat_fields(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None


def server_tree_cpu_seconds(root: int) -> float:
    """CPU time of a forking server so far: the root process, the children it has reaped (cutime,
    cstime) and the children still running (PostgreSQL's postmaster and its backends). A backend that
    ends between two readings moves from the live sum to the root's reaped sum, so differences hold."""
    fields = _stat_fields(root)
    if fields is None:
        return 0.0
    total = sum(int(v) for v in fields[11:15])  # utime, stime, cutime, cstime
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            child = _stat_fields(int(entry.name))
            if child is not None and int(child[1]) == root:  # field 4 of stat: the parent's pid
                total += int(child[11]) + int(child[12])
    return total / TICKS


def parent_pid(pid: int) -> int | None:
    """The parent of a local process (a PostgreSQL backend's is the postmaster), None if not readable."""
    fields = _stat_fields(pid)
    return int(fields[1]) if fields is not None else None
