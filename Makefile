# The two set-up commands of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test lint typecheck unit bench soak java clean

$(STAMP): pyproject.toml requirements.lock
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "flowcore needs Python 3.11 or newer")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $(STAMP)

java:
	@sh scripts/check-java.sh

demo: java $(STAMP)
	$(BIN)/python -m samples.demo

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check flowcore repos processors api

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest

test: java lint typecheck unit

# 1,000 seeded simulations of the samples (make test runs 200 others); not part of make test.
SOAK_FLOWS := samples/everyday/flow.yaml samples/pos_merge/flow.yaml \
	samples/defragment/flow.yaml samples/enforce_order/flow.yaml

soak: $(STAMP)
	@for flow in $(SOAK_FLOWS); do \
		$(BIN)/flowcore simulate $$flow --seed 1000 --runs 250 || exit 1; \
	done

bench: java $(STAMP)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) build *.egg-info
