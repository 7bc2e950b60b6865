# `make run` and `make test` set everything up on a fresh machine: they create
# a virtual environment in .venv, install the project into it, then run.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
ARGS   ?=
# pytest runs the suite in WORKERS processes (pytest-xdist), each test file wholly on one
# of them, so a file's module fixtures (a browser, a network of hosts) are made once. The
# suite mostly waits (on servers, browsers, PostgreSQL): on two cores, four kept them busy
# 70 % of the time (381 s), six 83 % (319 s). WORKERS=0 runs it serially, in one process.
# They take the files in the order the suite's conftest gives them (the long ones first),
# not pytest-xdist's own.
WORKERS ?= 6

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/dod-server $(ARGS)

# The suite starts a few hundred interpreters: each would compile the project again
# where PYTHONDONTWRITEBYTECODE is set (as in many container images), so here it is not.
test: export PYTHONDONTWRITEBYTECODE :=
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy
	$(BIN)/python -m pytest -n $(WORKERS) --dist loadfile --no-loadscope-reorder $(ARGS)

bench: $(STAMP)
	$(BIN)/python -m bench $(ARGS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache .mypy_cache
