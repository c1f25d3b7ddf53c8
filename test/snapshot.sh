#!/bin/sh
# Writes everything tkc produces for every .tk file in kernels/ and test/
# (and every generated GPU op case) into DIR: tir, tir-gpu, PTX and header
# per target, each with tkc's messages and exit status. A restructuring
# that changes no output leaves two snapshots identical:
#   sh test/snapshot.sh /tmp/before; (change); sh test/snapshot.sh /tmp/after
#   diff -r /tmp/before /tmp/after
# ARCHS (default "sm_80 sm_90a") picks the targets.
set -u
TKC=$(realpath "${TKC:-build/tkc}")
ARCHS=${ARCHS:-"sm_80 sm_90a"}
out=${1:?usage: test/snapshot.sh DIR}
rm -rf "$out" && mkdir -p "$out/src"
export NO_COLOR=1
find kernels test -name '*.tk' | sort | while read -r f; do
    cp "$f" "$out/src/$(echo "$f" | tr / _)"
done
if command -v python3 >/dev/null 2>&1; then
    python3 - "$out/src" <<'PY'
import sys
from pathlib import Path
sys.path.insert(0, "test/gpu/ops")
import cases as C, regressions as R
d = Path(sys.argv[1])
for i, case in enumerate(C.cases()):
    (d / f"gpu_case_{i:04d}.tk").write_text(C.source(case))
for i, (name, src, _) in enumerate(R.CASES):
    (d / f"gpu_regression_{i:04d}.tk").write_text(src)
PY
fi
# run from the snapshot folder with relative paths, and temporary file
# names masked, so two snapshots compare equal wherever they are
run() { # output-file tkc-arguments...
    f=$1
    shift
    (cd "$out" && "$TKC" "$@") >"$f" 2>&1
    echo "exit status: $?" >>"$f"
    sed -i 's/tkc-[A-Za-z0-9]\{6\}/tkc-XXXXXX/g' "$f"
}
for src in "$out"/src/*.tk; do
    name=$(basename "$src" .tk)
    for stage in tir tir-gpu; do
        run "$out/$name.$stage" --emit=$stage "src/$name.tk"
    done
    for arch in $ARCHS; do
        for stage in ptx header; do
            run "$out/$name.$arch.$stage" --emit=$stage --arch=$arch "src/$name.tk"
        done
    done
done
echo "snapshot of $(ls "$out"/src | wc -l) sources in $out"
