#!/bin/sh
# Prints the source file of a test/gpu/variants kernel column, for
# test/gpu/build.sh and test/run.sh alike: usage  variant_src.sh KERNEL DIR
#   NAME.tk        kernels/NAME.tk
#   path/NAME.tk   that file (bench/matmul_dtypes.py's generated kernels)
#   bf16:KERNEL    KERNEL with its f16 pointers and casts made bf16, written
#                  to DIR/src/NAME.tk: a stand-in for kernels generic over
#                  the element type, which tkc cannot write yet
# Fails (status 1, a message) if an f16 type outside comments is left.
set -u
kernel=$1 dir=$2
element=""
case $kernel in bf16:*) element=bf16 kernel=${kernel#bf16:} ;; esac
case $kernel in */*) src=$kernel ;; *) src=kernels/$kernel ;; esac
if [ -z "$element" ]; then
    echo "$src"
    exit 0
fi
out=$dir/src/$(basename "$kernel")
mkdir -p "$dir/src" || exit 1
sed -e 's/\*f16\b/*bf16/g' -e 's/tl\.float16/tl.bfloat16/g' "$src" > "$out" || exit 1
if grep -v '^ *#' "$out" | grep -q '\(^\|[^b]\)f16\|[^b]float16'; then
    echo "variant_src.sh: an f16 type is left in $out" >&2
    exit 1
fi
echo "$out"
