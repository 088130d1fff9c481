# The two commands a newcomer types: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test bench lint browsers cluster-tools multinode

$(BIN)/python:
	$(PYTHON) -c 'import sys; sys.exit("Python 3.12+ is needed (found %s)" % sys.version.split()[0]) if sys.version_info < (3, 12) else None'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt $(VENV)/.installed
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@

run: $(VENV)/.installed
	$(BIN)/python manage.py runsystem

# Debian's chromium for the browser tests: installed when missing and we are root.
browsers:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian chromium for the browser tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "chromium is missing and cannot be installed here; browser tests will fail" >&2; \
	  fi; }

test: $(VENV)/.installed-dev browsers
	$(BIN)/ruff check .
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: $(VENV)/.installed-dev
	$(BIN)/python -m project.bench.run

# Debian's HAProxy and PgBouncer for the multi-node test: installed when missing and we are root.
cluster-tools:
	@command -v haproxy >/dev/null 2>&1 && command -v pgbouncer >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian haproxy and pgbouncer for the multi-node test"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy pgbouncer >/dev/null; \
	  else \
	    echo "haproxy or pgbouncer is missing and cannot be installed here" >&2; exit 1; \
	  fi; }

# The multi-node test (README "Running in production"); not part of `make test`: it takes minutes.
multinode: $(VENV)/.installed cluster-tools
	$(BIN)/python -m project.multinode
