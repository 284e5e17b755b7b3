VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test test-s3 lint demo dagster bench screenshots

# Create .venv when missing and (re)install when pyproject.toml changed, or a replay source did:
# the install compiles the replay engine and its Cython core (setup.py, replay/native.py).
$(STAMP): pyproject.toml setup.py $(wildcard replay/*.py) $(wildcard replay/*.pyx)
	test -x $(PY) || python3.11 -m venv $(VENV) || python3 -m venv $(VENV)
	$(PY) -m pip install -q -U pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

lint: $(STAMP)
	$(VENV)/bin/ruff check .

test: $(STAMP) lint
	$(PY) -m pytest -n 2 -m "not slow" --durations=25

# The object-storage tests too slow for `test` (tests/pipeline/test_s3_*.py marked slow): a publish
# cut off at every point and a writer killed mid-run recover exactly, the CLI on a folder and on
# s3://, and a run across hosts (network namespaces for an S3 server, a Dask scheduler and two
# workers, the driver, the dashboards and an analyst: needs root and iproute2, and where namespaces
# cannot be created it skips saying why, -rs). A few minutes; `.ci/run` runs it after `test`.
test-s3: $(STAMP)
	$(PY) -m pytest -n 2 --dist loadfile -m slow -rs tests/pipeline/test_s3_*.py

# Sample tournament + league into an empty store (./data or $$GDAN_STORE), pipeline, dashboards.
demo: $(STAMP)
	$(VENV)/bin/gdan demo

# The Dagster UI over the same store.
dagster: $(STAMP)
	$(VENV)/bin/dagster dev -m pipelines.definitions

bench: $(STAMP)
	$(PY) benchmarks/bench_pipeline.py

# Refresh docs/screenshots/*.png (the README's pictures): the browser test on a demo store.
SHOTS_STORE ?= /tmp/gdan-screenshots-store
screenshots: $(STAMP)
	test -d $(SHOTS_STORE)/tables || $(VENV)/bin/gdan demo --no-dashboard --store $(SHOTS_STORE)
	GDAN_SCREENSHOTS=docs/screenshots GDAN_SCREENSHOT_STORE=$(SHOTS_STORE) \
		$(PY) -m pytest tests/dashboards/test_dash_browser.py -p no:xdist
