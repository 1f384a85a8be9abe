#!/usr/bin/env bash
# Runs each fuzz target of the repository for a few seconds (FUZZTIME,
# default 2s) and prints how long each took. A failing input is written
# under the package's testdata/fuzz, as go test -fuzz writes it; commit it
# with the fix.
#
#   scripts/fuzz.sh            every target
#   scripts/fuzz.sh FuzzCheck  the targets whose name matches
#
# The targets are read from the tests themselves (every func FuzzX(f
# *testing.F) of a _test.go file), so that a new one is fuzzed with no edit
# here. Each package's instrumented test binary is built once (go test -c
# -fuzz), two at a time, and run for each of its targets, as go test -fuzz
# would run it.
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZTIME=${FUZZTIME:-2s}

# "DIR TARGET" a line, for every fuzz target outside testdata folders.
targets=$(grep -rEo --include='*_test.go' --exclude-dir=testdata \
	'^func Fuzz[A-Za-z0-9_]+\(f \*testing\.F\)' . |
	sed -E 's#^(.*)/[^/]+_test\.go:func (Fuzz[A-Za-z0-9_]+).*#\1 \2#' | sort -u)
if [[ -z "$targets" ]]; then
	echo "fuzz: no fuzz targets found" >&2
	exit 1
fi

bin=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$bin" "$log"' EXIT
cache="$(go env GOCACHE)/fuzz"
failed=""

# The packages to build: those of the targets asked for.
dirs=$(while read -r dir target; do
	[[ $# -gt 0 && ! "$target" =~ $1 ]] && continue
	echo "$dir"
done <<<"$targets" | sort -u)

# exe names a package's instrumented test binary.
exe() { echo "$bin/$(tr '/.' '__' <<<"${1#./}").test"; }

# The binaries are built two at a time: a link runs on one core, and the
# other's compiles fill the second. Each build writes its own log. They are
# linked without the symbol table and DWARF (-s -w), as go test links the
# binaries it runs itself: a failure's trace still names the file and line.
# FUZZ_GCFLAGS, when set, is passed as -gcflags (make test's second a
# target builds with all=-N -l: unoptimized, the instrumented compile of
# the standard library and the module takes a third less processor time,
# and a second of fuzzing needs no speed).
build() {
	local dir=$1 start=$SECONDS flags=("-ldflags=-s -w")
	[[ -n "${FUZZ_GCFLAGS:-}" ]] && flags+=("-gcflags=$FUZZ_GCFLAGS")
	if go test -c -fuzz=. "${flags[@]}" -o "$(exe "$dir")" "$dir" >"$(exe "$dir").log" 2>&1; then
		echo "fuzz: $dir built ($((SECONDS - start)) s)"
	else
		echo "fuzz: $dir FAILED to build ($((SECONDS - start)) s)"
		tail -30 "$(exe "$dir").log"
	fi
}
running=0
for dir in $dirs; do
	if ((running >= 2)); then
		wait -n || true
		running=$((running - 1))
	fi
	build "$dir" &
	running=$((running + 1))
done
wait
for dir in $dirs; do
	[[ -x "$(exe "$dir")" ]] || failed="$failed $dir"
done

# FUZZ_WORKERS, when set, is the number of fuzzing workers (-parallel;
# go test's default is one a core): make test's second a target takes one,
# which halves the processor time a second of fuzzing costs.
while read -r dir target; do
	[[ $# -gt 0 && ! "$target" =~ $1 ]] && continue
	[[ -x "$(exe "$dir")" ]] || continue
	pkg=$(go list "$dir")
	start=$SECONDS
	# As go test -fuzz runs it: in the package's folder, so that the seed
	# corpus and a failing input are under its testdata/fuzz.
	if (cd "$dir" && "$(exe "$dir")" -test.run='^$' -test.fuzz="^${target}\$" -test.fuzztime="$FUZZTIME" \
		-test.fuzzcachedir="$cache/$pkg" -test.paniconexit0 -test.timeout=10m ${FUZZ_WORKERS:+-test.parallel="$FUZZ_WORKERS"}) >"$log" 2>&1; then
		echo "fuzz: $pkg $target ok ($((SECONDS - start)) s)"
	elif grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log" &&
		[[ $(grep -c -- '--- FAIL' "$log") -le 1 ]]; then
		# Go's fuzzing coordinator can report its own -fuzztime deadline
		# as a failure, with no input written, on a loaded machine
		# (golang/go#75804, fixed in Go 1.27): not a finding.
		echo "fuzz: $pkg $target ok ($((SECONDS - start)) s; the coordinator's deadline race of golang/go#75804 ignored)"
	else
		echo "fuzz: $pkg $target FAILED ($((SECONDS - start)) s)"
		tail -30 "$log"
		failed="$failed $target"
	fi
done <<<"$targets"
if [[ -n "$failed" ]]; then
	echo "fuzz: FAILED:$failed"
	exit 1
fi
