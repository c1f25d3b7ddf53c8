#!/usr/bin/env python3
"""GPU correctness tests for tkc's reference kernels (make gpu-test).

Each case draws fresh random inputs (never zeros: they hide unwritten outputs
and wrong indexing), poisons every output with NaN, launches through the
ctypes shim on torch's current stream, and then checks:

  * the launcher returned TK_SUCCESS (else its status text is printed);
  * ||out - ref|| / ||ref|| against a float64 reference is under 1e-5 for f32
    outputs and 2e-3 for f16 outputs, and no NaN is left (every element was
    written);
  * nothing outside the output was written: row padding, a guard row after
    the last row and a guard tail after vectors hold a sentinel that must
    survive (and input padding holds values that would wreck the result if a
    mask let them in);
  * a second launch on the same inputs gives bit-identical output: these
    kernels have a fixed reduction order, so any difference is a race.

Promise violations (a misaligned pointer, a stride that is not a multiple of
16) must return their error status (TK_ERROR_MISALIGNED, TK_ERROR_NOT_DIVISIBLE)
and launch nothing: the poisoned output must stay untouched. A few cases check the launcher's contract with its caller:
stream ordering, CUDA-graph capture, a calling thread with no current CUDA
context, and concurrent first calls.

One line per case, "PASS|FAIL name details", then "N passed, M failed"; the
exit status is 1 on any failure. `--impl triton` runs the same numerical
cases on the Triton tutorial kernels (bench/triton_kernels.py): a check of
this harness itself on a known-good implementation. With $OUT set, the
output is also written to $OUT/gpu-test.txt.
"""

import argparse
import os
import shutil
import sys
import tempfile
import threading
import traceback
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import tkshim  # noqa: E402

DEV = "cuda"
NAN = float("nan")
# Exactly representable in f16 and f32, and no kernel here computes it.
SENTINEL = -1234.0
TOL = {torch.float32: 1e-5, torch.float16: 2e-3, torch.bfloat16: 1.6e-2}
# Longer than any launch here takes to enqueue: holds a stream busy so that
# work wrongly put on another stream would visibly run first.
SLEEP_CYCLES = 200_000_000


def round_up(n, m):
    return (n + m - 1) // m * m


def bits(t):
    """The tensor's raw bits, so NaN compares equal to itself."""
    return t.contiguous().view({4: torch.int32, 2: torch.int16}[t.element_size()])


# ---- checks: each appends a description of what is wrong to `problems` -----

def rel_err(out, ref):
    ref = ref.double()
    diff = (out.double() - ref).norm().item()
    norm = ref.norm().item()
    return diff / norm if norm > 0 else diff


def check_close(problems, label, out, ref):
    tol = TOL[out.dtype]
    unwritten = torch.isnan(out).sum().item()
    if unwritten:
        problems.append(f"{label}: {unwritten} of {out.numel()} elements still NaN "
                        f"(not written, or NaN computed)")
        out = torch.nan_to_num(out, nan=0.0)
    err = rel_err(out, ref)
    if not err < tol:
        problems.append(f"{label}: rel err {err:.2e} >= {tol:.0e}")
    return err


def check_untouched(problems, label, buf, rows, cols, value=SENTINEL):
    """Everything in `buf` outside [:rows, :cols] must still be `value`."""
    outside = buf.clone()
    if buf.dim() == 2:
        outside[:rows, :cols] = value
    else:
        outside[:rows] = value
    changed = (outside != value).sum().item()
    if changed:
        problems.append(f"{label}: {changed} elements outside the output were written")


def check_all_nan(problems, label, t):
    written = (~torch.isnan(t)).sum().item()
    if written:
        problems.append(f"{label}: {written} elements written although the launch was refused")


def launch(problems, kernel, *args):
    """Launches, checks the status and waits for the GPU. False if refused."""
    status = kernel(*args)
    if status != kernel.success:
        problems.append(f"launch returned {kernel.describe(status)}")
        return False
    torch.cuda.synchronize()
    return True


def check_deterministic(problems, kernel, args, outs):
    """Runs again on the same inputs with the outputs re-poisoned."""
    first = [o.clone() for o in outs]
    for o in outs:
        o.fill_(NAN)
    if not launch(problems, kernel, *args):
        return
    for i, (a, b) in enumerate(zip(first, outs)):
        if not torch.equal(bits(a), bits(b)):
            n = (bits(a) != bits(b)).sum().item()
            problems.append(f"output {i}: second run on the same inputs differs in {n} elements (race?)")


def expect_refused(problems, kernel, args, poisoned, expected=None):
    """A promise violation: an error status, and nothing written."""
    status = kernel(*args)
    torch.cuda.synchronize()
    if status == kernel.success:
        problems.append("launch returned success for arguments that break a promise")
    elif expected is not None and status != expected:
        problems.append(f"expected {kernel.describe(expected)}, got {kernel.describe(status)}")
    for i, t in enumerate(poisoned):
        check_all_nan(problems, f"output {i}", t)
    return f"-> {kernel.describe(status)}"


