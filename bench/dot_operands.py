"""wgmma on operands held in registers (lower/dot_operands.c) against the
mma.sync an older tkc chose for them: f16 matmuls whose dot operands are
not (all) pipelined buffers, each built by two tkc binaries (TKC, and
TKC_OLD: a build from before the change) and timed side by side in one
process with CUDA events, median of 50 runs after warm-up; cuBLAS
(torch.matmul) on the same product for scale. Each result is checked
against torch first.

  unpipelined  the K loop asks num_stages=1: A and B loaded into registers
               every trip (stored into shared memory for wgmma)
  scaled_b     3 stages, B scaled in registers every trip (a dequantized
               B): A pipelined, B stored every trip for wgmma
  single_dot   one [128, 128] @ [128, 128] product a program, no loop

Usage on the GPU machine:
  TKC=build/static/tkc TKC_OLD=old/build/static/tkc python3 bench/dot_operands.py
"""

import os
import sys
import tempfile
import ctypes
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "test" / "gpu" / "ops"))
import run_ops  # noqa: E402

S = 4096
PROGRAM = """
@kernel(grid=(32 * 32,), num_warps=8)
def op(x: *f16 % 16, y: *f16 % 16, out: *f16 % 16, n: i32):
    pid = tl.program_id(0)
    rm = (pid // 32) * 128 + tl.arange(0, 128)
    rn = (pid % 32) * 128 + tl.arange(0, 128)
"""
LOOP = PROGRAM + """\
    rk = tl.arange(0, 64)
    acc = tl.zeros([128, 128], dtype=tl.float32)
    for k0 in tl.range(0, 4096, 64, num_stages=STAGES):
        a = tl.load(x + rm[:, None] * 4096 + k0 + rk[None, :])
        b = tl.load(y + (k0 + rk[:, None]) * 4096 + rn[None, :])
        acc += tl.dot(a, B)
    tl.store(out + rm[:, None] * 4096 + rn[None, :], acc.to(tl.float16))
"""
SINGLE = PROGRAM + """\
    rk = (pid % 32) * 128 + tl.arange(0, 128)
    a = tl.load(x + rm[:, None] * 4096 + rk[None, :])
    b = tl.load(y + rk[:, None] * 4096 + rn[None, :])
    tl.store(out + rm[:, None] * 4096 + rn[None, :], tl.dot(a, b).to(tl.float16))
"""
CASES = {
    "unpipelined": LOOP.replace("STAGES", "1").replace("tl.dot(a, B)", "tl.dot(a, b)"),
    "scaled_b": LOOP.replace("STAGES", "3").replace("tl.dot(a, B)", "tl.dot(a, b * 2.0)"),
    "single_dot": SINGLE,
}


def reference(name, x, y):
    if name == "single_dot":  # each program's own 128-wide slice of K
        xs = x.view(32, 128, 32, 128).float()
        ys = y.view(32, 128, 32, 128).float()
        # out[i-block, j-block] = x[i, kb(j)] @ y[kb(j), j] with kb(j) = j
        out = torch.empty(S, S, device="cuda")
        for j in range(32):
            out[:, j * 128:(j + 1) * 128] = xs[:, :, j, :].reshape(S, 128) @ ys[j, :, j, :]
        return out
    return x.float() @ (y.float() * (2.0 if name == "scaled_b" else 1.0))


def timed(fn, runs=50):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return sorted(times)[len(times) // 2]


def main():
    tkcs = {"tkc": os.environ.get("TKC", "build/static/tkc"), "tkc_old": os.environ.get("TKC_OLD")}
    work = Path(tempfile.mkdtemp(prefix="tkdotops-"))
    rt = work / "tkrt.o"
    run_ops.subprocess.run([run_ops.CC, "-O2", "-fPIC", "-std=c11", "-D_DEFAULT_SOURCE", "-c",
                            str(run_ops.ROOT / "runtime_stub" / "tkrt.c"), "-o", str(rt)], check=True)
    g = torch.Generator(device="cuda").manual_seed(3)
    x = torch.randn(S, S, device="cuda", generator=g).half()
    y = torch.randn(S, S, device="cuda", generator=g).half()
    flop = 2.0 * S ** 3
    print(f"{torch.cuda.get_device_name()}, f16 {S}^3 (single_dot: {S}x{S}x128), TFLOP/s, median of 50")
    print("| kernel | " + " | ".join(k for k, v in tkcs.items() if v) + " | cuBLAS |")
    print("|---|" + "---:|" * (sum(1 for v in tkcs.values() if v) + 1))
    for name, src in CASES.items():
        ref = reference(name, x, y)
        cols = []
        for tag, tkc in tkcs.items():
            if not tkc:
                continue
            run_ops.TKC = tkc
            lib = ctypes.CDLL(str(run_ops.build(work, rt, f"{name}_{tag}", src)))
            lib.tkshim_op.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_int32]
            out = torch.full((S, S), float("nan"), device="cuda", dtype=torch.float16)
            if lib.tkshim_op(None, x.data_ptr(), y.data_ptr(), out.data_ptr(), 0) != 0:
                cols.append("launch failed")
                continue
            torch.cuda.synchronize()
            err = (out.float() - ref).abs().max().item()
            if not err <= 0.02 * ref.abs().max().item():
                cols.append(f"wrong ({err:.3g})")
                continue
            ms = timed(lambda: lib.tkshim_op(None, x.data_ptr(), y.data_ptr(), out.data_ptr(), 0))
            cols.append(f"{(flop / 32 if name == 'single_dot' else flop) / ms / 1e9:.0f}")
        yb = y * 2.0 if name == "scaled_b" else y
        blas = timed(lambda: x @ yb) if name != "single_dot" else None
        cols.append(f"{flop / blas / 1e9:.0f}" if blas else "-")
        print(f"| {name} | " + " | ".join(cols) + " |")


if __name__ == "__main__":
    main()
