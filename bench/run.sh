#!/bin/sh
# make bench: builds the kernel variants and their shim libraries
# (test/gpu/build.sh), then runs bench/bench.py, which times tkc, Triton and
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
exec "$PYTHON" bench/bench.py "$@"
