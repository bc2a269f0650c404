#!/usr/bin/env bash
# Runs pytest from the project venv; with no arguments, the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/python -m pytest -q -ra "$@"
