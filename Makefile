VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test test-cluster lint demo dagster bench screenshots

# Create .venv when missing and (re)install when pyproject.toml changed, or a replay source did:
# the install compiles the replay engine (setup.py, replay/native.py).
$(STAMP): pyproject.toml setup.py $(wildcard replay/*.py)
	test -x $(PY) || python3.11 -m venv $(VENV) || python3 -m venv $(VENV)
	$(PY) -m pip install -q -U pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

lint: $(STAMP)
	$(VENV)/bin/ruff check .

test: $(STAMP) lint
	$(PY) -m pytest -n 2 -m "not slow" --durations=25

# A run across hosts (tests/pipeline/test_s3_cluster_hosts.py): network namespaces as hosts for an S3
# server, a Dask scheduler and two workers, the driver, the dashboards and an analyst. Needs root and
# iproute2; where namespaces cannot be made it skips and says why (-rs). About a minute: not in `test`.
test-cluster: $(STAMP)
	$(PY) -m pytest -p no:xdist -m slow -rs tests/pipeline/test_s3_cluster_hosts.py

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
