#!/usr/bin/env python3
"""kernels/attention_tma.tk (descriptors, TMA; warp-specialized or not),
tuned and at pinned configs, against kernels/attention.tk (tuned and at
pinned configs), Triton's autotuned FA2 forward
(bench/triton_attention.py) and torch SDPA's cuDNN backend, f16, in one
process.

Each tkc build is compiled here by TKC (default build/tkc) with -D
values. Outputs are checked against Triton's first (Out and M); then
do_bench(warmup=25, rep=100) medians over ROUNDS interleaved rounds.

    python3 bench/attention_tma.py [ZxHxNxD[c] ...]   (c: causal)
Environment: TMA_CONFIGS="BM,BN,warps,stages,ws[,maxnreg];..." pinned
attention_tma.tk configs, MAIN_CONFIGS="BM,BN,warps,stages,diag;..."
pinned attention.tk configs (each also runs tuned).
"""

import ctypes
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "gpu" / "ports"))
sys.path.insert(0, str(ROOT / "bench"))

import torch  # noqa: E402
import triton  # noqa: E402

from run_ports import build_launcher, runtime_object, tk_tensor  # noqa: E402
import triton_attention as ta  # noqa: E402
from interleaved import medians, print_rates  # noqa: E402



def parse(var, default):
    return [tuple(int(x) for x in c.split(",")) for c in os.environ.get(var, default).split(";") if c]


def main():
    shapes = [a for a in sys.argv[1:] if not a.startswith("--")] or ["16x16x4096x64c", "16x16x16384x64c",
                                                                     "4x32x4096x128", "4x32x4096x128c"]
    rounds = int(os.environ.get("ROUNDS", "3"))
    print(torch.cuda.get_device_name(), flush=True)
    work = Path(tempfile.mkdtemp(prefix="tkc_attn_tma_"))
    rt = runtime_object(work)
    tma_configs = [None] + parse("TMA_CONFIGS", "")
    main_configs = [None] + parse("MAIN_CONFIGS", "")
    bench = lambda f: triton.testing.do_bench(f, warmup=25, rep=100)  # noqa: E731
    for shape in shapes:
        causal = shape.endswith("c")
        Z, H, N, D = (int(x) for x in shape.rstrip("c").split("x"))
        torch.manual_seed(0)
        q, k, v = (torch.randn(Z, H, N, D, device="cuda", dtype=torch.float16) for _ in range(3))
        scale = D ** -0.5
        st = [q.stride(i) for i in range(4)]
        o_t, m_t = torch.empty_like(q), torch.empty(Z * H * N, device="cuda")
        tr = lambda: ta._attn_fwd[(lambda meta: (triton.cdiv(N, meta["BLOCK_M"]), Z * H))](  # noqa: E731
            q, k, v, scale, m_t, o_t, *st[:3], H, N, HEAD_DIM=D, CAUSAL=causal)
        tr()
        torch.cuda.synchronize()
        fs = {f"Triton tuned {ta._attn_fwd.best_config}": tr}
        from torch.nn.attention import SDPBackend, sdpa_kernel

        def cudnn():
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
        fs["SDPA cuDNN"] = cudnn
        stream = torch.cuda.current_stream().cuda_stream
        q2, k2, v2 = (t.view(Z * H * N, D) for t in (q, k, v))
        for cfg in tma_configs:
            defs = [f"-DHEAD_DIM={D}", f"-DCAUSAL={'True' if causal else 'False'}"]
            if cfg:
                bm, bn, warps, stages, ws = cfg[:5]
                defs += [f"-DBLOCK_M={bm}", f"-DBLOCK_N={bn}", f"-Dnum_warps={warps}", f"-Dnum_stages={stages}",
                         f"-DWS={'True' if ws else 'False'}"] + ([f"-Dmaxnreg={cfg[5]}"] if len(cfg) > 5 else [])
            got = build_launcher(work, rt, ROOT / "kernels" / "attention_tma.tk", "attention_fwd_tma_f16", defs)
            if not got:
                continue
            lib, names = got
            o, m = torch.full_like(q, float("nan")), torch.full_like(m_t, float("nan"))
            tq, tk, tv = tk_tensor(q2), tk_tensor(k2), tk_tensor(v2)
            f = (lambda lib=lib, tq=tq, tk=tk, tv=tv, o=o, m=m:
                 lib.run(stream, ctypes.byref(tq), ctypes.byref(tk), ctypes.byref(tv), scale, m.data_ptr(),
                         o.data_ptr(), Z, H, N))
            fs[f"tkc attention_tma.tk {cfg or 'tuned'}"] = (f, o, m)
        for cfg in main_configs:
            defs = [f"-DHEAD_DIM={D}", f"-DCAUSAL={'True' if causal else 'False'}"]
            if cfg:
                bm, bn, warps, stages, diag = cfg
                if diag and not causal:
                    continue
                defs += [f"-DBLOCK_M={bm}", f"-DBLOCK_N={bn}", f"-Dnum_warps={warps}", f"-Dnum_stages={stages}",
                         f"-DDIAG_LOOP={'True' if diag else 'False'}"]
            got = build_launcher(work, rt, ROOT / "kernels" / "attention.tk", "attention_fwd", defs)
            if not got:
                continue
            lib, names = got
            o, m = torch.full_like(q, float("nan")), torch.full_like(m_t, float("nan"))
            f = (lambda lib=lib, o=o, m=m:
                 lib.run(stream, q.data_ptr(), k.data_ptr(), v.data_ptr(), scale, m.data_ptr(), o.data_ptr(),
                         *st, *st, *st, *st, Z, H, N))
            fs[f"tkc attention.tk {cfg or 'tuned'}"] = (f, o, m)
        runs = {}
        for name, x in fs.items():
            if not isinstance(x, tuple):
                runs[name] = x
                continue
            f, o, m = x
            print(f"  checking {name}", flush=True)
            s = f()
            torch.cuda.synchronize()
            if s != 0:
                print(f"  {name}: status {s}")
                continue
            eo = (o.float() - o_t.float()).abs().max().item()
            em = (m - m_t).abs().max().item()
            if not (eo < 2e-2 and em < 1e-2):
                print(f"  {name}: WRONG, Out error {eo:.3g}, M error {em:.3g}")
                continue
            runs[name] = f
        med = medians(runs, rounds, bench)
        flops = 4.0 * Z * H * N * N * D * (0.5 if causal else 1.0)
        print_rates(shape, med, flops, 60, med[next(iter(med))], "Triton")


if __name__ == "__main__":
    main()
