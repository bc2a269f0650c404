# Front door to scripts/*: every target is a one-liner; the logic lives in the scripts.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DELETE_ON_ERROR:
MAKEFLAGS += --warn-undefined-variables --no-builtin-rules
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
N ?= 2
M ?= 2
ARGS ?=
CORES ?= 1
GATEWAYS ?= 1
BENCH_SOAK_SECONDS ?= 300

.PHONY: help install protos protos-check run core gateway cluster stop \
	check test unit-tests integration-tests e2e-tests openapi docs fuzz billing-properties bench bench-soak clean rotate-keys reconcile

help:
	@echo 'make run                 venv + deps, embedded PostgreSQL/Redis when DATABASE_URL/REDIS_URL are unset, 1 core + 1 gateway'
	@echo 'make cluster N=2 M=2     N cores (50051..) and M gateways (8000..), each gateway balancing over all cores'
	@echo 'make core | gateway      one process at CORE_GRPC_ADDR / HTTP_HOST:HTTP_PORT; start several by hand'
	@echo 'make stop                stop the embedded PostgreSQL and Redis under .data/'
	@echo 'make check               ruff (lint + format), mypy and the import contracts (scripts/check.sh)'
	@echo 'make test [ARGS=...]     make check (Chromium, PgBouncer installing meanwhile), then the whole suite; also unit-tests, integration-tests, e2e-tests'
	@echo 'make protos | protos-check   regenerate the gRPC code / fail if the committed code is stale'
	@echo 'make openapi             bundle http_gateway/operational/openapi/source/*.yaml into openapi.json (served at /openapi.json)'
	@echo 'make docs                render the API reference to docs/api-reference.html (static, offline)'
	@echo 'make billing-properties [BILLING_PROPERTY_EXAMPLES=200]  the billing invariants (docs/billing-invariants.md) over many random sequences'
	@echo 'make fuzz [FUZZ_SECONDS=600]  long schemathesis run against a live gateway (random seed, stateful phase)'
	@echo 'make bench [CORES=1 GATEWAYS=1]  load test against the ceilings of its parts (BENCHMARKS.md); BENCH_SECONDS, BENCH_REPEAT'
	@echo 'make bench-soak [BENCH_SOAK_SECONDS=300]  resident memory of core and gateway under mixed traffic'
	@echo 'make rotate-keys [ARGS=--batch 100]  re-seal stored secrets under DATA_ENCRYPTION_KEY (docs/security.md, Security)'
	@echo 'make reconcile [ARGS=--direct]  prove the balance ledger against a running core (or DATABASE_URL); exit 1 on a mismatch'
	@echo 'make clean               stop the embedded services, delete .data/'

install: $(STAMP)

# Reruns only when pyproject.toml changes (or the venv is deleted, taking the stamp with it).
$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "error: Python 3.11+ is required, $(PYTHON) is " + sys.version.split()[0] + " (set PYTHON=python3.11)")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

protos: install
	$(PY) scripts/gen_protos.py

protos-check: protos
	git diff --exit-code -- protos/
	@test -z "$$(git status --porcelain --untracked-files=all -- protos/)" || { git status --short -- protos/; echo 'error: generated code is not committed'; exit 1; }

run: install
	$(PY) scripts/run_stack.py $(ARGS)

cluster: install
	$(PY) scripts/run_stack.py --cores $(N) --gateways $(M) $(ARGS)

core: install
	$(PY) scripts/run_stack.py --only core $(ARGS)

gateway: install
	$(PY) scripts/run_stack.py --only gateway $(ARGS)

# No install here: without a venv nothing can have started the embedded services.
stop:
	@if [[ -x $(PY) ]]; then $(PY) scripts/dev_stack.py stop; else echo 'no venv: nothing to stop'; fi

rotate-keys: install
	$(PY) scripts/rotate_keys.py $(ARGS)

reconcile: install
	$(PY) scripts/reconcile.py $(ARGS)

check: install
	scripts/check.sh

# No install prerequisite: scripts/make_test.sh installs the venv itself, beside the Debian tools.
test:
	scripts/make_test.sh $(ARGS)

unit-tests: install
	scripts/test.sh tests/unit $(ARGS)

integration-tests: install
	scripts/test.sh tests/integration $(ARGS)

e2e-tests: install
	bash scripts/ensure_browser.sh
	bash scripts/ensure_pgbouncer.sh
	scripts/test.sh tests/e2e $(ARGS)

openapi: install
	$(PY) scripts/gen_openapi.py

docs: install
	$(PY) scripts/render_api_docs.py

# The contract test of `make test` with many more examples, a fresh seed and the stateful phase,
# repeating fuzzing until FUZZ_SECONDS are spent.
FUZZ_EXAMPLES ?= 200
FUZZ_SECONDS ?= 600
fuzz: install
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_SEED=random \
		FUZZ_PHASES=examples,coverage,fuzzing,stateful scripts/test.sh tests/e2e/test_openapi_contract.py $(ARGS)

# The billing state machine of `make test` with many more examples (docs/billing-invariants.md).
BILLING_PROPERTY_EXAMPLES ?= 200
billing-properties: install
	BILLING_PROPERTY_EXAMPLES=$(BILLING_PROPERTY_EXAMPLES) scripts/test.sh tests/e2e/test_billing_invariants.py $(ARGS)

# Not part of `make test`: minutes of load (scripts/bench/bench.py; installs wrk with apt when missing).
bench: install
	$(PY) scripts/bench/bench.py --cores $(CORES) --gateways $(GATEWAYS) $(ARGS)

bench-soak: install
	$(PY) scripts/bench/bench.py --soak-only --soak $(BENCH_SOAK_SECONDS) --cores $(CORES) --gateways $(GATEWAYS) $(ARGS)

clean: stop
	rm -rf .data .pytest_cache
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
