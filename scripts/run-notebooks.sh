#!/usr/bin/env bash
# Executes notebooks headless with the GoNB kernel, one at a time (they
# share the Go build cache), writes the executed copies to notebooks/_out/
# and checks them with cmd/nbcheck. With no arguments it runs every
# notebooks/NN*_*.ipynb (07b too). The committed notebooks are never modified.
set -euo pipefail
cd "$(dirname "$0")/.."

out=notebooks/_out
mkdir -p "$out"
export PATH="$(go env GOPATH)/bin:$PATH"

if [[ $# -gt 0 ]]; then
	notebooks=("$@")
else
	shopt -s nullglob
	notebooks=(notebooks/[0-9][0-9]*_*.ipynb)
	shopt -u nullglob
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

(cd "$run" && ./nbcheck "${executed[@]}") || failed=1
for name in "${executed[@]}"; do
	rm -f "$out/$name" "$out/${name%.ipynb}.log"
	mv -f "$run/${name%.ipynb}.log" "$out/"
	[[ ! -f "$run/$name" ]] || mv -f "$run/$name" "$out/"
done
exit "$failed"
