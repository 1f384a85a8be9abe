# Stencil Lab.
#
#   make lab    install what is missing and open the notebooks in Jupyter
#   make test   install what is missing, then go vet (and go mod tidy -diff),
#               go test, each fuzz target for a second (scripts/fuzz.sh), and
#               run every notebook of the students' copy in headless Chromium from
#               the Cell menu, save it and check it with cmd/nbcheck into
#               notebooks/_out/, comparing notebooks 01 to 08 with their committed
#               outputs (make browser; scripts/run-notebooks.sh runs every notebook
#               headless with nbconvert, by hand or make run-notebooks);
#               beside those, a term on a JupyterHub started on loopback: three students
#               log in at once through Chromium, run notebook 01, edit an exercise, and
#               their work is collected, graded and returned (make hub-test, as root);
#               the last lines name the steps that failed and the tests that
#               did not run
#   make check  the fast lane, for every edit: gofmt, go vet and go test -short
#               (the tests that copy the module or grade classes are skipped)
#   make notebooks
#               run notebooks 01 to 08 and write them, with their outputs, over the
#               committed ones (after changing a notebook or what it draws)
#   make hub ROSTER=roster.csv
#               set up and start the course's JupyterHub on this machine, an
#               account per roster row (scripts/hub.sh; docs/hub.md)
#
# Installs are idempotent: Jupyter from Debian's packages (scripts/install-jupyter.sh),
# GoNB and goimports at pinned versions into $(go env GOPATH)/bin (scripts/install-gonb.sh),
# bubblewrap, the grader's sandbox, from Debian's packages (scripts/install-sandbox.sh),
# the Jupyter server and Chromium for the browser test (scripts/install-browser.sh).

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c

JUPYTER := /usr/bin/jupyter
GO_BIN_DIR := $(shell go env GOPATH)/bin
# The kernel Jupyter starts finds gonb, goimports and gopls on this PATH.
export PATH := $(GO_BIN_DIR):$(PATH)

# Extra flags for the notebook server, e.g. make lab LAB_FLAGS="--ip=0.0.0.0 --no-browser".
# The installed server is Jupyter Notebook 6, whose token flag is
# --NotebookApp.token=TOKEN (--NotebookApp.token= turns the token off).
LAB_FLAGS ?=
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

.DEFAULT_GOAL := test
.PHONY: test check lab install install-lab vet unit fuzz run-notebooks run-solutions browser notebooks hub \
	$(vet_STEPS) $(unit_STEPS) $(browser_STEPS) $(hub_STEPS)

# The stages of make test, each a list of steps. Every step runs even when
# an earlier one fails, so that one run reports everything; the last lines
# sum up: how long each step took, the steps that failed, and the tests
# that did not run (a package whose tests did not build, a notebook that did
# not run, the browser test's notebooks). The exit status is non-zero on any
# failure. When the install fails, nothing runs, and the summary says so.
#
# The vet stage runs first, alone: its compiles (the standard library, the
# modules and the lab's packages, as every later step builds them, with
# -trimpath) fill the build cache on both cores. Then the stages run in two
# lanes side by side, each in its order: the Go lane (GO_LANE: the unit
# tests, fuzzing), which keeps the cores busy, and the notebook lane
# (NOTEBOOK_LANE: the notebooks in the browser, the hub), which spends much
# of its time waiting on Jupyter, Chromium and the kernels. The Go lane
# prints as it goes; the notebook lane's output follows when both are done.
# The summary gives each step's wall time and the processor time it and its
# children took (user + sys), which says where the time goes.
FIRST := vet
GO_LANE := unit fuzz
NOTEBOOK_LANE := browser hub
STAGES := $(FIRST) $(GO_LANE) $(NOTEBOOK_LANE)
vet_STEPS := vet-go vet-tidy
unit_STEPS := unit-all unit-hidden unit-simd-purego unit-purego
fuzz_STEPS := fuzz
browser_STEPS := browser-test
hub_STEPS := hub-test