# ---- implementations -------------------------------------------------------

class Impls:
    """Kernel variants by name (test/gpu/variants), loaded on first use. A
    variant that failed to build fails its own cases only."""

    def __init__(self, impl):
        self.impl = impl
        self.cache = {}

    def __call__(self, variant):
        if variant not in self.cache:
            try:
                self.cache[variant] = self._load(variant)
            except Exception as e:  # reported by every case that needs it
                self.cache[variant] = e
        k = self.cache[variant]
        if isinstance(k, Exception):
            raise k
        return k

    def _load(self, variant):
        if self.impl == "tkc":
            # "VARIANT/KERNEL": one launcher of a file with several kernels
            variant, _, kernel = variant.partition("/")
            return tkshim.Kernel(variant, kernel=kernel or None)
        sys.path.insert(0, str(HERE.parents[1] / "bench"))
        import triton_kernels as tk
        # Triton has one version of each kernel; every tkc variant of it is
        # checked against that one.
        for prefix, fn in (("vector_add", tk.vector_add), ("softmax", tk.softmax_persistent),
                           ("layernorm", tk.layer_norm_fwd)):
            if variant.startswith(prefix):
                return TritonKernel(fn)
        raise KeyError(f"no Triton version of {variant}")


class TritonKernel:
    """The Triton tutorial kernels behind the shim's call protocol."""
    success = 0
    error_misaligned = error_not_divisible = None

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *args, stream=None):
        self.fn(*args)
        return 0

    def describe(self, status):
        return f"status {status}"


# ---- cases -----------------------------------------------------------------

def vector_add_case(K, n):
    def run():
        problems = []
        # Views of larger buffers, so that n = 0 still passes real addresses.
        x = torch.randn(n + 16, device=DEV)[:n]
        y = torch.randn(n + 16, device=DEV)[:n]
        # A guard tail longer than a block: catches the last block's masked
        # lanes storing anyway.
        buf = torch.full((n + 1024 + 16,), SENTINEL, device=DEV)
        out = buf[:n]
        out.fill_(NAN)
        ref = x.double() + y.double()
        args = (x, y, out, n)
        if n == 0:
            # an empty input: success, nothing launched, nothing written
            launch(problems, K, *args)
            check_untouched(problems, "guard after n", buf, n, None)
            return problems, "empty"
        if not launch(problems, K, *args):
            return problems, ""
        err = check_close(problems, "out", out, ref)
        check_untouched(problems, "guard after n", buf, n, None)
        check_deterministic(problems, K, args, [out])
        return problems, f"rel_err={err:.1e}"
    return run


def softmax_case(K, rows, cols, x_stride=None, out_stride=None, scale=3.0):
    def run():
        problems = []
        xs = x_stride or round_up(cols, 16)
        os_ = out_stride or round_up(cols, 16)
        # Input padding and guard row hold 30.0: exp(30) would swamp any row
        # whose mask let them in.
        x_buf = torch.full((rows + 1, xs), 30.0, device=DEV)
        x = x_buf[:rows, :cols]
        x.copy_(torch.randn(rows, cols, device=DEV) * scale)
        out_buf = torch.full((rows + 1, os_), SENTINEL, device=DEV)
        out = out_buf[:rows, :cols]
        out.fill_(NAN)
        ref = torch.softmax(x.double(), dim=-1)
        args = (out, x, os_, xs, rows, cols)
        if rows == 0:
            # no rows: success, nothing launched, nothing written
            launch(problems, K, *args)
            check_untouched(problems, "row padding / guard row", out_buf, rows, cols)
            return problems, "empty"
        if not launch(problems, K, *args):
            return problems, f"strides out={os_} x={xs}"
        err = check_close(problems, "out", out, ref)
        check_untouched(problems, "row padding / guard row", out_buf, rows, cols)
        check_deterministic(problems, K, args, [out])
        return problems, f"strides out={os_} x={xs} rel_err={err:.1e}"
    return run


