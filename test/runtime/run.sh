#!/bin/sh
# Runs runtime_stub's tests (built by the Makefile into DIR) and prints one
# line a failure and, last, "N passed, M failed"; exit status 1 on failure.
#
#   sh test/runtime/run.sh DIR
#
# DIR holds no_driver_test, fake_libcuda.so, fake_driver_test, driver_test
# and, where the CUDA toolkit was there to build them, cudart_test and
# kernels_sm90a.cubin / kernels_sm80.cubin. Without a GPU, driver_test and
# cudart_test check that they get "no driver" cleanly and say "skipped".
# On a GPU under ASan the driver needs ASAN_OPTIONS=protect_shadow_gap=0,
# which this script sets unless ASAN_OPTIONS is set already.

dir=${1:-build/runtime}
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # name command...
    name=$1
    shift
    "$@" >"$tmp/out" 2>&1
    status=$?
    if [ $status -eq 0 ] && tail -n 1 "$tmp/out" | grep -q '^ok'; then
        pass=$((pass + 1))
        [ -n "$VERBOSE" ] && sed "s/^/  $name: /" "$tmp/out"
    else
        fail=$((fail + 1))
        echo "FAIL runtime/$name (exit status $status)"
        head -40 "$tmp/out"
    fi
}

# The driver maps memory where ASan's shadow gap is; the CUDA runtime's
# static library keeps allocations to the end.
gpu_asan=${ASAN_OPTIONS:-protect_shadow_gap=0}
cudart_asan=${ASAN_OPTIONS:-protect_shadow_gap=0:detect_leaks=0}

run no_driver_test "$dir/no_driver_test"
run no_driver_test.not_a_driver "$dir/no_driver_test" libm.so.6
run fake_driver_test "$dir/fake_driver_test" "$dir/fake_libcuda.so"
cubins=""
if [ -f "$dir/kernels_sm90a.cubin" ] && [ -f "$dir/kernels_sm80.cubin" ]; then
    # On an sm_90 GPU the sm_80 cubin does not load: the PTX fallback runs.
    cubins="$dir/kernels_sm90a.cubin $dir/kernels_sm80.cubin"
fi
# shellcheck disable=SC2086
run driver_test env ASAN_OPTIONS="$gpu_asan" "$dir/driver_test" test/runtime/kernels.ptx $cubins
if [ -x "$dir/cudart_test" ]; then
    run cudart_test env ASAN_OPTIONS="$cudart_asan" "$dir/cudart_test" test/runtime/kernels.ptx
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
