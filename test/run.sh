#!/bin/sh
# The test runner of `make test`. Every case compares tkc's real output with
# a reviewed expected file or runs a check; the last line is
# "N passed, M failed".
#
#   test/golden/<stage>/NAME.tk  beside  NAME.tokens | NAME.ast | NAME.sema | NAME.err
#   test/golden/kernels/NAME.*   expected dumps of kernels/NAME.tk (NAME.h: the
#                                header, cubin bytes elided; NAME.ptx-check: checks
#                                of its PTX; NAME.spills: the bytes ptxas spills in
#                                each kernel on each target, from --stats;
#                                NAME.conversions: each kernel's layout conversions
#                                by kind, on sm_80 and sm_90a, from --stats)
#   test/golden/ops/NAME.tk      one op family: NAME.tir and NAME.tir-gpu (expected
#                                dumps), NAME.ptx-check (checks of its PTX), and its
#                                PTX assembled by ptxas for every target; NAME.spills
#                                (where it exists) as the kernels' on sm_80 and sm_90a; for another
#                                target than sm_90a, NAME.sm_80.tir-gpu and
#                                NAME.sm_80.ptx-check (any target the name gives)
#   test/golden/cli/NAME.args    tkc's arguments; NAME.out its output and exit status
#   test/golden/python/NAME.tk   tkc --python's module NAME.py and its library's
#                                source NAME_tkpy.c, as written
#   test/unit/NAME_test.c        a C unit test, built by make into build/unit/NAME_test
#                                (UNIT_TESTS lists the binaries), which prints "ok" last
#
# .err and .out files hold stderr (and stdout for .out) followed by a line
# "exit status: N". UPDATE=1 rewrites the expected files (review the diff).
# A .ptx-check file is written by hand and never rewritten: the
# instructions a kernel's PTX must and must not contain, in FileCheck's
# habit (CHECK-LABEL, CHECK, CHECK-NOT, ...; test/ptx_check.sh checks them
# and says the format). PTX needs libdevice from the CUDA toolkit: without
# one the PTX checks of the op families are skipped with a note.
# Where valgrind is installed, each kernel is also checked under it.
#
# T=PATTERN runs only the cases whose name matches PATTERN, an extended
# regular expression (grep -E) matched anywhere in the name: a plain word
# is a substring. A case's name is its expected file's path
# (test/golden/ops/reduce.tir, test/golden/ops/reduce.ptx-check,
# test/golden/cli/define.out) or what its FAIL line says ("ptxas
# kernels/softmax.tk sm_80", "launch headers as C99", "header grids on the
# fake driver", "unit test build/unit/layout_test", "op-family compile
# check", "runtime tests", "exit-status tests", "fuzz replay", "CI
# fuzzing", "valgrind kernels/softmax.tk", "ptx_check self-test: pass").
# With UPDATE=1, T limits the files rewritten. A T that matches no case
# is a failure.
#
#   T=ops/reduce sh test/run.sh      (make test T=ops/reduce)
#   T='softmax|layernorm' UPDATE=1 sh test/run.sh

TKC=${TKC:-build/tkc}
UPDATE=${UPDATE:-0}
T=${T:-}
pass=0
fail=0
matched=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NO_COLOR=1

if [ -n "$T" ]; then
    printf '' | grep -Eq -- "$T" 2>/dev/null
    if [ $? -eq 2 ]; then
        echo "T='$T' is not an extended regular expression (grep -E)"
        exit 2
    fi
fi

# a case's verdict: passed, or failed NAME [LOG [LINES]] (prints the
# FAIL line and the head of LOG)
passed() { pass=$((pass + 1)); }
failed() {
    fail=$((fail + 1))
    echo "FAIL $1"
    if [ -n "${2:-}" ]; then head -"${3:-20}" "$2"; fi
}

# want NAME: whether the case NAME runs (all of them without T)
want() {
    if [ -z "$T" ] || printf '%s\n' "$1" | grep -Eq -- "$T"; then
        matched=$((matched + 1))
        return 0
    fi
    return 1
}

record() { # name expected actual
    if [ "$UPDATE" = 1 ]; then
        cp "$3" "$2"
        passed
    elif cmp -s "$2" "$3"; then
        passed
    else
        failed "$1"
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
        failed "$2 did not report"
        tail -5 "$1"
    fi
}

emit_case() { # source expected emit-stage name [arch]
    want "$4" || return 0
    "$TKC" $KFLAGS --emit="$3" ${5:+--arch="$5"} "$1" >"$tmp/out" 2>"$tmp/err"
    status=$?
    if [ $status -ne 0 ]; then
        failed "$4 (exit status $status)" "$tmp/err" 20
        return
    fi
    record "$4" "$2" "$tmp/out"
}

# the PTX tkc writes for one target, assembled by ptxas
ptxas_case() { # source arch
    want "ptxas $1 $2" || return 0
    if "$TKC" --emit=ptx --arch="$2" "$1" -o "$tmp/case.ptx" 2>"$tmp/err" &&
        "$PTXAS" -arch="$2" "$tmp/case.ptx" -o "$tmp/case.cubin" 2>>"$tmp/err"; then
        passed
    else
        failed "ptxas $1 $2" "$tmp/err" 20
    fi
}

# the same on a target that lacks something the source uses: PTX that
# ptxas assembles, or tkc's refusal saying what the target lacks (and no
# other error: an internal error or a ptxas failure is a failure). The
# refusals a target may give: REFUSALS, an extended regular expression
# (default: fp8's "needs sm_89 or newer", or tiles past the target's shared
# memory)
ptxas_or_refused_case() { # source arch [refusals]
    want "ptxas $1 $2" || return 0
    refusals=${3:-'needs sm_89 or newer|bytes of shared memory, more than the [0-9]+ a block may have on'}
    "$TKC" --emit=ptx --arch="$2" "$1" -o "$tmp/case.ptx" 2>"$tmp/err"
    status=$?
    if [ $status -eq 1 ] && grep -q ': error: ' "$tmp/err" && ! grep ': error: ' "$tmp/err" | grep -Evq "$refusals"; then
        passed
    elif [ $status -eq 0 ] && "$PTXAS" -arch="$2" "$tmp/case.ptx" -o "$tmp/case.cubin" 2>>"$tmp/err"; then
        passed
    else
        failed "ptxas $1 $2" "$tmp/err" 20
    fi
}