test:
	@if ! $(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) install; then \
		echo "make test: FAILED: install; did not run: $(STAGES)"; exit 1; \
	fi
	@log="$$(mktemp)"; nblog="$$(mktemp)"; marks="$$(mktemp)"; trap 'rm -f "$$log" "$$nblog" "$$marks"' EXIT; \
	start=$$SECONDS; \
	lane() { \
		for step in "$$@"; do \
			if { TIMEFORMAT='%0R %0U %0S'; time $(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) $$step >&3 2>&1; } 3>&1 2>"$$marks.$$step"; \
			then r=ok; else r=FAILED; fi; \
			read -r wall user sys < "$$marks.$$step" || true; rm -f "$$marks.$$step"; \
			echo "$$step $$r $${wall:-0} $$(( $${user:-0} + $${sys:-0} ))" >> "$$marks"; \
		done; \
	}; \
	lane $(foreach s,$(FIRST),$($(s)_STEPS)) 2>&1 | tee "$$log"; \
	( lane $(foreach s,$(NOTEBOOK_LANE),$($(s)_STEPS)) > "$$nblog" 2>&1 ) & nb=$$!; \
	lane $(foreach s,$(GO_LANE),$($(s)_STEPS)) 2>&1 | tee -a "$$log"; \
	wait $$nb || true; \
	echo "make test: the notebook lane, which ran beside the Go lane:"; \
	cat "$$nblog"; cat "$$nblog" >> "$$log"; \
	echo "make test: the steps took (s), vet first, then two lanes side by side, $$((SECONDS - start)) s in all:"; \
	echo "make test:   step               wall   cpu (user + sys, s)"; \
	while read -r step r secs cpu; do printf 'make test:   %-18s %4d  %4d  %s\n' "$$step" "$$secs" "$$cpu" "$$r"; done < "$$marks"; \
	failed="$$(awk '$$2 == "FAILED" {printf " %s", $$1}' "$$marks")"; \
	if [[ -z "$$failed" ]]; then \
		echo "make test: vet, unit tests, fuzz targets, notebooks, the browser test and the hub test passed"; exit 0; \
	fi; \
	echo "make test: FAILED:$$failed"; \
	notrun="$$(grep -E '^FAIL[[:space:]]+[^[:space:]]+[[:space:]]+\[(build|setup) failed\]' "$$log" | awk '{print $$2}' | sort -u | tr '\n' ' ' || true)"; \
	if [[ -n "$$notrun" ]]; then echo "make test: tests that did not run (their package did not build): $$notrun"; fi; \
	nbs="$$(grep -E '^run-notebooks: .* FAILED in ' "$$log" | awk '{print $$2}' | tr '\n' ' ' || true)"; \
	if [[ -n "$$nbs" ]]; then echo "make test: notebooks that stopped before their end: $$nbs"; fi; \
	br="$$(grep -E '^ +--- (FAIL|SKIP): TestNotebooksInABrowser/' "$$log" | awk '{print $$3}' | tr '\n' ' ' || true)"; \
	if [[ -n "$$br" ]]; then echo "make test: browser test parts that failed or did not run: $$br"; fi; \
	hb="$$(grep -E '^ +--- (FAIL|SKIP): TestHubTerm/' "$$log" | awk '{print $$3}' | tr '\n' ' ' || true)"; \
	if [[ -n "$$hb" ]]; then echo "make test: hub test parts that failed or did not run: $$hb"; fi; \
	exit 1

