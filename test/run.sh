#!/bin/sh
# The test runner of `make test`. Every case compares tkc's real output with
# a reviewed expected file; the last line is "N passed, M failed".
#
#   test/golden/<stage>/NAME.tk  beside  NAME.tokens | NAME.ast | NAME.sema | NAME.err
#   test/golden/kernels/NAME.*   expected dumps of kernels/NAME.tk (NAME.h: the
#                                header, cubin bytes elided)
#   test/golden/ops/NAME.tk      one op family: NAME.tir, NAME.tir-gpu, NAME.ptx
#   test/golden/cli/NAME.args    tkc's arguments; NAME.out its output and exit status
#
# .err and .out files hold stderr (and stdout for .out) followed by a line
# "exit status: N". UPDATE=1 rewrites the expected files (review the diff).
# Where valgrind is installed, each kernel is also checked under it.

TKC=${TKC:-build/tkc}
UPDATE=${UPDATE:-0}
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NO_COLOR=1

record() { # name expected actual
    if [ "$UPDATE" = 1 ]; then
        cp "$3" "$2"
        pass=$((pass + 1))
    elif cmp -s "$2" "$3"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $1"
        diff -u "$2" "$3" | head -40
    fi
}

# Adds a sub-runner's "N passed, M failed" (its last line) to ours and
# shows its FAIL lines; a runner that did not report counts as a failure.
add_counts() { # output-file name
    grep '^FAIL' "$1" | head -40
    line=$(tail -n 1 "$1")
    p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
    f=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
    if [ -n "$p" ]; then
        pass=$((pass + p))
        fail=$((fail + f))
    else
        fail=$((fail + 1))
        echo "FAIL $2 did not report"
        tail -5 "$1"
    fi
}

emit_case() { # source expected emit-stage name
    "$TKC" --emit="$3" "$1" >"$tmp/out" 2>"$tmp/err"
    status=$?
    if [ $status -ne 0 ]; then
        fail=$((fail + 1))
        echo "FAIL $4 (exit status $status)"
        head -20 "$tmp/err"
        return
    fi
    record "$4" "$2" "$tmp/out"
}

# the PTX tkc writes for one target, assembled by ptxas
ptxas_case() { # source arch
    if "$TKC" --emit=ptx --arch="$2" "$1" -o "$tmp/case.ptx" 2>"$tmp/err" &&
        "$PTXAS" -arch="$2" "$tmp/case.ptx" -o "$tmp/case.cubin" 2>>"$tmp/err"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL ptxas $1 $2"
        head -20 "$tmp/err"
    fi
}

# an emit case whose expected file must exist (UPDATE=1 creates it)
required_case() { # source expected emit-stage
    if [ -f "$2" ] || [ "$UPDATE" = 1 ]; then
        [ -f "$2" ] || : >"$2"
        emit_case "$1" "$2" "$3" "$2"
    else
        fail=$((fail + 1))
        echo "FAIL $2 is missing"
    fi
}

err_case() { # source expected name
    "$TKC" --emit=sema "$1" >/dev/null 2>"$tmp/out"
    echo "exit status: $?" >>"$tmp/out"
    record "$3" "$2" "$tmp/out"
}