# the PTX tkc writes (default target, or arch) against its hand-written check file
ptx_check_case() { # source check-file [arch]
    want "$2" || return 0
    if [ ! -f "$2" ]; then
        failed "$2 is missing (write it by hand: test/ptx_check.sh says the format)"
        return
    fi
    if ! "$TKC" $KFLAGS --emit=ptx ${3:+--arch="$3"} "$1" >"$tmp/case.ptx" 2>"$tmp/err"; then
        failed "$2 ($TKC --emit=ptx $1 failed)" "$tmp/err" 20
        return
    fi
    if sh test/ptx_check.sh "$2" "$tmp/case.ptx" "the PTX of $1" >"$tmp/check" 2>&1; then
        passed
    else
        failed "$2" "$tmp/check" 60
        echo "  (the PTX: $TKC --emit=ptx $1)"
    fi
}

# an emit case whose expected file must exist (UPDATE=1 creates it)
required_case() { # source expected emit-stage
    want "$2" || return 0
    if [ -f "$2" ] || [ "$UPDATE" = 1 ]; then
        [ -f "$2" ] || : >"$2"
        emit_case "$1" "$2" "$3" "$2"
    else
        failed "$2 is missing"
    fi
}

err_case() { # source expected name
    want "$3" || return 0
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
        if [ ! -f "$base.tokens" ] && [ ! -f "$base.ast" ] && [ ! -f "$base.sema" ] && [ ! -f "$base.err" ] &&
            want "$src"; then
            failed "$src has no expected file"
        fi
    done
done

# register spills (ptxas's, so not visible in the PTX) per target and
# kernel, where the expected file exists: a change that spills more shows
spills_case() { # source expected arch...
    src=$1 expected=$2
    shift 2
    [ -f "$expected" ] && [ -x "$PTXAS" ] && want "$expected" || return 0
    : >"$tmp/out"
    for arch in "$@"; do
        rm -rf "$tmp/spills"
        if ! "$TKC" $KFLAGS --stats --arch=$arch "$src" -o "$tmp/spills/" 2>"$tmp/err"; then
            echo "$arch: tkc failed" >>"$tmp/out"
            continue
        fi
        sed -n "s/^tkc: stats: \([^:]*\): [0-9]* registers, \([0-9]*\) bytes spilled.*/$arch \1 \2/p" \
            "$tmp/err" >>"$tmp/out"
    done
    record "$expected" "$expected" "$tmp/out"
}

# UPDATE=1 neither runs nor writes the hand-written PTX check files
update_note() {
    if [ "$UPDATE" = 1 ] && [ -z "${noted_checks:-}" ]; then
        echo "note: UPDATE=1 leaves the *.ptx-check files alone (they are written by hand); make test runs them"
        noted_checks=1
    fi
}

PTXAS=${CUDA_HOME:-/usr/local/cuda}/bin/ptxas
for src in kernels/*.tk; do
    name=$(basename "$src" .tk)
    # NAME.flags: tkc options for every golden of the kernel (-D picks one
    # autotune config of many, so that a reviewer reads one loop)
    KFLAGS=$(cat "test/golden/kernels/$name.flags" 2>/dev/null)
    for stage in tokens ast sema tir; do
        required_case "$src" "test/golden/kernels/$name.$stage" "$stage"
    done
    # back-end dumps, for the kernels code generation handles
    expected=test/golden/kernels/$name.tir-gpu
    [ -f "$expected" ] && emit_case "$src" "$expected" tir-gpu "$expected"
    check=test/golden/kernels/$name.ptx-check
    if [ -f "$check" ] && want "$check"; then
        if [ "$UPDATE" = 1 ]; then update_note; else ptx_check_case "$src" "$check"; fi
    fi
    spills_case "$src" "test/golden/kernels/$name.spills" sm_80 sm_86 sm_89 sm_90 sm_90a
    # layout conversions per kernel and kind (lower/conversion.c), inside
    # loops in parentheses: a change that moves a tile through shared
    # memory shows here
    expected=test/golden/kernels/$name.conversions
    if [ -f "$expected" ] && [ -x "$PTXAS" ] && want "$expected"; then
        : >"$tmp/out"
        for arch in sm_80 sm_90a; do
            rm -rf "$tmp/conv"
            if ! "$TKC" $KFLAGS --stats --arch=$arch "$src" -o "$tmp/conv/" 2>"$tmp/err"; then
                # the reason, without the path: a config that does not fit
                # the target is refused there, as it should be
                printf '%s: refused: %s\n' "$arch" "$(sed -n 's/^[^ ]*: error: //p' "$tmp/err" | head -n 1)" >>"$tmp/out"
                continue
            fi
            sed -n "s/^tkc: stats: \([^:]*\): .*; \([0-9]* conversions.*\)/$arch \1: \2/p" "$tmp/err" >>"$tmp/out"
        done
        record "$expected" "$expected" "$tmp/out"
    fi
    # the launch header, its cubin bytes elided (they are ptxas's, not ours)
    expected=test/golden/kernels/$name.h
    if [ -f "$expected" ] && [ -x "$PTXAS" ] && want "$expected"; then
        if "$TKC" $KFLAGS --emit=header "$src" >"$tmp/hdr" 2>"$tmp/err"; then
            sed -E '/^  [0-9,]+$/d; s/(__cubin_sm_[0-9a]+)\[[0-9]+\]/\1[N]/' "$tmp/hdr" >"$tmp/out"
            record "$expected" "$expected" "$tmp/out"
        else
            failed "$expected (tkc failed)" "$tmp/err" 20
        fi
    fi
done
KFLAGS=

# A module of many large kernels (matmul.tk's variants: more than 256 KB
# of PTX) is assembled whole, so each kernel gets the registers ptxas
# gives it in the whole module. Assembled as relocatable pieces and
# linked, kernels took up to 24 registers more (attention_bwd's 128x64
# dQ: 149 for 125, one CTA an SM where two fit).
name="large module assembled whole: registers as ptxas gives them"
if [ "$UPDATE" != 1 ] && [ -x "$PTXAS" ] && want "$name"; then
    rm -rf "$tmp/whole" && mkdir -p "$tmp/whole"
    if ! "$TKC" --stats --arch=sm_90a kernels/matmul.tk -o "$tmp/whole/" 2>"$tmp/err"; then
        failed "$name (tkc failed)" "$tmp/err" 20
    else
        sed -n 's/^tkc: stats: \([^:]*\): \([0-9]*\) registers.*/\1 \2/p' "$tmp/err" | sort >"$tmp/whole/tkc"
        "$PTXAS" -arch=sm_90a -O3 -v "$tmp/whole/matmul.ptx" -o "$tmp/whole/k.cubin" 2>&1 |
            awk "/Compiling entry function/ { split(\$0, q, \"'\"); f = q[2] } /Used [0-9]+ registers/ { for (i = 1; i <= NF; i++) if (\$i == \"Used\") print f, \$(i + 1) }" |
            sort >"$tmp/whole/ptxas"
        if [ -s "$tmp/whole/tkc" ] && cmp -s "$tmp/whole/ptxas" "$tmp/whole/tkc"; then
            passed
        else
            failed "$name (left: ptxas on the whole PTX, right: tkc --stats)"
            diff "$tmp/whole/ptxas" "$tmp/whole/tkc" | head -20
        fi
    fi
fi

# autotune configs too big for the target's shared memory are left out of
# the build (test/golden/cli/autotune_too_big*.out has the warnings): on
# sm_86 alone the 128-row config goes and the 64-row one is the launcher's
# only kernel (no tuner); on sm_86 and sm_90a together only the 256-row
# config, which fits neither, goes, and the tuner times the other two
# attention.tk's forward keeps every tile in registers through its loop at
# every config it builds (--stats counts the conversions through shared
# memory inside loops), at each head dim and mask
name="attention.tk's forward: no conversion through shared memory in its loop, any config"
if [ "$UPDATE" != 1 ] && [ -x "$PTXAS" ] && want "$name"; then
    bad=""
    for flags in "-D HEAD_DIM=64" "-D HEAD_DIM=128" "-D HEAD_DIM=256" "-D HEAD_DIM=64 -D CAUSAL=True" \
        "-D HEAD_DIM=128 -D CAUSAL=True" "-D HEAD_DIM=256 -D CAUSAL=True"; do
        rm -rf "$tmp/attn"
        # shellcheck disable=SC2086
        if ! "$TKC" --arch=sm_90a --stats $flags kernels/attention.tk -o "$tmp/attn/" 2>"$tmp/err"; then
            bad="$bad [$flags: tkc failed]"
        elif ! grep -q '^tkc: stats: attention_fwd__v[0-9_a-z]*: .*(0 inside loops)' "$tmp/err"; then
            bad="$bad [$flags: no stats]"
        elif grep '^tkc: stats: attention_fwd' "$tmp/err" | grep -v '(0 inside loops), ' >"$tmp/loops"; then
            bad="$bad [$flags: $(sed 's/^tkc: stats: \([^:]*\):.*/\1/' "$tmp/loops" | tr '\n' ' ')]"
        fi
    done
    if [ -z "$bad" ]; then passed; else failed "$name:$bad" "$tmp/err" 10; fi
fi

name="autotune configs that do not fit are left out of the build"
if [ "$UPDATE" != 1 ] && want "$name"; then
    rm -rf "$tmp/fit" && mkdir -p "$tmp/fit/one" "$tmp/fit/two"
    if ! "$TKC" -Wno-config-fit --arch=sm_86 -o "$tmp/fit/one/" test/golden/cli/autotune_too_big.tk 2>"$tmp/err" ||
        ! "$TKC" -Wno-config-fit --arch=sm_86,sm_90a -o "$tmp/fit/two/" test/golden/cli/autotune_too_big_all.tk 2>>"$tmp/err"; then
        failed "$name (tkc failed)" "$tmp/err" 20
    else
        one=$(grep -o 'extern tkrt_kernel [a-z0-9_]*' "$tmp/fit/one/autotune_too_big.h" | tr '\n' ' ')
        two=$(grep -o 'extern tkrt_kernel [a-z0-9_]*' "$tmp/fit/two/autotune_too_big_all.h" | tr '\n' ' ')
        if [ "$one" = "extern tkrt_kernel tk_autotune_too_big__mm " ] && ! grep -q 'tkrt_tuner' "$tmp/fit/one/autotune_too_big.h" &&
            [ "$two" = "extern tkrt_kernel tk_autotune_too_big_all__mm__v1 extern tkrt_kernel tk_autotune_too_big_all__mm__v2 " ] &&
            grep -q 'TKRT_TUNER_INIT("mm", "[0-9a-f]*", 2u' "$tmp/fit/two/autotune_too_big_all.h" && [ ! -s "$tmp/err" ]; then
            passed
        else
            failed "$name (kernels: '$one' and '$two')" "$tmp/err" 20
        fi
    fi
fi

# the checker of the .ptx-check files, on a fixed PTX text: a check file
# that must pass, one that must fail with the messages of selftest_fail.out
# (after a change of the messages: sh test/ptx_check.sh
# test/ptx_check/selftest_fail.ptx-check test/ptx_check/selftest.ptx
# >test/ptx_check/selftest_fail.out), and a malformed one (status 2)
if [ "$UPDATE" != 1 ]; then
    d=test/ptx_check
    if want "ptx_check self-test: pass"; then
        if sh test/ptx_check.sh $d/selftest_pass.ptx-check $d/selftest.ptx >"$tmp/self" 2>&1; then
            passed
        else
            failed "ptx_check self-test: pass ($d/selftest_pass.ptx-check must pass on $d/selftest.ptx)" "$tmp/self" 20
        fi
    fi
    if want "ptx_check self-test: fail"; then
        sh test/ptx_check.sh $d/selftest_fail.ptx-check $d/selftest.ptx >"$tmp/self" 2>&1
        status=$?
        if [ $status -eq 1 ] && cmp -s $d/selftest_fail.out "$tmp/self"; then
            passed
        else
            failed "ptx_check self-test: fail ($d/selftest_fail.ptx-check must fail on $d/selftest.ptx, status 1 (not $status), with $d/selftest_fail.out)"
            diff -u $d/selftest_fail.out "$tmp/self" | head -40
        fi
    fi
    if want "ptx_check self-test: malformed"; then
        sh test/ptx_check.sh $d/selftest_malformed.ptx-check $d/selftest.ptx >"$tmp/self" 2>&1
        status=$?
        if [ $status -eq 2 ] && grep -q 'selftest_malformed.ptx-check:2: not a directive' "$tmp/self"; then
            passed
        else
            failed "ptx_check self-test: malformed ($d/selftest_malformed.ptx-check: status 2 (not $status), its line 2 named)" "$tmp/self" 20
        fi
    fi
fi

# one file of small kernels per op family: the tile IR before and after
# the target passes, the PTX (which needs libdevice from the toolkit)
# against its check file, and the PTX assembled by ptxas
for src in test/golden/ops/*.tk; do
    base=${src%.tk}
    for stage in tir tir-gpu; do
        required_case "$src" "$base.$stage" "$stage"
    done
    # another target's dump where a file names it: NAME.sm_80.tir-gpu
    for f in "$base".sm_*.tir-gpu; do
        [ -f "$f" ] || continue
        arch=${f#"$base".}
        emit_case "$src" "$f" tir-gpu "$f" "${arch%.tir-gpu}"
    done
    spills_case "$src" "$base.spills" sm_80 sm_90a
    if [ "$UPDATE" = 1 ]; then
        want "$base.ptx-check" && update_note
        continue
    fi
    if [ ! -x "$PTXAS" ]; then
        want "$base.ptx-check" &&
            echo "note: $base.ptx-check skipped (no CUDA toolkit at ${CUDA_HOME:-/usr/local/cuda})"
        continue
    fi
    ptx_check_case "$src" "$base.ptx-check"
    for f in "$base".sm_*.ptx-check; do
        [ -f "$f" ] || continue
        arch=${f#"$base".}
        ptx_check_case "$src" "$f" "${arch%.ptx-check}"
    done
    # every target: sm_89's fp8 needs PTX ISA 8.1 and the cache hints 7.4,
    # which LLVM does not pick itself; before sm_89, fp8 is refused; tiles
    # sized for sm_90a's shared memory may be refused by the others
    ptxas_case "$src" sm_90a
    ptxas_or_refused_case "$src" sm_89 'bytes of shared memory, more than the [0-9]+ a block may have on'
    for arch in sm_80 sm_86 sm_90; do ptxas_or_refused_case "$src" $arch; done
done

# Every kernel code generation handles: PTX for each supported target,
# assembled by ptxas; the launch headers compiled as strict C99 and as C++
# after the CUDA headers, and linked with runtime_stub.
backend_kernels="vector_add softmax layernorm matmul attention"
if [ "$UPDATE" != 1 ]; then
    if [ -x "$PTXAS" ]; then
        for k in $backend_kernels; do
            for arch in sm_80 sm_86 sm_89 sm_90 sm_90a; do
                ptxas_case "kernels/$k.tk" $arch
            done
        done
    else
        skipped=0
        for k in $backend_kernels; do
            for arch in sm_80 sm_86 sm_89 sm_90 sm_90a; do
                want "ptxas kernels/$k.tk $arch" && skipped=1
            done
        done
        [ $skipped = 1 ] && echo "note: ptxas checks skipped (no CUDA toolkit at ${CUDA_HOME:-/usr/local/cuda})"
    fi
    have_cuda_h=0
    [ -f "${CUDA_HOME:-/usr/local/cuda}/include/cuda_runtime.h" ] && have_cuda_h=1
    want_c99=0
    want_cxx=0
    want "launch headers as C99" && want_c99=1
    [ $have_cuda_h = 1 ] && want "launch headers as C++" && want_cxx=1
    if [ $want_c99 = 1 ] || [ $want_cxx = 1 ]; then
        mkdir -p "$tmp/h"
        headers_ok=1
        for k in $backend_kernels; do
            "$TKC" "kernels/$k.tk" -o "$tmp/h" 2>"$tmp/err" || { headers_ok=0; head -20 "$tmp/err"; }
        done
        # autotuned launchers of every kind too (pruning, restore and reset
        # lists, heuristics), as C++
        "$TKC" test/runtime/header_tune.tk -o "$tmp/h" 2>/dev/null || headers_ok=0
        # parameters named as C keywords and as the launcher's own names
        "$TKC" test/runtime/header_names.tk -o "$tmp/h" 2>/dev/null || headers_ok=0
        cat >"$tmp/h/use.c" <<'EOT'
#define TKC_IMPLEMENTATION
#include "vector_add.h"
#include "softmax.h"
#include "layernorm.h"
#include "matmul.h"
#include "attention.h"
#include "header_names.h"
#include <stdio.h>
#include <string.h>
int main(void) {
    /* a broken promise is refused before the driver is looked for */
    tk_status s = vector_add(NULL, (tk_ptr)(uintptr_t)4, (tk_ptr)(uintptr_t)16, (tk_ptr)(uintptr_t)16, 10);
    if (s != TK_ERROR_MISALIGNED) { printf("misaligned pointer gave status %d\n", (int)s); return 1; }
    s = softmax(NULL, (tk_ptr)(uintptr_t)16, (tk_ptr)(uintptr_t)16, 17, 16, 1, 1);
    if (s != TK_ERROR_NOT_DIVISIBLE) { printf("stride 17 gave status %d\n", (int)s); return 1; }
    s = matmul(NULL, (tk_ptr)(uintptr_t)16, (tk_ptr)(uintptr_t)16, (tk_ptr)(uintptr_t)16, 64, 64, 64, 64, 2, 64, 1, 64, 1);
    if (s != TK_ERROR_NOT_ONE) { printf("stride_ak 2 gave status %d\n", (int)s); return 1; }
    /* the parameter `stream` after the stream, refused by its own name */
    s = names(NULL, (tk_ptr)(uintptr_t)16, 17, 1, 1, 0.5f, 0, 0, 0.5f, 1);
    if (s != TK_ERROR_NOT_DIVISIBLE || !strstr(tkrt_status_string(s), "'stream' = 17")) {
        printf("names(stream=17): status %d, %s\n", (int)s, tkrt_status_string(s));
        return 1;
    }
    s = names(NULL, (tk_ptr)(uintptr_t)16, 16, 1, 1, 0.5f, 0, 0, 0.5f, 2);
    if (s != TK_ERROR_NOT_ONE || !strstr(tkrt_status_string(s), "'stride_default'")) {
        printf("names(stride_default=2): status %d, %s\n", (int)s, tkrt_status_string(s));
        return 1;
    }
    { extern tk_status other_file(void);
      if (other_file() != TK_ERROR_MISALIGNED) { printf("the other file's launch\n"); return 1; } }
    printf("ok: %s\n", tkrt_status_string(s));
    return 0;
}
EOT
        cat >"$tmp/h/use.cpp" <<'EOT'
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#define TKC_IMPLEMENTATION
#include "vector_add.h"
#include "softmax.h"
#include "layernorm.h"
#include "matmul.h"
#include "attention.h"
#include "header_tune.h"
#include "header_names.h"
tk_status launch(cudaStream_t s, float *x, float *y, float *out, int n) { return vector_add(s, x, y, out, n); }
tk_status pruned(cudaStream_t s, int *x, int n) { return prune_model(s, x, n); }
/* const-correct, typed pointers: what C++ code has at hand passes as it is */
tk_status from_const(cudaStream_t s, const float *x, const float *y, float *out, int n) {
    return vector_add(s, x, y, out, n);
}
tk_status halves(cudaStream_t s, const __half *x, __half *y, const __half *w, const __half *b, float *mean,
                 float *rstd) {
    return layer_norm_fwd(s, x, y, w, b, mean, rstd, 64, 4, 64, 1e-5f);
}
tk_status from_driver(CUdeviceptr x, CUdeviceptr out) {
    return vector_add(NULL, TK_DEVICE_PTR(const float, x), TK_DEVICE_PTR(const float, x), TK_DEVICE_PTR(float, out), 4);
}
EOT
    fi
    # a second file of the program includes the headers without
    # TKC_IMPLEMENTATION: declarations only, the module defined once
    mkdir -p "$tmp/h"
    cat >"$tmp/h/other.c" <<'EOT'
