#!/bin/sh
# The test runner of `make test`. Every case compares tkc's real output with
# a reviewed expected file; the last line is "N passed, M failed".
#
#   test/golden/<stage>/NAME.tk  beside  NAME.tokens | NAME.ast | NAME.sema | NAME.err
#   test/golden/kernels/NAME.*   expected dumps of kernels/NAME.tk
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

for src in kernels/*.tk; do
    name=$(basename "$src" .tk)
    for stage in tokens ast sema; do
        expected=test/golden/kernels/$name.$stage
        if [ -f "$expected" ] || [ "$UPDATE" = 1 ]; then
            [ -f "$expected" ] || : >"$expected"
            emit_case "$src" "$expected" "$stage" "$expected"
        else
            fail=$((fail + 1))
            echo "FAIL $expected is missing"
        fi
    done
done

for args in test/golden/cli/*.args; do
    [ -f "$args" ] || continue
    # shellcheck disable=SC2046
    (eval "set -- $(cat "$args")"; "$TKC" "$@") >"$tmp/out" 2>&1
    echo "exit status: $?" >>"$tmp/out"
    record "$args" "${args%.args}.out" "$tmp/out"
done

if command -v valgrind >/dev/null 2>&1 && [ "$UPDATE" != 1 ] && [ "${SAN:-0}" != 1 ]; then
    for src in kernels/*.tk; do
        if valgrind -q --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=all \
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
