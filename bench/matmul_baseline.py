"""matmul.tk (through its header, the launcher's first autotune variant)
against torch.matmul, f16, square: CUDA events after warm-up, the median
of 20. Run on the GPU machine after `make gpu-test` (or test/gpu/build.sh)
built build/gpu/matmul. A baseline while tl.dot runs on FMAs; make bench
takes matmul over once tensor cores land."""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "test" / "gpu"))
import tkshim  # noqa: E402


def median_ms(fn, n=20):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(n)]
    for start, end in events:
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return sorted(s.elapsed_time(e) for s, e in events)[n // 2]


def main():
    kernel = tkshim.Kernel("matmul")
    for m in (1024, 4096):
        a, b = (torch.randn(m, m, device="cuda").half() for _ in range(2))
        c = torch.empty(m, m, device="cuda").half()
        args = (a, b, c, m, m, m, m, 1, m, 1, m, 1)
        tk = median_ms(lambda: kernel(*args))
        th = median_ms(lambda: torch.matmul(a, b))
        flop = 2 * m ** 3
        print(f"matmul f16 {m}^3: tkc {tk:.3f} ms ({flop / tk / 1e9:.1f} TFLOP/s), "
              f"torch {th:.3f} ms ({flop / th / 1e9:.1f} TFLOP/s), tkc/torch speed {th / tk:.4f}")


if __name__ == "__main__":
    main()
