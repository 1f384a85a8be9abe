#!/usr/bin/env bash
# Installs the GoNB Jupyter kernel and the tools it runs, at pinned versions,
# into $(go env GOPATH)/bin, and registers the kernel with Jupyter. Does
# nothing when the pinned versions are already there. With --gopls it also
# installs gopls, which the kernel uses for completion and hover in the
# browser; a headless run does not need it.
#
# The proxy these machines reach refuses version-list queries, so
# `go install module@version` fails; a throwaway module that records each
# tool with `go get -tool` and then runs `go install tool` works.
set -euo pipefail

GONB_VERSION=v0.11.4
GOIMPORTS_VERSION=v0.52.0
GOPLS_VERSION=v0.23.0
JUPYTER=/usr/bin/jupyter

bin="$(go env GOPATH)/bin"
export PATH="$bin:$PATH"

# The kernel reports the Go that built it as the notebooks' language_info,
# which Jupyter Notebook compares with a notebook's when it opens it: built
# with the toolchain go.mod pins, it matches the committed notebooks, which
# then open without "unsaved changes".
TOOLCHAIN="$(sed -n 's/^toolchain \(go[^[:space:]]*\)$/\1/p' "$(dirname "$0")/../go.mod")"
export GOTOOLCHAIN="${TOOLCHAIN:-auto}"

# has BINARY MODULE VERSION: whether BINARY in $bin was built from MODULE at VERSION.
# With a pinned toolchain, BINARY must also have been built by it.
has() {
	local info
	[[ -x "$bin/$1" ]] && info="$(go version -m "$bin/$1" 2>/dev/null)" &&
		grep -Eq "^[[:space:]]+mod[[:space:]]+$2[[:space:]]+$3([[:space:]]|$)" <<<"$info" &&
		{ [[ -z "$TOOLCHAIN" ]] || [[ "$(head -n 1 <<<"$info")" == *": $TOOLCHAIN" ]]; }
}

# install PACKAGE@VERSION [WHY]: builds one tool in a throwaway module,
# saying what it builds and why, then every 30 s that it is still at it
# (gopls takes minutes on a loaded machine), then how long it took.
install() {
	local dir start=$SECONDS
	dir="$(mktemp -d)"
	echo "install-gonb: building $1${2:+ ($2)}: a first build takes a few minutes"
	(
		cd "$dir"
		log="$(go mod init example.invalid/tools 2>&1 && go get -tool "$1" 2>&1 && GOBIN="$bin" go install tool 2>&1)" || {
			echo "$log" >&2
			exit 1
		}
	) &
	local build=$! rc=0
	while kill -0 "$build" 2>/dev/null; do
		for _ in $(seq 30); do
			sleep 1
			kill -0 "$build" 2>/dev/null || break
		done
		if kill -0 "$build" 2>/dev/null; then
			echo "install-gonb: still building ${1%@*}, $((SECONDS - start)) s so far"
		fi
	done
	wait "$build" || rc=$?
	rm -rf "$dir"
	if [[ $rc -ne 0 ]]; then
		return 1
	fi
	echo "install-gonb: built ${1%@*} in $((SECONDS - start)) s"
}

has gonb github.com/janpfeifer/gonb "$GONB_VERSION" || install "github.com/janpfeifer/gonb@$GONB_VERSION" "the Go kernel of the notebooks"
has goimports golang.org/x/tools "$GOIMPORTS_VERSION" || install "golang.org/x/tools/cmd/goimports@$GOIMPORTS_VERSION" "which the kernel runs on each cell"
if [[ "${1:-}" == "--gopls" ]] && ! has gopls golang.org/x/tools/gopls "$GOPLS_VERSION"; then
	# gopls only adds completion and hover in the browser: a failure is not fatal.
	install "golang.org/x/tools/gopls@$GOPLS_VERSION" "completion and hover in the browser" || echo "install-gonb: gopls $GOPLS_VERSION not installed; notebooks run without it" >&2
fi

# The kernel spec must exist, start the gonb binary just installed and keep
# the kernel's routine log quiet. GoNB logs through klog to standard error
# by default: at every start some test lines ("Info message", "Warning
# message", "Error message"), a complaint when gopls is missing, and each
# step of its start and shutdown, which Jupyter's server and nbconvert
# print among the notebook's messages. These flags, passed through to the
# kernel's command line by gonb --install, send the log to /dev/null and
# keep only fatal errors on standard error; what a cell prints, its
# compile errors and its panics reach the notebook as before.
QUIET=(--logtostderr=false --alsologtostderr=false --log_file=/dev/null --stderrthreshold=3)
spec="$("$JUPYTER" kernelspec list --json 2>/dev/null | /usr/bin/python3 -c '
import json, sys
spec = json.load(sys.stdin)["kernelspecs"].get("gonb")
argv = spec["spec"]["argv"] if spec else []
print(argv[0] if argv else "", "quiet" if "-log_file=/dev/null" in argv and "-stderrthreshold=3" in argv else "noisy")
' 2>/dev/null || true)"
if [[ "$spec" != "$bin/gonb quiet" ]]; then
	echo "install-gonb: registering the gonb kernel with Jupyter"
	# gonb --install refuses to register without gopls unless told to.
	force=()
	[[ -x "$bin/gopls" ]] || force=(--force_deps)
	if ! log="$(gonb --install --raw_error "${QUIET[@]}" "${force[@]}" 2>&1)"; then
		echo "$log" >&2
		exit 1
	fi
fi
