# The two commands in the README: `make dashboard` and `make test`. Both set up .venv first.
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

.PHONY: setup dashboard test bench
setup: $(VENV)/.installed

dashboard: $(VENV)/.installed
	$(VENV)/bin/streamlit run app.py

test: $(VENV)/.installed
	$(PY) -m pytest -q

bench: $(VENV)/.installed
	$(PY) benchmarks/scale.py