def layernorm_case(K, M, N, eps=1e-5, offset=0.5, scale=1.5):
    def run():
        problems = []
        stride = round_up(N, 16)
        # Input padding 1000.0 would move the mean a long way if read.
        x_buf = torch.full((M + 1, stride), 1000.0, dtype=torch.float16, device=DEV)
        X = x_buf[:M, :N]
        # A non-zero mean, so Mean is checked in a well-conditioned place and
        # the variance is computed around something other than 0.
        X.copy_((torch.randn(M, N, device=DEV) * scale + offset).half())
        y_buf = torch.full((M + 1, stride), SENTINEL, dtype=torch.float16, device=DEV)
        Y = y_buf[:M, :N]
        Y.fill_(NAN)
        W = torch.randn(N, device=DEV).half()
        B = torch.randn(N, device=DEV).half()
        mean_buf = torch.full((M + 16,), SENTINEL, device=DEV)
        rstd_buf = torch.full((M + 16,), SENTINEL, device=DEV)
        Mean, Rstd = mean_buf[:M], rstd_buf[:M]
        Mean.fill_(NAN)
        Rstd.fill_(NAN)

        xd = X.double()
        mean_ref = xd.mean(dim=1)
        var_ref = ((xd - mean_ref[:, None]) ** 2).mean(dim=1)
        rstd_ref = 1.0 / torch.sqrt(var_ref + eps)
        y_ref = (xd - mean_ref[:, None]) * rstd_ref[:, None] * W.double() + B.double()

        args = (X, Y, W, B, Mean, Rstd, stride, M, N, eps)
        if not launch(problems, K, *args):
            return problems, f"stride={stride}"
        ey = check_close(problems, "Y", Y, y_ref)
        em = check_close(problems, "Mean", Mean, mean_ref)
        er = check_close(problems, "Rstd", Rstd, rstd_ref)
        check_untouched(problems, "Y row padding / guard row", y_buf, M, N)
        check_untouched(problems, "Mean guard", mean_buf, M, None)
        check_untouched(problems, "Rstd guard", rstd_buf, M, None)
        check_deterministic(problems, K, args, [Y, Mean, Rstd])
        return problems, f"stride={stride} rel_err Y={ey:.1e} Mean={em:.1e} Rstd={er:.1e}"
    return run


def matmul_operands(M, N, Kd, c_dtype):
    """Random f16 A [M, Kd] and B [Kd, N] and a C [M, N] of c_dtype, rows
    padded to a multiple of 16 elements (the strides' promise), each with a
    guard row; C's buffer filled with SENTINEL."""
    sa, sb, sc = round_up(Kd, 16), round_up(N, 16), round_up(N, 16)
    a_buf = torch.full((M + 1, sa), 100.0, dtype=torch.float16, device=DEV)
    b_buf = torch.full((Kd + 1, sb), 100.0, dtype=torch.float16, device=DEV)
    A, B = a_buf[:M, :Kd], b_buf[:Kd, :N]
    A.copy_(torch.randn(M, Kd, device=DEV).half())
    B.copy_(torch.randn(Kd, N, device=DEV).half())
    c_buf = torch.full((M + 1, sc), SENTINEL, dtype=c_dtype, device=DEV)
    return A, B, c_buf, (sa, sb, sc)


def matmul_case(K, M, N, Kd):
    """C = A @ B in f16 through kernels/matmul.tk's launcher, rows padded to
    a multiple of 16 elements (the strides' promise) with a guard row."""
    def run():
        problems = []
        A, B, c_buf, (sa, sb, sc) = matmul_operands(M, N, Kd, torch.float16)
        C = c_buf[:M, :N]
        C.fill_(NAN)
        ref = A.double() @ B.double()
        args = (A, B, C, M, N, Kd, sa, 1, sb, 1, sc, 1)
        if not launch(problems, K, *args):
            return problems, ""
        err = check_close(problems, "C", C, ref)
        check_untouched(problems, "C row padding / guard row", c_buf, M, N)
        check_deterministic(problems, K, args, [C])
        return problems, f"rel_err={err:.1e}"
    return run


def matmul_acc_case(K, M, N, Kd):
    """C += A @ B through test/gpu/kernels/matmul_acc.tk's autotuned
    launcher: the trials restore C, so C0 + A @ B after the first launch
    (which tunes) and C0 + 2 A @ B after the second (which looks up)."""
    def run():
        problems = []
        A, B, c_buf, (sa, sb, sc) = matmul_operands(M, N, Kd, torch.float32)
        C = c_buf[:M, :N]
        C.copy_(torch.randn(M, N, device=DEV))
        c0 = C.double()
        ab = A.double() @ B.double()
        args = (A, B, C, M, N, Kd, sa, sb, sc)
        if not launch(problems, K, *args):
            return problems, ""
        err1 = check_close(problems, "C after one launch", C, c0 + ab)
        if not launch(problems, K, *args):
            return problems, ""
        err2 = check_close(problems, "C after two launches", C, c0 + 2 * ab)
        check_untouched(problems, "C row padding / guard row", c_buf, M, N)
        return problems, f"rel_err={err1:.1e}, {err2:.1e}"
    return run