for dir in test/golden/lex test/golden/parse test/golden/sema test/golden/errors; do
    for src in "$dir"/*.tk; do
        [ -f "$src" ] || continue
        base=${src%.tk}
        [ -f "$base.tokens" ] && emit_case "$src" "$base.tokens" tokens "$base.tokens"
        [ -f "$base.ast" ] && emit_case "$src" "$base.ast" ast "$base.ast"
        [ -f "$base.sema" ] && emit_case "$src" "$base.sema" sema "$base.sema"
        [ -f "$base.err" ] && err_case "$src" "$base.err" "$base.err"
        if [ ! -f "$base.tokens" ] && [ ! -f "$base.ast" ] && [ ! -f "$base.sema" ] && [ ! -f "$base.err" ]; then
            fail=$((fail + 1))
            echo "FAIL $src has no expected file"
        fi
    done
done

PTXAS=${CUDA_HOME:-/usr/local/cuda}/bin/ptxas
for src in kernels/*.tk; do
    name=$(basename "$src" .tk)
    for stage in tokens ast sema tir; do
        required_case "$src" "test/golden/kernels/$name.$stage" "$stage"
    done
    # back-end dumps, for the kernels code generation handles
    for stage in tir-gpu ptx; do
        expected=test/golden/kernels/$name.$stage
        [ -f "$expected" ] && emit_case "$src" "$expected" "$stage" "$expected"
    done
    # the launch header, its cubin bytes elided (they are ptxas's, not ours)
    expected=test/golden/kernels/$name.h
    if [ -f "$expected" ] && [ -x "$PTXAS" ]; then
        if "$TKC" --emit=header "$src" >"$tmp/hdr" 2>"$tmp/err"; then
            sed -E '/^  [0-9,]+$/d; s/__cubin\[[0-9]+\]/__cubin[N]/' "$tmp/hdr" >"$tmp/out"
            record "$expected" "$expected" "$tmp/out"
        else
            fail=$((fail + 1))
            echo "FAIL $expected (tkc failed)"
            head -20 "$tmp/err"
        fi
    fi
done

# one file of small kernels per op family: the tile IR before and after
# the target passes, and the PTX (which needs libdevice from the toolkit),
# assembled by ptxas
for src in test/golden/ops/*.tk; do
    base=${src%.tk}
    for stage in tir tir-gpu ptx; do
        if [ "$stage" = ptx ] && [ ! -x "$PTXAS" ]; then
            echo "note: $base.ptx skipped (no CUDA toolkit at ${CUDA_HOME:-/usr/local/cuda})"
            continue
        fi
        required_case "$src" "$base.$stage" "$stage"
    done
    # sm_89 too: fp8 there needs PTX ISA 8.1, which LLVM does not pick itself
    [ -x "$PTXAS" ] && [ "$UPDATE" != 1 ] && ptxas_case "$src" sm_90a && ptxas_case "$src" sm_89
done

# Every kernel code generation handles: PTX for each supported target,
# assembled by ptxas; the launch headers compiled as strict C99 and as C++
# after the CUDA headers, and linked with runtime_stub.
backend_kernels="vector_add softmax layernorm"
if [ "$UPDATE" != 1 ]; then
    if [ -x "$PTXAS" ]; then
        for k in $backend_kernels; do
            for arch in sm_80 sm_86 sm_89 sm_90 sm_90a; do
                ptxas_case "kernels/$k.tk" $arch
            done
        done
    else
        echo "note: ptxas checks skipped (no CUDA toolkit at ${CUDA_HOME:-/usr/local/cuda})"
    fi
    mkdir -p "$tmp/h"
    headers_ok=1
    for k in $backend_kernels; do
        "$TKC" "kernels/$k.tk" -o "$tmp/h" 2>"$tmp/err" || { headers_ok=0; head -20 "$tmp/err"; }
    done
    cat >"$tmp/h/use.c" <<'EOT'
#include "vector_add.h"
#include "softmax.h"
#include "layernorm.h"
#include <stdio.h>
int main(void) {
    /* a broken promise is refused before the driver is looked for */
    tk_status s = vector_add(NULL, (tk_ptr)(uintptr_t)4, (tk_ptr)(uintptr_t)16, (tk_ptr)(uintptr_t)16, 10);
    if (s != TK_ERROR_MISALIGNED) { printf("misaligned pointer gave status %d\n", (int)s); return 1; }
    s = softmax(NULL, (tk_ptr)(uintptr_t)16, (tk_ptr)(uintptr_t)16, 17, 16, 1, 1);
    if (s != TK_ERROR_NOT_DIVISIBLE) { printf("stride 17 gave status %d\n", (int)s); return 1; }
    printf("ok: %s\n", tkrt_status_string(s));
    return 0;
}
EOT
    cat >"$tmp/h/use.cpp" <<'EOT'
#include <cuda.h>
#include <cuda_runtime.h>
#include "vector_add.h"
#include "softmax.h"
#include "layernorm.h"
tk_status launch(cudaStream_t s, float *x, float *y, float *out, int n) { return vector_add(s, x, y, out, n); }
EOT
    if [ $headers_ok = 1 ] && cc -std=c99 -Wall -Wextra -Werror -pedantic ${SANFLAGS:-} -Iruntime_stub -I"$tmp/h" \
        "$tmp/h/use.c" "${RT_LIB:-build/libtkrt.a}" -o "$tmp/h/use" -ldl -lpthread 2>"$tmp/err" &&
        "$tmp/h/use" >"$tmp/out" 2>&1; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL launch headers as C99 (compile, link, promise checks)"
        cat "$tmp/err" "$tmp/out" 2>/dev/null | head -20
    fi
    if [ -f "${CUDA_HOME:-/usr/local/cuda}/include/cuda_runtime.h" ]; then
        if c++ -Wall -Wextra -Werror -I"${CUDA_HOME:-/usr/local/cuda}/include" -Iruntime_stub -I"$tmp/h" \
            -c "$tmp/h/use.cpp" -o "$tmp/h/use_cpp.o" 2>"$tmp/err"; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
            echo "FAIL launch headers as C++ after cuda.h and cuda_runtime.h"
            head -20 "$tmp/err"
        fi
    else
        echo "note: C++ header check skipped (no CUDA headers)"
    fi
