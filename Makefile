# Two commands for a fresh machine with Python 3 and pip:  make demo  |  make test
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
DEMO_STAMP := $(VENV)/.demo-stamp

.PHONY: demo test lint bench screenshots clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# the test toolchain (and every extra): make test, lint, bench, screenshots
$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# only what the demo needs (no test toolchain, no browser)
$(DEMO_STAMP): pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet -e '.[demo]'
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(BIN)/vqametrics demo

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks scripts docs
	$(BIN)/ruff format --check src tests benchmarks scripts docs
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest

screenshots: $(STAMP)
	VQM_SCREENSHOT_DIR=docs/screenshots $(BIN)/python -m pytest -q tests/browser

bench: $(STAMP)
	$(BIN)/python benchmarks/bench.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
