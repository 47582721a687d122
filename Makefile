# The two commands of the README. Each creates .venv on first use and installs what it needs.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
EXTRAS ?= dev

.PHONY: demo test lint types unit clean

$(BIN)/.installed-$(EXTRAS): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[$(EXTRAS)]'
	rm -f $(BIN)/.installed-* && touch $@

## demo: audit every bundled example session (the main job)
demo: $(BIN)/.installed-$(EXTRAS)
	$(BIN)/ctxkeep sweep examples/ || test $$? -eq 1  # exit 1 = findings, the expected result

## test: lint, types and the whole test suite
test: lint types unit

lint: $(BIN)/.installed-$(EXTRAS)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

types: $(BIN)/.installed-$(EXTRAS)
	$(BIN)/mypy

unit: $(BIN)/.installed-$(EXTRAS)
	$(BIN)/pytest

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
