# Quick start: `make test` (set up + tests, the docs' strict build among them), `make train` (set up +
# default training/eval), `make docs` (the documentation site into site/).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# pyproject.toml's [build-system] requires: installed into the venv first, then the package is
# built there (--no-build-isolation: exact locked versions, and build/ is reused, so an edited
# C++ file recompiles alone).
BUILD_REQUIRES := scikit-build-core nanobind pin proxsuite eiquadprog cmeel-eigen
CXX ?= c++

.PHONY: setup test train docs lint bench clean lock

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(PY) pyproject.toml constraints.txt CMakeLists.txt $(wildcard core/*.cpp core/*.hpp)
	@command -v $(CXX) >/dev/null 2>&1 || { echo "error: no C++ compiler ('$(CXX)') found; the controller core" \
	  "needs a C++17 compiler: install g++ (Debian/Ubuntu: apt install g++) or set CXX" >&2; exit 1; }
	$(PY) -m pip install -q -c constraints.txt pip setuptools
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -c constraints.txt $(BUILD_REQUIRES)
	$(PY) -m pip install -q -c constraints.txt --no-build-isolation -e ".[dev]"
	touch $(STAMP)

setup: $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -q -n auto --dist worksteal

train: $(STAMP)
	$(PY) -m training.train_default

docs: $(STAMP)
	$(VENV)/bin/mkdocs build --strict

lint: $(STAMP)
	$(VENV)/bin/ruff check .

bench: $(STAMP)
	$(PY) -m benchmarks.run_all

clean:
	rm -rf $(VENV) runs .pytest_cache build site

# Rebuild constraints.txt from a fresh venv: newest versions within pyproject.toml's ranges (torch
# kept at 2.13.0, the CPU build), the file's comment lines kept. Then `make test`.
LOCK_VENV := /tmp/humanoid-wbc-lock-venv
lock:
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install -q --upgrade pip setuptools
	$(LOCK_VENV)/bin/pip install -q torch==2.13.0
	$(LOCK_VENV)/bin/pip install -q $(BUILD_REQUIRES)
	$(LOCK_VENV)/bin/pip install -q --no-build-isolation -e ".[dev]" torch==2.13.0
	{ grep '^#' constraints.txt; $(LOCK_VENV)/bin/pip freeze --all --exclude-editable \
	  | sed 's/^torch==\(.*\)+cpu$$/torch==\1/'; } > constraints.txt.new
	mv constraints.txt.new constraints.txt
	rm -rf $(LOCK_VENV)
