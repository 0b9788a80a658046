# Quick start: `make test` (set up + tests), `make train` (set up + default training/eval).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup test train lint bench clean lock

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(PY) pyproject.toml constraints.txt
	$(PY) -m pip install -q -c constraints.txt pip setuptools
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -c constraints.txt --build-constraint constraints.txt -e ".[dev]"
	touch $(STAMP)

setup: $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -q -n auto --dist worksteal

train: $(STAMP)
	$(PY) -m training.train_default

lint: $(STAMP)
	$(VENV)/bin/ruff check .

bench: $(STAMP)
	$(PY) -m benchmarks.run_all

clean:
	rm -rf $(VENV) runs .pytest_cache

# Rebuild constraints.txt from a fresh venv: newest versions within pyproject.toml's ranges (torch
# kept at 2.13.0, the CPU build), the file's comment lines kept. Then `make test`.
LOCK_VENV := /tmp/humanoid-wbc-lock-venv
lock:
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install -q --upgrade pip setuptools
	$(LOCK_VENV)/bin/pip install -q torch==2.13.0
	$(LOCK_VENV)/bin/pip install -q -e ".[dev]" torch==2.13.0
	{ grep '^#' constraints.txt; $(LOCK_VENV)/bin/pip freeze --all --exclude-editable \
	  | sed 's/^torch==\(.*\)+cpu$$/torch==\1/'; } > constraints.txt.new
	mv constraints.txt.new constraints.txt
	rm -rf $(LOCK_VENV)
