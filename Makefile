# The two commands in the README: `make dashboard` and `make test`. Both set up .venv first.
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
PORT ?= 8501

# The first run downloads and installs every dependency: it says so, and pip shows its progress.
$(VENV)/.installed: pyproject.toml
	@echo "Setting up $(VENV) (first run: a few minutes; pip lists what it downloads and installs)…"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade --progress-bar on pip
	$(PY) -m pip install --progress-bar on -e '.[dev]'
	@echo "$(VENV) is ready."
	touch $@

.PHONY: setup dashboard test bench
setup: $(VENV)/.installed

# `make dashboard PORT=8600` picks the port. A busy port is an error, never a move to the next one
# (Streamlit, given --server.port, exits too; the check first says what to do).
define PORT_CHECK
import socket, sys
port = sys.argv[1]
if not port.isdigit() or not 0 < int(port) < 65536:
    sys.exit(f"PORT={port} is not a port number (1 to 65535).")
probe = socket.socket()
probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    probe.bind(("127.0.0.1", int(port)))
except OSError:
    sys.exit(f"Port {port} is in use (another dashboard?). Stop that, or pick another port: make dashboard PORT=8600")
print(f"Starting the MemPalace dashboard: open http://127.0.0.1:{port} in your browser (Ctrl-C stops it).")
endef
export PORT_CHECK

dashboard: $(VENV)/.installed
	@$(PY) -c "$$PORT_CHECK" '$(PORT)'
	$(VENV)/bin/streamlit run app.py --server.port '$(PORT)'

test: $(VENV)/.installed
	$(PY) -m pytest -q

bench: $(VENV)/.installed
	$(PY) benchmarks/scale.py
