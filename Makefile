# The two commands of the README. Each creates .venv on first use and installs what it needs.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
EXTRAS ?= dev
# What the whole test suite needs: the dev tools and the optional parts it tests for real.
TEST_EXTRAS := dev,embed,mcp,html-test

.PHONY: demo test lint types unit clean bench

# One stamp per set of extras. torch goes in first as the CPU build that lies on this
# machine's disk (`torch==2.13.0`): an unpinned torch would pull a multi-GB CUDA build.
$(BIN)/.installed-%: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	case ",$*," in *,embed,*) $(BIN)/python -m pip install --quiet 'torch==2.13.0' ;; esac
	$(BIN)/python -m pip install --quiet -e '.[$*]'
	touch $@

## demo: audit every bundled example session (the main job)
demo: $(BIN)/.installed-$(EXTRAS)
	$(BIN)/ctxkeep sweep examples/ || test $$? -eq 1  # exit 1 = findings, the expected result

## test: lint, types and the whole test suite
test: lint types unit

lint: $(BIN)/.installed-$(TEST_EXTRAS)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

types: $(BIN)/.installed-$(TEST_EXTRAS)
	$(BIN)/mypy

# The HTML report's browser tests drive Debian's chromium (Playwright's own browser
# download does not work here): install it as root, else say what is missing.
CHROMIUM := /usr/bin/chromium
$(CHROMIUM):
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	else \
		echo "make test: $(CHROMIUM) is missing; install Debian's chromium (apt-get install -y chromium)" >&2; \
		exit 1; \
	fi

unit: $(BIN)/.installed-$(TEST_EXTRAS) $(CHROMIUM)
	$(BIN)/pytest

## bench: install the bench extras and peers into .venv, regenerate benchmarks/RESULTS.md
bench: $(BIN)/.installed-dev,embed,bench
	$(BIN)/python -m pip install --quiet -r benchmarks/requirements.txt
	$(BIN)/python benchmarks/run_all.py --corpus large --max-mb 1000

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