# In the instructor's copy (a check of exercises/checks built with the tag
# "hidden", which the students' release leaves out) lab says, in one line,
# that its notebooks and exercises show the answers.
lab: install-lab
	@if grep -lqs '^//go:build hidden' exercises/checks/*.go; then \
		echo "make lab: this is the instructor's copy: its notebooks keep the outputs the students' copy clears before each check, and its exercises hold the solutions (go run ./cmd/release -out DIR makes the students' copy)"; \
	fi
	@# Trusted, the course notebooks open without "Not Trusted" and show
	@# their saved outputs' HTML. Debian ships no jupyter-trust command:
	@# nbformat's own module signs them (the file is left as it is).
	@echo "make lab: trusting the course notebooks"
	@/usr/bin/python3 -m nbformat.sign notebooks/[0-9]*.ipynb >/dev/null
	STENCILLAB_BROWSER=1 $(JUPYTER) notebook --notebook-dir=notebooks $(ROOT_FLAG) $(LAB_FLAGS)

# The Go steps build with -trimpath, as the grader builds hand-ins: a
# package compiled once is then found in the build cache by the tests that
# copy the module elsewhere (the new step's, the new exercise's, the
# students' copy's), instead of being compiled again under each copy's path.
vet-go unit-all unit-hidden unit-simd unit-simd-purego unit-purego fuzz check hub-test: export GOFLAGS := -trimpath $(GOFLAGS)

# The notebooks' cells, as GoNB builds them: with -trimpath, so that the
# course's packages compiled once serve the repository, the students' copy
# and the unit tests alike, and linked without the symbol table and DWARF
# (-s -w), which takes about a third off each cell's link; a panic's trace
# still names the file and line. The kernel inherits GOFLAGS from the server.
NOTEBOOK_GOFLAGS := -trimpath "-ldflags=-s -w"
lab notebooks run-notebooks run-solutions browser-test: export GOFLAGS := $(NOTEBOOK_GOFLAGS) $(GOFLAGS)

# The fast lane, for every edit (no installs, no notebooks, no browser):
# gofmt, go vet and the unit tests with -short, which skips the tests that
# copy the module or grade whole classes (make test runs those).
check:
	@out="$$(gofmt -l $$(git ls-files '*.go' ':!:*/testdata/*'))"; if [[ -n "$$out" ]]; then echo "make check: not gofmt'ed:"; echo "$$out"; exit 1; fi
	go vet ./...
	STENCILLAB_EXERCISES_UNGRADED=1 go test -short ./...
	@echo "make check: gofmt, vet and the short unit tests passed (make test runs everything)"

install:
	@scripts/install-jupyter.sh
	@scripts/install-gonb.sh
	@scripts/install-sandbox.sh
	@scripts/install-browser.sh

install-lab:
	@scripts/install-jupyter.sh --notebook
	@scripts/install-gonb.sh --gopls

vet: $(vet_STEPS)
# The browser and hub tests' package is vetted here with its tags, so that
# its compiles share the cache with the rest (-trimpath).
vet-go:
	go vet ./...
	go vet -tags browser,hub ./notebooks/browser
vet-tidy:
	@go mod tidy -diff || { echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1; }

# In the students' repository the exercises are unfinished by design: their
# failing checks are reported as skipped here, and graded by cmd/grade.
unit: $(unit_STEPS)
unit-all:
	STENCILLAB_EXERCISES_UNGRADED=1 go test -timeout 30m ./...
unit-hidden:
	go test -tags hidden ./exercises/checks
	go test -tags hidden -run 'TestMethodFixtures|TestFixtures' ./exercises/cudacheck
# The SIMD sweep is built with GOEXPERIMENT=simd and the tag purego
# (lab/sevenpoint_simd.go); without purego the experiment builds the same
# files as unit-all, so make test does not run unit-simd.
unit-simd:
	GOEXPERIMENT=simd go test ./lab -run 'SevenPoint'
unit-simd-purego:
	GOEXPERIMENT=simd go test -tags purego ./lab -run 'SevenPoint'
unit-purego:
	go test -tags purego ./lab -run 'SevenPoint'

# A second of fuzzing a target in make test, built unoptimized (a third
# less to compile) and with one worker (scripts/fuzz.sh says why);
# FUZZTIME=30s make fuzz for longer, optimized, a worker a core.
fuzz:
	@if [[ -z "$${FUZZTIME:-}" ]]; then export FUZZTIME=1s FUZZ_GCFLAGS="$${FUZZ_GCFLAGS-all=-N -l}" FUZZ_WORKERS="$${FUZZ_WORKERS-1}"; fi; scripts/fuzz.sh

run-notebooks: install
	@scripts/run-notebooks.sh

# The notebooks whose code the students' copy changes (their solutions
# become stubs), headless with nbconvert, as this copy holds them. make test
# leaves it out: the browser runs the students' copy of every notebook, and
# exercises/release's TestExercisesNotebookScores builds and runs 09's cells
# with their solutions (full marks) and with their stubs (0).
run-solutions: install
	@scripts/run-notebooks.sh --solutions

# The notebooks as a student meets them: the Jupyter server and headless
# Chromium run every notebook of the students' copy from the Cell menu, save
# it and check it as run-notebooks does (in make test it replaces the
# headless run), move the sliders of 01, 04 and 05, and check that no answer
# shows before its check (notebooks/browser, built with the tag browser). -v
# shows its "run-notebooks: NAME ran in X s" lines.
browser: $(browser_STEPS)
browser-test: install
	STENCILLAB_REQUIRE_BROWSER=1 go test -v -tags browser -count=1 -timeout 30m ./notebooks/browser

# A term on the course's JupyterHub (notebooks/browser/hub_test.go, tags
# browser and hub; docs/hub.md): it makes Linux accounts, so it runs as root.
hub-test: install
	@scripts/install-hub.sh
	STENCILLAB_REQUIRE_HUB=1 go test -tags browser,hub -count=1 -timeout 16m -run '^TestHubTerm$$' ./notebooks/browser

notebooks: install
	@scripts/run-notebooks.sh --update

hub:
	@if [[ -z "$(ROSTER)" ]]; then echo "make hub: give the roster: make hub ROSTER=roster.csv (docs/hub.md)"; exit 2; fi
	@scripts/hub.sh "$(ROSTER)"
