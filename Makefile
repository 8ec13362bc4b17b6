# Lockup: `make run` starts the game, `make test` runs every check.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
DB ?= sqlite:///lockup.sqlite

.PHONY: run test install install-test engine lint typecheck docs pytest jstest browser services system checks bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(BIN)/pip install -q -e '.[test]'
	touch $@

$(VENV)/.installed-compile: $(VENV)/.installed
	$(BIN)/pip install -q -e '.[compile]'
	touch $@

install: $(VENV)/.installed

# The engine compiled by mypyc (lockup/cards.py, playout.py, engine.py); Python runs the
# sources instead when there is no C compiler or a build is out of date.
engine: $(VENV)/.installed-compile
	$(BIN)/python scripts/compile_engine.py

install-test: $(VENV)/.installed-test

run: install engine
	$(BIN)/lockup serve --host $(HOST) --port $(PORT) --db $(DB)

lint: install-test node_modules/.bin/tsc
	$(BIN)/ruff check lockup tests bench scripts
	$(BIN)/ruff format --check lockup tests bench scripts
	node_modules/.bin/tsc -p tsconfig.json

# TypeScript checks the page's ES modules (// @ts-check, JSDoc types); npm installs it.
node_modules/.bin/tsc: package.json package-lock.json
	npm ci --no-audit --no-fund || npm install --no-audit --no-fund
	touch $@

# The page's protocol module, without a browser (Node's test runner).
jstest:
	node --test tests/js/

typecheck: install-test
	$(BIN)/mypy lockup

# The API reference, from the docstrings (docs/api); every cross-reference must resolve.
docs: install-test
	$(BIN)/python -m sphinx -q -E -n -W --keep-going -b html docs/api docs/_build/api

# The system packages the tests use (Chromium for the browser tests, PostgreSQL and Redis
# for the cluster tests, each test starting its own on private ports): one script, one
# apt-get call for what is missing, so that `make -j2` never runs two apt installs at
# once (dpkg takes one lock). tests/test_makefile.py holds it.
system:
	bash scripts/ensure-system.sh

browser services: system

# Python's installs and the static checks, one after the other.
checks:
	$(MAKE) -j1 lint typecheck docs engine

# Two processes share the tests; then those that measure time run alone; then the browser
# tests, a file to a process (they mostly wait on the page and the bots' pacing).
pytest: install-test engine
	$(BIN)/python -m pytest -q -n 2 -m 'not serial and not browser'
	$(BIN)/python -m pytest -q -m 'serial and not browser'
	$(BIN)/python -m pytest -q -n 2 --dist loadfile -m 'browser'

# The apt installs run beside the Python installs and checks, then every test.
test:
	$(MAKE) -j2 --output-sync=target system checks
	$(MAKE) -j1 pytest jstest

bench: install-test engine
	$(BIN)/pip install -q -e '.[bench]'
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/search.py
	$(BIN)/python bench/server.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis build lockup/cards*.so lockup/playout*.so lockup/engine*.so
