#!/usr/bin/env python3
"""attention.tk's forward at chosen configs, each forced, beside its tuned
launcher and Triton's tuned FA2 forward (bench/triton_attention.py), in one
process; f16, do_bench(warmup=25, rep=100) in ROUNDS interleaved rounds
(default 5), medians, each as a speed relative to Triton's.

A config is forced through the tuning cache: the launcher's first call
tunes and writes its choice to a TKC_TUNE_CACHE file; a copy of that file
names another config, and a copy of the shim library (its own runtime
state, so its own cache) reads it. Config numbers count the configs the
build kept (after prune_configs_by), from 0; TKC_TUNE_VERBOSE=1 lists them.

    python3 bench/attention_fwd_configs.py 3,12,13          # D64, Z16 H16, N 4096 and 16384
    D=128 SHAPES=4x32x4096 python3 bench/attention_fwd_configs.py 3,7

DIR (default build/gpu) holds the variants attention_dD and
attention_dD_causal (test/gpu/variants).
"""

import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "gpu"))
sys.path.insert(0, str(ROOT / "bench"))

import torch  # noqa: E402
import triton  # noqa: E402

import tkshim  # noqa: E402
from interleaved import medians  # noqa: E402
import triton_attention as ta  # noqa: E402


def forced_cache(base, path, config):
    """base's lines with the forward's choice replaced by config."""
    with open(base) as f, open(path, "w") as out:
        for line in f.read().splitlines():
            cols = line.split("\t")
            if len(cols) >= 5 and cols[0].startswith("attention_fwd"):
                cols = cols[:4] + [str(config)]
            out.write("\t".join(cols) + "\n")


def main():
    configs = [int(c) for c in sys.argv[1].split(",")] if len(sys.argv) > 1 else []
    D = int(os.environ.get("D", "64"))
    shapes = [tuple(int(x) for x in s.split("x")) for s in
              os.environ.get("SHAPES", "16x16x4096,16x16x16384").split(",")]
    rounds = int(os.environ.get("ROUNDS", "5"))
    d = Path(os.environ.get("DIR", ROOT / "build" / "gpu"))
    tmp = Path(tempfile.mkdtemp(prefix="tkc_cfg_"))
    bench = lambda f: triton.testing.do_bench(f, warmup=25, rep=100)  # noqa: E731
    print(torch.cuda.get_device_name(), flush=True)
    for Z, H, N in shapes:
        for causal in (False, True):
            variant = f"attention_d{D}" + ("_causal" if causal else "")
            lib = d / variant / "libtkshim.so"
            torch.manual_seed(0)
            q, k, v = (torch.randn(Z, H, N, D, device="cuda", dtype=torch.float16) for _ in range(3))
            st = [q.stride(i) for i in range(4)]
            scale = D ** -0.5
            base = tmp / f"{variant}_{N}"
            os.environ["TKC_TUNE_CACHE"] = str(base)
            tuned = tkshim.Kernel(variant, path=lib)
            o, m = torch.empty_like(q), torch.empty(Z * H * N, device="cuda")
            assert tuned(q, k, v, scale, m, o, *st, *st, *st, *st, Z, H, N) == tuned.success
            torch.cuda.synchronize()
            pick = [line.split("\t")[4] for line in open(base).read().splitlines()
                    if line.startswith("attention_fwd")]
            fs = {}
            for c in configs:
                cache, copy = tmp / f"{variant}_{N}_{c}", tmp / f"{variant}_{N}_{c}.so"
                forced_cache(base, cache, c)
                shutil.copy(lib, copy)
                os.environ["TKC_TUNE_CACHE"] = str(cache)
                kc, oc = tkshim.Kernel(variant, path=copy), torch.empty_like(q)
                f = lambda kc=kc, oc=oc: kc(q, k, v, scale, m, oc, *st, *st, *st, *st, Z, H, N)  # noqa: E731
                assert f() == kc.success
                torch.cuda.synchronize()
                err = (oc.float() - o.float()).abs().max().item()
                assert err < 2e-2, f"config {c}: max error {err} against the tuned launch"
                fs[f"config {c}"] = f
            o_t, m_t = torch.empty_like(q), torch.empty(Z * H * N, device="cuda")
            fs["Triton"] = lambda: ta.forward(q, k, v, o_t, m_t, scale, causal)
            fs["tuned"] = lambda: tuned(q, k, v, scale, m, o, *st, *st, *st, *st, Z, H, N)
            med = medians(fs, rounds, bench)
            print(f"Z{Z} H{H} N{N} D{D} {'causal' if causal else 'full'} (tuned pick: config {','.join(pick)}; "
                  f"Triton {med['Triton']:.3f} ms): "
                  + "  ".join(f"{n} {med['Triton'] / t:.3f}" for n, t in med.items() if n != "Triton"), flush=True)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
