# dlcluster: the two commands a newcomer needs are `make lab` and `make test`.
SHELL := /bin/bash
VENV := .venv
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
export DLCLUSTER_LAB_STATE := $(CURDIR)/lab/.state
SITE ?= lab

.PHONY: help setup docker browser lab lab-up lab-down lab-status converge verify test lint unit molecule molecule-nvidia ee bench clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 14

setup: $(VENV)/.installed docker browser  ## Python venv with the pinned tools, a running Docker engine, Debian's Chromium

# uv (Astral's installer, pinned; the venv keeps pip) installs the pinned tools: the same
# packages as pip, in about 35 s instead of about 70 (it downloads, unpacks and compiles
# in parallel; `ansible` alone is tens of thousands of files). --compile-bytecode, as pip
# does: otherwise the first lint and test runs compile what they import (lint took 37 s
# longer). --native-tls: the system's CA store, as pip uses it.
UV_VERSION := 0.13.9
$(VENV)/.installed: requirements.txt requirements-dev.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet uv==$(UV_VERSION)
	$(VENV)/bin/uv pip install --quiet --native-tls --compile-bytecode --python $(VENV)/bin/python \
	  -r requirements-dev.txt
	touch $@

docker:
	lab/bin/ensure-docker

# Debian's chromium and chromium-driver: validate's `portal` check drives the portal in them.
browser:
	lab/bin/ensure-browser

lab: setup lab-up converge  ## set up, bring the lab up and run site.yml against it

lab-up: setup  ## build the lab images (cached) and start the lab
	lab/bin/lab up

lab-down:  ## remove every lab container, network and volume
	lab/bin/lab down

lab-status:  ## list the lab's containers
	lab/bin/lab status

converge:  ## run site.yml against inventories/$(SITE)
	ansible-playbook site.yml -i inventories/$(SITE)

verify:  ## check the running lab's real state (testinfra)
	pytest -p no:cacheprovider tests/lab

# Each step of `make test` is timed (tests/phases.py); the end prints the phases' minutes
# against tests/budget.yml and the slowest tests, also when a step failed.
PHASES := python3 tests/phases.py
REPORTS := $(CURDIR)/.cache/test-phases
test:  ## everything CI runs: linters, unit tests, the lab scenario; then where the time went
	@$(PHASES) start
	@$(PHASES) run setup -- $(MAKE) --no-print-directory setup \
	  && $(PHASES) run lint -- $(MAKE) --no-print-directory lint \
	  && $(PHASES) run unit -- $(MAKE) --no-print-directory unit UNIT_JUNIT=$(REPORTS)/unit.xml \
	  && $(PHASES) molecule -- $(MAKE) --no-print-directory molecule; \
	  rc=$$?; $(PHASES) report; exit $$rc

lint: setup  ## yamllint, ansible-lint (production profile), ruff
	yamllint --strict .
	ansible-lint --offline --profile production
	ruff check .
	ruff format --check .

UNIT_JUNIT ?=
# A worker spends part of its time waiting (for an ansible-playbook it started, a
# simulator's reply, a timeout under test): one worker more than the cores keeps them busy.
# On 2 cores: 381 s with 3 workers, 492 s with 2, 387 s with 4 (docs/testing.md).
UNIT_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
unit: setup  ## pytest unit tests (no lab needed), a worker per core and one more, a test file per worker
	pytest -n $(UNIT_WORKERS) --dist loadfile $(if $(UNIT_JUNIT),--junitxml=$(UNIT_JUNIT))

molecule: setup  ## lab up, site.yml, verify (idempotence first), lab down
	molecule test --scenario-name default

molecule-nvidia: setup  ## slow: forced NVIDIA driver install on a lab node (not in `make test`)
	molecule test --scenario-name nvidia_driver

EE_IMAGE ?= dlcluster-ee:latest
# CA certificates added on this machine (a TLS-inspecting proxy's): the image trusts them too.
EE_CA_CERTS ?= $(wildcard /usr/local/share/ca-certificates/*.crt)
ee: setup  ## execution environment image for AWX (docs/awx.md): lab base image, then ansible-builder
	ansible-playbook -i inventories/lab lab/base-image.yml
	rm -rf .cache/ee-ca && mkdir -p .cache/ee-ca
	$(if $(strip $(EE_CA_CERTS)),cp $(EE_CA_CERTS) .cache/ee-ca/)
	ansible-builder build --container-runtime docker -f execution-environment.yml \
		--context .cache/ee-context -t $(EE_IMAGE)

BENCH_NODES ?= 2 8 16
bench: setup  ## slow: site.yml on the lab at N compute nodes, from scratch and no-op (docs/benchmarks.md)
	$(VENV)/bin/python bench/run.py $(BENCH_NODES)

clean: lab-down  ## tear the lab down and drop caches (images stay)
	rm -rf .cache
