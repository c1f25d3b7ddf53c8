#!/usr/bin/env python3
"""The persistent matmul over host descriptors (test/gpu/ports/tma_persistent.tk,
Triton's tutorial 09 kernel as ported): tkc's build of it at a few
configs against the same kernel in Triton 3.6 (TensorDescriptor
arguments, the same configs) and cuBLAS (torch.matmul), f16 in, f16 out,
B given as B^T ([N, K] row-major), in one process. DTYPE=tf32: f32 in and
out, tl.dot's default tf32 (cuBLAS with TF32 allowed), the port's
descriptors made f32, configs of 32-wide K steps by default.

A config's last field is WARP_SPECIALIZE (a producer warpgroup; Triton's
warp_specialize=True on the tile loop). CONFIGS="BM,BN,BK,warps,stages,ws;..."
replaces the list. Each tkc config is compiled here by TKC (default build/tkc) with -D
values, once with TMA (sm_90a) and, with --sm80, once as sm_80 code
(cp.async copies instead, the same kernel otherwise). Outputs are checked
against torch first (relative error 1e-2 of the largest magnitude); then
do_bench(warmup=25, rep=100) medians over ROUNDS interleaved rounds
(default 3), TFLOP/s.

    python3 bench/tma_matmul.py [--sm80] [MxNxK ...]
"""

import ctypes
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "gpu" / "ports"))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.tools.tensor_descriptor import TensorDescriptor  # noqa: E402

from run_ports import build_launcher, runtime_object, tk_tensor  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from interleaved import medians, print_rates  # noqa: E402

SRC = ROOT / "test" / "gpu" / "ports" / "tma_persistent.tk"
NAME = "matmul_kernel_tma_persistent"
# (BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, num_warps, num_stages, WARP_SPECIALIZE)
CONFIGS = [(128, 128, 64, 8, 3, 0), (128, 128, 64, 8, 4, 0), (128, 256, 64, 8, 3, 0), (128, 128, 64, 4, 4, 0),
           (128, 128, 64, 8, 4, 1), (128, 256, 64, 8, 3, 1), (128, 128, 64, 4, 4, 1), (128, 128, 64, 4, 5, 1)]
TF32 = os.environ.get("DTYPE", "f16") == "tf32"
if TF32:
    CONFIGS = [(128, 256, 32, 8, 3, 1), (128, 128, 32, 8, 4, 1), (128, 256, 32, 8, 3, 0), (128, 128, 64, 8, 3, 1)]
if os.environ.get("CONFIGS"):  # "128,256,64,8,3,1;..."
    CONFIGS = [tuple(int(x) for x in c.split(",")) for c in os.environ["CONFIGS"].split(";")]


def build_tkc(work, rt, config, arch):
    bm, bn, bk, warps, stages, ws = config
    defs = [f"-DBLOCK_SIZE_M={bm}", f"-DBLOCK_SIZE_N={bn}", f"-DBLOCK_SIZE_K={bk}", f"-Dnum_warps={warps}",
            f"-Dnum_stages={stages}", f"-DWARP_SPECIALIZE={ws}", f"--kernel={NAME}"]
    src = SRC
    if TF32:  # the same kernel on f32 descriptors
        src = Path(work) / "tma_persistent_f32.tk"
        if not src.exists():
            text = SRC.read_text()
            for old, new, times in (("tensor_descriptor[f16,", "tensor_descriptor[f32,", 6),
                                    ("dtype = tl.float16", "dtype = tl.float32", 2)):
                if text.count(old) != times:
                    sys.exit(f"tma_matmul.py: {SRC.name} has {text.count(old)} of {old!r}, expected {times}")
                text = text.replace(old, new)
            src.write_text(text)
    got = build_launcher(work, rt, src, NAME, defs, arch)
    return got[0] if got else None