def attention_case(K, Z, H, n_ctx, d, causal, dtype=torch.float16):
    """kernels/attention.tk against torch's scaled_dot_product_attention in
    float32 (f16 or bf16 inputs), with the base-2 log-sum-exp output M."""
    def run():
        problems = []
        shape = (Z, H, n_ctx, d)
        q, k, v = (torch.randn(shape, device=DEV).to(dtype) for _ in range(3))
        o_buf = torch.full((Z, H, n_ctx + 1, d), SENTINEL, dtype=dtype, device=DEV)
        out = o_buf[:, :, :n_ctx]
        out.fill_(NAN)
        m_buf = torch.full((Z * H * n_ctx + 16,), SENTINEL, device=DEV)
        m = m_buf[:Z * H * n_ctx]
        m.fill_(NAN)
        scale = d ** -0.5
        ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                               is_causal=causal, scale=scale)
        s = (q.double() @ k.double().transpose(-1, -2)) * scale
        if causal:
            s = s.masked_fill(torch.ones(n_ctx, n_ctx, dtype=torch.bool, device=DEV).triu(1), float("-inf"))
        lse2 = torch.logsumexp(s, dim=-1) / torch.log(torch.tensor(2.0, dtype=torch.float64))
        st = lambda t: [t.stride(i) for i in range(4)]  # noqa: E731
        args = (q, k, v, scale, m, out, *st(q), *st(k), *st(v), *st(out), Z, H, n_ctx)
        if not launch(problems, K, *args):
            return problems, ""
        err_o = check_close(problems, "Out", out, ref)
        bad = torch.isnan(m).sum().item()
        if bad:
            problems.append(f"M: {bad} elements NaN")
        err_m = rel_err(torch.nan_to_num(m), lse2.reshape(-1))
        if not err_m < 1e-4:
            problems.append(f"M: rel err {err_m:.2e} >= 1e-04")
        pad = o_buf[:, :, n_ctx:]
        # bf16 holds SENTINEL rounded: compare with the value the buffer got
        if (pad != torch.full_like(pad, SENTINEL)).any():
            problems.append("Out guard row written")
        if (m_buf[Z * H * n_ctx:] != SENTINEL).any():
            problems.append("M guard written")
        return problems, f"rel_err Out={err_o:.1e} M={err_m:.1e}"
    return run


def attention_bwd_case(get, fwd, bwd, Z, H, n_ctx, d, causal, dtype=torch.float16):
    """kernels/attention_bwd.tk after attention.tk's forward (its Out and M):
    dQ, dK, dV against torch autograd through scaled_dot_product_attention
    in float32 on the same 16-bit inputs."""
    def run():
        problems = []
        shape = (Z, H, n_ctx, d)
        q, k, v, do = (torch.randn(shape, device=DEV).to(dtype) for _ in range(4))
        scale = d ** -0.5
        qf, kf, vf = (t.float().requires_grad_() for t in (q, k, v))
        ref = torch.nn.functional.scaled_dot_product_attention(qf, kf, vf, is_causal=causal, scale=scale)
        ref.backward(do.float())
        # Every buffer gets a guard row past N_CTX that no kernel may touch.
        def poisoned():
            buf = torch.full((Z, H, n_ctx + 1, d), SENTINEL, dtype=dtype, device=DEV)
            buf[:, :, :n_ctx].fill_(NAN)
            return buf
        o_buf, dq_buf, dk_buf, dv_buf = (poisoned() for _ in range(4))
        out, dq, dk, dv = (b[:, :, :n_ctx] for b in (o_buf, dq_buf, dk_buf, dv_buf))
        rows = Z * H * n_ctx
        m_buf = torch.full((rows + 16,), SENTINEL, device=DEV)
        delta_buf = torch.full((rows + 16,), SENTINEL, device=DEV)
        m, delta = m_buf[:rows], delta_buf[:rows]
        m.fill_(NAN)
        delta.fill_(NAN)
        # The backward's contract: one set of strides for all eight tensors.
        ins = [t.contiguous() for t in (q, k, v, do)]
        q, k, v, do = (torch.full((Z, H, n_ctx + 1, d), SENTINEL, dtype=dtype, device=DEV) for _ in range(4))
        for buf, t in zip((q, k, v, do), ins):
            buf[:, :, :n_ctx].copy_(t)
        q, k, v, do = (b[:, :, :n_ctx] for b in (q, k, v, do))
        st = [q.stride(i) for i in range(4)]
        if not launch(problems, get(fwd), q, k, v, scale, m, out, *st, *st, *st, *st, Z, H, n_ctx):
            return problems, ""
        err_o = check_close(problems, "Out", out, ref.detach())
        strides = st[:3]
        if not launch(problems, get(bwd + "/attention_bwd_preprocess"), out, do, delta, *strides, Z, H, n_ctx):
            return problems, ""
        delta_ref = (out.float() * do.float()).sum(-1).reshape(-1)
        err_delta = check_close(problems, "Delta", delta, delta_ref)
        if not launch(problems, get(bwd + "/attention_bwd_dkdv"), q, k, v, scale, do, m, delta, dk, dv,
                      *strides, Z, H, n_ctx):
            return problems, ""
        if not launch(problems, get(bwd + "/attention_bwd_dq"), q, k, v, scale, do, m, delta, dq,
                      *strides, Z, H, n_ctx):
            return problems, ""
        # The gradients' tolerance is the forward's (TOL), in the norm. With
        # one key (N_CTX = 1) softmax is constant, so dQ and dK are exactly
        # 0 and both sides hold rounding noise: their error is measured
        # against a hundredth of dV's norm where that is larger than theirs.
        # For every other N_CTX here their norms are of dV's order.
        errs = []
        floor = 0.01 * vf.grad.double().norm().item()
        for label, got, want in (("dQ", dq, qf.grad), ("dK", dk, kf.grad), ("dV", dv, vf.grad)):
            got = got.double()
            unwritten = torch.isnan(got).sum().item()
            if unwritten:
                problems.append(f"{label}: {unwritten} of {got.numel()} elements NaN")
                got = torch.nan_to_num(got, nan=0.0)
            err = (got - want.double()).norm().item() / max(want.double().norm().item(), floor)
            if not err < TOL[dtype]:
                problems.append(f"{label}: rel err {err:.2e} >= {TOL[dtype]:.0e}")
            errs.append(f"{label}={err:.1e}")
        for label, buf in (("Out", o_buf), ("dQ", dq_buf), ("dK", dk_buf), ("dV", dv_buf)):
            if (bits(buf[:, :, n_ctx:]) != bits(torch.full_like(buf[:, :, n_ctx:], SENTINEL))).any():
                problems.append(f"{label} guard row written")
        for label, buf in (("M", m_buf), ("Delta", delta_buf)):
            if (buf[rows:] != SENTINEL).any():
                problems.append(f"{label} guard written")
        return problems, f"rel_err Out={err_o:.1e} Delta={err_delta:.1e} " + " ".join(errs)
    return run


