"""Tuning sweep: times each variant in bench/sweep_variants (built by
`VARIANTS=bench/sweep_variants sh test/gpu/build.sh`) on the benchmark
shapes, checking each output once against torch (VARIANTS=FILE for
another list). Prints GB/s per variant,
best first per kernel and shape. Used to pick the reference kernels'
defaults (docs/PERFORMANCE.md records the outcome)."""

import os
import sys
from pathlib import Path

import torch
import triton

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "test" / "gpu"))
import tkshim  # noqa: E402


def variants():
    listing = os.environ.get("VARIANTS") or Path(__file__).with_name("sweep_variants")
    for line in Path(listing).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, kernel, *opts = line.split()
            defs = dict(o.split("=") for o in opts if "=" in o)
            yield name, kernel, defs


def bench(fn):
    fn()
    return triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")


def main():
    torch.manual_seed(0)
    results = []
    for name, kernel, defs in variants():
        try:
            k = tkshim.Kernel(name)
        except FileNotFoundError as e:
            print(f"{name}: {e}")
            continue
        block = int(defs["BLOCK"])
        if os.path.basename(kernel) == "softmax.tk":
            m, n = {1024: (16384, 1024), 4096: (4096, 4096), 16384: (4096, 16384)}[block]
            x = torch.randn(m, n, device="cuda")
            out = torch.empty_like(x)
            run = lambda: k(out, x, n, n, m, n)
            ref = lambda: torch.softmax(x, dim=-1)
            nbytes = 2 * 4 * m * n
            shape = f"softmax {m}x{n}"
        else:
            m = n = 8192
            if defs.get("ROW_FITS") == "True" and n > block:
                continue
            x = torch.randn(m, n, device="cuda", dtype=torch.float16)
            w = torch.randn(n, device="cuda", dtype=torch.float16)
            b = torch.randn(n, device="cuda", dtype=torch.float16)
            y = torch.empty_like(x)
            mean = torch.empty(m, device="cuda")
            rstd = torch.empty(m, device="cuda")
            run = lambda: k(x, y, w, b, mean, rstd, n, m, n, 1e-5)
            ref = lambda: torch.nn.functional.layer_norm(x.float(), (n,), w.float(), b.float(), 1e-5)
            nbytes = 2 * 2 * m * n
            out = y
            shape = f"layernorm {m}x{n}"
        status = run()
        torch.cuda.synchronize()
        if status != k.success:
            print(f"{name}: status {status} {k.status_string(status)}")
            continue
        err = ((out.float() - ref()).norm() / ref().norm()).item()
        ms = bench(run)
        results.append((shape, nbytes / ms / 1e6, name, err))
    for shape in sorted(set(r[0] for r in results)):
        print(f"== {shape}")
        for r in sorted((r for r in results if r[0] == shape), key=lambda r: -r[1]):
            print(f"  {r[2]:28s} {r[1]:7.0f} GB/s  rel.err {r[3]:.1e}")


if __name__ == "__main__":
    main()
