# The verbs a person uses. Everything runs in .venv, created on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
# An editable install of the checkout. setuptools ends each with a note that a folder named
# like the package may shadow it (pip >= 25 prints a backend's notes): here that folder is the package.
EDITABLE := PYTHONWARNINGS='ignore:Editable installation:UserWarning' $(PIP) install -e
# Rebuild the install (and the compiled kernels) when any of these change.
INSTALL_INPUTS := pyproject.toml setup.py meancli/_ffi_build.py generated/kernels.c generated/kernels_cdef.h $(wildcard meancli/kernels/csrc/*.h)
# meancli itself (what `make demo` needs); each extra of pyproject.toml has its own stamp on top,
# so `make demo` then `make test` installs only what the tests add.
STAMP := $(VENV)/.meancli-installed
EXTRAS := dask onnx onnxruntime openvino bench codegen test lint
extra = $(VENV)/.meancli-extra-$(1)

.PHONY: help install $(addprefix install-,$(EXTRAS)) demo test generate check-generated build bench bench-distributed lint conformance sanitize fuzz clean

help:
	@echo "make demo             install and run meancli on the shipped example tensor"
	@echo "make test             install the test dependencies and run every test"
	@echo "make install          install meancli into .venv (make install-dask, make install-onnx: with that extra)"
	@echo "make test-fast        every test but the slow, cluster and build ones, fewer examples (under 2 min)"
	@echo "make generate         regenerate generated/ from spec/ and templates/"
	@echo "make check-generated  fail if generated/ differs from a fresh generation"
	@echo "make lint             ruff (check, format check), mypy, and the import contract (layers import downward only)"
	@echo "make bench            benchmarks against numpy, onnxruntime and OpenVINO; exact-path GB/s; earlier kernels"
	@echo "make bench-distributed  4 GiB zarr on 2 dask workers against dask and xarray, and from a local S3 server"
	@echo "make conformance      regenerate docs/conformance.md (onnxruntime, ONNX reference, OpenVINO)"
	@echo "make sanitize         run the kernel tests under AddressSanitizer and UBSan"
	@echo "make fuzz             the long fuzzing profile"
	@echo "make build            build a wheel into dist/"

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip

# The editable install leaves byte-compiling meancli to its first run, which never
# writes the .pyc files where PYTHONDONTWRITEBYTECODE is set: every run would then
# compile meancli from source (tens of ms). compileall writes them now, as pip does
# for a regular install; a source edited later is recompiled, never run stale.
$(STAMP): $(PY) $(INSTALL_INPUTS)
	$(EDITABLE) .
	$(PY) -m compileall -q meancli generated
	@touch $@

# An extra's packages, redone after meancli is reinstalled. 'meancli[NAME]' is the meancli
# installed above (already satisfied: pip adds the extra's packages and builds nothing).
$(VENV)/.meancli-extra-%: $(STAMP)
	$(PIP) install 'meancli[$*]'
	@touch $@
.PRECIOUS: $(VENV)/.meancli-extra-%

install: $(STAMP)

# make install-dask, make install-onnx, ...: meancli with that extra, into .venv
$(addprefix install-,$(EXTRAS)): install-%: $(VENV)/.meancli-extra-%

demo: $(STAMP)
	$(VENV)/bin/meancli reduce-mean examples/grace_hopper.npy --axes 2 3 --keep-dims
	$(VENV)/bin/meancli mean examples/grace_hopper_r.npy examples/grace_hopper_g.npy examples/grace_hopper_b.npy -o gray.npy
	$(VENV)/bin/meancli reduce-mean gray.npy --axes 0 1 --opset openvino:1

# pytest caches each test module's assertion rewrite in tests/__pycache__, unless
# PYTHONDONTWRITEBYTECODE is set (some shells and images set it): then every worker
# rewrites all of them again at each run (seconds of CPU per worker). Empty, it is unset.
PYTEST_ENV = PYTHONDONTWRITEBYTECODE=
# A worker that dies (a crash in C, a test that replaces its process) fails the run at
# once: a replaced worker under --dist loadfile left the run waiting forever.
XDIST = -n auto --dist loadfile --no-loadscope-reorder --max-worker-restart=0

# Every test, one pytest worker per core (pytest-xdist): each file on one worker (its module
# fixtures, such as test_distributed's clusters, once), the longest files handed out first
# (tests/conftest.py LONGEST_FIRST). `pytest -q` alone runs the same tests in one process.
test: $(call extra,test)
	$(PYTEST_ENV) $(PY) -m pytest -q $(XDIST)

# The markers are registered in pyproject.toml; HYPOTHESIS_PROFILE=fast and
# CONFORMANCE_EXAMPLES cut the property tests' examples, not what they check.
# One worker per core (pytest-xdist), each test file on one worker (its module fixtures once).
test-fast: $(call extra,test)
	$(PYTEST_ENV) HYPOTHESIS_PROFILE=fast CONFORMANCE_EXAMPLES=3 $(PY) -m pytest -q $(XDIST) \
		-m "not slow and not cluster and not build"

generate: $(PY)
	@$(PY) -c "import jinja2, yaml" 2>/dev/null || $(PIP) install 'jinja2>=3.1' 'pyyaml>=6'
	$(PY) -m meancli.codegen

check-generated: $(PY)
	@$(PY) -c "import jinja2, yaml" 2>/dev/null || $(PIP) install 'jinja2>=3.1' 'pyyaml>=6'
	$(PY) -m meancli.codegen --check

lint: $(call extra,lint)
	$(VENV)/bin/ruff check meancli tests tools bench examples
	$(VENV)/bin/ruff format --check meancli tests tools bench examples
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(PY) tools/import_cycles.py

# compileall again: the whole-process timings must not include compiling a source edited since install.
bench: $(call extra,test)
	$(PY) -m compileall -q meancli generated
	$(PY) bench/bench.py
	$(PY) bench/adversarial.py > bench/adversarial.md
	@cat bench/adversarial.md
	$(PY) bench/baseline.py > bench/baseline.md
	@cat bench/baseline.md
	$(PY) bench/compare.py > bench/compare.md
	@cat bench/compare.md

bench-distributed: $(call extra,bench)
	$(PY) bench/cluster.py

conformance: $(call extra,test)
	$(PY) tools/conformance.py

sanitize: $(call extra,test)
	$(PY) tools/sanitize.py

fuzz: $(call extra,test)
	HYPOTHESIS_PROFILE=fuzz-long $(PY) -m pytest -q tests/test_fuzz.py

build: $(PY)
	$(PIP) install build
	$(PY) -m build --wheel --outdir dist .

clean:
	rm -rf $(VENV) build dist *.egg-info meancli/_kernels*.so .pytest_cache .mypy_cache .ruff_cache .hypothesis gray.npy
