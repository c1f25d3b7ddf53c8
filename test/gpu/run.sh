#!/bin/sh
# make gpu-test: builds the kernel variants and their shim libraries
# (test/gpu/build.sh), then runs the correctness checks (test/gpu/check.py)
# on the GPU. Its last line is "N passed, M failed". Extra arguments go to
# check.py (e.g. -k softmax to run only the cases whose name contains it).
#
# A variant that fails to build does not stop the run: its cases report FAIL
# (library missing) and the exit status is 1.
set -u
cd "$(dirname "$0")/../.." || exit 1
PYTHON=${PYTHON:-python3}
# Keep __pycache__ out of the source tree (bench.py starts child processes too).
export PYTHONDONTWRITEBYTECODE=1

sh test/gpu/build.sh
built=$?
"$PYTHON" test/gpu/check.py "$@"
checked=$?
# one small kernel per op family, compiled here by tkc (the static build),
# for the default target and for sm_80 (mma.sync-era code runs here too)
"$PYTHON" test/gpu/ops/run_ops.py
ops=$?
TKC_ARCH=sm_80 "$PYTHON" test/gpu/ops/run_ops.py
ops80=$?
[ "$built" -eq 0 ] && [ "$checked" -eq 0 ] && [ "$ops" -eq 0 ] && [ "$ops80" -eq 0 ]
