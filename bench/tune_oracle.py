#!/usr/bin/env python3
"""matmul.tk's autotuned launcher against an oracle (each of its configs
alone, the fastest per shape) and against Triton's @triton.autotune over
tutorial 03's sixteen configs, at shapes from 512^3 to 8192^3, a skinny and
ragged ones; f16, one process, outputs checked against float64 first.
Each implementation's first call tunes (not timed) and is checked on its
own output; then all are timed writing one output (do_bench medians, ROUNDS
rounds, default 3, each in a new shuffled order, the median of each).

    DIR=build/gpu python3 bench/tune_oracle.py    # DIR/matmul (no -D) and DIR/matmul_cI, each config

SHAPES=MxNxK,... picks the shapes. CONFIGS=tutorial says DIR's configs are
tutorial 03's sixteen, in order (a matmul.tk whose @autotune lists them):
then Triton is also timed at each config alone, and a second table gives
each config's tkc/Triton ratio per shape.
"""

import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "gpu"))
sys.path.insert(0, str(ROOT / "bench"))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.testing  # noqa: E402

import tkshim  # noqa: E402
import triton_kernels as tk  # noqa: E402
from bench import MATMUL_CONFIGS  # noqa: E402

SHAPES = [(512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192),
          (64, 8192, 8192), (1000, 1000, 1000), (4095, 4097, 1023), (3000, 5000, 2000)]

triton_tuned = triton.autotune(
    configs=[triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP_M": g}, num_warps=w, num_stages=s)
             for bm, bn, bk, g, w, s in tk.TUTORIAL_03_CONFIGS],
    key=["M", "N", "K"])(tk._matmul_kernel)


def tuned_choice(call):
    """Runs call() (the tuned launcher's first call, which tunes) with
    TKC_TUNE_VERBOSE=1 and stderr caught; returns call()'s result and the
    index of the config the tuner chose (None if it printed none). The
    report is passed on to stderr."""
    os.environ["TKC_TUNE_VERBOSE"] = "1"
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+") as caught:
        os.dup2(caught.fileno(), 2)
        try:
            result = call()
            torch.cuda.synchronize()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        caught.seek(0)
        lines = caught.read().splitlines()
    sys.stderr.write("".join(line + "\n" for line in lines))
    chosen = [line.rsplit(", ", 1)[0].split(": ", 2)[-1] for line in lines if not line.startswith("tkc tune:  ")]
    listed = [line.split("  ", 2)[-1].strip() for line in lines if line.startswith("tkc tune:  ")]
    listed = [text.split("  ", 1)[-1] for text in listed]
    index = listed.index(chosen[0]) if chosen and chosen[0] in listed else None
    return result, index