@triton.jit
def _pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M: tl.constexpr):
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (tile_id % group_size_m)
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def triton_tma_persistent(a_desc, b_desc, c_desc, M, N, K, NUM_SMS: tl.constexpr, BLOCK_SIZE_M: tl.constexpr,
                          BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
                          WARP_SPECIALIZE: tl.constexpr, OUT: tl.constexpr = tl.float16):
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n
    tile_id_c = start_pid - NUM_SMS
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True, warp_specialize=WARP_SPECIALIZE):
        pid_m, pid_n = _pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
        offs_am = pid_m * BLOCK_SIZE_M
        offs_bn = pid_n * BLOCK_SIZE_N
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_SIZE_K
            a = a_desc.load([offs_am, offs_k])
            b = b_desc.load([offs_bn, offs_k])
            accumulator = tl.dot(a, b.T, accumulator)
        tile_id_c += NUM_SMS
        pid_m, pid_n = _pid(tile_id_c, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
        offs_cm = pid_m * BLOCK_SIZE_M
        offs_cn = pid_n * BLOCK_SIZE_N
        acc = tl.reshape(accumulator, (BLOCK_SIZE_M, 2, BLOCK_SIZE_N // 2))
        acc = tl.permute(acc, (0, 2, 1))
        acc0, acc1 = tl.split(acc)
        c_desc.store([offs_cm, offs_cn], acc0.to(OUT))
        c_desc.store([offs_cm, offs_cn + BLOCK_SIZE_N // 2], acc1.to(OUT))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    sm80 = "--sm80" in sys.argv
    shapes = [tuple(int(x) for x in s.split("x")) for s in args] or [(4096, 4096, 4096), (8192, 8192, 8192),
                                                                    (3000, 5000, 2000)]
    rounds = int(os.environ.get("ROUNDS", "3"))
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(torch.cuda.get_device_name(), f"{sms} SMs", flush=True)
    work = Path(tempfile.mkdtemp(prefix="tkc_tma_"))
    rt = runtime_object(work)
    libs = {}
    for cfg in CONFIGS:
        for arch in ["sm_90a"] + (["sm_80"] if sm80 else []):
            lib = build_tkc(work, rt, cfg, arch)
            if lib:
                libs[(arch, cfg)] = lib
    bench = lambda f: triton.testing.do_bench(f, warmup=25, rep=100)  # noqa: E731
    dt = torch.float32 if TF32 else torch.float16
    torch.backends.cuda.matmul.allow_tf32 = TF32
    for M, N, K in shapes:
        torch.manual_seed(0)
        a = (torch.randn(M, K, device="cuda") / 4).to(dt)
        b = (torch.randn(N, K, device="cuda") / 4).to(dt)
        want = (a.double() @ b.double().T)
        scale = want.abs().max().item()
        fs = {"cuBLAS": lambda: torch.matmul(a, b.T)}
        for (arch, cfg), lib in libs.items():
            c = torch.full((M, N), float("nan"), device="cuda", dtype=dt)
            ta, tb, tc = tk_tensor(a), tk_tensor(b), tk_tensor(c)
            stream = torch.cuda.current_stream().cuda_stream
            f = (lambda lib=lib, ta=ta, tb=tb, tc=tc:
                 lib.run(stream, ctypes.byref(ta), ctypes.byref(tb), ctypes.byref(tc), M, N, K))
            s = f()
            torch.cuda.synchronize()
            if s != 0:
                print(f"  tkc {arch} {cfg}: {lib.status(s).decode()}")
                continue
            err = (c.double() - want).abs().max().item() / scale
            if not err < 1e-2:
                print(f"  tkc {arch} {cfg}: WRONG, relative error {err:.3g}")
                continue
            fs[f"tkc {arch} {cfg}"] = f
        for cfg in CONFIGS:
            bm, bn, bk, warps, stages, ws = cfg
            c = torch.full((M, N), float("nan"), device="cuda", dtype=dt)
            ad = TensorDescriptor(a, a.shape, a.stride(), [bm, bk])
            bd = TensorDescriptor(b, b.shape, b.stride(), [bn, bk])
            cd = TensorDescriptor(c, c.shape, c.stride(), [bm, bn // 2])
            grid = (min(sms, triton.cdiv(M, bm) * triton.cdiv(N, bn)),)
            f = (lambda ad=ad, bd=bd, cd=cd, grid=grid, bm=bm, bn=bn, bk=bk, warps=warps, stages=stages, ws=ws:
                 triton_tma_persistent[grid](ad, bd, cd, M, N, K, sms, bm, bn, bk, 8, bool(ws),
                                             tl.float32 if TF32 else tl.float16, num_warps=warps,
                                             num_stages=stages))
            try:
                f()
                torch.cuda.synchronize()
            except Exception as e:  # a config Triton cannot build here
                print(f"  Triton {cfg}: {type(e).__name__}: {str(e)[:120]}")
                continue
            err = (c.double() - want).abs().max().item() / scale
            if not err < 1e-2:
                print(f"  Triton {cfg}: WRONG, relative error {err:.3g}")
                continue
            fs[f"Triton {cfg}"] = f
        print_rates(f"{M}x{N}x{K}", medians(fs, rounds, bench), 2.0 * M * N * K)


if __name__ == "__main__":
    main()
