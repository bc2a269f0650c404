#!/usr/bin/env bash
# Runs pytest from the project venv; pytest's exit code is ours, so "no tests collected" (5) fails the run
# rather than passing silently.
#
# Without arguments, the whole suite: first on TEST_WORKERS pytest-xdist workers (default 3 on two cores:
# e2e modules spend much of their time waiting on the processes they start; on one quiet machine, back to
# back, the parallel part took 437 s with two and 394 s with three). Each module stays on one worker, so
# module fixtures are made once, and the longest modules go first, in the order tests/conftest.py sorts
# them, not xdist's most-tests-first. Then the modules marked `serial` run alone — their assertions hold
# real-time bounds another worker could push past (tests/serial_modules.txt).
# Arguments that are all options (`--durations=30`, `-x`) go to both parts; any other argument (a path,
# `-k expr`) selects tests, and pytest runs just those, in this one process.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTEST=(.venv/bin/python -m pytest -q -ra)
for arg in "$@"; do
    [[ $arg == -* ]] || exec "${PYTEST[@]}" "$@"
done
mapfile -t serial < <(grep -v -e '^#' -e '^[[:space:]]*$' tests/serial_modules.txt)
status=0
"${PYTEST[@]}" -n "${TEST_WORKERS:-3}" --dist loadfile --no-loadscope-reorder -m "not serial" "$@" || status=$?
"${PYTEST[@]}" "$@" "${serial[@]}" || { rc=$?; [ "$status" -ne 0 ] || status=$rc; }
exit "$status"