def main():
    d = Path(os.environ.get("DIR", ROOT / "build" / "gpu"))
    tuned = tkshim.Kernel("matmul", d / "matmul" / "libtkshim.so")
    tutorial = os.environ.get("CONFIGS") == "tutorial"
    configs = tk.TUTORIAL_03_CONFIGS if tutorial else MATMUL_CONFIGS
    singles = [tkshim.Kernel(f"matmul_c{i}", d / f"matmul_c{i}" / "libtkshim.so") for i in range(len(configs))]
    rounds = int(os.environ.get("ROUNDS", "3"))
    shapes = SHAPES
    if os.environ.get("SHAPES"):
        shapes = [tuple(int(x) for x in s.split("x")) for s in os.environ["SHAPES"].split(",")]
    per_config = []
    shuffle = random.Random(1)
    print("| shape | tkc tuned | its choice | oracle (best config) | tuned/oracle | Triton autotuned | tkc/Triton | "
          "tkc first call | Triton first call |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for M, N, K in shapes:
        def matrix(rows, cols):
            return torch.empty(rows, -(-cols // 16) * 16, device="cuda", dtype=torch.float16)[:, :cols]
        a, b = matrix(M, K), matrix(K, N)
        a.copy_(torch.randn(M, K, device="cuda"))
        b.copy_(torch.randn(K, N, device="cuda"))
        ref = a.double() @ b.double()
        impls, first = {}, {}
        # every implementation is timed writing this one C, as the tuner
        # times the configs on the caller's buffers: where the buffers lie
        # moves a 10 us kernel by up to 7% (c6 at 1024^3: 10.1 us on one C,
        # 11.2 on another), more than the configs differ
        c_time = matrix(M, N)
        for label, kern in [("tuned", tuned)] + [(f"c{i}", k) for i, k in enumerate(singles)]:
            c = matrix(M, N)
            fn = kern.launcher(a, b, c, M, N, K, a.stride(0), 1, b.stride(0), 1, c.stride(0), 1)
            c.fill_(float("nan"))
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            if label == "tuned":
                status, choice = tuned_choice(fn)
            else:
                status = fn()
            if status != kern.success:
                if label == "tuned":
                    sys.exit(f"{label}: launch failed: {kern.describe(status)}")
                print(f"note: {label} does not launch at {M}x{N}x{K}: {kern.describe(status)}", file=sys.stderr)
                continue
            torch.cuda.synchronize()
            first[label] = time.perf_counter() - t0
            err = ((c.double() - ref).norm() / ref.norm()).item()
            if not err < 2e-3:
                sys.exit(f"{label} {M}x{N}x{K}: rel err {err:.1e}")
            impls[label] = kern.launcher(a, b, c_time, M, N, K, a.stride(0), 1, b.stride(0), 1, c_time.stride(0), 1)
        c_tri = matrix(M, N).fill_(float("nan"))
        grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)  # noqa: E731
        def tri(c=c_tri):
            triton_tuned[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                               c.stride(1))
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        tri()
        torch.cuda.synchronize()
        first["triton"] = time.perf_counter() - t0
        err = ((c_tri.double() - ref).norm() / ref.norm()).item()
        if not err < 2e-3:
            sys.exit(f"triton {M}x{N}x{K}: rel err {err:.1e}")
        impls["triton"] = lambda: tri(c_time)
        for i, cfg in enumerate(configs if tutorial else []):
            c_single = matrix(M, N).fill_(float("nan"))
            single = lambda cfg=cfg, c_single=c_single: tk.matmul(a, b, c_single, cfg)  # noqa: E731
            try:
                single()
                torch.cuda.synchronize()
            except Exception as e:  # Triton's OutOfResources
                print(f"note: Triton config {cfg} does not run: {type(e).__name__}", file=sys.stderr)
                continue
            impls[f"t{i}"] = lambda cfg=cfg: tk.matmul(a, b, c_time, cfg)
            err = ((c_single.double() - ref).norm() / ref.norm()).item()
            if not err < 2e-3:
                sys.exit(f"triton config {cfg} {M}x{N}x{K}: rel err {err:.1e}")
        runs = {label: [] for label in impls}
        for _ in range(rounds):
            order = list(impls)
            shuffle.shuffle(order)  # no implementation always first, or always after the same one
            for label in order:
                runs[label].append(triton.testing.do_bench(impls[label], warmup=25, rep=100, return_mode="median"))
        ms = {label: statistics.median(v) for label, v in runs.items()}
        flops = 2 * M * N * K
        tf = {label: flops / t / 1e9 for label, t in ms.items()}
        best = min((f"c{i}" for i in range(len(singles)) if f"c{i}" in ms), key=lambda lab: ms[lab])
        chose = "?" if choice is None else f"c{choice}" + (" (the oracle's)" if f"c{choice}" == best else "")
        print(f"| {M}x{N}x{K} | {tf['tuned']:.1f} | {chose} | {tf[best]:.1f} ({best}) | {ms[best] / ms['tuned']:.3f} | "
              f"{tf['triton']:.1f} | {ms['triton'] / ms['tuned']:.3f} | {first['tuned']:.2f} s | "
              f"{first['triton']:.2f} s |", flush=True)
        if tutorial:
            per_config.append((f"{M}x{N}x{K}", [(tf.get(f"c{i}"), tf.get(f"t{i}")) for i in range(len(configs))]))
    if per_config:
        print("\nEach config alone, TFLOP/s tkc / Triton (ratio):")
        print("| config | " + " | ".join(name for name, _ in per_config) + " |")
        print("|---|" + "---:|" * len(per_config))
        for i, cfg in enumerate(configs):
            cells = [f"{row[i][0]:.0f}/{row[i][1]:.0f} ({row[i][0] / row[i][1]:.2f})" if None not in row[i]
                     else f"{row[i][0] or '-'}/{row[i][1] or '-'}" for _, row in per_config]
            print(f"| c{i} {cfg[0]}x{cfg[1]}x{cfg[2]} w{cfg[4]} s{cfg[5]} | " + " | ".join(cells) + " |")
    print("Triton's choices:")
    for key, cfg in triton_tuned.cache.items():
        print(f"  {key[:3]}: {cfg}")


if __name__ == "__main__":
    main()
