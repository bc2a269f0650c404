#!/usr/bin/env bash
# Runs pytest from the project venv (the whole suite without arguments); pytest's exit code is ours,
# so "no tests collected" (5) fails the run rather than passing silently.
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/python -m pytest -q -ra "$@"
