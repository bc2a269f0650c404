#!/usr/bin/env bash
# Makes sure wrk (the HTTP load generator of `make bench`, with LuaJIT scripting) is installed: Debian's package.
set -euo pipefail
exec bash "$(dirname "$0")/../ensure_debian_packages.sh" ensure_wrk wrk wrk
