#!/bin/bash
# build-ebisu.sh: builds EBISU's 3d7pt and 3d13pt from the vendored,
# unmodified artifact (bench/peers/ebisu) for sm_90 with CUDA 13, in
# several settings of depth, tile and items per thread, on the GPU machine.
#
#   bench/peers/build-ebisu.sh BUILDDIR [SRCDIR]
#
# SRCDIR (default: this script's folder) holds ebisu/ and
# ebisu-hopper.patch. The artifact is copied to BUILDDIR/src and patched
# there (ebisu-hopper.patch, applied with patch -p1):
#   - its architecture check refuses sm_90: sm_90 and later pass;
#   - its host float4/double4 clash with CUDA's vector types: defined only
#     where CUDA's are not;
#   - cub's debug macros (CubDebug, CubDebugExit) and
#     cudaDeviceProp::memoryClockRate, gone in CUDA 13: defined, and the
#     clock read with cudaDeviceGetAttribute;
#   - depth, tile width and items per thread settable with -DEBISU_TSTEP,
#     -DEBISU_TILE_X, -DEBISU_IPT (the artifact fixes them for the A100);
#   - the driver's runTest falls off its end without a return when
#     --check is not given (the host crash): it returns 0;
#   - the driver reads its input from EBISU_INPUT and writes its output to
#     EBISU_DUMP, for a checker outside; a failed launch (a cooperative
#     grid that does not fit the card) is reported and exits 2, where the
#     artifact returned its untouched output;
#   - the timed run is repeated EBISU_REPS times after EBISU_WARMUP
#     untimed ones, the median printed, with a machine-readable
#     EBISU_RESULT line; EBISU_L2_WINDOW_MB and EBISU_L2_SETASIDE_MB set
#     the L2 access-policy window and the persisting set-aside (the
#     artifact sets a 30 MB window and no set-aside).
# The kernels are compiled by nvcc with -std=c++17 -arch=sm_90 -rdc=true;
# the driver and CPU references by the host compiler (g++), since nvcc's
# front end refuses their variable-length arrays. Each build's ptxas
# report (registers, spills) goes to BUILDDIR/NAME/build.log.
set -u
out=${1:?usage: build-ebisu.sh BUILDDIR [SRCDIR]}
here=${2:-$(cd "$(dirname "$0")" && pwd)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/src"
cp -r "$here/ebisu" "$out/src"
(cd "$out/src" && patch -p1 <"$here/ebisu-hopper.patch") >"$out/patch.log" 2>&1 || { echo "patch failed"; cat "$out/patch.log"; exit 1; }

# name stencil defines: the A100 setting of the artifact, then Hopper's.
# Shared memory a block: (TILE_Y+2)(TILE_X+2)·4 B·(queue·depth+1), queue 2
# for 3d7pt and 3 for 3d13pt; TILE_Y = IPT·256/TILE_X. A cooperative grid
# must hold every xy tile at once: N²/(TILE_X·TILE_Y) ≤ 132 × blocks a
# multiprocessor.
# The kernel needs 256/TILE_X ≥ 4 rows of threads (rows 0 to 3 load the
# four halo sides; with TILE_X = 128 the west and east halos are never
# loaded and the output is wrong: seen on the H200); 4 items a thread
# (64×16 tiles, 256 of them at N = 512) did not launch there, its grid
# larger than the blocks that fit at once.
# At N = 512 one 64×32 tile a multiprocessor leaves room for depth 12 of
# 3d7pt (a100 is depth 8) and 6 of 3d13pt (a100 is 5, which does not divide
# 24 steps); at N = 1024 the 512 such tiles need 4 blocks a multiprocessor,
# which caps 3d7pt at depth 2 and 3d13pt at 1, so larger tiles (16 or 32
# items a thread: 64×64, 64×128) are tried there.
VARIANTS=${VARIANTS:-"
a100 3d7pt
t12 3d7pt -DEBISU_TSTEP=12
t6 3d7pt -DEBISU_TSTEP=6
t2 3d7pt -DEBISU_TSTEP=2
x64i16t2 3d7pt -DEBISU_IPT=16 -DEBISU_TSTEP=2
x64i32t2 3d7pt -DEBISU_IPT=32 -DEBISU_TSTEP=2
t4 3d13pt -DEBISU_TSTEP=4
t6 3d13pt -DEBISU_TSTEP=6
t3 3d13pt -DEBISU_TSTEP=3
t1 3d13pt -DEBISU_TSTEP=1
x64i16t1 3d13pt -DEBISU_IPT=16 -DEBISU_TSTEP=1
"}
src=$out/src/3dstencil
nvflags="-std=c++17 -O3 -arch=sm_90 -rdc=true -Xptxas -v -D_TIMER_ -D__PRINT__ -DEBISU"
build() {
  local name=$1 st=$2; shift 2
  local b=$out/$st-$name
  mkdir -p "$b"
  {
    timeout 240 nvcc $nvflags "$@" -I"$src/$st" -c "$src/j3d.cu" -o "$b/j3d.o" &&
      timeout 240 nvcc $nvflags "$@" -I"$src/$st" -c "$src/j3d-temporal.cu" -o "$b/j3d-temporal.o" &&
      g++ -std=c++17 -O3 -I"$src/$st" -c "$src/j3d.driver.cpp" -o "$b/driver.o" &&
      g++ -std=c++17 -O3 -c "$src/$st/${st}_gold.cpp" -o "$b/gold.o" &&
      g++ -std=c++17 -O3 -c "$src/$st/${st}_gold_gen.cpp" -o "$b/gold_gen.o" &&
      nvcc -arch=sm_90 -rdc=true "$b/j3d.o" "$b/j3d-temporal.o" "$b/driver.o" "$b/gold.o" "$b/gold_gen.o" -o "$b/ebisu"
  } >"$b/build.log" 2>&1
  local rc=$?
  echo "build $st-$name rc=$rc $(grep -ho 'Used [0-9]* registers' "$b/build.log" | tail -1) $(grep -ho '[0-9]* bytes spill stores' "$b/build.log" | sort -n | tail -1)"
}
while read -r name st defs; do
  [ -z "$name" ] && continue
  # shellcheck disable=SC2086
  build "$name" "$st" $defs &
done <<<"$VARIANTS"
wait
