#!/usr/bin/env python3
"""Triton's side of bench/launch_overhead.c: the host time of a Python
launch of the same do-nothing kernel, plain and @triton.autotune'd (two
configs, key n), 10^5 launches in batches of 256, the median batch per
launch; beside it, the same through tkc's Python binding
(bench/launch_overhead.tk built by test/gpu/build.sh into
build/gpu/py/launch_overhead.py) and a plain torch op of the same size
(x.add_(1.0)), in the same process."""

import os
import statistics
import sys
import time
from pathlib import Path

import torch
import triton
import triton.language as tl


@triton.jit
def tiny(x, n, B: tl.constexpr):
    offs = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(x + offs, 1.0, mask=offs < n)


tiny_tuned = triton.autotune(configs=[triton.Config({"B": 128}, num_warps=4), triton.Config({"B": 256}, num_warps=4)],
                             key=["n"])(tiny)


def per_launch(launch):
    batches = []
    for _ in range(391):
        t0 = time.perf_counter()
        for _ in range(256):
            launch()
        batches.append((time.perf_counter() - t0) / 256 * 1e6)
        torch.cuda.synchronize()
    return statistics.median(batches)


def main():
    n = 1000
    x = torch.empty(n, device="cuda")
    plain = lambda: tiny[(triton.cdiv(n, 128),)](x, n, B=128, num_warps=4)  # noqa: E731
    tuned = lambda: tiny_tuned[lambda meta: (triton.cdiv(n, meta["B"]),)](x, n)  # noqa: E731
    plain()
    tuned()
    launches = [("Triton launch", plain), ("Triton autotuned", tuned), ("torch x.add_(1.0)", lambda: x.add_(1.0))]
    sys.path.insert(0, str(Path(os.environ.get("TK_GPU_DIR", Path(__file__).resolve().parents[1] / "build" / "gpu"))
                           / "py"))
    try:
        import launch_overhead as tk
    except ImportError as e:
        print(f"tkc's Python binding not built ({e}): its rows are left out", flush=True)
    else:
        launches += [("tkc binding", lambda: tk.tiny(x, n)), ("tkc binding autotuned", lambda: tk.tiny_tuned(x, n))]
    for _, launch in launches:
        launch()
    torch.cuda.synchronize()
    for r in range(3):
        print(f"round {r}: " + ", ".join(f"{name} {per_launch(launch):.3f} us" for name, launch in launches) +
              " a launch", flush=True)


if __name__ == "__main__":
    main()
