#!/usr/bin/env bash
# Installs Debian packages with apt-get unless a program they provide is already there.
#
#     ensure_debian_packages.sh NAME PROGRAM PACKAGE...
#
# NAME labels the messages; PROGRAM is a path or a command name checked first. Shared by
# ensure_browser.sh (Chromium for the browser tests) and bench/ensure_wrk.sh (the load generator):
# this machine reaches Debian's registry, not the tools' own downloads.
set -euo pipefail

name=$1 program=$2
shift 2

present() { [[ -x "$program" ]] || command -v "$program" >/dev/null 2>&1; }
version() {
    # Chromium's wrapper warns on stderr, wrk prints its version there and exits 1: stdout first.
    local line
    line=$("$program" --version 2>/dev/null | head -1 || true)
    [[ -n "$line" ]] || line=$("$program" --version 2>&1 | head -1 || true)
    echo "${line:-version unknown}"
}

if present; then
    echo "$name: $program present ($(version))"
    exit 0
fi
if [[ "$(id -u)" -ne 0 ]]; then
    echo "$name: $program is missing and this is not root; install it with:" >&2
    echo "    sudo apt-get update && sudo apt-get install -y $*" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "$name: $program is missing and apt-get is not available" >&2
    exit 1
fi
echo "$name: $program missing; installing Debian's $* with apt-get"
# The package lists may be fresh enough already; refresh them only if the first try fails.
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 || {
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
if ! present; then
    echo "$name: apt-get finished but $program is still missing" >&2
    exit 1
fi
echo "$name: installed $(version)"
