#!/bin/bash
# Builds, on a machine with Go and gcc, what scripts/grade-course-gpu.sh
# needs on a GPU machine without Go, into $B (default build/course, ignored
# by git; small enough to carry):
#   $B/bundle    `grade bundle`: the grader with the hidden checks (cgo on)
#                and the CUDA exercises' public files
#   $B/class5    the class of five CUDA fixtures (exercises/cudacheck's
#                TestFixtures: alice, bob, carol, dave, erin)
#   $B/class40   40 synthetic hand-ins s01..s40, each a copy of one honest
#                or faulty fixture: half hand in exercise 20, half 25
#                (correct, wrong, slow, not compiling, the stub)
#   $B/bwrap     Debian's bubblewrap, unpacked (the GPU machine has none)
# Run from the repository root: scripts/build-course-gpu.sh
set -euo pipefail
B=${B:-build/course}
rm -rf "$B"
mkdir -p "$B"
command -v gcc >/dev/null || { echo "build-course-gpu: gcc is needed, for a grader with cgo that loads the CUDA driver" >&2; exit 1; }

go run ./cmd/grade bundle -out "$B/bundle"
grep -q "built with cgo off" "$B/bundle/README.md" && { echo "build-course-gpu: the bundle's grader has cgo off" >&2; exit 1; }

fx=$(mktemp -d)
trap 'rm -rf "$fx"' EXIT
STENCILLAB_CUDA_FIXTURES=$fx go test -count=1 ./exercises/cudacheck -run '^TestFixtures$' >/dev/null
cp -r "$fx/class" "$B/class5"

# The 40 hand-ins: each the file of one fixture, in the layout of a
# copy of the repository (exercises/ID/FILE). Which fixture is picked
# from a fixed list, so that the class is the same each time it is built.
basic=exercises/20_cuda_basic/basic.cu
chal=exercises/25_cuda_challenge/challenge.cu
kinds=(
	"class/alice $basic"   # correct basic kernel
	"class/alice $chal"    # correct challenge
	"class/bob $basic"     # c3/c4 swapped: wrong values
	"class/carol $chal"    # TILE_Z 8: correct, another tile
	"class/dave $chal"     # c3/c4 swapped: wrong values
	"class/erin $basic"    # does not compile
	"class/erin $chal"     # 64×32 blocks: too many threads
	"class/bob $chal"      # the stub, handed in unchanged
)
for i in $(seq 1 40); do
	id=$(printf 's%02d' "$i")
	set -- ${kinds[$(((i - 1) % ${#kinds[@]}))]}
	mkdir -p "$B/class40/$id/$(dirname "$2")"
	cp "$fx/$1/$2" "$B/class40/$id/$2"
	# Each hand-in is its own file: the student's id in a comment.
	printf '// hand-in of %s\n' "$id" >> "$B/class40/$id/$2"
done

# Debian's bubblewrap, unpacked: the GPU machine has no bwrap and cannot
# install packages.
if (cd "$B" && apt-get download bubblewrap >/dev/null 2>&1); then
	dpkg -x "$B"/bubblewrap_*.deb "$B/bwrap"
	rm -f "$B"/bubblewrap_*.deb
elif [ -x build/bwrap/usr/bin/bwrap ]; then
	cp -r build/bwrap/usr "$B/bwrap/" 2>/dev/null || { mkdir -p "$B/bwrap" && cp -r build/bwrap/usr "$B/bwrap/"; }
else
	echo "build-course-gpu: no bubblewrap package to unpack (apt-get download bubblewrap failed)" >&2
	exit 1
fi
"$B/bwrap/usr/bin/bwrap" --version
du -sh "$B"
echo "build-course-gpu: $B is ready; on the GPU machine: B=$B OUT=\$OUT scripts/grade-course-gpu.sh"
