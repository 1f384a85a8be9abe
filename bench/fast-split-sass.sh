#!/usr/bin/env bash
# fast-split-sass.sh: checks that the split fast kernel (cuda/fast_common.cu
# followed by cuda/fast_bulk.cu or cuda/fast_registers.cu) compiles to the
# same machine code as the file that was measured, bench/fast_variants.cu,
# for the kept settings: mode 3 with FAST_EDGE = 5 (the default) and mode 0.
# It builds both with nvcc for sm_90 and compares cuobjdump's SASS with the
# line information and addresses left out.
#
# Usage (on the GPU machine, from the repository root; needs nvcc and
# cuobjdump):
#
#   bench/fast-split-sass.sh
set -euo pipefail

nvcc=${NVCC:-nvcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sass() { # sass OUT.cubin: the SASS without addresses, comments or line info
  cuobjdump -sass "$1" | sed -e 's@/\*[0-9a-f]*\*/@@g' -e 's@//.*@@' -e '/^\s*$/d' -e '/\.loc\|Function :\|code for sm_/d'
}

# name, the defines the split takes, the defines the measured file took.
check() {
  local name=$1 new=$2 old=$3
  cat cuda/fast_common.cu "cuda/$name.cu" >"$tmp/new.cu"
  # shellcheck disable=SC2086
  "$nvcc" -cubin -arch=sm_90 -std=c++17 $new -o "$tmp/new.cubin" "$tmp/new.cu"
  # shellcheck disable=SC2086
  "$nvcc" -cubin -arch=sm_90 -std=c++17 $old -o "$tmp/old.cubin" bench/fast_variants.cu
  if diff <(sass "$tmp/old.cubin") <(sass "$tmp/new.cubin") >"$tmp/diff.txt"; then
    echo "same SASS: $name $new"
  else
    echo "SASS DIFFERS: $name $new" >&2
    head -40 "$tmp/diff.txt" >&2
    return 1
  fi
}

common="-DFAST_MINB=1 -DFAST_PREFETCH=1 -DFAST_L2PF=0"
check fast_bulk "-DFAST_MODE=3 -DFAST_BY=4 -DFAST_WX=8 -DFAST_DEPTH=1 -DFAST_STREAM=0 -DFAST_PFD=0 $common" \
  "-DFAST_MODE=3 -DFAST_BY=4 -DFAST_RY=1 -DFAST_WX=8 -DFAST_DEPTH=1 -DFAST_STREAM=0 -DFAST_PFD=0 -DFAST_EDGE=5 $common"
check fast_bulk "-DFAST_MODE=3 -DFAST_BY=5 -DFAST_WX=8 -DFAST_DEPTH=2 -DFAST_STREAM=1 -DFAST_PFD=-2 $common" \
  "-DFAST_MODE=3 -DFAST_BY=5 -DFAST_RY=1 -DFAST_WX=8 -DFAST_DEPTH=2 -DFAST_STREAM=1 -DFAST_PFD=-2 -DFAST_EDGE=5 $common"
check fast_registers "-DFAST_MODE=0 -DFAST_BY=8 -DFAST_RY=1 -DFAST_WX=1 -DFAST_STREAM=0 $common" \
  "-DFAST_MODE=0 -DFAST_BY=8 -DFAST_RY=1 -DFAST_WX=1 -DFAST_DEPTH=1 -DFAST_STREAM=0 -DFAST_EDGE=0 $common"
check fast_registers "-DFAST_MODE=0 -DFAST_BY=2 -DFAST_RY=4 -DFAST_WX=2 -DFAST_STREAM=0 -DFAST_MINB=1 -DFAST_PREFETCH=0 -DFAST_L2PF=4" \
  "-DFAST_MODE=0 -DFAST_BY=2 -DFAST_RY=4 -DFAST_WX=2 -DFAST_DEPTH=1 -DFAST_STREAM=0 -DFAST_EDGE=0 -DFAST_MINB=1 -DFAST_PREFETCH=0 -DFAST_L2PF=4"
