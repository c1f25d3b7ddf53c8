"""What launch-time specialization buys a Triton-style kernel that promises
nothing (lower/specialize.c): one .tk kernel with strides and sizes left to
the launcher, built three times by the same tkc, with --specializations=1 (the
general version only), with the default (4) and with 5 (a fifth version,
`_t_d16`, for x's first-dimension stride 1: x transposed, loaded down its
columns and converted once), timed side by side in one process on
contiguous and strided f16 inputs, against the same computation in torch.
Outputs are checked against torch first.

    TKC=build/static/tkc python3 bench/specialize.py
"""
import ctypes
import os
import subprocess
import tempfile
from pathlib import Path

import torch
import triton

from oneshim import runtime_object, shim_library

ROOT = Path(__file__).resolve().parents[1]
TKC = os.environ.get("TKC", str(ROOT / "build" / "tkc"))

SOURCE = """
import triton.language as tl

@kernel(grid=(cdiv(M, BM), cdiv(N, BN)), num_warps=4)
def add2d(x: *f16, y: *f16, out: *f16, M: i32, N: i32, sxm: i32, sxn: i32, sym: i32, syn: i32,
          som: i32, son: i32, BM: constexpr = 64, BN: constexpr = 128):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    m = (rm[:, None] < M) & (rn[None, :] < N)
    a = tl.load(x + rm[:, None] * sxm + rn[None, :] * sxn, mask=m)  # tkc: no-int32-offset
    b = tl.load(y + rm[:, None] * sym + rn[None, :] * syn, mask=m)  # tkc: no-int32-offset
    tl.store(out + rm[:, None] * som + rn[None, :] * son, a + b, mask=m)  # tkc: no-int32-offset
"""

SHIM = """
#include <stdint.h>
__attribute__((visibility("default"))) int shim(void *stream, void *x, void *y, void *out, int32_t M, int32_t N,
                                                int32_t a, int32_t b, int32_t c, int32_t d, int32_t e, int32_t f) {
    return (int)add2d(stream, x, y, out, M, N, a, b, c, d, e, f);
}
"""


def build(work, name, flags):
    rt = runtime_object(work)
    d = work / name
    d.mkdir()
    (d / "k.tk").write_text(SOURCE)
    subprocess.run([TKC, *flags, str(d / "k.tk"), "-o", str(d)], check=True)
    lib = shim_library(d, SHIM, rt)
    lib.shim.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_int32] * 8
    return lib


def main():
    work = Path(tempfile.mkdtemp(prefix="tkspec-"))
    libs = {"general only": build(work, "one", ["--specializations=1"]), "specialized": build(work, "four", []),
            "five versions": build(work, "five", ["--specializations=5"])}
    stream = torch.cuda.current_stream().cuda_stream
    print(f"{torch.cuda.get_device_name()}; medians of 7 interleaved do_bench rounds, GB/s (3 f16 tensors)")
    for M, N in ((8192, 8192), (8192, 8000), (4096, 4099)):
        for layout in ("contiguous", "x transposed"):
            x = torch.randn(M, N, device="cuda").half()
            if layout == "x transposed":
                x = torch.randn(N, M, device="cuda").half().t()
            y = torch.randn(M, N, device="cuda").half()
            want = x + y
            fs = {}
            for name, lib in libs.items():
                out = torch.full((M, N), float("nan"), device="cuda").half()
                args = (stream, x.data_ptr(), y.data_ptr(), out.data_ptr(), M, N, *x.stride(), *y.stride(), *out.stride())
                assert lib.shim(*args) == 0
                torch.cuda.synchronize()
                assert torch.equal(out, want), f"{name}: wrong answer"
                fs[name] = lambda lib=lib, args=args: lib.shim(*args)
            fs["torch x + y"] = lambda: torch.add(x, y)
            rounds = [{k: triton.testing.do_bench(f, warmup=25, rep=100) for k, f in fs.items()} for _ in range(7)]
            med = {k: sorted(r[k] for r in rounds)[3] for k in fs}
            gbs = {k: 3 * M * N * 2 / v * 1e-6 for k, v in med.items()}
            row = ", ".join(f"{k} {v:.0f}" for k, v in gbs.items())
            print(f"M={M} N={N} {layout}: {row}; specialized/general {med['general only'] / med['specialized']:.2f}x",
                  flush=True)


if __name__ == "__main__":
    main()
