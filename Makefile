# The README's commands. Every target that needs the environment sets it up first
# (scripts/setup.sh is idempotent: a second run only checks).
VENV ?= .venv
PY := $(VENV)/bin/python
BENCH ?= ../shared/data/febench_dev

.PHONY: setup demo test test-core lint bench eval clean

setup:
	bash scripts/setup.sh

## main job: the full offline pipeline on the embedded example (see README)
demo: setup
	$(VENV)/bin/flowpath attribute examples/charts --questions examples/questions.jsonl --out out/demo
	@echo "results: out/demo/results.jsonl  report: out/demo/report.html"

## the whole test suite
test: setup
	$(PY) -m pytest -q

## the torch-free core tests only (no setup of heavy extras needed)
test-core:
	$(PY) -m pytest -q tests/core

lint:
	$(VENV)/bin/ruff check flowpath tests
	$(VENV)/bin/mypy

bench: setup
	$(PY) eval/bench_tools.py

## score the default offline pipeline on a benchmark-layout folder
eval: setup
	$(VENV)/bin/flowpath eval attribution --bench $(BENCH) --out out/eval

clean:
	rm -rf out .pytest_cache