#include "vector_add.h"
#include "softmax.h"
#include "matmul.h"
tk_status other_file(void);
tk_status other_file(void) { return vector_add(NULL, (const float *)4, (const float *)16, (float *)16, 10); }
EOT
    if [ $want_c99 = 1 ]; then
        if [ "$headers_ok" = 1 ] && cc -std=c99 -Wall -Wextra -Werror -pedantic ${SANFLAGS:-} -Iruntime_stub -I"$tmp/h" \
            "$tmp/h/use.c" "$tmp/h/other.c" "${RT_LIB:-build/libtkrt.a}" -o "$tmp/h/use" -ldl -lpthread 2>"$tmp/err" &&
            cc -std=c11 -Wall -Wextra -Werror -pedantic -Iruntime_stub -I"$tmp/h" -c "$tmp/h/use.c" \
                -o "$tmp/h/use11.o" 2>>"$tmp/err" &&
            ! nm "$tmp/h/use" | grep -c ' [DdRr] tk_matmul__ptx$' | grep -qv '^1$' &&
            "$tmp/h/use" >"$tmp/out" 2>&1; then
            passed
        else
            failed "launch headers as C99 and C11 (compile, link, promise checks)"
            cat "$tmp/err" "$tmp/out" 2>/dev/null | head -20
        fi
    fi
    if [ $want_cxx = 1 ]; then
        if c++ -std=c++17 -Wall -Wextra -Werror -I"${CUDA_HOME:-/usr/local/cuda}/include" -Iruntime_stub -I"$tmp/h" \
            -c "$tmp/h/use.cpp" -o "$tmp/h/use_cpp.o" 2>"$tmp/err"; then
            passed
        else
            failed "launch headers as C++ after cuda.h and cuda_runtime.h" "$tmp/err" 20
        fi
    elif [ $have_cuda_h = 0 ] && want "launch headers as C++"; then
        echo "note: C++ header check skipped (no CUDA headers)"
    fi
    # two builds of one kernel (other -D values) in one program, each
    # header included twice
    if want "two builds of one kernel in one program"; then
        if "$TKC" -D BLOCK=256 --prefix=va256 kernels/vector_add.tk -o "$tmp/two/va256.h" 2>"$tmp/err" &&
            "$TKC" -D BLOCK=1024 --prefix va1024 kernels/vector_add.tk -o "$tmp/two/va1024.h" 2>>"$tmp/err" &&
            printf '%s\n' '#define TKC_IMPLEMENTATION' '#include "va256.h"' '#include "va1024.h"' '#include "va256.h"' '#include "va1024.h"' \
                '#include <stdio.h>' '#include <string.h>' \
                'int main(void) {' \
                '    tk_status a = va256_vector_add(NULL, (const float *)4, (const float *)16, (float *)16, 1);' \
                '    tk_status b = va1024_vector_add(NULL, (const float *)4, (const float *)16, (float *)16, 1);' \
                '    if (a != TK_ERROR_MISALIGNED || b != TK_ERROR_MISALIGNED) return 1;' \
                '    if (strcmp(TK_va256_DEFINES, "BLOCK=256") || strcmp(TK_va1024_DEFINES, "BLOCK=1024")) return 2;' \
                '    printf("ok %s %s\n", TK_va256_ARCHS, TK_va1024_TKC_VERSION);' \
                '    return 0;' \
                '}' >"$tmp/two/main.c" &&
            cc -std=c99 -Wall -Wextra -Werror -pedantic ${SANFLAGS:-} -Iruntime_stub -I"$tmp/two" "$tmp/two/main.c" \
                "${RT_LIB:-build/libtkrt.a}" -o "$tmp/two/main" -ldl -lpthread 2>>"$tmp/err" &&
            "$tmp/two/main" >"$tmp/out" 2>&1; then
            passed
        else
            failed "two builds of one kernel in one program (--prefix)" "$tmp/err" 20
            cat "$tmp/out" 2>/dev/null
        fi
    fi
    # what must not compile: a pointer of another element type, and a
    # const pointer where the kernel writes (C with -Werror, and C++)
    if [ "${headers_ok:-0}" = 1 ] && want "launch headers reject wrong pointers"; then
        wrong_ok=1
        for call in "vector_add(0, (double *)0, (const float *)0, (float *)0, 1)" \
            "vector_add(0, (const float *)0, (const float *)0, (const float *)0, 1)" \
            "softmax(0, (float *)0, (const int *)0, 16, 16, 1, 1)"; do
            printf '#include "vector_add.h"\n#include "softmax.h"\ntk_status f(void) { return %s; }\n' "$call" >"$tmp/h/wrong.c"
            if cc -std=c99 -Werror -Iruntime_stub -I"$tmp/h" -c "$tmp/h/wrong.c" -o "$tmp/h/wrong.o" 2>/dev/null ||
                c++ -x c++ -Iruntime_stub -I"$tmp/h" -c "$tmp/h/wrong.c" -o "$tmp/h/wrong.o" 2>/dev/null; then
                wrong_ok=0
                echo "compiled: $call"
            fi
        done
        if [ $wrong_ok = 1 ]; then passed; else failed "launch headers reject wrong pointers"; fi
    fi
