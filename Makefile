# Regnal: `make run` serves the demo at http://127.0.0.1:8000, `make test` runs every check,
# `make lan` serves game night to the phones on the local network (README.md).
# Both install what is missing first: the Debian packages below (as root) and the virtualenv.
# `make run` installs only what the site needs (requirements.txt); the checks add the development
# tools (requirements-dev.txt: pytest, Playwright, locust, mypy ...), Chromium and PostgreSQL.
# Both lists are pinned by pip-compile from requirements.in and requirements-dev.in.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
RUN_STAMP := $(VENV)/.installed-run-$(shell sha1sum requirements.txt | cut -c1-12)
DEV_STAMP := $(VENV)/.installed-dev-$(shell cat requirements.txt requirements-dev.txt | sha1sum | cut -c1-12)
RUN_APT := graphviz libpango-1.0-0 libpangoft2-1.0-0 fonts-dejavu-core
DEV_APT := $(RUN_APT) poppler-utils chromium postgresql openssl nginx

.PHONY: run lan test setup setup-dev bench lint load

# Debian packages: $(1) the list; as root they are installed, otherwise named.
define apt_install
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" != 0 ]; then echo "Missing Debian packages:$$missing (run as root or: sudo apt-get install$$missing)" >&2; exit 1; fi; \
	  echo "Installing Debian packages:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
endef

$(RUN_STAMP): requirements.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.txt
	@rm -f $(VENV)/.installed-run-* && touch $(RUN_STAMP)

$(DEV_STAMP): requirements.txt requirements-dev.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	@rm -f $(VENV)/.installed-dev-* $(VENV)/.installed-run-* && touch $(DEV_STAMP) $(RUN_STAMP)

setup:
	$(call apt_install,$(RUN_APT))
	@$(MAKE) --no-print-directory $(RUN_STAMP)

setup-dev:
	$(call apt_install,$(DEV_APT) $(NODE_APT))
	@$(MAKE) --no-print-directory $(DEV_STAMP) $(AXE)

# axe-core (the accessibility checks of the browser tests) and idiomorph (the source of the vendored
# pages/static/idiomorph-ext-*.min.js, tests/test_live.py), from the npm registry as package-lock.json
# pins them. Node.js and npm: Debian's, installed only where no npm is found (NodeSource's is fine too).
AXE := node_modules/axe-core/axe.min.js
NODE_APT = $(if $(shell command -v npm),,nodejs npm)
$(AXE): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $(AXE)

run: setup
	DEBUG=1 $(PY) manage.py migrate --no-input
	DEBUG=1 $(PY) manage.py demo
	DEBUG=1 $(PY) manage.py runserver 127.0.0.1:8000

# Game night on the local network (config/lan.py): gunicorn with the production settings over plain
# HTTP at this machine's address, the address and its QR code printed. ADDRESS=... PORT=... to choose.
lan: setup
	$(PY) -m config.lan $(if $(ADDRESS),--address $(ADDRESS)) $(if $(PORT),--port $(PORT)) $(LAN_ARGS)

lint: setup-dev
	@$(call timed,lint,$(VENV)/bin/ruff check . && $(VENV)/bin/ruff format --check . && $(VENV)/bin/mypy && $(VENV)/bin/lint-imports --no-cache)

# `make test`: the checks, then the suite on two workers (pytest-xdist), each part timed:
# - on SQLite (the default database): every test but the browser and API suites and those marked
#   `postgres`;
# - on a throwaway PostgreSQL server (scripts/pg-test.sh: private data directory, random loopback
#   port, removed at the end): what differs by database, i.e. the tests marked `database` in
#   tests/conftest.py (the browser and API suites, locks and concurrency, undo and its change log,
#   atomicity under faults, export/import, the audit trail, query counts, the task queue) and those
#   marked `postgres`.
# Hypothesis and the long simulated campaigns run the `quick` profile unless HYPOTHESIS_PROFILE says
# otherwise; CI (.ci/run) runs `thorough` (tests/profiles.py). SQLite's run keeps each `xdist_group`
# module on one worker (--dist loadgroup); PostgreSQL's cannot (its API fuzz tests share one node id,
# which loadgroup would run once: tests/conftest.py refuses that).
define timed
	( start=$$SECONDS; echo "== $(1)"; ( $(2) ); status=$$?; echo "== $(1): $$((SECONDS - start)) s"; exit $$status )
endef

test: lint
	@start=$$SECONDS; \
	$(call timed,migrations,DEBUG=1 $(PY) manage.py makemigrations --check --dry-run >/dev/null || { echo "Models changed without a migration: run manage.py makemigrations" >&2; exit 1; }) && \
	$(call timed,SQLite,$(VENV)/bin/pytest -n 2 --dist loadgroup -m "not postgres" --ignore=tests/browser --ignore=tests/api) && \
	$(call timed,PostgreSQL,scripts/pg-test.sh $(VENV)/bin/pytest -n 2 -m "database or postgres"); status=$$?; \
	echo "== make test (after lint): $$((SECONDS - start)) s"; exit $$status

bench: setup-dev
	$(PY) bench/simulate.py
	$(PY) bench/succession_view.py
	$(PY) bench/tree.py
	$(PY) bench/portrait.py
	$(PY) bench/undo.py
	$(PY) bench/api.py
	$(PY) bench/notes.py
	scripts/pg-test.sh $(PY) bench/api_steps.py

# The load test (bench/README.md): gunicorn on a throwaway PostgreSQL with the task worker, 10 players
# and a GM for 60 s; LOAD_ARGS="--servers 2": two gunicorn servers behind nginx, 5 such campaigns.
# Other options through LOAD_ARGS too, e.g. make load LOAD_ARGS="--think 0 0".
load: setup-dev
	scripts/pg-test.sh $(PY) bench/load.py $(LOAD_ARGS)
