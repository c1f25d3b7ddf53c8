"""A matmul whose B is converted after its load, as mixed-precision GEMMs
write it: f16 B scaled, `(b * s).to(f16)`, and int8 weights with a scale
per column, `b.to(f16) * scale[None, :]`. lower/pipeline_dot.c stages such
a load as it is loaded and converts it where the load stood, in the dot
operand's layout. The same kernel in tkc (and, with TKC_BEFORE, the same
source built by an earlier tkc) and in Triton 3.6, autotuned over nothing:
one config each, 128x128x64, 4 warps, 3 stages, so that the ratio is the
code's. One process, outputs checked against torch first, medians of 7
interleaved do_bench rounds.

    TKC=build/static/tkc [TKC_BEFORE=...] [TKC_ARCH=sm_80] python3 bench/converted_operand.py
"""
import ctypes
import os
import subprocess
import tempfile
from pathlib import Path

import torch
import triton
import triton.language as tl

from oneshim import runtime_object, shim_library

ROOT = Path(__file__).resolve().parents[1]
TKC = os.environ.get("TKC", str(ROOT / "build" / "tkc"))
ARCH = os.environ.get("TKC_ARCH")

SOURCE = """
@kernel(grid=(cdiv(M, BM) * cdiv(N, BN),), num_warps=4, num_stages=3)
def mm(a: *f16 % 16, b: *BT % 16, scale: *f32 % 16, c: *f16 % 16, M: i32, N: i32, K: i32 % 16,
       BT: constexpr = f16, BM: constexpr = 128, BN: constexpr = 128, BK: constexpr = 64):
    pid = tl.program_id(0)
    pid_m = pid // cdiv(N, BN)
    pid_n = pid % cdiv(N, BN)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    s = tl.load(scale + rn, mask=rn < N, other=1.0).to(tl.float16)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + k0 + rk[None, :], mask=(rm[:, None] < M) & (k0 + rk[None, :] < K), other=0.0)  # tkc: no-int32-offset
        y = tl.load(b + (k0 + rk[:, None]) * N + rn[None, :], mask=(k0 + rk[:, None] < K) & (rn[None, :] < N), other=0)  # tkc: no-int32-offset
        if BT == tl.float16:
            y = (y * 0.5).to(tl.float16)
        else:
            y = y.to(tl.float16) * s[None, :]
        acc = tl.dot(x, y, acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.float16),  # tkc: no-int32-offset
             mask=(rm[:, None] < M) & (rn[None, :] < N))
"""

SHIM = """
#include <stdint.h>
__attribute__((visibility("default"))) int shim(void *stream, void *a, void *b, void *s, void *c, int32_t M,
                                                int32_t N, int32_t K) {
    return (int)mm(stream, a, b, s, c, M, N, K);
}
"""


@triton.jit
def triton_mm(a, b, scale, c, M, N, K, INT8: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
              BK: tl.constexpr):
    pid = tl.program_id(0)
    pid_m = pid // tl.cdiv(N, BN)
    pid_n = pid % tl.cdiv(N, BN)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    s = tl.load(scale + rn, mask=rn < N, other=1.0).to(tl.float16)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + k0 + rk[None, :], mask=(rm[:, None] < M) & (k0 + rk[None, :] < K), other=0.0)
        y = tl.load(b + (k0 + rk[:, None]) * N + rn[None, :], mask=(k0 + rk[:, None] < K) & (rn[None, :] < N), other=0)
        if INT8:
            y = y.to(tl.float16) * s[None, :]
        else:
            y = (y * 0.5).to(tl.float16)
        acc = tl.dot(x, y, acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def build(work, name, tkc, bt):
    rt = runtime_object(work)
    d = work / name
    d.mkdir()
    (d / "k.tk").write_text(SOURCE)
    flags = [f"--arch={ARCH}"] if ARCH else []
    r = subprocess.run([tkc, *flags, "--stats", "-D", f"BT={bt}", str(d / "k.tk"), "-o", str(d)],
                       capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(f"{name}: tkc failed:\n{r.stderr}")
    print(f"{name}: " + " ".join(line for line in r.stderr.splitlines() if "registers" in line), flush=True)
    lib = shim_library(d, SHIM, rt)
    lib.shim.argtypes = [ctypes.c_void_p] * 5 + [ctypes.c_int32] * 3
    return lib


def main():
    work = Path(tempfile.mkdtemp(prefix="tkconv-"))
    stream = torch.cuda.current_stream().cuda_stream
    print(f"{torch.cuda.get_device_name()}; TFLOP/s, medians of 7 interleaved do_bench rounds", flush=True)
    for bt in ("f16", "i8"):
        libs = {"tkc": build(work, f"now_{bt}", TKC, bt)}
        if os.environ.get("TKC_BEFORE"):
            libs["tkc before"] = build(work, f"before_{bt}", os.environ["TKC_BEFORE"], bt)
        for M, N, K in ((4096, 4096, 4096), (8192, 8192, 8192), (3000, 5000, 2000)):
            g = torch.Generator(device="cuda").manual_seed(1)
            a = torch.randn(M, K, device="cuda", generator=g).half()
            s = (torch.rand(N, device="cuda", generator=g) + 0.5).float()
            if bt == "f16":
                b = torch.randn(K, N, device="cuda", generator=g).half()
                want = a.float() @ (b.float() * 0.5).half().float()
            else:
                b = torch.randint(-127, 128, (K, N), device="cuda", generator=g, dtype=torch.int8)
                want = a.float() @ (b.half() * s.half()[None, :]).float()
            fs = {}
            for name, lib in libs.items():
                c = torch.full((M, N), float("nan"), device="cuda").half()
                args = (stream, a.data_ptr(), b.data_ptr(), s.data_ptr(), c.data_ptr(), M, N, K)
                assert lib.shim(*args) == 0
                torch.cuda.synchronize()
                err = ((c.float() - want).abs().max() / want.abs().max()).item()
                assert err < 1e-2, f"{name}: relative error {err}"
                fs[name] = lambda lib=lib, args=args: lib.shim(*args)
            ct = torch.empty(M, N, device="cuda").half()
            grid = (triton.cdiv(M, 128) * triton.cdiv(N, 128),)
            run_triton = lambda: triton_mm[grid](a, b, s, ct, M, N, K, bt == "i8", 128, 128, 64,  # noqa: E731
                                                 num_warps=4, num_stages=3)
            run_triton()
            torch.cuda.synchronize()
            err = ((ct.float() - want).abs().max() / want.abs().max()).item()
            assert err < 1e-2, f"triton: relative error {err}"
            fs["triton"] = run_triton
            rounds = [{k: triton.testing.do_bench(f, warmup=25, rep=100) for k, f in fs.items()} for _ in range(7)]
            med = {k: sorted(r[k] for r in rounds)[3] for k in fs}
            tf = {k: 2 * M * N * K / v * 1e-9 for k, v in med.items()}
            row = ", ".join(f"{k} {v:.0f}" for k, v in tf.items())
            print(f"B {bt} {M}x{N}x{K}: {row}; tkc/triton {med['triton'] / med['tkc']:.2f}x", flush=True)


if __name__ == "__main__":
    main()