fi

# runtime_stub/tkrt.c is linked into users' programs as it is: it must build
# under the strictest flags of each standard a user may compile with.
for std in c99 c11 c++17; do
    want "runtime_stub/tkrt.c as $std" || continue
    if [ "$std" = c++17 ]; then compiler="c++ -x c++"; else compiler=cc; fi
    # shellcheck disable=SC2086
    if $compiler -std=$std -pedantic -Wall -Wextra -Werror -c runtime_stub/tkrt.c -o "$tmp/tkrt_$std.o" 2>"$tmp/err"; then
        passed
    else
        failed "runtime_stub/tkrt.c as $std (-pedantic -Wall -Wextra -Werror)" "$tmp/err" 20
    fi
done

# A generated header's launchers on the fake driver: test/runtime/TK.tk
# compiled (with any --options given), test/runtime/TEST.c built against
# its header and run (with any VAR=value given in its environment); its
# output and stderr in $tmp/out, tkc's in $tmp/err. Status 0 if the test
# printed "ok" last.
fake_header_test() { # TK TEST [--tkc-option ...] [VAR=value ...]
    tk=$1
    test=$2
    shift 2
    opts=""
    while [ $# -gt 0 ] && [ "${1#--}" != "$1" ]; do
        opts="$opts $1"
        shift
    done
    mkdir -p "$tmp/$test"
    # shellcheck disable=SC2086
    "$TKC" $opts "test/runtime/$tk.tk" -o "$tmp/$test" 2>"$tmp/err" &&
        cc -std=c99 -D_DEFAULT_SOURCE -Wall -Wextra -Werror -pedantic ${SANFLAGS:-} -Iruntime_stub -I"$tmp/$test" \
            "test/runtime/$test.c" "${RT_LIB:-build/libtkrt.a}" -o "$tmp/$test/test" -ldl -lpthread -lm 2>>"$tmp/err" &&
        env "$@" "$tmp/$test/test" "$RT_DIR/fake_libcuda.so" >"$tmp/out" 2>&1 && tail -n 1 "$tmp/out" | grep -q '^ok'
}

if [ "$UPDATE" != 1 ] && [ -n "${RT_DIR:-}" ] && [ -f "$RT_DIR/fake_libcuda.so" ]; then
    # grids and heuristics computed on the host, against the same
    # expressions in C
    if want "header grids on the fake driver"; then
        if fake_header_test header_grid header_grid_test; then
            passed
        else
            failed "header grids on the fake driver (test/runtime/header_grid_test.c)"
            cat "$tmp/err" "$tmp/out" 2>/dev/null | head -30
        fi
    fi
    # launcher signatures: f16/bf16 scalars rounded to nearest even, typed
    # pointers passed as their addresses
    if want "header types on the fake driver"; then
        if fake_header_test header_types header_types_test; then
            passed
        else
            failed "header types on the fake driver (test/runtime/header_types_test.c)"
            cat "$tmp/err" "$tmp/out" 2>/dev/null | head -30
        fi
    fi
    # descriptor parameters: tk_tensor checked and passed as a
    # tkrt_tensor_arg, directly and through the tuner
    if want "header descriptors on the fake driver"; then
        if fake_header_test header_descriptor header_descriptor_test; then
            passed
        else
            failed "header descriptors on the fake driver (test/runtime/header_descriptor_test.c)"
            cat "$tmp/err" "$tmp/out" 2>/dev/null | head -30
        fi
    fi
    # autotuning (choice, lookup, restore/reset around trials, capture,
    # threads, untimed kernels) and TKC_TUNE_VERBOSE's report of a choice
    if want "autotuning on the fake driver"; then
        if fake_header_test header_tune header_tune_test TKC_TUNE_VERBOSE=1 &&
            grep -q '^tkc tune: clobber_restore (n=100) on Fake GPU: B=32, 1.0000 ms$' "$tmp/out" &&
            grep -q '^tkc tune:   3.0000 ms  B=16$' "$tmp/out" && ! grep -q 'untuned' "$tmp/out" &&
            grep -q '^tkc tune:   (does not launch)  B=16$' "$tmp/out" &&
            grep -q '^tkc tune: prune_model (n=200) on Fake GPU: B=64, 2.0000 ms$' "$tmp/out" &&
            grep -q '^tkc tune:   (pruned)  B=16$' "$tmp/out"; then
            passed
        else
            failed "autotuning on the fake driver (test/runtime/header_tune_test.c)"
            cat "$tmp/err" "$tmp/out" 2>/dev/null | head -30
        fi
    fi
    # choices compiled in (--tune-table, --tune=off): a table made for this
    # build's code (its source hash read from a first build), with a line
    # for another device, and three that tkc leaves out with a warning
    if want "tune table compiled into a header"; then
        mkdir -p "$tmp/table"
        "$TKC" test/runtime/header_tune.tk -o "$tmp/table" 2>/dev/null
        hash=$(sed -n 's/.*TKRT_TUNER_INIT("clobber_restore", "\([0-9a-f]*\)".*/\1/p' "$tmp/table/header_tune.h")
        tab=$(printf '\t')
        {
            echo "# tkc autotuning choices"
            echo "clobber_restore${tab}${hash}${tab}Fake GPU${tab}100${tab}2${tab}BM=64"
            echo "clobber_restore${tab}${hash}${tab}Other GPU${tab}150${tab}0"
            echo "clobber_restore${tab}0123456789abcdef${tab}Fake GPU${tab}150${tab}0"
            echo "clobber_restore${tab}${hash}${tab}Fake GPU${tab}1,2${tab}0"
            echo "clobber_restore${tab}${hash}${tab}Fake GPU${tab}7${tab}9"
        } >"$tmp/table/choices"
        if [ -n "$hash" ] &&
            fake_header_test header_tune header_tune_table_test --tune-table="$tmp/table/choices" --tune=off &&
            grep -q "choices:4: the choice for 'clobber_restore' was made for other code (source hash 0123456789abcdef): left out" "$tmp/err" &&
            grep -q "choices:5: the choice for 'clobber_restore' has 2 key values, not 1: left out" "$tmp/err" &&
            grep -q "choices:6: the choice for 'clobber_restore' names config 9 of its 3: left out" "$tmp/err" &&
            [ "$(grep -c 'left out' "$tmp/err")" = 3 ]; then
            passed
        else
            failed "tune table compiled into a header (test/runtime/header_tune_table_test.c)"
            cat "$tmp/err" "$tmp/out" 2>/dev/null | head -30
        fi
    fi
fi

# C unit tests: every test/unit/NAME_test.c, which make builds into
# $(BUILD)/unit/NAME_test (UNIT_TESTS lists them; unset, build/unit/);
# each prints "ok" last. A source whose binary is not listed fails.
# (Not under UPDATE=1: nothing of theirs to rewrite, and golden-update
# builds none.)
if [ "$UPDATE" != 1 ]; then
    if [ -z "${UNIT_TESTS+set}" ]; then
        UNIT_TESTS=
        for c in test/unit/*_test.c; do
            [ -f "$c" ] && UNIT_TESTS="$UNIT_TESTS build/unit/$(basename "$c" .c)"
        done
    fi
    for t in $UNIT_TESTS; do
        want "unit test $t" || continue
        if "$t" >"$tmp/unit" 2>&1 && tail -n 1 "$tmp/unit" | grep -q '^ok'; then
            passed
        else
            failed "unit test $t" "$tmp/unit" 20
        fi
    done
    for c in test/unit/*_test.c; do
        [ -f "$c" ] || continue
        n=$(basename "$c" .c)
        built=0
        for t in $UNIT_TESTS; do
            [ "${t##*/}" = "$n" ] && built=1
        done
        if [ $built = 0 ] && want "unit test $c"; then
            failed "unit test $c: not built (UNIT_TESTS lists no $n; make test builds every test/unit/*_test.c)"
        fi
    done