# Promise violations (tkc only: Triton specializes instead of refusing).

def vector_add_misaligned(K, which):
    def run():
        problems = []
        n = 4096
        bufs = {k: torch.randn(n + 1, device=DEV) for k in ("x", "y")}
        x, y = bufs["x"][:n], bufs["y"][:n]
        out_buf = torch.full((n + 1,), NAN, device=DEV)
        out = out_buf[:n]
        if which == "x":
            x = bufs["x"][1:]                # 4 bytes past a 16-byte boundary
        else:
            out = out_buf[1:]
        details = expect_refused(problems, K, (x, y, out, n), [out_buf], K.error_misaligned)
        return problems, f"{which} + 1 element {details}"
    return run


def softmax_bad_stride(K, which):
    def run():
        problems = []
        rows, cols = 7, 100
        # The tensor with the bad stride really is laid out with it; the
        # other is padded to 112 as promised.
        x_cols, out_cols = (100, 112) if which == "x" else (112, 100)
        x = torch.randn(rows, x_cols, device=DEV)
        out = torch.full((rows, out_cols), NAN, device=DEV)
        details = expect_refused(problems, K, (out, x, out_cols, x_cols, rows, cols), [out],
                                 K.error_not_divisible)
        return problems, f"{which}_row_stride=100 {details}"
    return run


def softmax_misaligned(K):
    def run():
        problems = []
        rows, cols = 7, 112
        x_buf = torch.randn(rows * cols + 1, device=DEV)
        x = x_buf[1:]
        out = torch.full((rows, cols), NAN, device=DEV)
        details = expect_refused(problems, K, (out, x, cols, cols, rows, cols), [out],
                                 K.error_misaligned)
        return problems, f"x + 1 element {details}"
    return run


def layernorm_refused(K, what):
    def run():
        problems = []
        M, N = 17, 1000
        stride = 1008
        X = torch.randn(M, stride, device=DEV).half()
        Y = torch.full((M, stride), NAN, dtype=torch.float16, device=DEV)
        W = torch.randn(N, device=DEV).half()
        B = torch.randn(N, device=DEV).half()
        mean_buf = torch.full((M + 1,), NAN, device=DEV)
        Rstd = torch.full((M,), NAN, device=DEV)
        Mean = mean_buf[:M]
        if what == "stride":
            stride = 1000
            expected = K.error_not_divisible
        else:
            Mean = mean_buf[1:]
            expected = K.error_misaligned
        details = expect_refused(problems, K, (X, Y, W, B, Mean, Rstd, stride, M, N, 1e-5),
                                 [Y, mean_buf, Rstd], expected)
        label = "stride=1000" if what == "stride" else "Mean + 1 element"
        return problems, f"{label} {details}"
    return run


def requirement_refused(K, kernel, n):
    """A `requires=` condition broken (a row wider than BLOCK): the
    requirement's status, its text quoting the condition, nothing written."""
    def run():
        problems = []
        rows, stride = 3, (n + 15) // 16 * 16
        if kernel == "softmax":
            x = torch.randn(rows, stride, device=DEV)
            out = torch.full((rows, stride), NAN, device=DEV)
            args, poisoned = (out, x, stride, stride, rows, n), [out]
        else:
            x = torch.randn(rows, stride, device=DEV).half()
            out = torch.full((rows, stride), NAN, dtype=torch.float16, device=DEV)
            w = torch.randn(n, device=DEV).half()
            b = torch.randn(n, device=DEV).half()
            mean = torch.full((rows,), NAN, device=DEV)
            rstd = torch.full((rows,), NAN, device=DEV)
            args, poisoned = (x, out, w, b, mean, rstd, stride, rows, n, 1e-5), [out, mean, rstd]
        details = expect_refused(problems, K, args, poisoned, K.error_requirement)
        text = K.status_string(K.error_requirement)
        if "BLOCK" not in text or str(n) not in text:
            problems.append(f"the message does not quote the condition and the value: {text!r}")
        return problems, f"{n} columns {details}: {text}"
    return run


