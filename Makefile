# Stencil Lab.
#
#   make lab    install what is missing and open the notebooks in Jupyter
#   make test   install what is missing, then go vet (and go mod tidy -diff),
#               go test, each fuzz target for a few seconds (scripts/fuzz.sh) and run
#               every notebook headless with the GoNB kernel into notebooks/_out/,
#               comparing notebooks 01 to 08 with their committed outputs, and
#               open notebooks 01 and 04 in headless Chromium (make browser)
#   make notebooks
#               run notebooks 01 to 08 and write them, with their outputs, over the
#               committed ones (after changing a notebook or what it draws)
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
.PHONY: test lab install install-lab vet unit fuzz run-notebooks browser notebooks

# Every stage runs even when an earlier one fails, so that one run reports
# everything; the last line sums up and the exit status is non-zero on any failure.
test: install
	@failed=""; \
	for stage in vet unit fuzz run-notebooks browser; do \
		$(MAKE) --no-print-directory $$stage || failed="$$failed $$stage"; \
	done; \
	if [[ -n "$$failed" ]]; then echo "make test: FAILED:$$failed"; exit 1; fi; \
	echo "make test: vet, unit tests, fuzz targets, notebooks and the browser test passed"

# In the instructor's copy (a check of exercises/checks built with the tag
# "hidden", which the students' release leaves out) lab says, in one line,
# that the notebooks show the answers.
lab: install-lab
	@if grep -lqs '^//go:build hidden' exercises/checks/*.go; then \
		echo "make lab: this is the instructor's copy: the notebooks show every answer (go run ./cmd/release -out DIR makes the students' copy)"; \
	fi
	STENCILLAB_BROWSER=1 $(JUPYTER) notebook --notebook-dir=notebooks $(ROOT_FLAG) $(LAB_FLAGS)

install:
	@scripts/install-jupyter.sh
	@scripts/install-gonb.sh
	@scripts/install-sandbox.sh
	@scripts/install-browser.sh

install-lab:
	@scripts/install-jupyter.sh --notebook
	@scripts/install-gonb.sh --gopls

vet:
	go vet ./...
	@go mod tidy -diff || { echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1; }

# In the students' repository the exercises are unfinished by design: their
# failing checks are reported as skipped here, and graded by cmd/grade.
unit:
	STENCILLAB_EXERCISES_UNGRADED=1 go test -timeout 30m ./...
	go test -tags hidden ./exercises/checks
	GOEXPERIMENT=simd go test ./lab -run 'SevenPoint'
	GOEXPERIMENT=simd go test -tags purego ./lab -run 'SevenPoint'
	go test -tags purego ./lab -run 'SevenPoint'

fuzz:
	@scripts/fuzz.sh

run-notebooks: install
	@scripts/run-notebooks.sh

# The notebooks as a student meets them: the Jupyter server and headless
# Chromium run notebooks 01 and 04 from the Cell menu, move their sliders and
# check the figures (notebooks/browser, built with the tag browser).
browser: install
	go vet -tags browser ./notebooks/browser
	STENCILLAB_REQUIRE_BROWSER=1 go test -tags browser -count=1 -timeout 12m ./notebooks/browser

notebooks: install
	@scripts/run-notebooks.sh --update