fi

# the op-family GPU cases, compiled (make gpu-test runs them)
if [ "$UPDATE" != 1 ] && want "op-family compile check"; then
    if command -v python3 >/dev/null 2>&1; then
        TKC="$TKC" python3 test/gpu/ops/compile_check.py >"$tmp/ops" 2>&1
        add_counts "$tmp/ops" "op-family compile check"
    else
        echo "note: op-family compile check skipped (no python3)"
    fi
fi

# the ports of library-style kernels (test/gpu/ports), compiled with their
# generated shims (make gpu-test runs them against torch)
if [ "$UPDATE" != 1 ] && want "ports compile check"; then
    if command -v python3 >/dev/null 2>&1 && command -v "${CC:-cc}" >/dev/null 2>&1; then
        TKC="$TKC" CC="${CC:-cc}" python3 test/gpu/ports/run_ports.py --compile-only >"$tmp/ports" 2>&1
        add_counts "$tmp/ports" "ports compile check"
    else
        echo "note: ports compile check skipped (no python3 or C compiler)"
    fi
fi

# random programs of the differential tester (test/difftest/gen.py), compiled
# (make gpu-difftest runs them against Triton on a GPU)
if [ "$UPDATE" != 1 ] && want "difftest compile check"; then
    if command -v python3 >/dev/null 2>&1; then
        TKC="$TKC" python3 test/difftest/compile_check.py >"$tmp/difftest" 2>&1
        add_counts "$tmp/difftest" "difftest compile check"
    else
        echo "note: difftest compile check skipped (no python3)"
    fi
