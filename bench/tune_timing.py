#!/usr/bin/env python3
"""Why the tuner and do_bench can rank two configs differently: attention.tk's
forward at two forced configs (as bench/attention_fwd_configs.py forces
them), timed with CUDA events under each way of timing in turn:

  - each config for 40 runs in a row (as do_bench times one config), with
    the L2 left warm, flushed by a torch zero_ kernel (do_bench's), or by
    cuMemsetD32Async (the tuner's, runtime_stub/tkrt.c), with and without
    the copy that restores a clobbered output first (the tuner's
    may_clobber);
  - the same after 3 s of sustained load;
  - the two configs alternating run by run (the tuner's interleaved rounds
    give each config short slices).

Medians of each. Run it beside an nvidia-smi log of clocks and power:

    nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu \\
        --format=csv -lms 200 > clk.csv &
    python3 bench/tune_timing.py 3 12          # D64 Z16 H16 N4096, configs 3 and 12

DIR (default build/gpu) holds the variant attention_d64.
"""

import ctypes
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "gpu"))
sys.path.insert(0, str(ROOT / "bench"))

import torch  # noqa: E402

import tkshim  # noqa: E402
from attention_fwd_configs import forced_cache  # noqa: E402

RUNS = 40


def median(xs):
    return sorted(xs)[len(xs) // 2]


def main():
    a, b = int(sys.argv[1]), int(sys.argv[2])
    Z, H, N, D = 16, 16, int(os.environ.get("N", "4096")), 64
    d = Path(os.environ.get("DIR", ROOT / "build" / "gpu"))
    lib = d / "attention_d64" / "libtkshim.so"
    tmp = Path(tempfile.mkdtemp(prefix="tkc_tt_"))
    cu = ctypes.CDLL("libcuda.so.1")
    cu.cuMemsetD32Async.argtypes = [ctypes.c_uint64, ctypes.c_uint, ctypes.c_size_t, ctypes.c_void_p]
    torch.manual_seed(0)
    q, k, v = (torch.randn(Z, H, N, D, device="cuda", dtype=torch.float16) for _ in range(3))
    st = [q.stride(i) for i in range(4)]
    m = torch.empty(Z * H * N, device="cuda")
    os.environ["TKC_TUNE_CACHE"] = str(tmp / "base")
    tuned = tkshim.Kernel("attention_d64", path=lib)
    assert tuned(q, k, v, D ** -0.5, m, torch.empty_like(q), *st, *st, *st, *st, Z, H, N) == tuned.success
    torch.cuda.synchronize()
    fs = {}
    for c in (a, b):
        forced_cache(tmp / "base", tmp / f"c{c}", c)
        shutil.copy(lib, tmp / f"c{c}.so")
        os.environ["TKC_TUNE_CACHE"] = str(tmp / f"c{c}")
        kc, oc = tkshim.Kernel("attention_d64", path=tmp / f"c{c}.so"), torch.empty_like(q)
        fs[c] = lambda kc=kc, oc=oc: kc(q, k, v, D ** -0.5, m, oc, *st, *st, *st, *st, Z, H, N)
        assert fs[c]() == kc.success
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    saved = torch.empty_like(q)
    stream = torch.cuda.current_stream().cuda_stream

    def memset():
        assert cu.cuMemsetD32Async(flush.data_ptr(), 0, 64 << 20, stream) == 0

    modes = {"warm L2": lambda: None, "torch zero_": flush.zero_, "cuMemsetD32Async": memset,
             "restore copy + cuMemsetD32Async": lambda: (saved.copy_(q), memset())}
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(2 * RUNS)]
    res = {}
    for rnd in range(4):
        hot = rnd >= 2
        if rnd == 2:
            t0 = time.time()
            while time.time() - t0 < 3:
                fs[a]()
                torch.cuda.synchronize()
        for mode, before in modes.items():
            for c, f in fs.items():
                for _ in range(5):
                    before()
                    f()
                for i in range(RUNS):
                    before()
                    ev[2 * i].record()
                    f()
                    ev[2 * i + 1].record()
                torch.cuda.synchronize()
                res.setdefault((mode, hot, c), []).extend(ev[2 * i].elapsed_time(ev[2 * i + 1]) for i in range(RUNS))
    alternating = {a: [], b: []}
    for _ in range(3 * RUNS):
        for c, f in fs.items():
            flush.zero_()
            ev[0].record()
            f()
            ev[1].record()
            torch.cuda.synchronize()
            alternating[c].append(ev[0].elapsed_time(ev[1]))
    print(f"{torch.cuda.get_device_name()}: attention fwd D64 Z{Z} H{H} N{N}, config {a} against config {b}, ms")
    for mode in modes:
        for hot in (False, True):
            ta, tb = median(res[(mode, hot, a)]), median(res[(mode, hot, b)])
            print(f"{mode:32s} {'after 3 s of load' if hot else 'first':18s} {ta:.3f} {tb:.3f}  {b}/{a} speed {ta / tb:.3f}")
    ta, tb = median(alternating[a]), median(alternating[b])
    print(f"{'alternating run by run, zero_':32s} {'':18s} {ta:.3f} {tb:.3f}  {b}/{a} speed {ta / tb:.3f}")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
