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
# GPU_TEST_PARTS picks the parts to run (default all, in this order):
# build check ops ops80 python ports ops89. A machine that may run a
# command for a few minutes only takes them a few at a time.
PARTS=" ${GPU_TEST_PARTS:-build check ops ops80 python ports ops89} "
want() { case $PARTS in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
for part in $PARTS; do
    case $part in
    build|check|ops|ops80|python|ports|ops89|runtime|examples) ;; # the last two: the Makefile's
    *) echo "test/gpu/run.sh: unknown part '$part' in GPU_TEST_PARTS" >&2; exit 2 ;;
    esac
done
built=0 checked=0 ops=0 ops80=0 python=0 ports=0 ops89=0

if want build; then
    sh test/gpu/build.sh
    built=$?
fi
if want check; then
    "$PYTHON" test/gpu/check.py "$@"
    checked=$?
fi
# one small kernel per op family, compiled here by tkc (the static build),
# for the default target and for sm_80 (mma.sync-era code runs here too)
if want ops; then
    "$PYTHON" test/gpu/ops/run_ops.py
    ops=$?
fi
if want ops80; then
    TKC_ARCH=sm_80 "$PYTHON" test/gpu/ops/run_ops.py
    ops80=$?
fi
# the kernels through their Python binding (build/gpu/py/), against torch,
# and the examples that use it
if want python; then
    "$PYTHON" test/gpu/python_binding.py
    python=$?
    for example in examples/torch/*.py; do
        "$PYTHON" "$example" || python=1
    done
fi
# kernels written as Liger, FlagGems and Triton's tutorials write them
if want ports; then
    "$PYTHON" test/gpu/ports/run_ports.py
    ports=$?
fi
# sm_89's fp8 code (mma.sync m16n8k32), which no cubin of this GPU's runs:
# the fp8 cases compiled for sm_89 by a toolkit without ptxas (libdevice
# only), so that each header embeds the PTX and the driver compiles it
# for this GPU
if want ops89; then
    jit_home=$(mktemp -d) && mkdir -p "$jit_home/nvvm" &&
        ln -s "${CUDA_HOME:-/usr/local/cuda}/nvvm/libdevice" "$jit_home/nvvm/libdevice"
    CUDA_HOME="$jit_home" TKC_ARCH=sm_89 OPS_MATCH=f8 "$PYTHON" test/gpu/ops/run_ops.py
    ops89=$?
    rm -rf "$jit_home"
fi
[ "$built" -eq 0 ] && [ "$checked" -eq 0 ] && [ "$ops" -eq 0 ] && [ "$ops80" -eq 0 ] && [ "$ops89" -eq 0 ] &&
    [ "$ports" -eq 0 ] && [ "$python" -eq 0 ]