fi

# every kernel variant the GPU tests and the bench load (test/gpu/variants)
# compiles for its target, each a case: one that stops compiling (attention
# d128 causal on sm_80 once ran out of shared memory) shows here, not only
# on the GPU machine
if [ "$UPDATE" != 1 ]; then
    while read -r vname vkernel vdefines; do
        case $vname in ''|'#'*) continue ;; esac
        want "gpu variant $vname" || continue
        rm -rf "$tmp/variant"
        # build.sh's rule: kernels/, a path, or derived (bf16:)
        # shellcheck disable=SC2086
        if vsrc=$(sh test/gpu/variant_src.sh "$vkernel" "$tmp/variant" 2>"$tmp/err") &&
            "$TKC" "$vsrc" $vdefines -o "$tmp/variant/" >"$tmp/err" 2>&1; then
            passed
        else
            failed "gpu variant $vname (tkc $vsrc $vdefines)" "$tmp/err" 20
        fi
    done <test/gpu/variants
    # and the matmuls of other operand types the bench derives from
    # kernels/matmul.tk (bench/matmul_dtypes.py): tf32's f32 tiles once
    # outgrew shared memory there unnoticed
    if want "bench matmul dtypes" && command -v python3 >/dev/null 2>&1; then
        ok=1
        if MATMUL_DTYPES_OUT="$tmp/mmdt" python3 bench/matmul_dtypes.py >"$tmp/err" 2>&1; then
            while read -r vname vsrc vdefines; do
                # shellcheck disable=SC2086
                "$TKC" "$vsrc" $vdefines -o "$tmp/mmdt/" >"$tmp/err" 2>&1 || { ok=0; echo "tkc $vsrc $vdefines ($vname):"; head -6 "$tmp/err"; }
            done <"$tmp/mmdt/variants"
        else
            ok=0
            cat "$tmp/err"
        fi
        if [ $ok = 1 ]; then passed; else failed "bench matmul dtypes (bench/matmul_dtypes.py's kernels compiled)"; fi
    fi
