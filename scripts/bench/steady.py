"""One stack, create and retrieve alternating for many rounds: does the CPU a request costs grow with time?

    python scripts/bench/steady.py --rounds 6 --seconds 8

`make bench` measures its operations one after another over half an hour, so a stack whose requests grew
dearer with its age (a cache without bound, a collector walking more objects each time) would read as a
slower later operation. This keeps one 1 core + 1 gateway stack and alternates wrk runs of creates and of
retrieves over 1,000 seeded charges, printing per run the CPU ms per request of the core and the gateway
(from /proc, steady on a shared machine where req/s is not) and their resident sizes. A flat column says
the stack does not age; a rising one says it does.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT), str(ROOT / "protos")]

import stack as stack_mod  # noqa: E402
from process_stats import CpuMeter  # noqa: E402
from wrk import run_wrk  # noqa: E402

SEED_CHARGES = 1000
OPERATIONS = (("create", "create_charge.lua"), ("retrieve", "retrieve_charge.lua"))


def resident_mb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=64)
    args = parser.parse_args()
    services, admin_dsn = stack_mod.start_services()
    try:
        stack = stack_mod.start_stack(services, admin_dsn, 1, 1)
        try:
            url = stack.gateway_urls[0]
            merchant = stack_mod.sign_up(url, "steady")
            ids_file = Path(tempfile.mkdtemp(prefix="steady-")) / "charge_ids.txt"
            ids_file.write_text("\n".join(stack_mod.seed_charges(url, merchant, SEED_CHARGES)) + "\n")
            pids = {"core": stack.cores[0].pid, "gateway": stack.gateways[0].pid}
            for n in range(args.rounds):
                for name, script in OPERATIONS:
                    meter = CpuMeter(pids)
                    meter.start()
                    env = {
                        "BENCH_SECRET_KEY": merchant.secret_key,
                        "BENCH_IDEMPOTENCY": "1",
                        "BENCH_RUN_ID": f"steady{n}",
                        "BENCH_CHARGE_IDS": str(ids_file),
                    }
                    result = run_wrk(
                        name, url, script, connections=args.connections, seconds=args.seconds, env=env
                    )
                    cpu = meter.stop(result.requests)
                    print(
                        f"{time.strftime('%H:%M:%S')} round {n} {name:<8} {result.rps:7.0f} req/s"
                        f"  cpu/req core {cpu['core_cpu_ms_per_req']:.3f}"
                        f" gw {cpu['gateway_cpu_ms_per_req']:.3f} ms"
                        f"  busy {cpu['machine_busy']:.0%}"
                        f"  rss core {resident_mb(pids['core'])} MB gw {resident_mb(pids['gateway'])} MB",
                        flush=True,
                    )
        finally:
            stack_mod.stop_stack(stack, keep_database=False)
    finally:
        stack_mod.stop_services(services)
    return 0


if __name__ == "__main__":
    sys.exit(main())
