# Quick start: `make setup` (.venv with everything, once; each step printed with its time), `make test`
# (set up + tests, the docs' strict build among them), `make train` (set up +
# default training/eval), `make docs` (the documentation site into site/); `make bench-placo` (our tick
# against PlaCo's on the G1, PlaCo in .venv-placo), `make bench-envpool` (EnvPool's Humanoid beside our
# torque-mode env, EnvPool in .venv-envpool), `make bench-tsid` (our tick against TSID's and PlaCo's
# in one run, TSID in .venv-tsid).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# pyproject.toml's [build-system] requires: installed into the venv first, then the package is
# built there (--no-build-isolation: exact locked versions, and build/ is reused, so an edited
# C++ file recompiles alone).
BUILD_REQUIRES := scikit-build-core nanobind pin proxsuite eiquadprog cmeel-eigen mujoco
CXX ?= c++

.PHONY: setup test train docs lint bench clean lock placo-venv bench-placo placo-lock bench-envpool tsid-venv bench-tsid

$(PY):
	$(PYTHON) -m venv $(VENV)

# $(call step,N,what): say what step N of setup installs, then run the rest of the recipe line and
# say how long it took (a failing command stops make with pip's error, as before).
step = echo "setup [$(1)/5] $(2) ($$(date +%T))"; t0=$$(date +%s);
took = && echo "setup       done in $$(( $$(date +%s) - t0 )) s"

$(STAMP): $(PY) pyproject.toml constraints.txt CMakeLists.txt $(wildcard core/*.cpp core/*.hpp)
	@command -v $(CXX) >/dev/null 2>&1 || { echo "error: no C++ compiler ('$(CXX)') found; the controller core" \
	  "needs a C++17 compiler: install g++ (Debian/Ubuntu: apt install g++) or set CXX" >&2; exit 1; }
	@echo "setup: installing humanoid-wbc[dev] into $(VENV) at constraints.txt's exact versions, once"
	@echo "setup: five steps; on a fresh clone (2 shared cores, load 3-6.5) they took 5 min 18 s, 3 min 42 s of it step 5's compile"
	@$(call step,1,pip and setuptools) $(PY) -m pip install -q -c constraints.txt pip setuptools $(took)
	@$(call step,2,torch 2.13.0 (a CPU build already in .venv is kept; README: Install)) \
	  $(PY) -m pip install -q torch==2.13.0 $(took)
	@$(call step,3,the compiled core's build requirements: $(BUILD_REQUIRES)) \
	  $(PY) -m pip install -q -c constraints.txt $(BUILD_REQUIRES) $(took)
	@$(call step,4,every other locked package: constraints.txt) \
	  $(PY) -m pip install -q -c constraints.txt -r constraints.txt $(took)
	@$(call step,5,compiling the controller core (core/*.cpp; pip is silent until it ends) and installing the project) \
	  $(PY) -m pip install -q -c constraints.txt --no-build-isolation -e ".[dev]" $(took)
	@touch $(STAMP)
	@echo "setup: $(VENV) ready; run the project's commands with $(PY) (or activate it: . $(VENV)/bin/activate)"

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

# PlaCo, the peer that benchmarks/placo_g1.py times against our controller on the G1, in a virtualenv
# of its own: it pins pin==3.8.0 (ours: 4.1.0). Neither setup nor test needs it.
PLACO_VENV := .venv-placo
PLACO_PY := $(PLACO_VENV)/bin/python
PLACO_STAMP := $(PLACO_VENV)/.installed
PLACO_CONSTRAINTS := benchmarks/placo-constraints.txt
PLACO_REQUIRES := placo==0.10.2 numpy

$(PLACO_STAMP): $(PLACO_CONSTRAINTS)
	$(PYTHON) -m venv $(PLACO_VENV)
	$(PLACO_PY) -m pip install -q -c $(PLACO_CONSTRAINTS) $(PLACO_REQUIRES)
	touch $(PLACO_STAMP)

placo-venv: $(PLACO_STAMP)

bench-placo: $(STAMP) $(PLACO_STAMP)
	$(PY) -m benchmarks.placo_g1 --placo-python $(PLACO_PY)

# EnvPool (C++ envs with their own MuJoCo), the outside anchor benchmarks/envpool_anchor.py runs beside
# our torque-mode env, in a virtualenv of its own (its exact versions: benchmarks/envpool-constraints.txt).
# Neither setup nor test needs it.
ENVPOOL_VENV := .venv-envpool
ENVPOOL_PY := $(ENVPOOL_VENV)/bin/python
ENVPOOL_STAMP := $(ENVPOOL_VENV)/.installed
ENVPOOL_CONSTRAINTS := benchmarks/envpool-constraints.txt

$(ENVPOOL_STAMP): $(ENVPOOL_CONSTRAINTS)
	$(PYTHON) -m venv $(ENVPOOL_VENV)
	$(ENVPOOL_PY) -m pip install -q -c $(ENVPOOL_CONSTRAINTS) envpool==1.2.5
	touch $(ENVPOOL_STAMP)

bench-envpool: $(STAMP) $(ENVPOOL_STAMP)
	$(PY) -m benchmarks.envpool_anchor --envpool-python $(ENVPOOL_PY)

# TSID, the second peer benchmarks/placo_g1.py times (beside PlaCo, in the same run), in a virtualenv of
# its own: libtsid 1.10.0 has no wheel, so pip builds it from source (4-20 min on 2 cores) against
# pin==4.0.0 (against 4.1.0 its RobotWrapper corrupts the heap); benchmarks/tsid-constraints.txt holds
# the exact versions and is the build's PIP_CONSTRAINT too. The worker runs with OMP_NUM_THREADS=1.
# Neither setup nor test needs it.
TSID_VENV := .venv-tsid
TSID_PY := $(TSID_VENV)/bin/python
TSID_STAMP := $(TSID_VENV)/.installed
TSID_CONSTRAINTS := benchmarks/tsid-constraints.txt

$(TSID_STAMP): $(TSID_CONSTRAINTS)
	$(PYTHON) -m venv $(TSID_VENV)
	PIP_CONSTRAINT=$(abspath $(TSID_CONSTRAINTS)) CMEEL_RUN_TESTS=OFF $(TSID_PY) -m pip install -q --no-cache-dir tsid==1.10.0 numpy
	touch $(TSID_STAMP)

tsid-venv: $(TSID_STAMP)

bench-tsid: $(STAMP) $(PLACO_STAMP) $(TSID_STAMP)
	$(PY) -m benchmarks.placo_g1 --placo-python $(PLACO_PY) --tsid-python $(TSID_PY) --json benchmarks/results/peers_g1.json

# Rebuild benchmarks/placo-constraints.txt from a fresh venv (its comment lines kept), then `make placo-venv`.
PLACO_LOCK_VENV := /tmp/humanoid-wbc-placo-lock-venv
placo-lock:
	rm -rf $(PLACO_LOCK_VENV)
	$(PYTHON) -m venv $(PLACO_LOCK_VENV)
	$(PLACO_LOCK_VENV)/bin/pip install -q $(PLACO_REQUIRES)
	{ grep '^#' $(PLACO_CONSTRAINTS); $(PLACO_LOCK_VENV)/bin/pip freeze; } > $(PLACO_CONSTRAINTS).new
	mv $(PLACO_CONSTRAINTS).new $(PLACO_CONSTRAINTS)
	rm -rf $(PLACO_LOCK_VENV)

clean:
	rm -rf $(VENV) $(PLACO_VENV) $(ENVPOOL_VENV) runs .pytest_cache build site

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
