# The two commands of the README: `make run` sets everything up and runs the main job,
# `make test` runs the test suite.
.PHONY: run test setup lint bench

setup:
	bash scripts/setup.sh

run: setup
	.venv/bin/coschedlab demo --out out/demo --force

test: setup
	.venv/bin/python -m pytest -n 2 --dist loadscope

lint: setup
	.venv/bin/ruff check src tests benchmarks examples
	.venv/bin/ruff format --check src tests benchmarks examples

bench: setup
	.venv/bin/python benchmarks/run_all.py
