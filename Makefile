# Two commands for a fresh machine with Python 3 and pip:  make demo  |  make test
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
DEMO_STAMP := $(VENV)/.demo-stamp
PIP    := $(BIN)/python -m pip
export PIP_DISABLE_PIP_VERSION_CHECK := 1
# one pytest worker per core (pytest-xdist)
PYTEST := $(BIN)/python -m pytest -n auto
# bytecode is written as modules are first imported (the test install skips pip's compile of
# every installed file, about 40% of its time), so the suite's `python -m vqametrics`
# subprocesses and the second worker do not compile the same modules again
unexport PYTHONDONTWRITEBYTECODE

.PHONY: demo test test-fast test-slow test-pythons test-lowest lint style types bench screenshots clean

# pip >= 21.3 installs editable pyproject packages; a newer pip is fetched only when needed
$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet 'pip>=21.3'

# the test toolchain (and every extra): make test, test-slow, lint, bench, screenshots. uv (a
# PyPI wheel with its binary inside) installs the same packages as pip in about a fifth of
# pip's time, and like --no-compile writes no bytecode; where uv cannot be had, pip installs
$(STAMP): pyproject.toml hatch_build.py src/vqametrics/readers/_answerscan.c src/vqametrics/pipeline/_joinrows.c | $(VENV)/bin/python
	$(PIP) install --quiet uv && $(BIN)/uv pip install --quiet --python $(BIN)/python -e '.[test]' \
	  || $(PIP) install --quiet --no-compile -e '.[test]'
	touch $(STAMP)

# only what the demo needs (no test toolchain, no browser)
$(DEMO_STAMP): pyproject.toml | $(VENV)/bin/python
	$(PIP) install --quiet -e '.[demo]'
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(BIN)/vqametrics demo

lint: style types

style: $(STAMP)
	$(BIN)/ruff check src tests benchmarks scripts docs
	$(BIN)/ruff format --check src tests benchmarks scripts docs

types: $(STAMP)
	$(BIN)/mypy

# the suite a developer runs often: ruff, then mypy beside the tests (alone, mypy leaves a core
# idle), the tests without the `slow` ones and property tests on a fifth of their examples
# (tests/conftest.py)
test: style
	@$(MAKE) --no-print-directory -j2 types test-fast

# the compiled helpers must have been built where a compiler is (tests/test_compiled.py)
test-fast: $(STAMP)
	VQAMETRICS_REQUIRE_EXTENSION=1 $(PYTEST) -m "not slow"

# what `make test` leaves out: the `slow` tests (kill, browser, statistical power and coverage,
# ...) and every property test on all its examples; .ci/run runs `make test` then this
test-slow: $(STAMP)
	VQAMETRICS_REQUIRE_EXTENSION=1 VQM_HYPOTHESIS=thorough $(PYTEST) -m "slow or hypothesis"

# the fast suite under the other Pythons the project supports (>= 3.10), each in a venv of its
# own beside .venv; a Python that does not run here is skipped, and said so. With pyenv:
# PYENV_VERSION=3.11.7:3.10.13:3.12.1:3.13.0 make test-pythons
PYTHONS ?= python3.10 python3.12 python3.13
test-pythons:
	@for py in $(PYTHONS); do \
	  if v=$$($$py -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null); then \
	    $(MAKE) --no-print-directory VENV=.venv-$$v PYTHON=$$py test-fast || exit 1; \
	  else echo "test-pythons: $$py does not run here: skipped"; fi; \
	done

# the fast suite at the lowest version pyproject.toml allows of every direct dependency (uv's
# --resolution lowest-direct), in .venv-lowest: each lower bound is a claim, checked here
test-lowest:
	test -x .venv-lowest/bin/python || $(PYTHON) -m venv .venv-lowest
	.venv-lowest/bin/python -m pip install --quiet uv
	.venv-lowest/bin/uv pip install --quiet --python .venv-lowest/bin/python \
	  --resolution lowest-direct -e '.[test]'
	touch .venv-lowest/.installed-stamp
	@$(MAKE) --no-print-directory VENV=.venv-lowest test-fast

screenshots: $(STAMP)
	VQM_SCREENSHOT_DIR=docs/screenshots $(BIN)/python -m pytest -q tests/browser

bench: $(STAMP)
	$(BIN)/python benchmarks/bench.py

clean:
	rm -rf $(VENV) .venv-* .pytest_cache .mypy_cache .ruff_cache .hypothesis
