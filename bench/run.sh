#!/bin/sh
# make bench: builds the kernel variants and their shim libraries
# (test/gpu/build.sh; matmul's other operand types from
# bench/matmul_dtypes.py), then runs bench/bench.py, which times tkc, Triton and
# PyTorch in one process and compares compile times. Extra arguments go to
# bench.py (--only softmax, --skip-compile, --no-tkc).
#
# Variants that fail to build show as "n/a" in the table; the run goes on,
# so the Triton and PyTorch columns still come out.
set -u
cd "$(dirname "$0")/.." || exit 1
PYTHON=${PYTHON:-python3}
# Keep __pycache__ out of the source tree (bench.py starts child processes too).
export PYTHONDONTWRITEBYTECODE=1

sh test/gpu/build.sh || echo "bench/run.sh: some variants did not build; their rows show n/a" >&2
# matmul for bf16, tf32, f8e4m3 and i8 operands, derived from kernels/matmul.tk
"$PYTHON" bench/matmul_dtypes.py && VARIANTS=build/gpu/src/variants sh test/gpu/build.sh ||
    echo "bench/run.sh: some matmul dtype variants did not build; their rows show n/a" >&2
exec "$PYTHON" bench/bench.py "$@"
