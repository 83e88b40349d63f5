# `make demo` and `make test` each create .venv when it is missing and install what they need.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
CORE_STAMP := $(VENV)/.installed-core

.PHONY: demo test soak bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(CORE_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

demo: $(CORE_STAMP)
	$(PY) experiments/demo.py

test: $(CORE_STAMP)
	$(PY) -m pytest -n 2 -q

soak: $(CORE_STAMP)
	$(PY) -m pytest -n 2 -q -m soak

bench: $(CORE_STAMP)
	$(PY) experiments/bench_speed.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
