#!/usr/bin/env bash
# make check: lint, format, types and the import contracts, in that order. Stops at the first step that
# fails and names it. Each tool reads its settings from pyproject.toml (mypy: which files, how strict).
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=.venv/bin
SOURCES=(core_server http_gateway payconnect scripts tests)

step() {
    local name=$1
    shift
    echo "==> ${name}: $*"
    if ! "$@"; then
        echo "error: make check failed at step '${name}'" >&2
        exit 1
    fi
}

step "ruff check" "${BIN}/ruff" check "${SOURCES[@]}"
step "ruff format" "${BIN}/ruff" format --check "${SOURCES[@]}"
step "mypy" "${BIN}/mypy"
step "import contracts" "${BIN}/lint-imports" --no-logo
echo "make check: all steps passed"