fi

# runtime_stub's own tests (no GPU needed: a fake driver stands in)
if [ -n "${RT_DIR:-}" ] && [ -d "$RT_DIR" ] && [ "$UPDATE" != 1 ] && want "runtime tests"; then
    sh test/runtime/run.sh "$RT_DIR" >"$tmp/rt" 2>&1
    add_counts "$tmp/rt" "runtime tests"
fi

# exit statuses a build script relies on: output that cannot be written, a
# ptxas that fails, a stale cubin beside a PTX-only header
if [ "$UPDATE" != 1 ] && want "exit-status tests"; then
    TKC="$TKC" sh test/cli_status.sh >"$tmp/status" 2>&1
    add_counts "$tmp/status" "exit-status tests"
fi

# the example projects (examples/cmake, examples/make) built against a
# fresh `make install` into a temporary prefix; built again, nothing is
# redone; a .tk file touched, its header is (they run on a GPU: make
# gpu-test)
if [ "$UPDATE" != 1 ] && want "example projects"; then
    cuda=${CUDA_HOME:-/usr/local/cuda}
    if [ "${SAN:-0}" = 1 ]; then
        echo "note: example projects skipped in a sanitizer build (they link the plain runtime)"
    elif [ ! -f "$cuda/include/cuda_runtime.h" ] || [ ! -f "$cuda/lib64/libcudart_static.a" ]; then
        echo "note: example projects skipped (no CUDA runtime at $cuda)"
    elif ! make --no-print-directory install PREFIX="$tmp/prefix" >"$tmp/install" 2>&1; then
        failed "example projects: make install" "$tmp/install" 20
    else
        if make --no-print-directory -C examples/make PREFIX="$tmp/prefix" BUILD="$tmp/ex-make" \
            TKC="$tmp/prefix/bin/tkc" CUDA_HOME="$cuda" >"$tmp/ex" 2>&1 && [ -x "$tmp/ex-make/example" ] &&
            make --no-print-directory -C examples/make PREFIX="$tmp/prefix" BUILD="$tmp/ex-make" \
                TKC="$tmp/prefix/bin/tkc" CUDA_HOME="$cuda" -q 2>>"$tmp/ex" &&
            touch examples/kernels/add.tk &&
            ! make --no-print-directory -C examples/make PREFIX="$tmp/prefix" BUILD="$tmp/ex-make" \
                TKC="$tmp/prefix/bin/tkc" CUDA_HOME="$cuda" -q 2>>"$tmp/ex"; then
            passed
        else
            failed "example projects: examples/make (pkg-config, depfiles)" "$tmp/ex" 20
        fi
        if ! command -v cmake >/dev/null 2>&1; then
            echo "note: the CMake example skipped (cmake not installed)"
        elif cmake -S examples/cmake -B "$tmp/ex-cmake" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
                -DCUDAToolkit_ROOT="$cuda" >"$tmp/ex" 2>&1 &&
            cmake --build "$tmp/ex-cmake" >>"$tmp/ex" 2>&1 && [ -x "$tmp/ex-cmake/example" ] &&
            PYTHONPATH="$tmp/ex-cmake/tkc/example_python" python3 -c "import add; add.add" >>"$tmp/ex" 2>&1 &&
            cmake --build "$tmp/ex-cmake" >"$tmp/ex2" 2>&1 && ! grep -q "tkc .*\.\./kernels" "$tmp/ex2"; then
            passed
        else
            failed "example projects: examples/cmake (find_package(tkc), tkc_add_kernels, tkc_add_python_modules)" "$tmp/ex" 30
            cat "$tmp/ex2" 2>/dev/null | head -10
        fi
    fi