# The launcher's contract with its caller.

def vector_add_inputs(n):
    x = torch.randn(n, device=DEV)
    y = torch.randn(n, device=DEV)
    out = torch.full((n,), NAN, device=DEV)
    return x, y, out


def stream_order_case(K):
    """The launch must go on the given stream: the input is only written on
    that (non-blocking) stream after a long sleep, so a launch placed on any
    other stream reads the NaN poison instead."""
    def run():
        problems = []
        n = 1 << 20
        x_final, y, out = vector_add_inputs(n)
        x = torch.full((n,), NAN, device=DEV)
        torch.cuda.synchronize()
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            torch.cuda._sleep(SLEEP_CYCLES)
            x.copy_(x_final)
            status = K(x, y, out, n)
        torch.cuda.synchronize()
        if status != K.success:
            return [f"launch returned {K.describe(status)}"], ""
        err = check_close(problems, "out", out, x_final.double() + y.double())
        return problems, f"rel_err={err:.1e}"
    return run


def graph_capture_case(K):
    """Captured into a CUDA graph (no allocation, no synchronization inside
    the launcher), replayed on new data."""
    def run():
        problems = []
        n = 123457
        x, y, out = vector_add_inputs(n)
        # The first call loads the module; loading is not a stream operation
        # and is not what this case is about.
        if not launch(problems, K, x, y, out, n):
            return problems, "(first call, before capture)"
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            status = K(x, y, out, n)
        if status != K.success:
            return [f"launch during capture returned {K.describe(status)}"], ""
        x.copy_(torch.randn(n, device=DEV))
        y.copy_(torch.randn(n, device=DEV))
        out.fill_(NAN)
        graph.replay()
        torch.cuda.synchronize()
        err = check_close(problems, "out after replay", out, x.double() + y.double())
        return problems, f"rel_err={err:.1e}"
    return run


def no_context_thread_case(K):
    """From a new thread that never touched CUDA, so no context is current
    there: the runtime must use the device's primary context (the one torch's
    pointers live in), as cudart and Triton's launcher do."""
    def run():
        problems = []
        n = 100003
        x, y, out = vector_add_inputs(n)
        # Addresses taken here: data_ptr() is metadata and touches no CUDA API,
        # but nothing in the thread may.
        args = [t.data_ptr() for t in (x, y, out)] + [n]
        torch.cuda.synchronize()
        result = {}

        def work():
            try:
                result["status"] = K(*args, stream=0)
            except Exception as e:
                result["error"] = e

        t = threading.Thread(target=work)
        t.start()
        t.join()
        torch.cuda.synchronize()
        if "error" in result:
            raise result["error"]
        if result["status"] != K.success:
            return [f"launch returned {K.describe(result['status'])}"], ""
        err = check_close(problems, "out", out, x.double() + y.double())
        return problems, f"rel_err={err:.1e}"
    return run


def concurrent_first_call_case(variant, threads=8):
    """A fresh copy of the library (so nothing is loaded yet) called by
    several threads at once: the module must load once, safely."""
    def run():
        problems = []
        tmp = tempfile.mkdtemp(prefix="tkshim-")
        try:
            copy = Path(tmp) / "libtkshim_fresh.so"
            shutil.copy(tkshim.library_path(variant), copy)
            K = tkshim.Kernel(variant, path=copy)
            n = 65537
            x, y, _ = vector_add_inputs(n)
            outs = [torch.full((n,), NAN, device=DEV) for _ in range(threads)]
            torch.cuda.synchronize()
            barrier = threading.Barrier(threads)
            results = [None] * threads

            def work(i):
                try:
                    # Make the primary context current in this thread, so
                    # this case tests only the concurrent module load.
                    torch.cuda.synchronize()
                    barrier.wait(timeout=60)
                    results[i] = K(x, y, outs[i], n, stream=0)
                except Exception as e:
                    results[i] = e

            ts = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            torch.cuda.synchronize()
            ref = x.double() + y.double()
            for i, r in enumerate(results):
                if isinstance(r, Exception):
                    problems.append(f"thread {i}: {type(r).__name__}: {r}")
                elif r != K.success:
                    problems.append(f"thread {i}: launch returned {K.describe(r)}")
                else:
                    check_close(problems, f"thread {i} out", outs[i], ref)
            return problems, f"{threads} threads"
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return run


# ---- driver ----------------------------------------------------------------

