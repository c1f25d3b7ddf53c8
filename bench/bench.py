#!/usr/bin/env python3
"""Benchmarks tkc's reference kernels against Triton and PyTorch (make bench).

In one process, on one non-default stream, every implementation is timed
the same way: a warm-up call (module load, JIT compile), then
triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median"), which
times each call with CUDA events and flushes L2 before each. Each
implementation is timed twice, interleaved with the others, and the table's
"spread" column is the largest relative difference between those two runs:
a gap between implementations smaller than that is noise.

Before any timing, every implementation's output is checked once against a
float64 reference (outputs poisoned with NaN first); a wrong tkc kernel is
reported and not timed.

Bandwidth counts the fewest bytes each kernel must move (inputs read once,
outputs written once); a device-to-device copy of 1 GiB (read + write) is the
ceiling. Then compile times: build/tkc on each kernels/*.tk (ptx, cubin and
header; median of 5 runs) against Triton's cold compile of its version
(fresh TRITON_CACHE_DIR, first call minus a warm call, median of 5 fresh
processes).

With the matmul rows comes a second table: the config Triton's autotuner
picks for tutorial 03's kernel from the tutorial's own list, per operand
type and shape (matmul_winners), and which matmul.tk config that is.

The table is printed last and, with $OUT set, written to $OUT/bench.md (raw
times in $OUT/bench.json). --no-tkc times only Triton and PyTorch: a check of
this harness before tkc's back end exists.
"""

import argparse
import json
import os
import statistics
import subprocess
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

DEV = "cuda"
NAN = float("nan")
TOL = {torch.float32: 1e-5, torch.float16: 2e-3}
GiB = 1 << 30


# ---- measuring -------------------------------------------------------------

class Impl:
    """One implementation of one benchmark. `fn` is what is timed; `verify`
    runs it once on poisoned outputs and returns the outputs to compare with
    the references (in order; it may return fewer)."""

    def __init__(self, column, label, fn=None, verify=None, error=None):
        self.column, self.label = column, label
        self.fn, self.verify, self.error = fn, verify, error
        # What the table shows instead of a number when there is an error:
        # "n/a" (not built), "ERROR" (the launch failed) or "WRONG" (ran,
        # and the output failed its check).
        self.cell = "n/a"
        self.times = []
        # Tensors `fn` reaches only through raw pointers (a tkc launcher's
        # arguments): kept alive here until the group is done, or the
        # allocator would hand their memory to the next implementation.
        self.keep = ()

    @property
    def ms(self):
        return statistics.median(self.times) if self.times else None


def poison(t):
    """NaN where the output is floating point, else a value no product here makes."""
    t.fill_(NAN if t.is_floating_point() else -(2 ** 31) + 7)


def tkc_impl(label, variant, args, outs):
    try:
        K = tkshim.Kernel(variant)
    except Exception as e:
        return Impl("tkc", label, error=f"not built ({e})")
    fn = K.launcher(*args)  # binds torch's current stream: the bench stream

    def verify():
        for o in outs:
            poison(o)
        status = fn()
        if status != K.success:
            raise RuntimeError(f"launch returned {K.describe(status)}")
        torch.cuda.synchronize()
        return outs
    impl = Impl("tkc", label, fn, verify)
    impl.keep = args
    return impl


def triton_impl(label, fn, outs):
    def verify():
        for o in outs:
            poison(o)
        fn()
        torch.cuda.synchronize()
        return outs
    return Impl("triton", label, fn, verify)


def torch_impl(label, fn):
    def verify():
        out = fn()
        torch.cuda.synchronize()
        return [out]
    return Impl("torch", label, fn, verify)


def rel_err(out, ref):
    ref = ref.double()
    norm = ref.norm().item()
    diff = (out.double() - ref).norm().item()
    return diff / norm if norm > 0 else diff


def check(impl, refs, tol=None):
    """Runs impl.verify once; sets impl.error if the output is wrong (relative
    error of the norm at least tol, by default TOL of the output's dtype)."""
    try:
        outs = impl.verify()
    except Exception as e:
        impl.cell, impl.error = "ERROR", f"{type(e).__name__}: {e}"
        return
    impl.cell = "WRONG"
    for i, (out, ref) in enumerate(zip(outs, refs)):
        if torch.isnan(out).any().item():
            impl.error = f"output {i} has NaN (unwritten elements?)"
            return
        err, bound = rel_err(out, ref), tol or TOL[out.dtype]
        if not err < bound:
            impl.error = f"output {i} rel err {err:.2e} >= {bound:.0e}"
            return


def time_ms(fn, args):
    fn()  # warm-up call, outside do_bench's own estimate
    torch.cuda.synchronize()
    return triton.testing.do_bench(fn, warmup=args.warmup, rep=args.rep, return_mode="median")


class Group:
    """One problem (kernel and shape) and every implementation of it."""

    def __init__(self, kernel, shape, nbytes, impls, refs, tol=None):
        self.kernel, self.shape, self.nbytes = kernel, shape, nbytes
        self.impls = impls
        self.refs = refs
        self.tol = tol

    def run(self, args):
        for impl in self.impls:
            if impl.error is None:
                check(impl, self.refs, self.tol)
        self.refs = None  # free the float64 references before timing
        # Two interleaved rounds: slow drift (clocks, temperature) shows up
        # as spread instead of as a difference between implementations.
        for _ in range(2):
            for impl in self.impls:
                if impl.error is None:
                    impl.times.append(time_ms(impl.fn, args))
        # The closures hold this group's tensors; only the numbers are kept.
        for impl in self.impls:
            impl.fn = impl.verify = None
            impl.keep = ()

    unit = "GB/s"  # matmul groups: TFLOP/s, nbytes being their flops

    def gbps(self, impl):
        scale = 1e12 if self.unit == "TFLOP/s" else 1e9
        return self.nbytes / (impl.ms * 1e-3) / scale if impl and impl.ms else None

    def best(self, column):
        ok = [i for i in self.impls if i.column == column and i.ms]
        return min(ok, key=lambda i: i.ms) if ok else None

    def spread(self):
        s = [abs(a - b) / min(a, b) for i in self.impls if len(i.times) == 2 for a, b in [i.times]]
        return max(s) if s else None


