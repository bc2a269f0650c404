#!/usr/bin/env bash
# make test: the venv, `make check` and the whole suite (scripts/test.sh), with the Debian tools the suite
# needs (Chromium for the browser tests, PgBouncer for the pooled test) installed in the background
# meanwhile. On a fresh machine apt-get spends about a minute downloading and unpacking them, mostly
# waiting on the disk and the network, while pip and the type checker keep a core busy: side by side,
# neither waits for the other. The tools' output is printed once they are done; a failed install fails
# the run before any test starts, as it did when the steps ran one after the other.
set -euo pipefail
cd "$(dirname "$0")/.."

tools_log=$(mktemp)
trap 'rm -f "$tools_log"' EXIT
{ bash scripts/ensure_browser.sh && bash scripts/ensure_pgbouncer.sh; } >"$tools_log" 2>&1 &
tools=$!

status=0
make --no-print-directory install && scripts/check.sh || status=$?
tools_status=0
wait "$tools" || tools_status=$?
cat "$tools_log"
[ "$status" -eq 0 ] || exit "$status"
[ "$tools_status" -eq 0 ] || { echo "error: installing the suite's Debian tools failed" >&2; exit "$tools_status"; }
exec scripts/test.sh "$@"
