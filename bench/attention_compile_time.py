# Compile time of the attention files (issue 27's bar: tkc at most 1/3 of Triton).
# tkc: kernels/attention.tk and attention_bwd.tk, every autotune config (default
# -D: HEAD_DIM 64, not causal), median of 3 runs of TKC (default build/static/tkc).
# Triton: a cold compile (fresh TRITON_CACHE_DIR, JITFunction.warmup, nothing run)
# of the same configs of bench/triton_attention.py, median of 2 child processes.
# Run on the GPU machine from the repository root: python3 bench/attention_compile_time.py
import os, sys, json, time, subprocess, tempfile, statistics, itertools
ROOT = os.getcwd()
FWD = [(bm, bn, w, s) for bm, bn, w, s in itertools.product((64, 128), (32, 64, 128), (4, 8), (2, 3, 4))
       if bm % bn == 0 and not (w == 4 and bm * bn > 128 * 64)]
DKDV = [(128, 32, 4, 3), (128, 32, 8, 3), (64, 32, 4, 3), (64, 16, 4, 3), (128, 32, 4, 4), (128, 32, 4, 5), (128, 32, 8, 5), (64, 64, 4, 3), (128, 64, 8, 3)]
if len(sys.argv) > 1 and sys.argv[1] == "--child":
    import torch
    sys.path.insert(0, "bench")
    import triton_attention as ta
    D, N = 64, 256
    q = torch.randn(1, 1, N, D, device="cuda", dtype=torch.float16)
    m = torch.empty(N, device="cuda"); o = torch.empty_like(q)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for bm, bn, w, s in FWD:
        ta._attn_fwd.fn.warmup(q, q, q, 0.1, m, o, 1, 1, 1, 1, N, HEAD_DIM=D, CAUSAL=False, BLOCK_M=bm, BLOCK_N=bn,
                               num_warps=w, num_stages=s, grid=(1,))
    t1 = time.perf_counter()
    ta._bwd_preprocess.warmup(o, o, m, 1, 1, 1, 1, N, BLOCK_M=128, HEAD_DIM=D, grid=(1,))
    for held, step, w, s in DKDV:
        ta._attn_bwd_dkdv.fn.warmup(q, q, q, 0.1, q, m, m, q, q, 1, 1, 1, 1, N, HEAD_DIM=D, CAUSAL=False,
                                    BLOCK_M1=step, BLOCK_N1=held, num_warps=w, num_stages=s, grid=(1,))
        ta._attn_bwd_dq.fn.warmup(q, q, q, 0.1, q, m, m, q, 1, 1, 1, 1, N, HEAD_DIM=D, CAUSAL=False,
                                  BLOCK_M2=held, BLOCK_N2=step, num_warps=w, num_stages=s, grid=(1,))
    t2 = time.perf_counter()
    print(json.dumps({"fwd_s": t1 - t0, "bwd_s": t2 - t1}))
    sys.exit(0)
tkc = os.environ.get("TKC", "build/static/tkc")
def tk(path):
    ts = []
    for _ in range(3):
        with tempfile.TemporaryDirectory() as d:
            t0 = time.perf_counter()
            subprocess.run([tkc, path, "-o", d], check=True, capture_output=True)
            ts.append(time.perf_counter() - t0)
    return statistics.median(ts)
f, b = tk("kernels/attention.tk"), tk("kernels/attention_bwd.tk")
print(f"tkc: attention.tk {f:.2f} s, attention_bwd.tk {b:.2f} s, both {f + b:.2f} s (median of 3; {len(FWD)} forward configs)", flush=True)
rs = []
for _ in range(2):
    with tempfile.TemporaryDirectory() as cache:
        p = subprocess.run([sys.executable, __file__, "--child"], capture_output=True, text=True,
                           env=dict(os.environ, TRITON_CACHE_DIR=cache))
        if p.returncode:
            print(p.stderr[-3000:]); sys.exit(1)
        rs.append(json.loads(p.stdout.strip().splitlines()[-1]))
tf = statistics.median(r["fwd_s"] for r in rs); tb = statistics.median(r["bwd_s"] for r in rs)
print(f"Triton cold: forward {tf:.2f} s, backward {tb:.2f} s, both {tf + tb:.2f} s (median of 2)")
print(f"tkc / Triton: {(f + b) / (tf + tb):.2f}")