# ---- the benchmarks ----------------------------------------------------------

def next_pow2(n):
    return 1 << (n - 1).bit_length()


def copy_group(nbytes):
    x = torch.randn(nbytes // 4, device=DEV)
    impl = torch_impl("clone", lambda: x.clone())
    return Group("copy (torch clone)", f"{nbytes / GiB:g} GiB f32", 2 * nbytes, [impl], [x])


def vector_add_group(n, use_tkc):
    x = torch.randn(n, device=DEV)
    y = torch.randn(n, device=DEV)
    o_tkc, o_tri = torch.empty_like(x), torch.empty_like(x)
    impls = []
    if use_tkc:
        impls.append(tkc_impl("tkc", "vector_add", (x, y, o_tkc, n), [o_tkc]))
    impls.append(triton_impl("tutorial 01", lambda: tk.vector_add(x, y, o_tri, n), [o_tri]))
    impls.append(torch_impl("x + y", lambda: x + y))
    shape = f"n=2^{n.bit_length() - 1}" if n & (n - 1) == 0 else f"n={n}"
    return Group("vector_add f32", shape, 3 * 4 * n, impls, [x.double() + y.double()])


def softmax_group(M, N, use_tkc):
    x = torch.randn(M, N, device=DEV)
    o_tkc, o_p, o_r = (torch.empty_like(x) for _ in range(3))
    impls = []
    if use_tkc:
        variant = f"softmax_b{next_pow2(N)}"
        impls.append(tkc_impl(f"tkc BLOCK={next_pow2(N)}", variant, (o_tkc, x, N, N, M, N), [o_tkc]))
    impls.append(triton_impl("tutorial 02 persistent",
                             lambda: tk.softmax_persistent(o_p, x, N, N, M, N), [o_p]))
    impls.append(triton_impl("one program per row",
                             lambda: tk.softmax_rowwise(o_r, x, N, N, M, N), [o_r]))
    impls.append(torch_impl("torch.softmax", lambda: torch.softmax(x, dim=-1)))
    return Group("softmax f32", f"{M}x{N}", 2 * 4 * M * N, impls,
                 [torch.softmax(x.double(), dim=-1)])


def layernorm_group(M, N, use_tkc):
    eps = 1e-5
    x = torch.randn(M, N, device=DEV).half()
    w = torch.randn(N, device=DEV).half()
    b = torch.randn(N, device=DEV).half()

    def outputs():
        return (torch.empty_like(x), torch.empty(M, device=DEV), torch.empty(M, device=DEV))

    impls = []
    if use_tkc:
        for variant, label in (("layernorm_rowfits_b8192", "tkc ROW_FITS BLOCK=8192"),
                               ("layernorm_b8192", "tkc loop BLOCK=8192"),
                               ("layernorm_b1024", "tkc loop BLOCK=1024")):
            if variant.startswith("layernorm_rowfits") and N > 8192:
                continue
            y, mean, rstd = outputs()
            impls.append(tkc_impl(label, variant, (x, y, w, b, mean, rstd, N, M, N, eps),
                                  [y, mean, rstd]))
    y, mean, rstd = outputs()
    impls.append(triton_impl("tutorial 05",
                             lambda: tk.layer_norm_fwd(x, y, w, b, mean, rstd, N, M, N, eps),
                             [y, mean, rstd]))
    # the tutorial's kernel at tkc's loop block, for the like-for-like ratio
    y2, mean2, rstd2 = outputs()
    impls.append(triton_impl("tutorial 05 BLOCK=1024",
                             lambda: tk.layer_norm_fwd(x, y2, w, b, mean2, rstd2, N, M, N, eps, block=1024),
                             [y2, mean2, rstd2]))
    impls.append(torch_impl("F.layer_norm",
                            lambda: torch.nn.functional.layer_norm(x, (N,), w, b, eps)))
    xd = x.double()
    mean_ref = xd.mean(dim=1)
    rstd_ref = 1.0 / torch.sqrt(((xd - mean_ref[:, None]) ** 2).mean(dim=1) + eps)
    y_ref = (xd - mean_ref[:, None]) * rstd_ref[:, None] * w.double() + b.double()
    # x and y in f16; w and b read once; mean and rstd written in f32.
    nbytes = 2 * 2 * M * N + 2 * 2 * N + 2 * 4 * M
    return Group("layernorm fwd f16", f"{M}x{N}", nbytes, impls, [y_ref, mean_ref, rstd_ref])


# The configs of kernels/matmul.tk, in its order (test/gpu/variants builds
# matmul_cI with -D for each, and matmul_cI_sm80 for sm_80).
MATMUL_CONFIGS = [(128, 256, 64, 8, 8, 3), (256, 128, 64, 8, 8, 3), (128, 128, 64, 8, 4, 4),
                  (128, 64, 32, 8, 4, 4), (64, 128, 32, 8, 4, 4), (64, 64, 32, 8, 4, 5),
                  (64, 128, 64, 8, 4, 6), (128, 64, 64, 8, 4, 6), (64, 64, 64, 8, 4, 5)]


def matmul_group(M, N, K, config_index, use_tkc, sm80=False):
    """f16 matmul, one config for tkc and Triton alike; torch.matmul (cuBLAS)
    beside them. `nbytes` holds the flops: the table shows TFLOP/s."""
    cfg = MATMUL_CONFIGS[config_index]
    # rows padded to 16 elements (matmul.tk promises strides % 16), the
    # same views for every implementation
    def matrix(rows, cols, fill):
        buf = torch.empty(rows, -(-cols // 16) * 16, device=DEV).half()
        view = buf[:, :cols]
        if fill:
            view.copy_(torch.randn(rows, cols, device=DEV))
        return view
    a, b = matrix(M, K, True), matrix(K, N, True)
    o_tkc, o_tri = matrix(M, N, False), matrix(M, N, False)
    impls = []
    if use_tkc:
        for suffix, label in (("", "sm_90a"),) + ((("_sm80", "sm_80"),) if sm80 else ()):
            impls.append(tkc_impl(f"tkc {label}", f"matmul_c{config_index}{suffix}",
                                  (a, b, o_tkc, M, N, K, a.stride(0), 1, b.stride(0), 1, o_tkc.stride(0), 1),
                                  [o_tkc]))
    impls.append(triton_impl("tutorial 03", lambda: tk.matmul(a, b, o_tri, cfg), [o_tri]))
    impls.append(torch_impl("torch.matmul", lambda: torch.matmul(a, b)))
    shape = f"{M}x{N}x{K} BM={cfg[0]} BN={cfg[1]} BK={cfg[2]} w={cfg[4]} s={cfg[5]}"
    g = Group("matmul f16", shape, 2 * M * N * K, impls, [a.double() @ b.double()])
    g.unit = "TFLOP/s"
    return g


def matmul_winners(args):
    """Triton's autotune choice for tutorial 03's kernel, found as
    triton.autotune finds it (each config timed, the fastest kept; configs
    out of shared memory skipped), for f16 and bf16 at the issue's shapes,
    on the same padded matrices as matmul_group. Returns table rows: the
    winner, its TFLOP/s, the runner-up, and which matmul.tk config it is
    (cI: the matmul rows of that config compare tkc with it)."""
    rows = []
    for dt, name in ((torch.float16, "f16"), (torch.bfloat16, "bf16")):
        for M, N, K in ((4096, 4096, 4096), (8192, 8192, 8192), (3000, 5000, 2000)):
            def matrix(rows_, cols, fill):
                buf = torch.empty(rows_, -(-cols // 16) * 16, device=DEV, dtype=dt)
                view = buf[:, :cols]
                if fill:
                    view.copy_(torch.randn(rows_, cols, device=DEV))
                return view
            a, b, c = matrix(M, K, True), matrix(K, N, True), matrix(M, N, False)
            timed = []
            for cfg in tk.TUTORIAL_03_CONFIGS:
                try:
                    timed.append((time_ms(lambda: tk.matmul(a, b, c, cfg), args), cfg))
                except Exception as e:  # the autotuner skips these too
                    if type(e).__name__ != "OutOfResources":
                        raise
            timed.sort()
            tflops = lambda ms: f"{2 * M * N * K / ms / 1e9:.0f}"
            label = lambda cfg: f"BM={cfg[0]} BN={cfg[1]} BK={cfg[2]} w={cfg[4]} s={cfg[5]}"
            (best_ms, best), (next_ms, runner_up) = timed[0], timed[1]
            ours = f"c{MATMUL_CONFIGS.index(best)}" if best in MATMUL_CONFIGS else "not in matmul.tk"
            rows.append([name, f"{M}x{N}x{K}", label(best), tflops(best_ms), label(runner_up), tflops(next_ms), ours])
            print(f"  autotune {name} {M}x{N}x{K}: {label(best)} {tflops(best_ms)} TFLOP/s", flush=True)
            torch.cuda.empty_cache()
    return ["operands", "shape", "Triton's choice", "TFLOP/s", "runner-up", "TFLOP/s ", "matmul.tk"], rows


# matmul.tk for other operand types (bench/matmul_dtypes.py writes them; test/
# gpu/build.sh builds matmul_TYPE_cI): operand, result, tolerance
MATMUL_DTYPES = {
    "bf16": (torch.bfloat16, torch.bfloat16, 1e-2),
    "tf32": (torch.float32, torch.float32, 1e-2),   # f32 operands, tl.dot's default tf32
    "f8": (torch.float8_e4m3fn, torch.float16, 1e-2),
    "i8": (torch.int8, torch.int32, 1e-9),          # exact
}


# tf32's 32-wide K step configs (k0 and k1), which run it fastest
from matmul_dtypes import TF32_CONFIGS  # noqa: E402


def matmul_dtype_group(M, N, K, dt, config_index, use_tkc):
    """matmul.tk with `dt` operands beside Triton's tutorial kernel at the
    same config, and torch where it has the product (cuBLAS: torch.matmul
    with TF32 allowed, torch._int_mm for i8; none for f8). dt "TYPE_bt":
    B K-major (a column-major [K, N], as tutorial 03 passes fp8's b.T).
    config_index: an index into MATMUL_CONFIGS, or a TF32_CONFIGS name."""
    cfg = TF32_CONFIGS[config_index] if config_index in TF32_CONFIGS else MATMUL_CONFIGS[config_index]
    variant = config_index if config_index in TF32_CONFIGS else f"c{config_index}"
    b_kmajor, base = dt.endswith("_bt"), dt.removesuffix("_bt")
    ta, to, tol = MATMUL_DTYPES[base]

    def matrix(rows, cols, fill, t):
        buf = torch.zeros(rows, -(-cols // 16) * 16, device=DEV, dtype=t)
        view = buf[:, :cols]
        if fill:
            r = torch.randint(-8, 9, (rows, cols), device=DEV) if t == torch.int8 else torch.randn(rows, cols, device=DEV)
            view.copy_(r.to(t))
        return view
    a = matrix(M, K, True, ta)
    b = matrix(N, K, True, ta).t() if b_kmajor else matrix(K, N, True, ta)
    o_tkc, o_tri = matrix(M, N, False, to), matrix(M, N, False, to)
    impls = []
    if use_tkc:
        impls.append(tkc_impl("tkc sm_90a", f"matmul_{dt}_{variant}",
                              (a, b, o_tkc, M, N, K, a.stride(0), 1, b.stride(0), b.stride(1), o_tkc.stride(0), 1),
                              [o_tkc]))
    impls.append(triton_impl("tutorial 03", lambda: tk.matmul(a, b, o_tri, cfg), [o_tri]))
    if base == "tf32":
        def tf32_mm():
            torch.backends.cuda.matmul.allow_tf32 = True
            try:
                return torch.matmul(a, b)
            finally:
                torch.backends.cuda.matmul.allow_tf32 = False
        impls.append(torch_impl("torch.matmul", tf32_mm))
    elif base == "i8":
        impls.append(torch_impl("torch._int_mm", lambda: torch._int_mm(a, b)))
    elif base == "bf16":
        impls.append(torch_impl("torch.matmul", lambda: torch.matmul(a, b)))
    shape = f"{M}x{N}x{K} BM={cfg[0]} BN={cfg[1]} BK={cfg[2]} w={cfg[4]} s={cfg[5]}"
    g = Group(f"matmul {dt}", shape, 2 * M * N * K, impls, [a.double() @ b.double()], tol)
    g.unit = "TFLOP/s"
    return g


def matmul_fp8_group(M, N, K, use_tkc):
    """kernels/matmul_fp8.tk (e4m3 x e4m3, per-tensor scales, f16 out;
    tuned at the first call, through its Python module build/gpu/py/
    matmul_fp8), its tile-a-program kernel and its persistent
    warp-specialized one, beside torch._scaled_mm (cuBLAS) with the same scales and
    Triton's tutorial 03 at its 128x256x64 config (no scales). B K-major:
    the transpose of a row-major [N, K], as both want it."""
    a = torch.randn(M, K, device=DEV).to(torch.float8_e4m3fn)
    b = torch.randn(N, K, device=DEV).to(torch.float8_e4m3fn).t()
    sa, sb = torch.tensor([0.5], device=DEV), torch.tensor([0.25], device=DEV)
    o_tkc, o_tri = (torch.empty(M, N, device=DEV, dtype=torch.float16) for _ in range(2))
    impls = []
    if use_tkc:
        try:
            sys.path.insert(0, str(ROOT / "build" / "gpu" / "py"))
            import matmul_fp8
            kernel = matmul_fp8.matmul_fp8_f8e4m3_f16
            args = (a, b, o_tkc, sa, sb, M, N, K, a.stride(0), 1, 1, b.stride(1), o_tkc.stride(0), 1)
            impls.append(triton_impl("tkc sm_90a", lambda: kernel(*args), [o_tkc]))
            impls[-1].column = "tkc"
            o_per = torch.empty(M, N, device=DEV, dtype=torch.float16)
            bt = b.t()  # the row-major [N, K] the persistent kernel's descriptor reads
            impls.append(triton_impl("tkc persistent", lambda: matmul_fp8.matmul_fp8_persistent(
                a, bt, o_per, sa, sb, M, N, K), [o_per]))
            impls[-1].column = "tkc"
        except Exception as e:  # noqa: BLE001 - a missing module is a table cell, not a crash
            impls.append(Impl("tkc", "tkc sm_90a", error=f"not built ({e})"))
    tri = triton_impl("tutorial 03 (unscaled)", lambda: tk.matmul(a, b, o_tri, MATMUL_CONFIGS[0]), [o_tri])
    unscaled = tri.verify
    tri.verify = lambda: [unscaled()[0].double() * 0.125]  # checked as if scaled
    impls.append(tri)
    impls.append(torch_impl("torch._scaled_mm", lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.float16)))
    ref = a.double() @ b.double()
    g = Group("matmul_fp8 e4m3, scaled", f"{M}x{N}x{K}", 2 * M * N * K, impls, [ref * 0.125], 2e-2)
    g.unit = "TFLOP/s"
    return g


def matmul_persistent_group(M, N, K, dt, use_tkc):
    """kernels/matmul_persistent.tk (tuned at the first call, through its
    Python module build/gpu/py/matmul_persistent: persistent, TMA,
    warp-specialized on sm_90a) beside torch.matmul (cuBLAS) and Triton's
    tutorial 09 persistent descriptor kernel (bench/tma_matmul.py's, B as
    B^T as it takes it) at its 128x256x64 config, with and without
    warp_specialize."""
    t = torch.float16 if dt == "f16" else torch.bfloat16
    a = torch.randn(M, K, device=DEV, dtype=t)
    b = torch.randn(K, N, device=DEV, dtype=t)
    bt = b.T.contiguous()
    o_tkc = torch.empty(M, N, device=DEV, dtype=t)
    impls = []
    if use_tkc:
        try:
            sys.path.insert(0, str(ROOT / "build" / "gpu" / "py"))
            import matmul_persistent
            kernel = getattr(matmul_persistent, f"matmul_persistent_{dt}")
            impls.append(triton_impl("tkc sm_90a", lambda: kernel(a, b, o_tkc, M, N, K), [o_tkc]))
            impls[-1].column = "tkc"
        except Exception as e:  # noqa: BLE001 - a missing module is a table cell, not a crash
            impls.append(Impl("tkc", "tkc sm_90a", error=f"not built ({e})"))
    if t == torch.float16:  # the tutorial's kernel is written for f16
        sys.path.insert(0, str(ROOT / "bench"))
        from tma_matmul import triton_tma_persistent
        from triton.tools.tensor_descriptor import TensorDescriptor
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        for ws in (False, True):
            c = torch.empty(M, N, device=DEV, dtype=t)
            ad = TensorDescriptor(a, a.shape, a.stride(), [128, 64])
            bd = TensorDescriptor(bt, bt.shape, bt.stride(), [256, 64])
            cd = TensorDescriptor(c, c.shape, c.stride(), [128, 128])
            grid = (min(sms, triton.cdiv(M, 128) * triton.cdiv(N, 256)),)
            impls.append(triton_impl(f"tutorial 09{' ws' if ws else ''}", lambda ad=ad, bd=bd, cd=cd, ws=ws:
                                     triton_tma_persistent[grid](ad, bd, cd, M, N, K, sms, 128, 256, 64, 8, ws,
                                                                 num_warps=8, num_stages=3), [c]))
    impls.append(torch_impl("torch.matmul", lambda: torch.matmul(a, b)))
    g = Group(f"matmul_persistent {dt}", f"{M}x{N}x{K}", 2 * M * N * K, impls, [a.double() @ b.double()], 2e-2)
    g.unit = "TFLOP/s"
    return g


def attention_inputs(Z, H, N, D):
    return [torch.randn(Z, H, N, D, device=DEV, dtype=torch.float16) for _ in range(4)]


def sdpa_backends():
    from torch.nn.attention import SDPBackend
    return (("cuDNN", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION))


def sdpa(q, k, v, causal, backend):
    from torch.nn.attention import sdpa_kernel
    with sdpa_kernel(backend):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=q.shape[-1] ** -0.5)


def attention_fwd_group(Z, H, N, D, causal, use_tkc):
    """kernels/attention.tk (sm_90a and sm_80 code) and kernels/attention_tma.tk
    (descriptors, warp-specialized configs; head dim 64 and 128) against the
    Triton FA2 forward of bench/triton_attention.py and torch SDPA's cuDNN
    and flash backends; the reference is the flash backend's output."""
    import triton_attention as ta
    q, k, v, _ = attention_inputs(Z, H, N, D)
    scale = D ** -0.5
    st = [q.stride(i) for i in range(4)]
    impls = []
    if use_tkc:
        for suffix, label in (("", "sm_90a"), ("_sm80", "sm_80")):
            o, m = torch.empty_like(q), torch.empty(Z * H * N, device=DEV)
            variant = f"attention_d{D}" + ("_causal" if causal else "") + suffix
            impls.append(tkc_impl(f"tkc {label}", variant, (q, k, v, scale, m, o, *st, *st, *st, *st, Z, H, N), [o]))
        if D in (64, 128):  # kernels/attention_tma.tk's Python modules (tuned at the first call)
            name = f"attention_tma_d{D}" + ("_causal" if causal else "")
            try:
                sys.path.insert(0, str(ROOT / "build" / "gpu" / "py"))
                module = __import__(name)
                o, m = torch.empty_like(q), torch.empty(Z * H * N, device=DEV)
                q2, k2, v2 = (t.view(-1, D) for t in (q, k, v))
                impls.append(triton_impl("tkc TMA sm_90a", lambda: module.attention_fwd_tma_f16(q2, k2, v2, scale, m, o,
                                                                                              Z, H, N), [o]))
                impls[-1].column = "tkc"
            except Exception as e:  # noqa: BLE001 - a missing module is a table cell, not a crash
                impls.append(Impl("tkc", "tkc TMA sm_90a", error=f"not built ({e})"))
    o_t, m_t = torch.empty_like(q), torch.empty(Z * H * N, device=DEV)
    impls.append(triton_impl("FA2 (bench/triton_attention.py)",
                             lambda: ta.forward(q, k, v, o_t, m_t, scale, causal), [o_t]))
    for label, backend in sdpa_backends():
        impls.append(torch_impl(f"SDPA {label}", lambda b=backend: sdpa(q, k, v, causal, b)))
    ref = sdpa(q, k, v, causal, sdpa_backends()[1][1])
    g = Group("attention fwd f16" + (" causal" if causal else ""), f"Z{Z} H{H} N{N} D{D}",
              4 * Z * H * N * N * D * (0.5 if causal else 1.0), impls, [ref])
    g.unit = "TFLOP/s"
    return g


def attention_bwd_group(Z, H, N, D, causal, use_tkc):
    """kernels/attention_bwd.tk's three kernels in order (after tkc's own
    forward, whose Out and M they read) against the Triton FA2 backward and
    torch SDPA's cuDNN and flash backward passes; the reference is the flash
    backend's gradients. The flops are 2.5 times the forward's, as
    FlashAttention-2 counts them (five matmuls to the forward's two)."""
    import triton_attention as ta
    q, k, v, do = attention_inputs(Z, H, N, D)
    scale = D ** -0.5
    st = [q.stride(i) for i in range(4)]
    impls = []

    def grads():
        return [torch.empty_like(q) for _ in range(3)]

    if use_tkc:
        for suffix, label in (("", "sm_90a"), ("_sm80", "sm_80")):
            tail = ("_causal" if causal else "") + suffix
            try:
                fwd = tkshim.Kernel(f"attention_d{D}{tail}")
                pre, dkdv, dq_k = (tkshim.Kernel(f"attention_bwd_d{D}{tail}", kernel=f"attention_bwd_{n}")
                                   for n in ("preprocess", "dkdv", "dq"))
            except Exception as e:
                impls.append(Impl("tkc", f"tkc {label}", error=f"not built ({e})"))
                continue
            o, m, delta = torch.empty_like(q), torch.empty(Z * H * N, device=DEV), torch.empty(Z * H * N, device=DEV)
            if fwd(q, k, v, scale, m, o, *st, *st, *st, *st, Z, H, N) != fwd.success:
                impls.append(Impl("tkc", f"tkc {label}", error="the forward did not launch"))
                continue
            dq, dk, dv = grads()
            launches = (pre.launcher(o, do, delta, *st[:3], Z, H, N),
                        dkdv.launcher(q, k, v, scale, do, m, delta, dk, dv, *st[:3], Z, H, N),
                        dq_k.launcher(q, k, v, scale, do, m, delta, dq, *st[:3], Z, H, N))

            def run(launches=launches, ok=pre.success):
                for f in launches:
                    status = f()
                    if status != ok:
                        raise RuntimeError(f"launch returned status {status}")

            def verify(run=run, outs=(dq, dk, dv)):
                for t in outs:
                    poison(t)
                run()
                torch.cuda.synchronize()
                return list(outs)
            impls.append(Impl("tkc", f"tkc {label}", run, verify))
            impls[-1].keep = (q, k, v, do, o, m, delta, dq, dk, dv)
    o_t, m_t, delta_t = torch.empty_like(q), torch.empty(Z * H * N, device=DEV), torch.empty(Z * H * N, device=DEV)
    ta.forward(q, k, v, o_t, m_t, scale, causal)
    dq_t, dk_t, dv_t = grads()
    impls.append(triton_impl("FA2 (bench/triton_attention.py)",
                             lambda: ta.backward(q, k, v, o_t, do, m_t, delta_t, dq_t, dk_t, dv_t, scale, causal),
                             [dq_t, dk_t, dv_t]))
    qg, kg, vg = (t.detach().clone().requires_grad_() for t in (q, k, v))
    for label, backend in sdpa_backends():
        out = sdpa(qg, kg, vg, causal, backend)
        fn = lambda out=out: torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True)  # noqa: E731

        def verify(fn=fn):
            outs = list(fn())
            torch.cuda.synchronize()
            return outs
        impls.append(Impl("torch", f"SDPA {label}", fn, verify))
    ref = torch.autograd.grad(sdpa(qg, kg, vg, causal, sdpa_backends()[1][1]), (qg, kg, vg), do)
    g = Group("attention bwd f16" + (" causal" if causal else ""), f"Z{Z} H{H} N{N} D{D}",
              2.5 * 4 * Z * H * N * N * D * (0.5 if causal else 1.0), impls, list(ref), tol=4e-3)
    g.unit = "TFLOP/s"
    return g


# ---- reporting ---------------------------------------------------------------

def fmt(v, spec):
    return "—" if v is None else format(v, spec)


def table_rows(groups):
    """One row per tkc implementation (or one row when there is none): GB/s
    for the memory-bound kernels, TFLOP/s for matmul."""
    header = ["kernel", "shape", "unit", "tkc", "Triton", "torch",
              "tkc/Triton", "tkc/max(Triton,torch)", "spread"]
    rows, notes = [], []
    for g in groups:
        tri, tor = g.best("triton"), g.best("torch")
        tri_gb, tor_gb = g.gbps(tri), g.gbps(tor)
        tri_versions = [i for i in g.impls if i.column == "triton"]
        if len(tri_versions) > 1 and tri:
            others = ", ".join(f"{i.label} {i.cell if i.error else fmt(g.gbps(i), '.0f') + ' GB/s'}"
                               for i in tri_versions if i is not tri)
            notes.append(f"{g.kernel} {g.shape}: Triton column is the {tri.label} version "
                         f"(the fastest that passed; {others})")
        for i in g.impls:
            if i.error:
                notes.append(f"{g.kernel} {g.shape}: {i.label}: {i.error}")
        tkcs = [i for i in g.impls if i.column == "tkc"] or [None]
        for t in tkcs:
            name = g.kernel if t is None or len(tkcs) == 1 else f"{g.kernel} ({t.label})"
            t_gb = g.gbps(t)
            tkc_cell = t.cell if t is not None and t.error else fmt(t_gb, ".0f")
            best_other = max([v for v in (tri_gb, tor_gb) if v], default=None)
            spread = g.spread()
            rows.append([name, g.shape, g.unit, tkc_cell, fmt(tri_gb, ".0f"), fmt(tor_gb, ".0f"),
                         fmt(t_gb / tri_gb if t_gb and tri_gb else None, ".2f"),
                         fmt(t_gb / best_other if t_gb and best_other else None, ".2f"),
                         "—" if spread is None else f"{spread * 100:.1f}%"])
    return header, rows, notes


def render_text(header, rows):
    widths = [max(len(str(r[c])) for r in [header] + rows) for c in range(len(header))]
    line = lambda r: "  ".join(str(v).ljust(w) if c < 3 else str(v).rjust(w)
                               for c, (v, w) in enumerate(zip(r, widths)))
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


def render_md(header, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join(["---"] * 3 + ["---:"] * (len(header) - 3)) + "|"]
    out += ["| " + " | ".join(str(v) for v in r) + " |" for r in rows]
    return "\n".join(out)


# ---- compile time ------------------------------------------------------------

TRITON_COLD = ("vector_add", "softmax", "layernorm", "matmul")


def triton_cold_child(name):
    """Runs in a fresh process with a fresh TRITON_CACHE_DIR: times the first
    call of one Triton kernel (JIT compile + launch) and a warm call, at the
    specialization tkc compiles by default (BLOCK=1024)."""
    # Per-process costs that are not this kernel's compile: the CUDA context
    # and Triton's driver helper module (built with the C compiler into the
    # fresh cache directory on first use).
    torch.zeros(1, device=DEV)
    tk._device_properties()
    n = 1 << 20
    if name == "vector_add":
        x, y, o = (torch.randn(n, device=DEV) for _ in range(3))
        run = lambda: tk.vector_add(x, y, o, n)
    elif name == "softmax":
        M, N = 1024, 1024
        x, o = torch.randn(M, N, device=DEV), torch.empty(M, N, device=DEV)
        run = lambda: tk.softmax_persistent(o, x, N, N, M, N)
    elif name == "matmul":
        # every config of kernels/matmul.tk: one JIT compile each
        a, b = (torch.randn(1024, 1024, device=DEV).half() for _ in range(2))
        c = torch.empty(1024, 1024, device=DEV).half()
        run = lambda: [tk.matmul(a, b, c, cfg) for cfg in MATMUL_CONFIGS]
    else:
        M, N = 1024, 1024
        x, y = torch.randn(M, N, device=DEV).half(), torch.empty(M, N, device=DEV).half()
        w, b = torch.randn(N, device=DEV).half(), torch.randn(N, device=DEV).half()
        mean, rstd = torch.empty(M, device=DEV), torch.empty(M, device=DEV)
        run = lambda: tk.layer_norm_fwd(x, y, w, b, mean, rstd, N, M, N, 1e-5)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    run()
    torch.cuda.synchronize()
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    run()
    torch.cuda.synchronize()
    warm = time.perf_counter() - t0
    print(json.dumps({"first_ms": first * 1e3, "warm_ms": warm * 1e3}))


def tkc_compile_ms(tkc, kernel, runs=5):
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="tkc-bench-") as out:
            t0 = time.perf_counter()
            p = subprocess.run([tkc, str(kernel), "-o", out], capture_output=True, text=True)
            dt = time.perf_counter() - t0
            base = kernel.stem
            missing = [e for e in ("ptx", "cubin", "h") if not (Path(out) / f"{base}.{e}").exists()]
            if p.returncode != 0 or missing:
                why = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
                return None, why if p.returncode else f"did not write {missing}"
        times.append(dt * 1e3)
    return statistics.median(times), None


def triton_compile_ms(name, runs=5):
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="triton-cold-") as cache:
            env = dict(os.environ, TRITON_CACHE_DIR=cache)
            p = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--triton-cold", name],
                               capture_output=True, text=True, env=env)
            if p.returncode != 0:
                return None, (p.stderr.strip().splitlines() or ["failed"])[-1]
            r = json.loads(p.stdout.strip().splitlines()[-1])
            times.append(r["first_ms"] - r["warm_ms"])
    return statistics.median(times), None


def compile_times(tkc):
    header = ["kernel", "tkc ms", "Triton cold ms", "Triton/tkc"]
    rows, notes = [], []
    for kernel in sorted((ROOT / "kernels").glob("*.tk")):
        t_ms, t_err = tkc_compile_ms(tkc, kernel)
        if t_err:
            notes.append(f"tkc {kernel.name}: {t_err}")
        tr_ms = None
        if kernel.stem in TRITON_COLD:
            tr_ms, tr_err = triton_compile_ms(kernel.stem)
            if tr_err:
                notes.append(f"Triton {kernel.stem}: {tr_err}")
        rows.append([kernel.name, fmt(t_ms, ".1f"), fmt(tr_ms, ".1f"),
                     fmt(tr_ms / t_ms if t_ms and tr_ms else None, ".1f") + ("x" if t_ms and tr_ms else "")])
    return header, rows, notes


# ---- main ----------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-tkc", action="store_true", help="time only Triton and PyTorch")
    ap.add_argument("--skip-compile", action="store_true", help="skip the compile-time comparison")
    ap.add_argument("--only", action="append", default=[], metavar="TEXT",
                    help="run only benchmarks whose name contains TEXT (vector_add, softmax, layernorm, copy)")
    ap.add_argument("--warmup", type=float, default=25, help="do_bench warm-up, ms")
    ap.add_argument("--rep", type=float, default=200, help="do_bench repetition time, ms")
    ap.add_argument("--triton-cold", metavar="KERNEL", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.triton_cold:
        triton_cold_child(args.triton_cold)
        return 0

    torch.manual_seed(0)
    props = torch.cuda.get_device_properties(0)
    head = (f"{props.name}, {props.multi_processor_count} SMs, "
            f"{props.total_memory / GiB:.0f} GiB; torch {torch.__version__}, triton {triton.__version__}, "
            f"CUDA {torch.version.cuda}; do_bench warmup={args.warmup} ms rep={args.rep} ms, median")
    print("#", head, flush=True)

    use_tkc = not args.no_tkc
    makers = [
        ("vector_add", lambda: vector_add_group(2 ** 28, use_tkc)),
        ("softmax", lambda: softmax_group(4096, 4096, use_tkc)),
        ("softmax", lambda: softmax_group(16384, 1024, use_tkc)),
        ("softmax", lambda: softmax_group(4096, 16384, use_tkc)),
        ("layernorm", lambda: layernorm_group(8192, 8192, use_tkc)),
        ("copy", lambda: copy_group(GiB)),
    ]
    for i in range(len(MATMUL_CONFIGS)):
        makers.append(("matmul", lambda i=i: matmul_group(4096, 4096, 4096, i, use_tkc, sm80=True)))
    for i in (0, 2):
        makers.append(("matmul", lambda i=i: matmul_group(8192, 8192, 8192, i, use_tkc)))
        makers.append(("matmul", lambda i=i: matmul_group(3000, 5000, 2000, i, use_tkc)))
    for i in (0, 2):
        for shape in ((4096, 4096, 4096), (8192, 8192, 8192), (3000, 5000, 2000)):
            makers.append(("matmul bf16", lambda i=i, s=shape: matmul_dtype_group(*s, "bf16", i, use_tkc)))
    for dt in ("tf32", "f8", "i8", "tf32_bt", "f8_bt", "i8_bt"):
        makers.append((f"matmul {dt}", lambda dt=dt: matmul_dtype_group(8192, 8192, 8192, dt, 0, use_tkc)))
    for dt in ("tf32_bt", "f8_bt", "i8_bt"):
        makers.append((f"matmul {dt}", lambda dt=dt: matmul_dtype_group(8192, 8192, 8192, dt, 2, use_tkc)))
    for dt in ("tf32", "tf32_bt"):
        for name in TF32_CONFIGS:
            makers.append((f"matmul {dt}", lambda dt=dt, n=name: matmul_dtype_group(8192, 8192, 8192, dt, n, use_tkc)))
    for shape in ((4096, 4096, 4096), (8192, 8192, 8192), (8192, 8192, 4096), (3000, 4992, 2048)):  # N % 16: both want it
        makers.append(("matmul_fp8", lambda s=shape: matmul_fp8_group(*s, use_tkc)))
    for dt in ("f16", "bf16"):
        for shape in ((4096, 4096, 4096), (8192, 8192, 8192), (3000, 5000, 2000)):
            makers.append((f"matmul_persistent {dt}", lambda s=shape, dt=dt: matmul_persistent_group(*s, dt, use_tkc)))
    for Z, H, D in ((4, 32, 128), (16, 16, 64)):
        for N in (1024, 4096, 16384):
            for causal in (False, True):
                # --only "attention fwd Z4 H32 N1024 D128 causal" picks one row
                row = f"Z{Z} H{H} N{N} D{D}" + (" causal" if causal else "")
                makers.append((f"attention fwd {row}", lambda a=(Z, H, N, D, causal): attention_fwd_group(*a, use_tkc)))
                makers.append((f"attention bwd {row}", lambda a=(Z, H, N, D, causal): attention_bwd_group(*a, use_tkc)))
    groups = []
    failed = False
    # One non-default stream for everything, as Triton's tutorials do: tkc's
    # launcher gets it explicitly, Triton and torch read it as current.
    with torch.cuda.stream(torch.cuda.Stream()):
        for name, make in makers:
            if args.only and not any(o in name for o in args.only):
                continue
            g = make()
            print(f"  {g.kernel} {g.shape} ...", flush=True)
            g.run(args)
            # progress, so a run cut short still shows what it measured
            print("    " + ", ".join(f"{i.label} {i.cell if i.error else fmt(g.gbps(i), '.0f')}"
                                     for i in g.impls) + f" {g.unit}", flush=True)
            groups.append(g)
            failed |= any(i.error for i in g.impls if i.column == "tkc")
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
        winners = None
        if not args.only or any(o in "matmul winners" for o in args.only):
            print("tutorial 03's autotune choice per shape ...", flush=True)
            winners = matmul_winners(args)
    header, rows, notes = table_rows(groups)

    out = ["", render_text(header, rows)]
    md = [f"Device: {head}", "", render_md(header, rows)]
    if notes:
        out += [""] + [f"note: {n}" for n in notes]
        md += [""] + [f"- {n}" for n in notes]
    if winners:
        intro = ("Triton's autotune choice among tutorial 03's configs (each timed as above, the "
                 "fastest kept, as triton.autotune does):")
        out += ["", intro, render_text(*winners)]
        md += ["", intro, "", render_md(*winners)]
    print("\n".join(out), flush=True)

    compile_md = []
    if not args.skip_compile:
        tkc = os.environ.get("TKC", str(ROOT / "build" / "tkc"))
        print("\ncompile time (tkc: median of 5 runs of build/tkc; Triton: cold cache, first call "
              "minus warm call, median of 5 processes)", flush=True)
        ch, cr, cn = compile_times(tkc)
        print(render_text(ch, cr))
        for n in cn:
            print(f"note: {n}")
        compile_md = ["", "Compile time (ms): tkc `build/tkc K.tk -o DIR` (ptx, cubin, header), "
                      "median of 5; Triton first call minus warm call with a fresh "
                      "TRITON_CACHE_DIR, median of 5 processes.", "", render_md(ch, cr)]
        compile_md += [f"- {n}" for n in cn]

    out_dir = os.environ.get("OUT")
    if out_dir:
        Path(out_dir, "bench.md").write_text("\n".join(md + compile_md) + "\n")
        Path(out_dir, "bench.json").write_text(json.dumps(
            [{"kernel": g.kernel, "shape": g.shape, "bytes": g.nbytes,
              "impls": [{"column": i.column, "label": i.label, "times_ms": i.times,
                         "error": i.error} for i in g.impls]} for g in groups], indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
