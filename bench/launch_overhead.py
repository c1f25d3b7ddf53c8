#!/usr/bin/env python3
"""Triton's side of bench/launch_overhead.c: the host time of a Python
launch of the same do-nothing kernel, plain and @triton.autotune'd (two
configs, key n), 10^5 launches in batches of 256, the median batch per
launch."""

import statistics
import time

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
    torch.cuda.synchronize()
    for r in range(3):
        print(f"round {r}: Triton launch {per_launch(plain):.3f} us, autotuned {per_launch(tuned):.3f} us a launch",
              flush=True)


if __name__ == "__main__":
    main()
