# `make run` serves the chat UI over seeds/; `make test` runs the whole suite.
# Both create .venv on a fresh machine: torch's local CPU build first, then the rest in one
# resolver run, with llama.cpp compiled without -march=native (AMX traps on these VMs).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export CMAKE_ARGS := -DGGML_NATIVE=OFF
export CMAKE_BUILD_PARALLEL_LEVEL := 2
export HF_HUB_OFFLINE := 1
export GRADIO_ANALYTICS_ENABLED := False
export ANONYMIZED_TELEMETRY := False

.PHONY: run test venv check clean-index

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet torch==2.13.0
	# --no-cache-dir: pip's wheel cache ignores CMAKE_ARGS, a cached native llama.cpp would crash.
	$(BIN)/pip install --no-cache-dir -e '.[dev]'
	# The ONNX export of the embedding model, so that no query command needs torch (a failure
	# is not fatal: the first query makes it, or falls back to sentence-transformers).
	-$(BIN)/python -m rag.index.onnx_export
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/rag serve --ingest seeds/

test: $(STAMP)
	$(BIN)/python -m pytest

check: $(STAMP)
	$(BIN)/ruff check rag tests ui.py bench
	$(BIN)/ruff format --check rag tests ui.py bench
	$(BIN)/mypy

clean-index:
	rm -rf index_store/*
