#!/bin/sh
# What tkc writes where, as a build system relies on it: -o as gcc reads it,
# folders made, outputs replaced only by a run that succeeds, several inputs
# and standard input, depfiles, TMPDIR, ptxas through CUDA_HOME then PATH,
# -ffile-prefix-map, the --arch spellings. One line per failure,
# "N passed, M failed" last.
#
#   TKC=build/tkc sh test/cli_files.sh

TKC=${TKC:-build/tkc}
case $TKC in /*) ;; *) TKC=$(pwd)/$TKC ;; esac
root=$(pwd)
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
two=test/golden/cli/two.tk
warn=test/golden/cli/warn.tk
ptxas="${CUDA_HOME:-/usr/local/cuda}/bin/ptxas"
have_ptxas=0
[ -x "$ptxas" ] && have_ptxas=1

check() { # name command...: passes when the command succeeds
    name=$1
    shift
    if "$@" >/dev/null 2>&1; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $name"
        [ -s "$tmp/err" ] && head -5 "$tmp/err"
    fi
}
exists() { for f in "$@"; do [ -f "$f" ] || return 1; done; }
absent() { for f in "$@"; do [ ! -e "$f" ] || return 1; done; }
no_temporaries() { ! ls -a "$1" | grep -q 'tkc-'; }

# ---- -o ----
"$TKC" "$two" -o "$tmp/a/b/" 2>"$tmp/err"
check "-o DIR/ makes the folders and writes DIR/NAME.h and .ptx" exists "$tmp/a/b/two.h" "$tmp/a/b/two.ptx"
[ $have_ptxas = 1 ] && check "-o DIR/ writes DIR/NAME.cubin" exists "$tmp/a/b/two.cubin"
check "-o DIR/ leaves no temporary file" no_temporaries "$tmp/a/b"
"$TKC" "$two" -o "$tmp/c/d/out.h" 2>"$tmp/err"
check "-o DIR/X.h names the header, the rest beside it" exists "$tmp/c/d/out.h" "$tmp/c/d/out.ptx"
check "-o DIR/X.h writes no folder X.h" test ! -d "$tmp/c/d/out.h"
grep -q "TK_two" "$tmp/c/d/out.h"
check "-o DIR/X.h keeps the module's name for its symbols" grep -q "tk_two__" "$tmp/c/d/out.h"
mkdir -p "$tmp/existing"
"$TKC" "$two" -o "$tmp/existing" 2>"$tmp/err"
check "-o an existing folder (no slash) writes into it" exists "$tmp/existing/two.h"
"$TKC" "$two" -o"$tmp/attached/" 2>"$tmp/err"
check "-oPATH (attached) works as -o PATH" exists "$tmp/attached/two.h"
"$TKC" --emit=ptx "$two" -o "$tmp/e/f/k.ptx" 2>"$tmp/err"
check "--emit=ptx -o FILE makes the folders and writes FILE" grep -q '.entry scale' "$tmp/e/f/k.ptx"
"$TKC" --emit=sema "$two" -o - >"$tmp/stdout" 2>"$tmp/err"
check "-o - is standard output" grep -q 'kernel scale' "$tmp/stdout"

# ---- failures leave what was there ----
mkdir -p "$tmp/keep"
echo "old header" >"$tmp/keep/two.h"
echo "old ptx" >"$tmp/keep/two.ptx"
echo "old cubin" >"$tmp/keep/two.cubin"
printf 'this is not a kernel\n' >"$tmp/bad.tk"
cp "$tmp/bad.tk" "$tmp/two.tk"
"$TKC" "$tmp/two.tk" -o "$tmp/keep/" 2>"$tmp/err"
check "an input with errors exits 1" test $? = 1
check "a failed build leaves the old header" grep -q "old header" "$tmp/keep/two.h"
check "a failed build leaves the old cubin" grep -q "old cubin" "$tmp/keep/two.cubin"
check "a failed build leaves no temporary file" no_temporaries "$tmp/keep"
# ptxas failing after the PTX is made: no new header beside the old cubin
mkdir -p "$tmp/cuda/bin"
printf '#!/bin/sh\necho "ptxas fatal : rejected for the test"\nexit 255\n' >"$tmp/cuda/bin/ptxas"
chmod +x "$tmp/cuda/bin/ptxas"
CUDA_HOME="$tmp/cuda" "$TKC" "$two" -o "$tmp/keep/" 2>"$tmp/err"
check "a failing ptxas leaves the old header" grep -q "old header" "$tmp/keep/two.h"
check "a failing ptxas leaves the old PTX" grep -q "old ptx" "$tmp/keep/two.ptx"
check "a failing ptxas leaves no temporary file" no_temporaries "$tmp/keep"
echo "old" >"$tmp/keep/k.ptx"
"$TKC" --emit=ptx "$tmp/two.tk" -o "$tmp/keep/k.ptx" 2>"$tmp/err"
check "--emit=ptx with errors leaves the old output" grep -q "^old$" "$tmp/keep/k.ptx"
# the output through a symbolic link: the file it names is replaced, the link stays
ln -s "$tmp/keep/target.ptx" "$tmp/keep/link.ptx"
"$TKC" --emit=ptx "$two" -o "$tmp/keep/link.ptx" 2>"$tmp/err"
check "-o through a symbolic link writes the file it names" grep -q '.entry scale' "$tmp/keep/target.ptx"
check "-o through a symbolic link keeps the link" test -L "$tmp/keep/link.ptx"
# a file where a folder must be made
echo x >"$tmp/file"
"$TKC" "$two" -o "$tmp/file/sub/" 2>"$tmp/err"
check "-o under a file exits 1" test $? = 1

# ---- several inputs, standard input ----
"$TKC" "$two" "$warn" -o "$tmp/many/" 2>"$tmp/err"
check "several inputs: a header each" exists "$tmp/many/two.h" "$tmp/many/warn.h"
"$TKC" --emit=ptx "$two" "$warn" -o "$tmp/many/all.ptx" 2>"$tmp/err"
check "several inputs to one --emit file: both" sh -c "grep -q '.entry scale' '$tmp/many/all.ptx' && grep -q '.entry k' '$tmp/many/all.ptx'"
"$TKC" "$two" "$tmp/bad.tk" -o "$tmp/many2/" 2>"$tmp/err"
check "several inputs, one bad: status 1" test $? = 1
check "several inputs, one bad: the good one is built" exists "$tmp/many2/two.h"
"$TKC" - -o "$tmp/in/" <"$two" 2>"$tmp/err"
check "standard input: DIR/stdin.h" grep -q "TK_stdin" "$tmp/in/stdin.h"
"$TKC" - -o "$tmp/in/named.h" <"$two" 2>"$tmp/err"
check "standard input with -o X.h: symbols named after X" grep -q "tk_named__" "$tmp/in/named.h"
"$TKC" --emit=sema - <"$warn" >/dev/null 2>"$tmp/err"
check "standard input: diagnostics name <stdin>" grep -q "^<stdin>:5:33: warning" "$tmp/err"

# ---- depfiles ----
mkdir -p "$tmp/dep dir"
cp "$two" "$tmp/dep dir/k.tk"
"$TKC" -MD "$tmp/dep dir/k.tk" -o "$tmp/deps/" 2>"$tmp/err"
check "-MD writes DIR/NAME.d beside the header" exists "$tmp/deps/k.d"
check "-MD: the header is the target" grep -q "^$tmp/deps/k.h:" "$tmp/deps/k.d"
check "-MD: spaces escaped" grep -q "dep\\\\ dir/k.tk" "$tmp/deps/k.d"
printf 'stale: line\n' >"$tmp/tune.txt"
"$TKC" -MF "$tmp/deps/x.dep" -MT mytarget -MT other -MP --tune-table "$tmp/tune.txt" "$two" -o "$tmp/deps/" 2>"$tmp/err"
check "-MF FILE -MT T -MT U: the targets" grep -q "^mytarget other:" "$tmp/deps/x.dep"
check "-MF: the tune table is a dependency" grep -q " $tmp/tune.txt" "$tmp/deps/x.dep"
check "-MP: a phony target for the tune table" grep -q "^$tmp/tune.txt:$" "$tmp/deps/x.dep"
check "-MP: none for the input" sh -c "! grep -q '^$two:' '$tmp/deps/x.dep'"
"$TKC" -MD --emit=ptx "$two" "$warn" -o "$tmp/deps/both.ptx" 2>"$tmp/err"
check "--emit -MD: OUTPUT.d with every input" sh -c "grep -q '^$tmp/deps/both.ptx:' '$tmp/deps/both.d' && grep -q ' $two' '$tmp/deps/both.d' && grep -q ' $warn' '$tmp/deps/both.d'"
"$TKC" -MD "$tmp/bad.tk" -o "$tmp/deps/bad/" 2>"$tmp/err"
check "no depfile after a failure" absent "$tmp/deps/bad/bad.d"
cat >"$tmp/Makefile" <<EOF
$tmp/mk/two.h: $root/$two
	"$TKC" -MD $root/$two -o $tmp/mk/
-include $tmp/mk/two.d
EOF
check "make reads the depfile" sh -c "make -s -f '$tmp/Makefile' >/dev/null 2>&1 && make -s -f '$tmp/Makefile' >/dev/null 2>&1 && make -q -f '$tmp/Makefile'"

# ---- modules: -I, and the depfile lists every file imported ----
mkdir -p "$tmp/mods/src" "$tmp/mods/inc"
printf 'from consts import BLOCK\n@func\ndef twice(x):\n    return x * 2.0\n' >"$tmp/mods/src/helpers.tk"
printf 'BLOCK = 32\n' >"$tmp/mods/inc/consts.tk"
printf 'import helpers\nfrom consts import BLOCK\n@kernel(grid=(1,))\ndef k(x: *f32):\n    offs = tl.arange(0, BLOCK)\n    tl.store(x + offs, helpers.twice(tl.load(x + offs)))\n' >"$tmp/mods/src/main.tk"
"$TKC" -MD -I "$tmp/mods/inc" "$tmp/mods/src/main.tk" -o "$tmp/mods/out/" 2>"$tmp/err"
check "modules: -I DIR finds an imported module" exists "$tmp/mods/out/main.h"
check "modules: the depfile lists the module beside the file" grep -q "$tmp/mods/src/helpers.tk" "$tmp/mods/out/main.d"
check "modules: the depfile lists the module from -I" grep -q "$tmp/mods/inc/consts.tk" "$tmp/mods/out/main.d"
"$TKC" "$tmp/mods/src/main.tk" -o "$tmp/mods/out2/" 2>"$tmp/err"
check "modules: without -I, an error naming where it looked" grep -q "no module 'consts': looked for $tmp/mods/src/consts.tk" "$tmp/err"

# ---- TMPDIR, ptxas through CUDA_HOME then PATH ----
if [ $have_ptxas = 1 ]; then
    mkdir -p "$tmp/t"
    TMPDIR="$tmp/t" "$TKC" "$two" -o "$tmp/tmpdir/" 2>"$tmp/err"
    check "TMPDIR: a build succeeds" exists "$tmp/tmpdir/two.cubin"
    check "TMPDIR: nothing left in it" test -z "$(ls -A "$tmp/t")"
    TMPDIR="$tmp/missing" "$TKC" "$two" -o "$tmp/tmpdir2/" 2>"$tmp/err"
    check "TMPDIR that does not exist: status 1" test $? = 1
    check "TMPDIR that does not exist: says so" grep -q "TMPDIR" "$tmp/err"
fi
# a slow ptxas, interrupted: no temporary left anywhere
mkdir -p "$tmp/slow/bin" "$tmp/t2"
printf '#!/bin/sh\nsleep 5\n' >"$tmp/slow/bin/ptxas"
chmod +x "$tmp/slow/bin/ptxas"
CUDA_HOME="$tmp/slow" TMPDIR="$tmp/t2" "$TKC" "$two" -o "$tmp/slowout/" 2>"$tmp/err" &
pid=$!
sleep 1
kill -TERM $pid
wait $pid 2>/dev/null
sleep 0.2
check "interrupted: no temporary folder in TMPDIR" test -z "$(ls -A "$tmp/t2")"
check "interrupted: no output, no temporary file" sh -c "! ls -A '$tmp/slowout' 2>/dev/null | grep -q ."
# a crash is an internal compiler error: status 3, said so, nothing left
# (the sanitizers' builds report crashes their own way)
if [ "${SAN:-0}" != 1 ]; then
    CUDA_HOME="$tmp/slow" TMPDIR="$tmp/t2" "$TKC" "$two" -o "$tmp/crashout/" 2>"$tmp/err" &
    pid=$!
    sleep 1
    kill -SEGV $pid
    wait $pid 2>/dev/null
    check "a crash exits with status 3" test $? = 3
    check "a crash says internal compiler error" grep -q "internal compiler error" "$tmp/err"
    sleep 0.2
    check "a crash leaves no temporary folder" test -z "$(ls -A "$tmp/t2")"
fi
env -u CUDA_HOME PATH="$tmp/cuda/bin:$PATH" "$TKC" "$two" -o "$tmp/path/" 2>"$tmp/err"
check "ptxas on PATH is used without CUDA_HOME" grep -q "rejected for the test" "$tmp/err"
if [ $have_ptxas = 1 ]; then
    CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" PATH="$tmp/cuda/bin:$PATH" "$TKC" "$two" -o "$tmp/path2/" 2>"$tmp/err"
    check "CUDA_HOME comes before PATH" exists "$tmp/path2/two.cubin"
fi

# ---- -ffile-prefix-map: the same bytes from two checkouts ----
for co in one two; do
    mkdir -p "$tmp/$co/src"
    cp "$two" "$tmp/$co/src/k.tk"
    "$TKC" -g -ffile-prefix-map="$tmp/$co=/checkout" "$tmp/$co/src/k.tk" -o "$tmp/$co/out/" 2>"$tmp/err"
done
check "-ffile-prefix-map: identical PTX" cmp "$tmp/one/out/k.ptx" "$tmp/two/out/k.ptx"
check "-ffile-prefix-map: identical header" cmp "$tmp/one/out/k.h" "$tmp/two/out/k.h"
check "-ffile-prefix-map: the PTX names the new path" grep -q '"/checkout/src"\|/checkout/src/k.tk' "$tmp/one/out/k.ptx"
check "-ffile-prefix-map: the old path is gone" sh -c "! grep -q '$tmp' '$tmp/one/out/k.ptx'"
"$TKC" -g "$tmp/one/src/k.tk" -o "$tmp/one/plain/" 2>"$tmp/err"
check "without it the path is there" grep -q "$tmp/one/src" "$tmp/one/plain/k.ptx"

# ---- several targets in one header ----
"$TKC" --arch=sm_90a,sm_80 "$two" -o "$tmp/multi/" 2>"$tmp/err"
check "--arch=sm_90a,sm_80: the header" grep -q 'TK_two_ARCHS "sm_80,sm_90a"' "$tmp/multi/two.h"
check "--arch=sm_90a,sm_80: the PTX is the newest target's" grep -q '^.target sm_90a' "$tmp/multi/two.ptx"
if [ $have_ptxas = 1 ]; then
    check "--arch=sm_90a,sm_80: a cubin each" exists "$tmp/multi/two.sm_80.cubin" "$tmp/multi/two.sm_90a.cubin"
    check "--arch=sm_90a,sm_80: two images, oldest first" \
        sh -c "grep -A2 'tkrt_image tk_two__images' '$tmp/multi/two.h' | tr -d '\n' | grep -q 'sm_80.*sm_90a'"
    "$TKC" --arch=all "$two" -o "$tmp/all/" 2>"$tmp/err"
    check "--arch=all: five cubins" test "$(ls "$tmp/all/"*.cubin | wc -l)" = 5
fi
# without a toolkit: PTX only, and the cubins of an earlier build are removed
mkdir -p "$tmp/nocuda" "$tmp/stale"
echo old >"$tmp/stale/two.sm_80.cubin"
echo old >"$tmp/stale/two.sm_90a.cubin"
CUDA_HOME="$tmp/nocuda" "$TKC" --arch=sm_80,sm_90a "$two" -o "$tmp/stale/" 2>"$tmp/err"
check "several targets, no toolkit: the stale cubins are removed" absent "$tmp/stale/two.sm_80.cubin" \
    "$tmp/stale/two.sm_90a.cubin"
check "several targets, no toolkit: the header" exists "$tmp/stale/two.h"
printf '#define TKC_IMPLEMENTATION\n#include "two.h"\nint main(void) { return scale(0, (float *)0, 0) == TK_SUCCESS; }\n' \
    >"$tmp/multi/main.c"
check "a multi-target header compiles and links (C99)" cc -std=c99 -pedantic -Wall -Wextra -Werror \
    -I"$root/runtime_stub" -I"$tmp/multi" "$tmp/multi/main.c" "$root/runtime_stub/tkrt.c" -o "$tmp/multi/main" \
    -ldl -lpthread

# ---- __prefix__: the file's default --prefix ----
printf '__prefix__ = "fast"\n@kernel(grid=(1,))\ndef k(x: *f32):\n    tl.store(x, 1.0)\n' >"$tmp/pf.tk"
"$TKC" --emit=header "$tmp/pf.tk" -o "$tmp/pf.h" 2>"$tmp/err"
check "__prefix__ names the launchers" grep -q 'tk_status fast_k(' "$tmp/pf.h"
"$TKC" --emit=header --prefix=other "$tmp/pf.tk" -o "$tmp/pf.h" 2>"$tmp/err"
check "--prefix overrides __prefix__" grep -q 'tk_status other_k(' "$tmp/pf.h"

# ---- option spellings ----
for spelling in "--arch=sm_80" "--arch sm_80" "-arch=sm_80" "-arch sm_80" "--gpu-architecture=sm_80" \
    "--gpu-architecture sm_80"; do
    # shellcheck disable=SC2086
    "$TKC" --emit=ptx $spelling "$two" -o "$tmp/arch.ptx" 2>"$tmp/err"
    check "$spelling" grep -q '^.target sm_80' "$tmp/arch.ptx"
done
"$TKC" --emit ptx --kernel scale "$two" -o "$tmp/sep.ptx" 2>"$tmp/err"
check "--emit ptx (separate value)" grep -q '.entry scale' "$tmp/sep.ptx"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
