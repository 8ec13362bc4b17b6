# Lockup: `make run` starts the game, `make test` runs every check.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
DB ?= sqlite:///lockup.sqlite

.PHONY: run test install install-test lint typecheck pytest browser bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(BIN)/pip install -q -e '.[test]'
	touch $@

install: $(VENV)/.installed

install-test: $(VENV)/.installed-test

run: install
	$(BIN)/lockup serve --host $(HOST) --port $(PORT) --db $(DB)

lint: install-test
	$(BIN)/ruff check lockup tests bench
	$(BIN)/ruff format --check lockup tests bench

typecheck: install-test
	$(BIN)/mypy lockup

browser:
	bash scripts/ensure-chromium.sh

pytest: install-test
	$(BIN)/python -m pytest -q

test: lint typecheck browser pytest

bench: install-test
	$(BIN)/pip install -q -e '.[bench]'
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/search.py
	$(BIN)/python bench/server.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
