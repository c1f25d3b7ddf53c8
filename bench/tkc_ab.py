"""The same kernels built by two tkc binaries, timed side by side in one
process (interleaved rounds, medians): a change's effect with the card's
drift taken out. On the GPU machine, with an older tkc at OLD:
    VARIANTS=FILE sh test/gpu/build.sh
    TKC=OLD TK_GPU_DIR=build/gpu_old VARIANTS=FILE sh test/gpu/build.sh
    python3 bench/tkc_ab.py
The forward's shapes: AB_FWD_SHAPES="Z,H,N,D;..." (default Z4 H32 N4096 D128
and Z16 H16 N4096 D64). To compare two versions of a kernel's source with
one tkc, build each into its own folder the same way.
FILE lists matmul_c2, matmul_c4 and matmul (test/gpu/variants' lines; matmul
tuned at its first launch),
attention_d64 and attention_d128 (with _causal, and pinned: attention_d64p,
attention_d64p_causal), and for the backward's kernels (each
tuned at its first launch, so a build's own pick is timed)
attention_bwd_d64 and attention_bwd_d128. Outputs must agree bit for bit
(matmul) before anything is timed. AB_ONLY="attention_d128_causal,..."
times only the variants (and backward kernels) whose names start so.
"""
import os, sys, torch, triton
sys.path.insert(0, "test/gpu")
import tkshim
from pathlib import Path
bench = lambda f: triton.testing.do_bench(f, warmup=25, rep=150)
ONLY = [x for x in os.environ.get("AB_ONLY", "").split(",") if x]


def wanted(variant):
    return not ONLY or any(variant.startswith(x) for x in ONLY)


def pair(variant, kernel=None):
    return [tkshim.Kernel(variant, path=Path(d) / variant / "libtkshim.so", kernel=kernel) for d in ("build/gpu", "build/gpu_old")]
for cfg in ("matmul_c4", "matmul_c2", "matmul"):
    if not wanted(cfg) or not all((Path(d) / cfg).is_dir() for d in ("build/gpu", "build/gpu_old")):
        continue
    for M, N, K in ((4096, 4096, 4096), (8192, 8192, 8192), (3000, 5000, 2000)):
        a, b = torch.randn(M, K, device="cuda").half(), torch.randn(K, N, device="cuda").half()
        o = [torch.empty(M, N, device="cuda").half() for _ in range(2)]
        ks = pair(cfg)
        fs = [lambda k=k, oo=oo: k(a, b, oo, M, N, K, K, 1, N, 1, N, 1) for k, oo in zip(ks, o)]
        status = [f() for f in fs]
        if any(status):  # a pinned config may not take this shape (its % 16 strides)
            print(f"{cfg} {M}x{N}x{K}: does not launch (status {status})", flush=True)
            continue
        torch.cuda.synchronize()
        if cfg != "matmul":  # tuned: the two builds may pick different configs
            assert (o[0] - o[1]).abs().max().item() == 0
        t = [[bench(f) for f in fs] for _ in range(7)]
        fl = 2 * M * N * K
        new, old = (sorted(x[i] for x in t)[3] for i in (0, 1))
        print(f"{cfg} {M}x{N}x{K}: new {fl / new * 1e-9:.0f} old {fl / old * 1e-9:.0f} TFLOP/s new/old {old / new:.3f}", flush=True)
# the forward tuned, and where built, pinned to one config (attention_d64p
# and attention_d64p_causal: 128x64, 4 warps, 3 stages); AB_FWD_SHAPES
# ("Z,H,N,D;...") sets the shapes
fwd_shapes = [tuple(int(x) for x in s.split(",")) for s in os.environ.get("AB_FWD_SHAPES", "4,32,4096,128;16,16,4096,64").split(";")]
for Z, H, N, D in fwd_shapes:
    q, k, v = (torch.randn(Z, H, N, D, device="cuda", dtype=torch.float16) for _ in range(3))
    st = [q.stride(i) for i in range(4)]
    for variant in (f"attention_d{D}{p}{c}" for p in ("", "p") for c in ("", "_causal")):
        if not wanted(variant) or not all((Path(d) / variant).is_dir() for d in ("build/gpu", "build/gpu_old")):
            continue
        ks = pair(variant)
        outs = [(torch.empty_like(q), torch.empty(Z * H * N, device="cuda")) for _ in range(2)]
        fs = [lambda kk=kk, oo=oo: kk(q, k, v, D ** -0.5, oo[1], oo[0], *st, *st, *st, *st, Z, H, N) for kk, oo in zip(ks, outs)]
        for f in fs: assert f() == 0
        torch.cuda.synchronize()
        err = (outs[0][0].float() - outs[1][0].float()).abs().max().item()
        t = [[bench(f) for f in fs] for _ in range(7)]
        fl = 4 * Z * H * N * N * D / (2 if variant.endswith("_causal") else 1)
        new, old = (sorted(x[i] for x in t)[3] for i in (0, 1))
        print(f"{variant} fwd Z{Z} H{H} N{N} D{D}: new {fl / new * 1e-9:.0f} old {fl / old * 1e-9:.0f} TFLOP/s "
              f"new/old {old / new:.3f} (outputs differ by {err:.2g})", flush=True)
for (Z, H, N, D), c in ((s, c) for s in ((16, 16, 4096, 64), (4, 32, 4096, 128)) for c in ("", "_causal")):
    if not wanted(f"attention_bwd_d{D}{c}") or \
            not all((Path(d) / f"attention_bwd_d{D}{c}").is_dir() for d in ("build/gpu", "build/gpu_old")):
        continue
    torch.manual_seed(0)
    q, k, v, do = (torch.randn(Z, H, N, D, device="cuda", dtype=torch.float16) for _ in range(4))
    st = [q.stride(i) for i in range(4)]
    fwd = pair(f"attention_d{D}{c}")[0]
    o, m, delta = torch.empty_like(q), torch.empty(Z * H * N, device="cuda"), torch.empty(Z * H * N, device="cuda")
    assert fwd(q, k, v, D ** -0.5, m, o, *st, *st, *st, *st, Z, H, N) == 0
    assert pair(f"attention_bwd_d{D}{c}", "attention_bwd_preprocess")[0](o, do, delta, *st[:3], Z, H, N) == 0
    grads = [[torch.empty_like(q) for _ in range(3)] for _ in range(2)]
    for name in ("dkdv", "dq"):
        ks = pair(f"attention_bwd_d{D}{c}", f"attention_bwd_{name}")
        if name == "dkdv":
            fs = [lambda kk=kk, g=g: kk(q, k, v, D ** -0.5, do, m, delta, g[1], g[2], *st[:3], Z, H, N) for kk, g in zip(ks, grads)]
        else:
            fs = [lambda kk=kk, g=g: kk(q, k, v, D ** -0.5, do, m, delta, g[0], *st[:3], Z, H, N) for kk, g in zip(ks, grads)]
        for f in fs: assert f() == 0
        torch.cuda.synchronize()
        t = [[bench(f) for f in fs] for _ in range(7)]
        new, old = (sorted(x[i] for x in t)[3] for i in (0, 1))
        print(f"attention bwd{c} {name} Z{Z} H{H} N{N} D{D}: new {new:.3f} old {old:.3f} ms new/old speed {old / new:.3f}", flush=True)
    err = max(((a.float() - b.float()).norm() / b.float().norm()).item() for a, b in zip(*grads))
    print(f"  new against old, relative error of dQ/dK/dV: {err:.2g}", flush=True)
