# `make demo` and `make test` each create .venv when it is missing and install what they need.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# A pinned torch installs a CPU build from local disk; an unpinned one pulls a multi-GB download.
TORCH ?= torch==2.13.0

.PHONY: demo test package-check soak bench docs clean

# pip compiles every installed module to bytecode one file at a time (most of the install's
# time); --no-compile skips that and compileall does it on every core. A file compileall cannot
# compile (test data of some packages) only means Python compiles it if it is ever imported.
$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --no-compile --upgrade pip

# torch first, so that the train extra (stable-baselines3) finds it and pulls nothing bigger
$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --no-compile '$(TORCH)'
	$(PY) -m pip install --quiet --no-compile -e '.[dev,train,distributed,jax]'
	$(PY) -m compileall -q -j 0 $(VENV)/lib > /dev/null || true
	touch $@

# the scripts in experiments/ call `python -m empire_envs <command>`; demo.py adds the demo's config
demo: $(STAMP)
	$(PY) experiments/demo.py

# the whole suite on two workers; the 20 slowest tests are listed before the summary line
test: $(STAMP)
	$(PY) -m pytest -n 2 --dist loadfile --no-loadscope-reorder -q --durations=20

# the package as users get it (.ci/check_wheel.py): builds the sdist and the wheel, installs the wheel
# into a fresh venv with the base dependencies only, runs the README's quickstarts, `list`, a
# pretrained: evaluation and the shipped configs there (about 10 s with pip's cache warm)
package-check: $(STAMP)
	$(PY) .ci/check_wheel.py

soak: $(STAMP)
	$(PY) -m pytest -n 2 --dist load -q -m soak

BENCH_STAMP := $(VENV)/.bench-installed

$(BENCH_STAMP): pyproject.toml | $(STAMP)
	$(PY) -m pip install --quiet -e '.[bench]'
	touch $@

# the Python env rows, then the batched JAX twins beside pgx at N = 1, 64, 1024, 4096
bench: $(BENCH_STAMP)
	$(PY) -m empire_envs bench
	$(PY) -m empire_envs bench --batched

DOCS_STAMP := $(VENV)/.docs-installed

$(DOCS_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[docs]'
	touch $@

# the site, offline and strict: generated pages (env pages from the docstrings, the rules pages,
# the how-tos, the API page; docs/tools/build_site.py, a tool of the repository, not the package),
# then mkdocs build into build/site
docs: $(DOCS_STAMP)
	$(PY) docs/tools/build_site.py --out build/docs_src
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict -f mkdocs.yml

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
