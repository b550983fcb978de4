# Entry points. `make demo` and `make test` are the two README commands.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
DBT := $(BIN)/dbt
export DBT_PROFILES_DIR := $(CURDIR)

.PHONY: setup setup-dev lock browser demo serve test test-fast lint build docs bench readme-chart clean fixtures fixtures-every-eval-ever

# Installs exactly the versions in constraints.txt (the lock, written by
# `make lock`), so a new release of any dependency cannot change a fresh
# clone's behaviour overnight. `setup` is the runtime only (what `demo`,
# `serve`, `build`, `docs` and `bench` run); `setup-dev` adds the dev extra
# (pytest, the linters, the browser test's playwright, polars and scipy for
# the checks), which `test`, `lint`, `test-fast` and `lock` need: as large
# again as the runtime.
DEV := $(VENV)/.dev-installed
$(BIN)/agent-eval: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e .
	touch $@

$(DEV): $(BIN)/agent-eval
	$(BIN)/pip install --quiet -c constraints.txt -e ".[dev]"
	touch $@

# Refresh the lock after changing dependencies in pyproject.toml (or to take
# new releases): resolves from PyPI with pip-compile (pip-tools, a dev
# dependency), then reinstalls. Commit constraints.txt with the change.
lock: $(DEV)
	$(BIN)/pip-compile --quiet --upgrade --extra dev --strip-extras --no-emit-index-url \
	  --no-emit-find-links --output-file constraints.txt pyproject.toml
	$(BIN)/pip install --quiet -c constraints.txt -e ".[dev]"

setup: $(BIN)/agent-eval

setup-dev: $(DEV)

demo: setup
	$(BIN)/agent-eval demo

# The web viewer on what `make demo` published: http://127.0.0.1:8765/
serve: setup
	$(BIN)/agent-eval serve --demo

# The browser the viewer's browser test drives (tests/test_viewer.py):
# Debian's Chromium, through Playwright with executable_path (Playwright's own
# browser download cannot work offline). Installed as root with apt, once.
CHROMIUM ?= /usr/bin/chromium
browser:
	@if [ ! -x "$(CHROMIUM)" ]; then \
	  echo "make browser: installing Debian's chromium (apt-get, as root)"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null; \
	fi
	@"$(CHROMIUM)" --version

test: setup-dev browser lint
	$(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder --durations 15

# SQL and Python lint (both part of `make test`): sqlfluff on the models,
# macros and singular tests; ruff's checks and its formatting on the Python.
lint: setup-dev
	$(BIN)/sqlfluff lint --processes 2 models macros tests/dbt
	$(BIN)/ruff check src tests scripts
	$(BIN)/ruff format --check src tests scripts

# The pure-Python tests (no dbt build): seconds, for the edit-test loop; on
# two workers, since a few of them (the loaders' random files) take seconds.
test-fast: setup-dev
	$(BIN)/python -m pytest -m "not dbt" -q -n 2

build: setup
	$(BIN)/agent-eval build

# The performance yardstick (docs/testing.md, "The benchmark"): about 1,000,000 rows,
# several minutes; writes BENCHMARKS.md and BENCHMARKS.json.
bench: setup
	$(BIN)/python scripts/bench.py --out BENCHMARKS.md

# The Inspect AI logs of the tests (tests/fixtures/inspect), written again by
# inspect_ai itself with its offline mockllm provider, in a virtualenv of
# their own (inspect-ai and its ~300 MB of dependencies are no dependency of
# the warehouse). Inspect names logs by time and id: the files change names.
# Then the promptfoo outputs (tests/fixtures/promptfoo), written by promptfoo
# 0.118.0 and 0.57.1 from the npm registry (installed in .promptfoo-fixtures/).
# Then the EvalVault exports (tests/fixtures/evalvault), written by EvalVault
# 1.88.0 in a virtualenv of its own: it requires Python 3.12, so it is
# installed without its dependency check and the script runs the modules of
# its export path (scripts/fixtures/evalvault_runs.py says how).
# Then the lm-eval outputs (tests/fixtures/lm_eval and the lm_eval sample
# drops), written by lm-eval 0.4.13's own command line in a virtualenv of
# their own (no torch needed), offline.
FIXTURES_VENV ?= .venv-fixtures
EVALVAULT_VENV ?= .venv-evalvault-fixtures
LM_EVAL_VENV ?= .venv-lm-eval
fixtures:
	$(PYTHON) -m venv $(FIXTURES_VENV)
	$(FIXTURES_VENV)/bin/pip install --quiet -r scripts/fixtures/requirements-inspect.txt
	$(FIXTURES_VENV)/bin/python scripts/fixtures/inspect_logs.py
	$(PYTHON) scripts/fixtures/promptfoo_outputs.py
	$(PYTHON) -m venv $(EVALVAULT_VENV)
	$(EVALVAULT_VENV)/bin/pip install --quiet --no-deps --ignore-requires-python evalvault==1.88.0
	$(EVALVAULT_VENV)/bin/pip install --quiet -r scripts/fixtures/requirements-evalvault.txt
	$(EVALVAULT_VENV)/bin/python scripts/fixtures/evalvault_runs.py
	$(PYTHON) -m venv $(LM_EVAL_VENV)
	$(LM_EVAL_VENV)/bin/pip install --quiet -r scripts/fixtures/requirements-lm-eval.txt
	$(LM_EVAL_VENV)/bin/python scripts/fixtures/lm_eval_outputs.py
	bash scripts/regenerate_sample_drops.sh

# The Every Eval Ever files of the tests (tests/fixtures/every_eval_ever),
# written again by EvalEval's own converters from its repository's test
# inputs: EEE_SOURCE is a checkout of evaleval/every_eval_ever at the commit
# the fixtures' README names (its package wants Python 3.12 and runs on 3.11).
EEE_VENV ?= .venv-eee
fixtures-every-eval-ever:
	test -n "$(EEE_SOURCE)" || (echo "set EEE_SOURCE to a checkout of evaleval/every_eval_ever" >&2; exit 2)
	$(PYTHON) -m venv $(EEE_VENV)
	$(EEE_VENV)/bin/pip install --quiet --no-deps --ignore-requires-python $(EEE_SOURCE)
	$(EEE_VENV)/bin/pip install --quiet -r scripts/fixtures/requirements-every-eval-ever.txt
	$(EEE_VENV)/bin/python scripts/fixtures/every_eval_ever_files.py --source $(EEE_SOURCE)

# The images of the docs, from the bundled samples: the viewer's overview at
# the top of the README (and in docs/serving.md), the latency chart and the
# morning page's overview chart in docs/operations.md.
readme-chart: demo setup-dev browser
	cp reports/demo/resume_agent/2026-11-01/resume_agent_nightly.latency_hist.png docs/img/resume_agent_latency_hist.png
	cp reports/demo/morning/2026-11-02.overview.png docs/img/morning_overview.png
	$(BIN)/python scripts/viewer_screenshot.py warehouse/published/demo.duckdb docs/img/viewer_overview.png

docs: setup
	$(DBT) docs generate --project-dir .

clean:
	rm -rf target logs warehouse/*.duckdb warehouse/published reports .bench