fi

# Grids and heuristics a header computes on the host, launched on the fake
# driver and compared with the same expressions in C
if [ "$UPDATE" != 1 ] && [ -n "${RT_DIR:-}" ] && [ -f "$RT_DIR/fake_libcuda.so" ]; then
    mkdir -p "$tmp/grid"
    if "$TKC" test/runtime/header_grid.tk -o "$tmp/grid" 2>"$tmp/err" &&
        cc -std=c99 -D_DEFAULT_SOURCE -Wall -Wextra -Werror -pedantic ${SANFLAGS:-} -Iruntime_stub -I"$tmp/grid" \
            test/runtime/header_grid_test.c "${RT_LIB:-build/libtkrt.a}" -o "$tmp/grid/test" -ldl -lpthread 2>>"$tmp/err" &&
        "$tmp/grid/test" "$RT_DIR/fake_libcuda.so" >"$tmp/out" 2>&1 && tail -n 1 "$tmp/out" | grep -q '^ok'; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL header grids on the fake driver (test/runtime/header_grid_test.c)"
        cat "$tmp/err" "$tmp/out" 2>/dev/null | head -30
    fi
fi

# C unit tests (the layout algebra): each prints "ok" last
for t in ${UNIT_TESTS:-}; do
    if "$t" >"$tmp/unit" 2>&1 && tail -n 1 "$tmp/unit" | grep -q '^ok'; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL unit test $t"
        head -20 "$tmp/unit"
    fi
done

# the op-family GPU cases, compiled (make gpu-test runs them)
if [ "$UPDATE" != 1 ]; then
    if command -v python3 >/dev/null 2>&1; then
        TKC="$TKC" python3 test/gpu/ops/compile_check.py >"$tmp/ops" 2>&1
        add_counts "$tmp/ops" "op-family compile check"
    else
        echo "note: op-family compile check skipped (no python3)"
    fi
fi

# runtime_stub's own tests (no GPU needed: a fake driver stands in)
if [ -n "${RT_DIR:-}" ] && [ -d "$RT_DIR" ] && [ "$UPDATE" != 1 ]; then
    sh test/runtime/run.sh "$RT_DIR" >"$tmp/rt" 2>&1
    add_counts "$tmp/rt" "runtime tests"
fi

# exit statuses a build script relies on: output that cannot be written, a
# ptxas that fails, a stale cubin beside a PTX-only header
if [ "$UPDATE" != 1 ]; then
    TKC="$TKC" sh test/cli_status.sh >"$tmp/status" 2>&1
    add_counts "$tmp/status" "exit-status tests"
fi

# fuzzing reproducers and stress inputs, replayed through tkc; in CI also
# a fixed fuzzing run (make test builds build/fuzz/fuzz_tkc when CI=true)
if [ "$UPDATE" != 1 ]; then
    TKC="$TKC" sh test/fuzz/replay.sh >"$tmp/replay" 2>&1
    add_counts "$tmp/replay" "fuzz replay"
    if [ "${CI:-}" = true ]; then
        sh test/fuzz/ci.sh >"$tmp/fuzz" 2>&1
        cat "$tmp/fuzz" | grep -v "passed, .* failed$"
        add_counts "$tmp/fuzz" "CI fuzzing"
    fi
fi

for args in test/golden/cli/*.args; do
    [ -f "$args" ] || continue
    # shellcheck disable=SC2046
    (eval "set -- $(cat "$args")"; "$TKC" "$@") >"$tmp/out" 2>&1
    echo "exit status: $?" >>"$tmp/out"
    record "$args" "${args%.args}.out" "$tmp/out"
done

if command -v valgrind >/dev/null 2>&1 && [ "$UPDATE" != 1 ] && [ "${SAN:-0}" != 1 ]; then
    for src in kernels/*.tk; do
        if valgrind -q --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
            "$TKC" --emit=sema "$src" >/dev/null 2>"$tmp/vg"; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
            echo "FAIL valgrind $src"
            head -30 "$tmp/vg"
        fi
    done
else
    echo "note: valgrind checks skipped (valgrind not installed, or a sanitizer build)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