fi

# what tkc writes where: -o, atomic outputs, several inputs, standard
# input, depfiles, TMPDIR, where ptxas is found, -ffile-prefix-map
if [ "$UPDATE" != 1 ] && want "output-file tests"; then
    TKC="$TKC" sh test/cli_files.sh >"$tmp/files" 2>&1
    add_counts "$tmp/files" "output-file tests"
fi

# fuzzing reproducers and stress inputs, replayed through tkc; in CI also
# a fixed fuzzing run (make test builds build/fuzz/fuzz_tkc when CI=true)
if [ "$UPDATE" != 1 ]; then
    if want "fuzz replay"; then
        TKC="$TKC" sh test/fuzz/replay.sh >"$tmp/replay" 2>&1
        add_counts "$tmp/replay" "fuzz replay"
    fi
    if [ "${CI:-}" = true ] && want "CI fuzzing"; then
        sh test/fuzz/ci.sh >"$tmp/fuzz" 2>&1
        cat "$tmp/fuzz" | grep -v "passed, .* failed$"
        add_counts "$tmp/fuzz" "CI fuzzing"
    fi
fi

# the Python binding: what tkc --python writes, and the module at work on
# the fake driver (test/python/binding_test.py builds its library and a
# fake driver with the C compiler, and needs no GPU and no torch)
for src in test/golden/python/*.tk; do
    [ -f "$src" ] || continue
    name=$(basename "$src" .tk)
    py=test/golden/python/$name.py
    shim=test/golden/python/${name}_tkpy.c
    { want "$py" || want "$shim"; } || continue
    rm -rf "$tmp/py"
    if "$TKC" --python "$src" -o "$tmp/py/" 2>"$tmp/err"; then
        want "$py" && record "$py" "$py" "$tmp/py/$name.py"
        want "$shim" && record "$shim" "$shim" "$tmp/py/${name}_tkpy.c"
    else
        failed "$py (tkc --python failed)" "$tmp/err" 20
    fi
done
if [ "$UPDATE" != 1 ] && want "Python binding on the fake driver"; then
    if command -v python3 >/dev/null 2>&1 && command -v "${CC:-cc}" >/dev/null 2>&1; then
        if python3 test/python/binding_test.py "$TKC" >"$tmp/out" 2>&1 && tail -n 1 "$tmp/out" | grep -q '^ok'; then
            passed
        else
            failed "Python binding on the fake driver (test/python/binding_test.py)" "$tmp/out" 30
        fi
    else
        echo "note: Python binding test skipped (no python3 or C compiler)"
    fi
fi

for args in test/golden/cli/*.args; do
    [ -f "$args" ] || continue
    expected=${args%.args}.out
    want "$expected" || continue
    # shellcheck disable=SC2046
    (eval "set -- $(cat "$args")"; "$TKC" "$@") >"$tmp/out" 2>&1
    echo "exit status: $?" >>"$tmp/out"
    record "$expected" "$expected" "$tmp/out"
done

if command -v valgrind >/dev/null 2>&1 && [ "$UPDATE" != 1 ] && [ "${SAN:-0}" != 1 ]; then
    for src in kernels/*.tk; do
        want "valgrind $src" || continue
        if valgrind -q --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
            "$TKC" --emit=sema "$src" >/dev/null 2>"$tmp/vg"; then
            passed
        else
            failed "valgrind $src" "$tmp/vg" 30
        fi
    done
else
    skipped=0
    for src in kernels/*.tk; do
        want "valgrind $src" && skipped=1
    done
    [ $skipped = 1 ] && echo "note: valgrind checks skipped (valgrind not installed, or a sanitizer build)"
fi

if [ -n "$T" ] && [ "$matched" -eq 0 ]; then
    failed "no case matches T='$T' (a case's name: its expected file's path, or a sub-runner's name; test/run.sh lists them)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
