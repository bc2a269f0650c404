SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DELETE_ON_ERROR:
MAKEFLAGS += --warn-undefined-variables --no-builtin-rules

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
N ?= 2
M ?= 2
ARGS ?=

.PHONY: install protos protos-check run core gateway cluster test unit-tests integration-tests e2e-tests stop clean

install: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is required")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

protos: install
	$(PY) scripts/gen_protos.py

protos-check: protos
	git diff --exit-code -- protos/

run: install
	$(PY) scripts/run_stack.py

core: install
	$(PY) scripts/run_stack.py --only core

gateway: install
	$(PY) scripts/run_stack.py --only gateway

cluster: install
	$(PY) scripts/run_stack.py --cores $(N) --gateways $(M)

test: install
	scripts/test.sh $(ARGS)

unit-tests: install
	scripts/test.sh tests/unit $(ARGS)

integration-tests: install
	scripts/test.sh tests/integration $(ARGS)

e2e-tests: install
	scripts/test.sh tests/e2e $(ARGS)

stop: install
	$(PY) scripts/dev_stack.py stop

clean: stop
	rm -rf .data
