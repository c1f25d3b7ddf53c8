#!/bin/sh
# tkc's exit status where a build script depends on it: never 0 after a
# failure, never a crash. One line per failure, "N passed, M failed" last.
#
#   TKC=build/tkc sh test/cli_status.sh

TKC=${TKC:-build/tkc}
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=kernels/vector_add.tk

expect() { # name wanted-status actual-status
    if [ "$2" = "$3" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $1: exit status $3, expected $2"
        head -5 "$tmp/err" 2>/dev/null
    fi
}

# output that cannot be written: an error, never 0 and never a crash
if [ -w /dev/full ]; then
    for stage in tokens ast sema tir tir-gpu llvm ptx header; do
        "$TKC" --emit=$stage "$src" -o /dev/full 2>"$tmp/err"
        expect "--emit=$stage -o /dev/full" 1 $?
        "$TKC" --emit=$stage "$src" >/dev/full 2>"$tmp/err"
        expect "--emit=$stage >/dev/full" 1 $?
    done
    "$TKC" --help >/dev/full 2>"$tmp/err"
    expect "--help >/dev/full" 1 $?
    "$TKC" --version >/dev/full 2>"$tmp/err"
    expect "--version >/dev/full" 1 $?
    "$TKC" "$src" -o /dev/full 2>"$tmp/err"
    expect "full build into /dev/full" 1 $?
fi

# a ptxas that rejects the PTX: an internal compiler error (status 3: tkc
# wrote PTX its own assembler rejects) with ptxas's message, -Werror or not
mkdir -p "$tmp/cuda/bin"
printf '#!/bin/sh\necho "ptxas fatal : rejected for the test"\nexit 255\n' >"$tmp/cuda/bin/ptxas"
chmod +x "$tmp/cuda/bin/ptxas"
for flags in "" "-Werror"; do
    CUDA_HOME="$tmp/cuda" "$TKC" $flags "$src" -o "$tmp/out" 2>"$tmp/err"
    expect "failing ptxas $flags" 3 $?
    grep -q "rejected for the test" "$tmp/err" || { fail=$((fail + 1)); echo "FAIL failing ptxas: its message is not shown"; }
    CUDA_HOME="$tmp/cuda" "$TKC" $flags --emit=cubin "$src" -o "$tmp/k.cubin" 2>"$tmp/err"
    expect "failing ptxas --emit=cubin $flags" 3 $?
done
if [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/ptxas" ]; then
    "$TKC" --emit=cubin "$src" -o /dev/full 2>"$tmp/err"
    expect "--emit=cubin -o /dev/full" 1 $?
    # ptxas rejecting the user's inline assembly is the user's error, at
    # the asm, with ptxas's words; tkc's own PTX is not blamed
    cat >"$tmp/bad_asm.tk" <<'TK'
@kernel(grid=(cdiv(n, BLOCK),))
def bad_asm(x_ptr: *f32, y_ptr: *f32, n: i32, BLOCK: constexpr = 128):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.inline_asm_elementwise("frobnicate.f32 $0, $1;", "=f,f", [x], dtype=tl.float32, is_pure=True, pack=1)
    tl.store(y_ptr + offs, y, mask=mask)
TK
    for emit in "" "--emit=cubin"; do
        "$TKC" $emit "$tmp/bad_asm.tk" -o "$tmp/bad_asm_out" 2>"$tmp/err"
        expect "inline asm that ptxas rejects $emit" 1 $?
        if grep -q "bad_asm.tk:6:9: error: ptxas -arch=sm_[0-9a]* rejected the PTX, which holds this inline assembly" \
            "$tmp/err" && grep -q "frobnicate" "$tmp/err" && ! grep -q "internal compiler error" "$tmp/err"; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
            echo "FAIL inline asm that ptxas rejects $emit: not reported at the asm with ptxas's message"
            head -8 "$tmp/err"
        fi
    done
fi

# no toolkit: a PTX-only header, and no cubin of an earlier build beside it
mkdir -p "$tmp/build"
echo "an old cubin" >"$tmp/build/vector_add.cubin"
CUDA_HOME="$tmp/none" "$TKC" "$src" -o "$tmp/build" 2>"$tmp/err"
expect "no toolkit" 0 $?
if [ -e "$tmp/build/vector_add.cubin" ]; then
    fail=$((fail + 1))
    echo "FAIL no toolkit: a stale vector_add.cubin is left beside the new PTX-only header"
else
    pass=$((pass + 1))
fi
grep -q "tk_vector_add__cubin" "$tmp/build/vector_add.h" && { fail=$((fail + 1)); echo "FAIL no toolkit: the header embeds a cubin"; }

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
