# Overlap Radar: `make demo` runs the product on the embedded defaults, `make test` runs the suite.
PY ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install demo test harness-programs lint format typecheck bench clean

$(STAMP): pyproject.toml
	@$(PY) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else "Python 3.11 is required (found " + sys.version.split()[0] + ")")'
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# torch is pinned in pyproject.toml, so this one pip run takes the CPU build with sentence-transformers.
	$(BIN)/pip install --quiet -e '.[server,mcp,dev]'
	touch $(STAMP)

install: $(STAMP)

# Each checks the machine first (scripts/prerequisites: installs Debian packages as root, else says
# what to install), then builds the venv in a sub-make, so PY is looked up after any install.
demo:
	scripts/prerequisites demo
	@$(MAKE) --no-print-directory install
	$(BIN)/python manage.py migrate --noinput
	@echo "Overlap Radar: http://$(HOST):$(PORT)/board/  (login: lead / radar-demo; adjudicator: reviewer / radar-demo)"
	$(BIN)/python manage.py demo --addr $(HOST):$(PORT)

test:
	scripts/prerequisites test
	@$(MAKE) --no-print-directory install
	$(BIN)/python -m tests.harness.programs
	$(BIN)/python -m tests.servers $(BIN)/python -m pytest

# The pinned Claude Code, Codex CLI and Gemini CLI the harness tier runs, from npm into
# var/harness-cache (tests/harness/programs.py); `make test` does it before the suite.
harness-programs: install
	$(BIN)/python -m tests.harness.programs

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy proximity overlap_site celery_app

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: install
	$(BIN)/python bench/airspace.py --quick

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .mypy_cache .ruff_cache
