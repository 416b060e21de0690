# dcflow: `make demo` and `make test` work on a clean clone with python3.11,
# pip and cargo. Every target is idempotent: the venv is created and the
# Python dependencies installed once (stamp files), and the extension is
# rebuilt only when Rust sources or build files changed.

PYTHON  ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV    := .venv
BIN     := $(VENV)/bin
PIP     := $(BIN)/python -m pip
UV_PIP  := $(BIN)/python -m uv pip install --quiet --compile-bytecode --python $(BIN)/python
DEPS_STAMP    := $(VENV)/.deps.stamp
# `$(call maturin_develop,PROFILE)` builds dcflow._core in that cargo
# profile into the venv, its log in $(VENV)/maturin.log (the log's tail shown
# on failure); callers may prefix environment settings.
maturin_develop = VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --uv --profile $(1) > $(VENV)/maturin.log 2>&1 \
	|| { tail -n 40 $(VENV)/maturin.log; exit 1; }
# Which build of dcflow._core the venv holds: the release build (demo,
# benchmarks, claims, goldens) or the test build (pytest). Both install to
# the same place, so building one removes the other's stamp.
DEVELOP_STAMP := $(VENV)/.develop.stamp
TEST_BUILD_STAMP := $(VENV)/.develop-tests.stamp
RUST_SOURCES  := Cargo.toml $(wildcard Cargo.lock) $(shell find crates -name '*.rs' -o -name Cargo.toml 2>/dev/null)

DEMO_SCENARIO := examples/demo.toml
DEMO_OUT      := demo-out

.PHONY: lint pgo notebook fuzz keys-doc readme-images claims all demo test test-rust test-stress test-python stress develop venv bench golden golden-update clean distclean

all: test

# ---------------------------------------------------------------- environment
# With uv (from PyPI, through pip): it fetches and installs the packages in
# parallel: `make venv` 24 s on a fresh clone where pip alone took 53 s
# (BENCHMARKS.md, "`make test` from a fresh clone"). Compiled to bytecode
# at install, as pip does: where PYTHONDONTWRITEBYTECODE is set (as on this
# project's machines) every import would compile them again, and pytest
# took 1.6 times as long.
$(DEPS_STAMP): pyproject.toml Makefile
	@test -x $(BIN)/python || { echo "creating $(VENV) with $(PYTHON)"; $(PYTHON) -m venv $(VENV); }
	@echo "installing uv, then maturin, pytest, pytest-xdist, hypothesis and dcflow's runtime dependencies into $(VENV)"
	@$(PIP) install --quiet --disable-pip-version-check uv
	@$(UV_PIP) maturin pytest pytest-xdist hypothesis \
		$$($(BIN)/python -c "import tomllib; print(' '.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))")
	@touch $@

venv: $(DEPS_STAMP)

# The extension module dcflow._core, installed editable into the venv, in
# release (thin LTO across the crates) for the demo, the benchmarks, the
# claims and the goldens.
$(DEVELOP_STAMP): $(DEPS_STAMP) $(RUST_SOURCES) pyproject.toml
	@echo "building dcflow._core (maturin develop --profile release; log in $(VENV)/maturin.log)"
	@rm -f $(TEST_BUILD_STAMP)
	@$(call maturin_develop,release)
	@touch $@

# pytest's build of dcflow._core: the profile `release-tests`, so that it
# reuses the crates test-rust compiled (13 s instead of 79 s on a fresh
# clone). pytest takes as long with it as with the release build (217 s
# both: BENCHMARKS.md, "`make test` from a fresh clone").
$(TEST_BUILD_STAMP): $(DEPS_STAMP) $(RUST_SOURCES) pyproject.toml
	@echo "building dcflow._core for the tests (maturin develop --profile release-tests; log in $(VENV)/maturin.log)"
	@rm -f $(DEVELOP_STAMP)
	@DCFLOW_BUILD=release-tests $(call maturin_develop,release-tests)
	@touch $@

develop: $(DEVELOP_STAMP)

# ----------------------------------------------------------------------- demo
demo: $(DEVELOP_STAMP)
	$(BIN)/dcflow run $(DEMO_SCENARIO) -o $(DEMO_OUT)
	$(BIN)/dcflow plot $(DEMO_OUT)
	@echo "demo outputs in $(DEMO_OUT)/ (plots in $(DEMO_OUT)/plots/)"

# ---------------------------------------------------------------------- tests
test: test-rust test-python

# Every crate's tests, the slices of the stress and agreement matrices
# included, optimized (profile `release-tests` in Cargo.toml: release without
# cross-crate LTO, which made the test build four times longer; a debug build
# would run the slices for many minutes); the examples (benchmark drivers)
# are not linked here. --no-fail-fast: one failing test binary does not hide
# the others' results.
TEST_PROFILE := --profile release-tests
test-rust:
	cargo test --workspace $(TEST_PROFILE) --quiet --no-fail-fast --lib --bins --tests

# The slices of the stress matrix and of the agreement matrix alone.
test-stress:
	cargo test $(TEST_PROFILE) --quiet --no-fail-fast -p dcflow-stress --test slice --test agreement_slice

