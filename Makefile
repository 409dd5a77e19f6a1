# Two commands matter on a fresh Debian machine with Python 3.11:
#   make serve   set everything up and start the server (prints the URL to open)
#   make test    set everything up and run the whole test suite (what CI runs)
SHELL := /bin/bash
PY := .venv/bin/python
# System commands the project needs; scripts/bootstrap.sh installs the missing ones with apt-get.
SYSTEM_COMMANDS := redis-server

.PHONY: setup serve test lint bench clean

setup:
	@scripts/bootstrap.sh --extras test $(SYSTEM_COMMANDS)

serve: setup
	@$(PY) -m server.cli serve $(ARGS)

test: setup
	@$(PY) -m ruff check .
	@$(PY) -m pytest $(PYTEST_ARGS)

lint: setup
	@$(PY) -m ruff check .
	@$(PY) -m ruff format --check . || true

bench: setup
	@$(PY) bench/engine.py

clean:
	rm -rf .venv .pytest_cache .ruff_cache .hypothesis var artifacts
