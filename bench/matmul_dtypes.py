#!/usr/bin/env python3
"""Writes kernels/matmul.tk for other operand types into
build/gpu/src/TYPE/matmul.tk (make bench; the name kept, so that the
matmul shim serves): bf16, f32 (tl.dot's default tf32), f8e4m3 (f16 result)
and i8 (i32 accumulator and result), the last three also with B K-major
(TYPE_bt), and a variants list for test/gpu/build.sh with the 128x256x64
and 128x128x64 configs of each. tkc has no type
parameters yet, so the bench derives these from matmul.tk by replacing its
types; each replacement must match, so that a change to matmul.tk that
breaks one fails here instead of benchmarking something else."""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# MATMUL_DTYPES_OUT: another folder (make test compiles every one there)
OUT = Path(os.environ.get("MATMUL_DTYPES_OUT", ROOT / "build" / "gpu" / "src")).resolve()

# name: [(text in matmul.tk, replacement, times it must occur)]
EDITS = {
    "bf16": [("*f16 % 16", "*bf16 % 16", 3), ("acc.to(tl.float16)", "acc.to(tl.bfloat16)", 1)],
    # f32 tiles take twice the shared memory: a config that does not fit is
    # left out of the build (as Triton prunes one), so tf32 asks for the
    # depth that fits, 2 of c0's 3 stages and 3 of c2's 4; two configs of
    # 32-wide K steps in place of the 128x64 and 64x128 ones, which tf32
    # runs fastest with (TF32_CONFIGS)
    "tf32": [("*f16 % 16", "*f32 % 16", 3), ("c = acc.to(tl.float16)", "c = acc", 1),
             ("BN=256, BK=64, GROUP_M=8, num_warps=8, num_stages=3)",
              "BN=256, BK=64, GROUP_M=8, num_warps=8, num_stages=2)", 1),
             ("BN=128, BK=64, GROUP_M=8, num_warps=4, num_stages=4)",
              "BN=128, BK=64, GROUP_M=8, num_warps=4, num_stages=3)", 1),
             ("BM=128, BN=64, BK=32, GROUP_M=8, num_warps=4, num_stages=4)",
              "BM=256, BN=128, BK=32, GROUP_M=8, num_warps=8, num_stages=4)", 1),
             ("BM=64, BN=128, BK=32, GROUP_M=8, num_warps=4, num_stages=4)",
              "BM=128, BN=256, BK=32, GROUP_M=8, num_warps=8, num_stages=4)", 1)],
    "f8": [("A: *f16 % 16, B: *f16 % 16", "A: *f8e4m3 % 16, B: *f8e4m3 % 16", 1)],
    "i8": [("A: *f16 % 16, B: *f16 % 16, C: *f16 % 16", "A: *i8 % 16, B: *i8 % 16, C: *i32 % 16", 1),
           ("dtype=tl.float32)", "dtype=tl.int32)", 1), ("other=0.0", "other=0", 2),
           ("tl.dot(a, b, acc)", "tl.dot(a, b, acc, out_dtype=tl.int32)", 1),
           ("c = acc.to(tl.float16)", "c = acc", 1)],
}
# B K-major ("_bt": B's element (k, n) at B + n * stride_bn, stride_bk 1),
# as Triton's tutorial 03 feeds fp8 (b.T): wgmma takes tf32, fp8 and i8
# operands K-major only
B_KMAJOR = ("stride_bk: i32 % 16, stride_bn: i32 == 1", "stride_bk: i32 == 1, stride_bn: i32 % 16", 1)
for _name in ("tf32", "f8", "i8"):
    EDITS[_name + "_bt"] = EDITS[_name] + [B_KMAJOR]
CONFIGS = {"c0": "-D BM=128 -D BN=256 -D BK=64", "c2": "-D BM=128 -D BN=128 -D BK=64"}
# tf32's own configs of 32-wide K steps (the ones its edits put in; bench.py
# times them beside Triton at the same): (BM, BN, BK, GROUP_M, warps, stages)
TF32_CONFIGS = {"k0": (256, 128, 32, 8, 8, 4), "k1": (128, 256, 32, 8, 8, 4)}


def derive(name):
    """kernels/matmul.tk with the operand types of `name` (an EDITS key)"""
    text = (ROOT / "kernels" / "matmul.tk").read_text()
    for old, new, times in EDITS[name]:
        if text.count(old) != times:
            sys.exit(f"matmul_dtypes.py: kernels/matmul.tk has {text.count(old)} of {old!r}, expected {times}")
        text = text.replace(old, new)
    return text


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    lines = []
    tf32 = {k: f"-D BM={c[0]} -D BN={c[1]} -D BK={c[2]}" for k, c in TF32_CONFIGS.items()}
    for name in EDITS:
        path = OUT / name / "matmul.tk"
        path.parent.mkdir(exist_ok=True)
        path.write_text(derive(name))
        configs = {**CONFIGS, **tf32} if name.startswith("tf32") else CONFIGS
        for cfg, defines in configs.items():
            shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            lines.append(f"matmul_{name}_{cfg} {shown} {defines}")
    (OUT / "variants").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
