#!/usr/bin/env bash
# Makes sure wrk (the HTTP load generator of `make bench`, with LuaJIT scripting) is installed: Debian's
# package, installed with apt-get when missing, like scripts/ensure_browser.sh does for Chromium.
set -euo pipefail

if command -v wrk >/dev/null 2>&1; then
    exit 0
fi
if [[ "$(id -u)" -ne 0 ]]; then
    echo "ensure_wrk: wrk is missing and this is not root; install it with:" >&2
    echo "    sudo apt-get update && sudo apt-get install -y wrk" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure_wrk: wrk is missing and apt-get is not available" >&2
    exit 1
fi
echo "ensure_wrk: wrk missing; installing Debian's wrk package with apt-get"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wrk >/dev/null 2>&1 || {
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wrk >/dev/null
}
command -v wrk >/dev/null 2>&1 || { echo "ensure_wrk: apt-get finished but wrk is still missing" >&2; exit 1; }
echo "ensure_wrk: installed $(wrk --version 2>&1 | head -1)"
