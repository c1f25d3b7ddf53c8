"""The same kernels built by two tkc binaries, timed side by side in one
process (interleaved rounds, medians): a change's effect with the card's
drift taken out. On the GPU machine, with an older tkc at OLD:
    VARIANTS=FILE sh test/gpu/build.sh
    TKC=OLD TK_GPU_DIR=build/gpu_old VARIANTS=FILE sh test/gpu/build.sh
    python3 bench/tkc_ab.py
FILE lists matmul_c2 and matmul_c4 (test/gpu/variants' lines), and
attention_d64 and attention_d128. Outputs must agree bit for bit
(matmul) before anything is timed.
"""
import sys, torch, triton
sys.path.insert(0, "test/gpu")
import tkshim
from pathlib import Path
bench = lambda f: triton.testing.do_bench(f, warmup=25, rep=150)
def pair(variant, kernel=None):
    return [tkshim.Kernel(variant, path=Path(d) / variant / "libtkshim.so", kernel=kernel) for d in ("build/gpu", "build/gpu_old")]
for cfg in ("matmul_c4", "matmul_c2"):
    for M in (4096, 8192):
        a, b = (torch.randn(M, M, device="cuda").half() for _ in range(2))
        o = [torch.empty(M, M, device="cuda").half() for _ in range(2)]
        ks = pair(cfg)
        fs = [lambda k=k, oo=oo: k(a, b, oo, M, M, M, M, 1, M, 1, M, 1) for k, oo in zip(ks, o)]
        for f in fs: assert f() == 0
        torch.cuda.synchronize()
        assert (o[0] - o[1]).abs().max().item() == 0
        t = [[bench(f) for f in fs] for _ in range(7)]
        fl = 2 * M ** 3
        new, old = (sorted(x[i] for x in t)[3] for i in (0, 1))
        print(f"{cfg} {M}^3: new {fl / new * 1e-9:.0f} old {fl / old * 1e-9:.0f} TFLOP/s new/old {old / new:.3f}", flush=True)
for Z, H, N, D in ((4, 32, 4096, 128), (16, 16, 4096, 64)):
    q, k, v = (torch.randn(Z, H, N, D, device="cuda", dtype=torch.float16) for _ in range(3))
    st = [q.stride(i) for i in range(4)]
    ks = pair(f"attention_d{D}")
    outs = [(torch.empty_like(q), torch.empty(Z * H * N, device="cuda")) for _ in range(2)]
    fs = [lambda kk=kk, oo=oo: kk(q, k, v, D ** -0.5, oo[1], oo[0], *st, *st, *st, *st, Z, H, N) for kk, oo in zip(ks, outs)]
    for f in fs: assert f() == 0
    torch.cuda.synchronize()
    t = [[bench(f) for f in fs] for _ in range(7)]
    fl = 4 * Z * H * N * N * D
    new, old = (sorted(x[i] for x in t)[3] for i in (0, 1))
    print(f"attention fwd Z{Z} H{H} N{N} D{D}: new {fl / new * 1e-9:.0f} old {fl / old * 1e-9:.0f} TFLOP/s new/old {old / new:.3f}", flush=True)