class Runner:
    def __init__(self, name_filter, log, name_exclude=()):
        self.filter = name_filter
        self.exclude = name_exclude
        self.log = log
        self.passed = self.failed = 0

    def say(self, line):
        print(line, flush=True)
        self.log.append(line)

    def case(self, name, make):
        """`make()` builds the case (it may fail: a missing library); the
        case returns (problems, details)."""
        if self.filter and not any(f in name for f in self.filter):
            return
        if any(x in name for x in self.exclude):
            return
        try:
            problems, details = make()()
        except Exception as e:
            problems, details = [f"{type(e).__name__}: {e}".strip()], ""
            if os.environ.get("TK_GPU_TRACEBACK"):
                traceback.print_exc()
        if problems:
            self.failed += 1
            self.say(f"FAIL {name} {details} :: " + "; ".join(problems))
        else:
            self.passed += 1
            self.say(f"PASS {name} {details}".rstrip())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--impl", choices=["tkc", "triton"], default="tkc",
                    help="kernels under test (triton: check this harness on Triton's tutorials)")
    ap.add_argument("-k", action="append", default=[], metavar="TEXT",
                    help="run only cases whose name contains TEXT (repeatable)")
    ap.add_argument("-x", action="append", default=[], metavar="TEXT",
                    help="skip cases whose name contains TEXT (repeatable), so that a long run splits in parts")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    if not torch.cuda.is_available():
        print("no CUDA device visible to torch; 0 passed, 1 failed")
        return 1
    torch.manual_seed(args.seed)
    log = []
    r = Runner(args.k, log, args.x)
    props = torch.cuda.get_device_properties(0)
    r.say(f"# {props.name}, {props.multi_processor_count} SMs; torch {torch.__version__}, "
          f"CUDA {torch.version.cuda}; impl {args.impl}; seed {args.seed}")

    get = Impls(args.impl)
    tkc = args.impl == "tkc"

    for n in (1, 1000, 1024, 123457, 2 ** 20 + 3, 0):
        r.case(f"vector_add n={n}", lambda n=n: vector_add_case(get("vector_add"), n))

    softmax_shapes = [
        # (variant, rows, cols, extra options)
        ("softmax_b1024", 1, 1, {}),
        ("softmax_b1024", 7, 100, {}),
        ("softmax_b1024", 300, 1023, {}),
        ("softmax_b1024", 1024, 1024, {}),
        ("softmax_b4096", 64, 4000, {}),
        # More rows than the 528 persistent programs, with a remainder.
        ("softmax_b1024", 1500, 17, {}),
        # Different strides for x and out, both padded.
        ("softmax_b1024", 7, 100, {"x_stride": 112, "out_stride": 144}),
        # Large logits: only the max shift keeps exp() finite.
        ("softmax_b1024", 7, 100, {"scale": 100.0}),
        ("softmax_b4096", 3, 4096, {}),
        ("softmax_b16384", 5, 10000, {}),
        ("softmax_b16384", 600, 16384, {}),
        ("softmax_b1024", 0, 100, {}),
        # 132 persistent programs with the row loop pipelined (num_stages):
        # many trips, a last partial round, fewer rows than programs, none.
        ("softmax_b1024_p132", 1500, 1000, {}),
        ("softmax_b1024_p132", 133, 1024, {}),
        ("softmax_b1024_p132", 7, 100, {"x_stride": 112, "out_stride": 144}),
        ("softmax_b1024_p132", 0, 100, {}),
    ]
    for variant, rows, cols, opts in softmax_shapes:
        extra = "".join(f" {k}={v}" for k, v in opts.items())
        r.case(f"softmax[{variant}] {rows}x{cols}{extra}",
               lambda v=variant, m=rows, c=cols, o=opts: softmax_case(get(v), m, c, **o))

    ln_shapes = [(1, 16), (17, 1000), (256, 4096), (8192, 8192)]
    for variant, max_n in (("layernorm_b1024", None), ("layernorm_rowfits_b8192", 8192)):
        for M, N in ln_shapes:
            if max_n is not None and N > max_n:
                continue  # ROW_FITS is only valid when N <= BLOCK
            r.case(f"layernorm[{variant}] {M}x{N}",
                   lambda v=variant, m=M, n=N: layernorm_case(get(v), m, n))
        # eps comparable to the variance: a launcher that passed eps with
        # the wrong width would show here, not at eps = 1e-5.
        r.case(f"layernorm[{variant}] 17x1000 eps=0.5 scale=0.5",
               lambda v=variant: layernorm_case(get(v), 17, 1000, eps=0.5, scale=0.5))
        # |mean| >> std: E[x^2] - mean^2 would lose Rstd to cancellation.
        r.case(f"layernorm[{variant}] 64x4096 mean=50",
               lambda v=variant: layernorm_case(get(v), 64, 4096, offset=50.0, scale=1.0))
    # The loop variant with a block wider than the row (the benchmark uses it).
    for M, N in ((17, 1000), (256, 4096), (8192, 8192)):
        r.case(f"layernorm[layernorm_b8192] {M}x{N}",
               lambda m=M, n=N: layernorm_case(get("layernorm_b8192"), m, n))

    if tkc:
        # matmul.tk through its launcher (the first launch for each shape
        # tunes it), then every config alone on sm_90a (wgmma) and sm_80
        # (mma.sync)
        for M, N, Kd in ((1000, 1000, 1000), (4095, 4097, 1023), (1, 4096, 4096), (4096, 4096, 4096), (16, 16, 16)):
            r.case(f"matmul {M}x{N}x{Kd}", lambda m=M, n=N, kd=Kd: matmul_case(get("matmul"), m, n, kd))
        # an in-place kernel tuned with restore_value: C gets A @ B once
        for M, N, Kd in ((1000, 1000, 1000), (4095, 4097, 1023), (2048, 2048, 2048)):
            r.case(f"matmul_acc (tuned, restore_value) {M}x{N}x{Kd}",
                   lambda m=M, n=N, kd=Kd: matmul_acc_case(get("matmul_acc"), m, n, kd))
        configs = [line.split()[0] for line in (HERE / "variants").read_text().splitlines()
                   if line.startswith("matmul_c")]
        for variant in configs:
            for M, N, Kd in ((1000, 1000, 1000), (4095, 4097, 1023), (1, 4096, 4096), (4096, 4096, 4096),
                             (33, 17, 5)):
                r.case(f"matmul[{variant}] {M}x{N}x{Kd}",
                       lambda v=variant, m=M, n=N, kd=Kd: matmul_case(get(v), m, n, kd))
        for d in (64, 128, 256):
            for causal, arch in ((False, ""), (True, ""), (False, "_sm80"), (True, "_sm80"),
                                 (False, "_bf16"), (True, "_bf16"), (False, "_m128n64"), (True, "_m128n64"),
                                 (True, "_diag")):
                if d == 256 and arch in ("_sm80", "_diag"):
                    continue  # not built at head dim 256 (test/gpu/variants)
                if d != 256 and arch == "_m128n64":
                    continue  # one config pinned, at head dim 256 only
                variant = f"attention_d{d}" + ("_causal" if causal else "") + arch
                dtype = torch.bfloat16 if arch == "_bf16" else torch.float16
                for n_ctx in (1, 17, 1000, 4096):
                    z, h = (2, 3) if n_ctx < 4096 else (1, 2)
                    r.case(f"attention[{variant}] Z={z} H={h} N_CTX={n_ctx}",
                           lambda v=variant, z=z, h=h, n=n_ctx, d=d, c=causal, t=dtype:
                           attention_case(get(v), z, h, n, d, c, t))
        # the backward after the forward of the same head dim, mask, element
        # type and target
        for d in (64, 128):
            for causal, dtype, arch in ((False, torch.float16, ""), (True, torch.float16, ""),
                                        (False, torch.bfloat16, ""), (True, torch.bfloat16, ""),
                                        (False, torch.float16, "_sm80"), (True, torch.float16, "_sm80")):
                suffix = ("_causal" if causal else "") + ("_bf16" if dtype == torch.bfloat16 else "") + arch
                fwd, bwd = f"attention_d{d}{suffix}", f"attention_bwd_d{d}{suffix}"
                for n_ctx in (1, 17, 128, 1000, 4097):
                    z, h = (2, 3) if n_ctx < 4096 else (1, 2)
                    r.case(f"attention backward[{bwd}] Z={z} H={h} N_CTX={n_ctx}",
                           lambda f=fwd, b=bwd, z=z, h=h, n=n_ctx, d=d, c=causal, t=dtype:
                           attention_bwd_case(get, f, b, z, h, n, d, c, t))

    if tkc:
        for which in ("x", "out"):
            r.case(f"promise: vector_add misaligned {which}",
                   lambda w=which: vector_add_misaligned(get("vector_add"), w))
            r.case(f"promise: softmax {which}_row_stride % 16 != 0",
                   lambda w=which: softmax_bad_stride(get("softmax_b1024"), w))
        r.case("promise: softmax misaligned x", lambda: softmax_misaligned(get("softmax_b1024")))
        r.case("requires: softmax n_cols > BLOCK",
               lambda: requirement_refused(get("softmax_b1024"), "softmax", 1025))
        r.case("requires: layernorm ROW_FITS with N > BLOCK",
               lambda: requirement_refused(get("layernorm_rowfits_b8192"), "layernorm", 8193))
        r.case("promise: layernorm stride % 16 != 0",
               lambda: layernorm_refused(get("layernorm_b1024"), "stride"))
        r.case("promise: layernorm misaligned Mean",
               lambda: layernorm_refused(get("layernorm_b1024"), "align"))

    r.case("launch: on the given stream", lambda: stream_order_case(get("vector_add")))
    r.case("launch: CUDA graph capture and replay", lambda: graph_capture_case(get("vector_add")))
    if tkc:
        r.case("launch: thread with no current CUDA context",
               lambda: no_context_thread_case(get("vector_add")))
        r.case("launch: concurrent first calls (fresh library)",
               lambda: concurrent_first_call_case("vector_add"))

    r.say(f"{r.passed} passed, {r.failed} failed")
    out_dir = os.environ.get("OUT")
    if out_dir:
        Path(out_dir, "gpu-test.txt").write_text("\n".join(log) + "\n")
    return 1 if r.failed or not r.passed else 0


if __name__ == "__main__":
    sys.exit(main())
