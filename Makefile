# The two set-up commands of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo demo-stop test lint typecheck unit browser bench soak java ui clean

$(STAMP): pyproject.toml requirements.lock
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "flowcore needs Python 3.11 or newer")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $(STAMP)

java:
	@sh scripts/check-java.sh

# The samples run until idle; then one is kept served in the background for the web UI
# (its address is printed last; `make demo-stop` stops it).
demo: java $(STAMP)
	$(BIN)/python -m samples.demo
	$(BIN)/python -m samples.live start

demo-stop: $(STAMP)
	$(BIN)/python -m samples.live stop

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check flowcore repos processors api cli

typecheck: $(STAMP)
	$(BIN)/mypy

# The browser tests of the web UI drive the system's Chromium, installed here if missing.
browser:
	@sh scripts/ensure-chromium.sh

unit: $(STAMP) browser
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

# Re-vendor the web UI's JavaScript libraries (ui/package-lock.json) into api/static/vendor.
ui:
	sh ui/build.sh

clean:
	rm -rf $(VENV) build *.egg-info
