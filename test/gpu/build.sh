#!/bin/sh
# Builds every kernel variant listed in test/gpu/variants for the GPU tests and
# the benchmarks: tkc writes NAME.ptx, NAME.cubin and NAME.h into
# build/gpu/VARIANT/, and a shim library build/gpu/VARIANT/libtkshim.so
# (test/gpu/shims/NAME.c + runtime_stub/tkrt.c) exposes the launcher to ctypes.
#
# Needs no GPU and no CUDA headers (the header and the runtime load the driver
# with dlopen), so it also runs on the build machine. Where tkc cannot run
# (the GPU machine may lack the shared libraries it links, libLLVM among
# them), the kernels compiled earlier into build/gpu/ are used as they are
# and only the shim libraries are rebuilt: run this script on the build
# machine first and carry build/ over.
#
# A variant that fails is reported and skipped; the others are still built,
# so one broken kernel does not hide the results of the rest. Exit status 1
# if any variant failed.
#
# Environment: TKC (default build/tkc), CC (default gcc), TK_GPU_DIR (default
# build/gpu), TKRT_DIR (default runtime_stub).
set -u
cd "$(dirname "$0")/../.." || exit 1

TKC=${TKC:-build/tkc}
CC=${CC:-gcc}
GPU_DIR=${TK_GPU_DIR:-build/gpu}
TKRT_DIR=${TKRT_DIR:-runtime_stub}

if "$TKC" --version >/dev/null 2>&1; then
    run_tkc=1
else
    run_tkc=0
    echo "build.sh: $TKC does not run here:" >&2
    "$TKC" --version 2>&1 | sed 's/^/    /' >&2
    echo "build.sh: using the kernels already compiled in $GPU_DIR/ (from the build machine)" >&2
fi
mkdir -p "$GPU_DIR"

CFLAGS="-O2 -fPIC -fvisibility=hidden -Wall -Wextra"
# $CFLAGS and $defines are split into words on purpose below.
# shellcheck disable=SC2086
if ! $CC $CFLAGS -I"$TKRT_DIR" -c "$TKRT_DIR/tkrt.c" -o "$GPU_DIR/tkrt.o"; then
    echo "build.sh: FAILED to compile $TKRT_DIR/tkrt.c" >&2
    exit 1
fi

failed=""
while read -r name kernel defines; do
    case $name in ''|'#'*) continue ;; esac
    base=$(basename "${kernel#bf16:}" .tk)
    dir=$GPU_DIR/$name
    # A library from an earlier build must not outlive a failure now.
    rm -f "$dir/libtkshim.so"
    if [ "$run_tkc" = 1 ]; then
        # Start empty, so files left by an earlier build cannot stand in for
        # ones this tkc failed to write.
        rm -rf "$dir"
        mkdir -p "$dir"
        # the source: kernels/, a path, or derived (bf16:) into $dir/src/
        if ! src=$(sh test/gpu/variant_src.sh "$kernel" "$dir"); then
            echo "build.sh: FAILED: $name: no source" >&2
            failed="$failed $name"
            continue
        fi
        printf '  TKC     %-24s %s %s\n' "$name" "$src" "$defines"
        # shellcheck disable=SC2086
        if ! "$TKC" $defines "$src" -o "$dir"; then
            echo "build.sh: FAILED: tkc on $name" >&2
            failed="$failed $name"
            continue
        fi
    fi
    missing=""
    for ext in ptx cubin h; do
        [ -s "$dir/$base.$ext" ] || missing="$missing $base.$ext"
    done
    if [ -n "$missing" ]; then
        if [ "$run_tkc" = 1 ]; then
            echo "build.sh: FAILED: tkc exited 0 on $name but did not write:$missing" >&2
        else
            echo "build.sh: FAILED: $name: no prebuilt$missing in $dir" >&2
        fi
        failed="$failed $name"
        continue
    fi
    printf '  SHIM    %-24s %s\n' "$name" "$dir/libtkshim.so"
    # shellcheck disable=SC2086
    if ! $CC $CFLAGS -shared -I"$TKRT_DIR" -I"$dir" -Itest/gpu/shims \
            "test/gpu/shims/$base.c" "$GPU_DIR/tkrt.o" -o "$dir/libtkshim.so" -ldl -lpthread; then
        echo "build.sh: FAILED: compiling the shim for $name" >&2
        failed="$failed $name"
        continue
    fi
done < "${VARIANTS:-test/gpu/variants}"

# The Python modules of test/gpu/python_modules (with the whole list only):
# tkc --python --shared, into $GPU_DIR/py/. Where tkc cannot run, those
# built on the build machine are used as they are.
if [ -z "${VARIANTS:-}" ] && [ "$run_tkc" = 1 ]; then
    mkdir -p "$GPU_DIR/py"
    while read -r name src defines; do
        case $name in ''|'#'*) continue ;; esac
        rm -f "$GPU_DIR/py/$name.py" "$GPU_DIR/py/${name}_tkpy.so"
        printf '  PYTHON  %-24s %s %s\n' "$name" "$src" "$defines"
        # shellcheck disable=SC2086
        if ! CC=$CC "$TKC" --python --shared $defines "$src" -o "$GPU_DIR/py/$name.h"; then
            echo "build.sh: FAILED: tkc --python on $name" >&2
            failed="$failed py/$name"
        fi
    done < test/gpu/python_modules
fi

if [ -n "$failed" ]; then
    echo "build.sh: variants that failed:$failed" >&2
    exit 1
fi
echo "build.sh: all variants built in $GPU_DIR/"
