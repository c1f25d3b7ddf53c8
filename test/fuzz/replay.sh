#!/bin/sh
# make test's replay of the fuzzing reproducers and stress inputs: every
# test/fuzz/*.tk, and generated programs of many statements and many
# kernels, through `tkc --emit=ptx`. Each must end within its time limit
# with status 0 (compiled) or 1 (refused with diagnostics), never a crash,
# a signal or an internal error. Last line: "N passed, M failed".
#
#   TKC=build/tkc sh test/fuzz/replay.sh

TKC=${TKC:-build/tkc}
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

replay() { # file seconds
    timeout "$2" "$TKC" --emit=ptx "$1" -o "$tmp/out.ptx" >"$tmp/out" 2>&1
    status=$?
    if { [ $status -eq 0 ] || [ $status -eq 1 ]; } && ! grep -q "internal" "$tmp/out"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        case $status in 124) why="no result in $2 s" ;; 0|1) why="an internal error" ;; *) why="exit status $status" ;; esac
        echo "FAIL fuzz replay $1: $why"
        head -5 "$tmp/out"
    fi
}

for f in test/fuzz/*.tk; do
    [ -f "$f" ] && replay "$f" 60
done

# 20,000 statements (lowering was worse than quadratic: 43 s) and 2,000
# kernels of one file: generous limits, far above today's times
awk 'BEGIN {
    print "@kernel(grid=(1,), num_warps=4)"
    print "def op(x: *f32 % 16, n: i32):"
    print "    a = tl.load(x + tl.arange(0, 128))"
    for (i = 0; i < 20000; i++) printf "    a = a * 1.0001 + %d.0\n", i % 7
    print "    tl.store(x + tl.arange(0, 128), a)"
}' >"$tmp/statements.tk"
replay "$tmp/statements.tk" 120
awk 'BEGIN {
    for (i = 0; i < 2000; i++) {
        print "@kernel(grid=(cdiv(n, 128),), num_warps=4)"
        printf "def k%d(x: *f32, n: i32):\n", i
        print "    o = tl.program_id(0) * 128 + tl.arange(0, 128)"
        printf "    tl.store(x + o, tl.load(x + o, mask=o < n) * %d.0, mask=o < n)\n", i
    }
}' >"$tmp/kernels.tk"
replay "$tmp/kernels.tk" 120

# past 256 entries ptxas gets the module in pieces, linked by nvlink: the
# full build of 300 kernels (600 entries) must give a cubin
if [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvlink" ]; then
    head -n 1200 "$tmp/kernels.tk" >"$tmp/k300.tk"
    mkdir -p "$tmp/k300"
    if timeout 300 "$TKC" "$tmp/k300.tk" -o "$tmp/k300/" >"$tmp/out" 2>&1 && [ -s "$tmp/k300/k300.cubin" ] &&
        grep -q "tk_k300__cubin" "$tmp/k300/k300.h"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL 300 kernels in one file: no linked cubin"
        head -5 "$tmp/out"
    fi
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
