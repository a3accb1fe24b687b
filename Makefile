# World factory. `make` lists the targets.
.DEFAULT_GOAL := help
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
SEED ?= seeds/echobank.yaml
WORLD ?= worlds/echobank
PORT ?= 8000
SUITE ?= classic
PER_KIND ?= 1
LANES ?= 2
SEEDS := seeds/mock.yaml seeds/echobank.yaml seeds/echostay.yaml seeds/echomail.yaml \
         seeds/capabilities/datepickers.yaml seeds/capabilities/nested_filters.yaml

.PHONY: help setup world seed-file worlds suite tasks check serve prove mutate redteam triage bundle verify-bundle export review test test-fast lint bench schema clean

help: ## list the targets
	@echo "World factory — targets:"
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'
	@echo "Variables: SEED=$(SEED) WORLD=$(WORLD) PORT=$(PORT) SUITE=$(SUITE) PER_KIND=$(PER_KIND) LANES=$(LANES)"

$(VENV)/.installed: pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	@touch $@

setup: $(VENV)/.installed ## create the venv, install npm packages and Chromium (apt-get when root)
	$(PY) -m factory setup

# A bad seed fails in a second, before any install or build: first the file must exist (even before
# the venv is made), then the checker reads it (`file:line: key: message`), then setup, then the build.
world: seed-file $(VENV)/.installed ## build a world (the seed is checked first): make world SEED=seeds/echobank.yaml (a seeds/freeform/*.md paragraph needs FACTORY_LLM_MODEL)
	$(PY) -m factory check $(SEED)
	$(PY) -m factory setup
	$(PY) -m factory world $(SEED)

seed-file:
	@test -f "$(SEED)" || { echo "$(SEED): no such seed file (make world SEED=seeds/echobank.yaml)" >&2; exit 2; }

worlds: setup ## build every seed in the repository
	@for s in $(SEEDS); do $(PY) -m factory world $$s || exit $$?; done

suite: setup ## build every seed of seeds/suite/ in LANES parallel builds, one table → bench/suite.json (SUITE_SEEDS="a.yaml b.yaml" TASKS=N)
	$(PY) -m factory suite --lanes $(LANES) $(if $(SUITE_SEEDS),--seeds $(SUITE_SEEDS),) $(if $(TASKS),--tasks $(TASKS),)

tasks: setup ## (re)run stage two on a proven world: make tasks WORLD=worlds/echobank
	$(PY) -m factory tasks $(WORLD)

check: seed-file $(VENV)/.installed ## validate a seed without building: make check SEED=...
	$(PY) -m factory check $(SEED)

serve: $(VENV)/.installed ## serve a built world (each run from the seed state; KEEP=1 keeps changes): make serve WORLD=worlds/echobank
	$(PY) -m factory serve $(WORLD) --port $(PORT) $(if $(KEEP),--keep,)

test: setup ## the whole suite (unit, integration, UI in Chromium): ~30 min on 2 cores; unit only: make test-fast
	@echo "make test: the whole suite takes about 30 minutes on 2 cores; make test-fast runs the unit tests only (~4 min)"
	$(PY) -m pytest -q -rs --durations=20

test-fast: $(VENV)/.installed ## unit tests only (~4 min)
	$(PY) -m pytest -q -rs tests/unit

lint: $(VENV)/.installed ## ruff and mypy
	$(PY) -m ruff check factory verifiers episodes tests scripts bench examples
	$(PY) -m mypy factory verifiers episodes

prove: setup ## compile claims (if new), verify, triage and repair a built world: make prove WORLD=...
	$(PY) -m factory prove $(WORLD)

mutate: setup ## inject seeded faults into copies of a proven world; kill and repair rates per kind (SUITE=classic|independent PER_KIND=1)
	$(PY) -m factory mutate $(WORLD) --suite $(SUITE) --per-kind $(PER_KIND)

redteam: $(VENV)/.installed ## red-team a world's reward programs (exit 1 on a false positive): make redteam WORLD=...
	$(PY) -m factory redteam $(WORLD)

triage: setup ## class failed rollouts (world/task/model defects), repair world and task defects: make triage WORLD=... ROLLOUTS=file.jsonl
	@test -n "$(ROLLOUTS)" || { echo "make triage WORLD=worlds/<name> ROLLOUTS=<file.jsonl> (docs/rollouts.md)" >&2; exit 2; }
	$(PY) -m factory triage $(WORLD) $(ROLLOUTS)

bundle: $(VENV)/.installed ## publish a world as a reproducible benchmark bundle: make bundle WORLD=... → dist/<name>-<version>.tar.gz
	$(PY) -m factory bundle $(WORLD) --out dist $(if $(VERSION),--version $(VERSION),)

verify-bundle: $(VENV)/.installed ## check a bundle's checksums and re-run its gates: make verify-bundle BUNDLE=dist/x.tar.gz [SAMPLE=N] [FRESH=1]
	@test -n "$(BUNDLE)" || { echo "make verify-bundle BUNDLE=dist/<name>-<version>.tar.gz [SAMPLE=20] (docs/bundles.md)" >&2; exit 2; }
	$(PY) -m factory bundle verify $(BUNDLE) $(if $(SAMPLE),--sample $(SAMPLE) --seed $(or $(SAMPLE_SEED),0),) $(if $(FRESH),--fresh-venv,)

export: $(VENV)/.installed ## write a world in another harness's format: make export FORMAT=echoverse|harbor|hf WORLD=... [OUT=exports/<format>]
	@test -n "$(FORMAT)" || { echo "make export FORMAT=echoverse|harbor|hf WORLD=worlds/<name> [OUT=dir] (docs/exports.md)" >&2; exit 2; }
	$(PY) -m factory export $(FORMAT) $(WORLD) $(if $(OUT),--out $(OUT),)

review: $(VENV)/.installed ## a world's static review site: make review WORLD=... [STRIPS=24|all] → dist/review/<name>/index.html
	$(PY) -m factory review $(WORLD) $(if $(STRIPS),--strips $(STRIPS),) $(if $(REDTEAM),--redteam $(REDTEAM),)

bench: setup ## run the benchmarks; writes bench/results.json (ONLY=faults,bundle measures those sections, keeping the rest)
	$(PY) -m factory bench $(if $(ONLY),--only $(ONLY),)

schema: $(VENV)/.installed ## regenerate factory/seed/schema.json, docs/task-record.schema.json and docs/rollout-record.schema.json from their models
	$(PY) -m factory.seed.schema
	$(PY) -m factory.tasks.model
	$(PY) -m factory.rollouts.record

clean: ## remove built worlds and caches (keeps the venv)
	rm -rf worlds/*/ worlds/.building-* .cache/node .pytest_cache
