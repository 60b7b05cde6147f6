# Regnal: `make run` serves the demo at http://127.0.0.1:8000, `make test` runs every check.
# Both install what is missing first: the Debian packages below (as root) and the virtualenv.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell sha1sum requirements.txt | cut -c1-12)
APT_PACKAGES := graphviz libpango-1.0-0 libpangoft2-1.0-0 fonts-dejavu-core poppler-utils chromium postgresql openssl

.PHONY: run test setup system bench lint load

system:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" != 0 ]; then echo "Missing Debian packages:$$missing (run as root or: sudo apt-get install$$missing)" >&2; exit 1; fi; \
	  echo "Installing Debian packages:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

$(STAMP): requirements.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.txt
	@rm -f $(VENV)/.installed-* && touch $(STAMP)

setup: system $(STAMP)

run: setup
	DEBUG=1 $(PY) manage.py migrate --no-input
	DEBUG=1 $(PY) manage.py demo
	DEBUG=1 $(PY) manage.py runserver 127.0.0.1:8000

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

# The whole suite twice: on SQLite (the default database; the tests marked `postgres` need
# PostgreSQL and are left out), then all of it, browser tests included, on a throwaway PostgreSQL
# server (scripts/pg-test.sh: private data directory, random loopback port, removed at the end),
# less the tests marked `long_simulation` (long simulated campaigns that check the rules: SQLite's run).
test: lint
	DEBUG=1 $(PY) manage.py makemigrations --check --dry-run >/dev/null || { echo "Models changed without a migration: run manage.py makemigrations" >&2; exit 1; }
	@echo "== the suite on SQLite"; start=$$SECONDS; \
	$(VENV)/bin/pytest -m "not postgres"; status=$$?; \
	echo "== SQLite run: $$((SECONDS - start)) s"; exit $$status
	@echo "== the suite on PostgreSQL"; start=$$SECONDS; \
	scripts/pg-test.sh $(VENV)/bin/pytest; status=$$?; \
	echo "== PostgreSQL run: $$((SECONDS - start)) s"; exit $$status

bench: setup
	$(PY) bench/simulate.py
	$(PY) bench/succession_view.py
	$(PY) bench/tree.py
	$(PY) bench/undo.py
	$(PY) bench/api.py

# The load test (bench/README.md): gunicorn on a throwaway PostgreSQL, 10 players and a GM for 60 s.
# Options through LOAD_ARGS, e.g. make load LOAD_ARGS="--think 0 0".
load: setup
	scripts/pg-test.sh $(PY) bench/load.py $(LOAD_ARGS)
