#!/usr/bin/env bash
# Executes notebooks headless with the GoNB kernel, one at a time (they
# share the Go build cache), writes the executed copies to notebooks/_out/
# and checks them with cmd/nbcheck. With no arguments it runs every
# notebooks/NN*_*.ipynb (07b too).
#
# The course's notebooks, 01 to 08, are committed with the outputs of a run
# on a machine without a GPU, so that the repository's web page shows their
# figures. Each of them is also compared with its committed copy (nbcheck
# -committed): the committed outputs must come from the code as it stands and
# be of the same kinds, with as many images, as the fresh run's.
#
#   run-notebooks.sh [NOTEBOOK...]            run, check, compare; commit nothing
#   run-notebooks.sh --update [NOTEBOOK...]   run, check, then write the executed
#                                             course notebooks over the committed ones
#                                             (make notebooks); with no NOTEBOOK, 01 to 08
#   run-notebooks.sh --solutions              run and check only the notebooks that hold
#                                             solutions ("// BEGIN SOLUTION", which the
#                                             students' copy replaces by stubs), as this
#                                             copy holds them (make test: the browser
#                                             test runs the students' copy of every notebook)
set -euo pipefail
cd "$(dirname "$0")/.."

out=notebooks/_out
mkdir -p "$out"
export PATH="$(go env GOPATH)/bin:$PATH"

update=0 solutions=0
case ${1:-} in
--update)
	update=1
	shift
	;;
--solutions)
	solutions=1
	shift
	if [[ $# -gt 0 ]]; then
		echo "run-notebooks: --solutions takes no notebooks" >&2
		exit 2
	fi
	;;
esac

# course reports whether a notebook is one of those committed with outputs.
course() {
	[[ $(basename "$1") == 0[1-8]_*.ipynb ]]
}

if [[ $# -gt 0 ]]; then
	notebooks=("$@")
elif [[ $solutions == 1 ]]; then
	mapfile -t notebooks < <(grep -l -F -- '// BEGIN SOLUTION' notebooks/[0-9][0-9]*_*.ipynb || true)
else
	shopt -s nullglob
	if [[ $update == 1 ]]; then
		notebooks=(notebooks/0[1-8]_*.ipynb)
	else
		notebooks=(notebooks/[0-9][0-9]*_*.ipynb)
	fi
	shopt -u nullglob
fi
if [[ $update == 1 ]]; then
	for nb in "${notebooks[@]}"; do
		if ! course "$nb"; then
			echo "run-notebooks: --update writes only the course notebooks 01 to 08, not $nb" >&2
			exit 2
		fi
	done
fi
if [[ ${#notebooks[@]} -eq 0 && $solutions == 1 ]]; then
	echo "run-notebooks: no notebook holds a solution (the students' copy): the browser test runs them all"
	exit 0
fi
if [[ ${#notebooks[@]} -eq 0 ]]; then
	echo "run-notebooks: no notebooks to run" >&2
	exit 1
fi

# Each run works in its own folder under _out, so that two runs at once do not
# overwrite each other's results; the results move to _out when checked.
run="$(mktemp -d "$out/.run-XXXXXX")"
trap 'rm -rf "$run"' EXIT
go build -o "$run/nbcheck" ./cmd/nbcheck

failed=0
executed=()
for nb in "${notebooks[@]}"; do
	name="$(basename "$nb" .ipynb)"
	log="$run/$name.log"
	start=${EPOCHREALTIME//[.,]/}
	if /usr/bin/jupyter nbconvert --to notebook --execute \
		--ExecutePreprocessor.kernel_name=gonb --ExecutePreprocessor.timeout=600 \
		--ExecutePreprocessor.record_timing=False \
		--output-dir "$run" "$nb" </dev/null >"$log" 2>&1; then
		result=ran
	else
		result=FAILED
		failed=1
	fi
	tenths=$(((${EPOCHREALTIME//[.,]/} - start) / 100000))
	printf 'run-notebooks: %-32s %s in %d.%d s\n' "$name" "$result" $((tenths / 10)) $((tenths % 10))
	if [[ $result == FAILED ]]; then
		grep -v -E '^[IWE][0-9]{4} ' "$log" | tail -n 40 >&2 || true
		echo "run-notebooks: full log in $out/$name.log" >&2
	fi
	executed+=("$name.ipynb")
done

compared=() others=()
for name in "${executed[@]}"; do
	if course "$name" && [[ $update == 0 ]]; then
		compared+=("$name")
	else
		others+=("$name")
	fi
done
committed="$PWD/notebooks"
if [[ ${#compared[@]} -gt 0 ]]; then
	(cd "$run" && ./nbcheck -committed "$committed" "${compared[@]}") || failed=1
fi
if [[ ${#others[@]} -gt 0 ]]; then
	(cd "$run" && ./nbcheck "${others[@]}") || failed=1
fi
if [[ $update == 1 && $failed == 0 ]]; then
	for name in "${executed[@]}"; do
		(cd "$run" && ./nbcheck -stamp "$name")
		cp "$run/$name" "notebooks/$name"
		echo "run-notebooks: wrote notebooks/$name"
	done
elif [[ $update == 1 ]]; then
	echo "run-notebooks: a notebook failed: the committed notebooks are left as they were" >&2
fi
for name in "${executed[@]}"; do
	rm -f "$out/$name" "$out/${name%.ipynb}.log"
	mv -f "$run/${name%.ipynb}.log" "$out/"
	[[ ! -f "$run/$name" ]] || mv -f "$run/$name" "$out/"
done
exit "$failed"
