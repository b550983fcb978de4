# Entry points. `make demo` and `make test` are the two README commands.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
DBT := $(BIN)/dbt
export DBT_PROFILES_DIR := $(CURDIR)

.PHONY: setup demo test test-fast lint build docs bench readme-chart clean

$(BIN)/agent-eval: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $@

setup: $(BIN)/agent-eval

demo: setup
	$(BIN)/agent-eval demo

test: setup
	$(BIN)/sqlfluff lint --processes 2 models macros tests/dbt
	$(BIN)/python -m pytest -n 2 --dist loadfile --durations 15

# The pure-Python tests (no dbt build): seconds, for the edit-test loop.
test-fast: setup
	$(BIN)/python -m pytest -m "not dbt" -q

build: setup
	$(BIN)/agent-eval build

# The performance yardstick (README, "Benchmark"): about 1,000,000 rows,
# several minutes; writes BENCHMARKS.md and BENCHMARKS.json.
bench: setup
	$(BIN)/python scripts/bench.py --out BENCHMARKS.md

# The chart shown in the README (section "Charts"), from the bundled samples.
readme-chart: demo
	cp reports/demo/resume_agent/2026-11-01/resume_agent_nightly.latency_hist.png docs/img/resume_agent_latency_hist.png
	cp reports/demo/morning/2026-11-02.overview.png docs/img/morning_overview.png

docs: setup
	$(DBT) docs generate --project-dir .

clean:
	rm -rf target logs warehouse/*.duckdb warehouse/published reports .bench
