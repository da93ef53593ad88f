# Two commands for a fresh machine with Python 3 and pip:  make demo  |  make test
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test lint bench screenshots clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
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