# The whole stress matrix (docs/stress.md): every protocol on incast, Poisson
# and lossy scenarios, then the agreement matrix (packet vs flow level), on 2
# threads; rewrites both tables in docs/stress.md and fails listing every
# violated check and bound.
stress:
	cargo run --release --quiet -p dcflow-stress

# Clippy on every crate and target, warnings as errors. Not part of `make
# test`: its check build would add a minute or two to it.
lint:
	cargo clippy --release --workspace --all-targets -- -D warnings

# On both cores (pytest-xdist): every test writes only under its own tmp_path.
test-python: $(TEST_BUILD_STAMP)
	$(BIN)/python -m pytest -q -n 2 tests

# Every number the docs quote that python/dcflow/claims.py registers,
# recomputed; fails listing each one that moved beyond its tolerance
# (make test runs the quick slice, tests/test_claims.py).
claims: $(DEVELOP_STAMP)
	$(BIN)/python -m dcflow.claims

golden: $(DEVELOP_STAMP)
	$(BIN)/python -m dcflow.golden

golden-update: $(DEVELOP_STAMP)
	$(BIN)/python -m dcflow.golden --update

# ------------------------------------------------------------------ benchmarks
bench: $(DEVELOP_STAMP)
	$(BIN)/python -m dcflow.bench -o bench-out/bench.md

# dcflow._core compiled with profile-guided optimization: built instrumented,
# trained on `python -m dcflow.pgo` (every protocol on small versions of the
# benchmark topologies), built again with the counts (rustc -Cprofile-use).
# The same results with less CPU (BENCHMARKS.md, "Profile-guided build");
# `make bench` prints which build it measured. Both builds use their own
# target directories, so test-rust's build stays valid; `make test-python`
# installs its own build over this one, the next change to a Rust source
# makes `make develop` replace it with the plain one, and so does any make
# target after a `make pgo` that failed half-way (it removes the stamps
# first: the instrumented module is never kept).
# Needs rustup's llvm-tools for llvm-profdata (added here when missing).
PGO_DIR := target/pgo
LLVM_PROFDATA = $(shell rustc --print sysroot)/lib/rustlib/$(shell rustc -vV | sed -n 's/^host: //p')/bin/llvm-profdata

pgo: $(DEPS_STAMP)
	@test -x "$(LLVM_PROFDATA)" || rustup component add llvm-tools > /dev/null 2>&1 \
		|| { echo "make pgo: llvm-profdata not found and 'rustup component add llvm-tools' failed"; exit 2; }
	@rm -rf $(DEVELOP_STAMP) $(TEST_BUILD_STAMP) $(PGO_DIR)/profiles $(PGO_DIR)/merged.profdata
	@echo "building dcflow._core instrumented (log in $(VENV)/maturin.log)"
	@CARGO_TARGET_DIR=$(PGO_DIR)/generate RUSTFLAGS="-Cprofile-generate=$(abspath $(PGO_DIR)/profiles)" \
		$(call maturin_develop,release)
	$(BIN)/python -m dcflow.pgo
	"$(LLVM_PROFDATA)" merge -o $(PGO_DIR)/merged.profdata $(PGO_DIR)/profiles
	@echo "building dcflow._core with the profile (log in $(VENV)/maturin.log)"
	@CARGO_TARGET_DIR=$(PGO_DIR)/use RUSTFLAGS="-Cprofile-use=$(abspath $(PGO_DIR)/merged.profdata)" DCFLOW_BUILD=profile-guided \
		$(call maturin_develop,release)
	@touch $(DEVELOP_STAMP)
	@echo "dcflow._core: $$($(BIN)/python -c 'from dcflow import _core; print(_core.build())') build"

# --------------------------------------------------------------------- cleanup
clean:
	rm -rf $(DEMO_OUT) bench-out .pytest_cache $(DEVELOP_STAMP) $(TEST_BUILD_STAMP)

distclean: clean
	rm -rf $(VENV) target

# The README's figures, from the runs they show (regenerate whenever results
# move): the example sweep and its application-throughput plot.
readme-images: $(DEVELOP_STAMP)
	$(BIN)/dcflow sweep examples/sweeps/incast.toml -o build/readme-sweep --overwrite
	$(BIN)/dcflow plot build/readme-sweep
	cp build/readme-sweep/plots/app_throughput.png docs/img/sweep-app-throughput.png

# docs/keys.md, from the key reference python/dcflow/keys.py (tests/test_keys.py
# fails when it is stale).
keys-doc: $(DEVELOP_STAMP)
	$(BIN)/dcflow keys --markdown > docs/keys.md

# examples/tour.ipynb in JupyterLab, from the same venv (the `notebook` extra:
# jupyterlab, installed once).
NOTEBOOK_STAMP := $(VENV)/.notebook.stamp
$(NOTEBOOK_STAMP): $(DEPS_STAMP)
	$(UV_PIP) jupyterlab
	@touch $@

notebook: $(DEVELOP_STAMP) $(NOTEBOOK_STAMP)
	$(BIN)/jupyter lab examples/tour.ipynb

# The fuzz test with many more cases than `make test` runs (tests/test_fuzz.py).
fuzz: $(DEVELOP_STAMP)
	DCFLOW_FUZZ_EXAMPLES=2000 $(BIN)/python -m pytest -q tests/test_fuzz.py
