# Two commands matter on a fresh Debian machine with Python 3.11:
#   make serve   set everything up and start the server (prints the URL to open)
#   make test    set everything up and run the whole test suite (what CI runs)
SHELL := /bin/bash
PY := .venv/bin/python
# The suite runs in two worker processes, a test file at a time each (its module fixtures
# start once); PYTEST_ARGS="-p no:xdist" runs it in one.
PYTEST_ARGS ?= -n 2 --dist loadfile
# System commands the project needs; scripts/bootstrap.sh installs the missing ones with apt-get.
# (Node.js for the browser client is handled by scripts/build-web.sh: the system's when recent
# enough, otherwise a private copy from PyPI inside .venv.)
SERVE_COMMANDS := redis-server
# The tests also drive Debian's Chromium, run deploy/nginx.conf (the proxy of
# docker-compose.yml) in a real nginx and import the .mat exports into GNU Backgammon (gnubg,
# which Debian installs in /usr/games).
TEST_COMMANDS := redis-server chromium nginx gnubg

.PHONY: setup web serve test lint bench clean

setup:
	@scripts/bootstrap.sh --extras test $(SERVE_COMMANDS)

web: setup
	@scripts/build-web.sh

serve: web
	@$(PY) -m server.cli serve $(ARGS)

test:
	@scripts/bootstrap.sh --extras test $(TEST_COMMANDS)
	@$(PY) -m ruff check .
	@scripts/build-web.sh test
	@$(PY) -m pytest $(PYTEST_ARGS)

lint: setup
	@$(PY) -m ruff check .
	@$(PY) -m ruff format --check . || true

bench: setup
	@$(PY) bench/engine.py
	@$(PY) bench/variants.py
	@$(PY) bench/fairdice.py
	@$(PY) bench/codec.py
	@$(PY) bench/store.py
	@$(PY) bench/commit.py
	@$(PY) bench/snapshot.py
	@$(PY) bench/machine.py

clean:
	rm -rf .venv .pytest_cache .ruff_cache .hypothesis var artifacts web-client/node_modules web-client/dist
