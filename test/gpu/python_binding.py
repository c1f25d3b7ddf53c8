"""The Python binding on the GPU (part of make gpu-test): every kernel in
kernels/ through its module (tkc --python --shared, built by
test/gpu/build.sh into build/gpu/py/ from test/gpu/python_modules)
against torch; the arguments the binding or the launcher must refuse
(wrong dtype, wrong device, misaligned, not contiguous, a broken promise)
refused with a clear exception; a custom op (register()) inside
torch.compile(fullgraph=True); a launch captured in a CUDA graph and one
on a side stream. Inputs are random, sizes not multiples of the blocks,
outputs poisoned with NaN first.

    python3 test/gpu/python_binding.py      (TK_GPU_DIR: default build/gpu;
                                             CASES=text: only the cases named so)

Prints a line per case and "N passed, M failed" last."""

import os
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(os.environ.get("TK_GPU_DIR", ROOT / "build" / "gpu")) / "py"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import attention_bwd_d64  # noqa: E402
import attention_bwd_d64_causal  # noqa: E402
import block_scaled_data  # noqa: E402
import attention_d64  # noqa: E402
import attention_d64_causal  # noqa: E402
import attention_tma_d64  # noqa: E402
import attention_tma_d64_causal  # noqa: E402
import attention_tma_d128  # noqa: E402
import attention_tma_d128_causal  # noqa: E402
import layernorm  # noqa: E402
import matmul  # noqa: E402
import matmul_block_scaled  # noqa: E402
import matmul_fp8  # noqa: E402
import matmul_persistent  # noqa: E402
import softmax  # noqa: E402
import vector_add  # noqa: E402

DEV = "cuda"
NAN = float("nan")
results = []


def case(name):
    def wrap(fn):
        if os.environ.get("CASES", "") not in name:  # CASES=text runs only the cases whose names hold it
            return fn
        try:
            problem = fn()
        except Exception:  # noqa: BLE001 - a case that raises fails, with its traceback
            problem = traceback.format_exc(limit=3).strip().replace("\n", " | ")
        results.append((name, problem))
        print(f"{'FAIL' if problem else 'ok  '} {name}{': ' + problem if problem else ''}", flush=True)
        return fn
    return wrap


def close(got, want, tol):
    got, want = got.double(), want.double()
    if torch.isnan(got).any():
        return f"{int(torch.isnan(got).sum())} NaN"
    err = ((got - want).norm() / max(want.norm().item(), 1e-30)).item()
    return None if err < tol else f"relative error {err:.2e} >= {tol:.0e}"


def refused(kind, text, fn, *args):
    try:
        fn(*args)
    except kind as e:
        return None if text in str(e) else f"{kind.__name__} says {str(e)!r}, not {text!r}"
    except Exception as e:  # noqa: BLE001
        return f"raised {type(e).__name__}: {e}"
    return f"did not raise {kind.__name__}"


torch.manual_seed(0)


@case("vector_add against x + y (n = 1000003)")
def _():
    n = 1000003
    x, y = torch.randn(n, device=DEV), torch.randn(n, device=DEV)
    out = torch.full((n,), NAN, device=DEV)
    vector_add.vector_add(x, y, out, n)
    torch.cuda.synchronize()
    return None if torch.equal(out, x + y) else "differs"


@case("softmax against torch.softmax (1000 x 781, rows of a wider buffer)")
def _():
    x = torch.randn(1000, 800, device=DEV)[:, :781]
    out = torch.full((1000, 800), NAN, device=DEV)[:, :781]
    softmax.softmax(out, x, out.stride(0), x.stride(0), 1000, 781)
    return close(out, torch.softmax(x, dim=1), 1e-5)


@case("layer_norm_fwd against F.layer_norm (777 x 3000 rows of a 3008-wide buffer, f16)")
def _():
    M, N = 777, 3000  # the row stride is promised % 16: rows of a wider buffer
    x = torch.randn(M, 3008, device=DEV, dtype=torch.float16)[:, :N]
    w, b = torch.randn(N, device=DEV, dtype=torch.float16), torch.randn(N, device=DEV, dtype=torch.float16)
    y = torch.full((M, 3008), NAN, device=DEV, dtype=torch.float16)[:, :N]
    mean, rstd = torch.full((M,), NAN, device=DEV), torch.full((M,), NAN, device=DEV)
    layernorm.layer_norm_fwd(x, y, w, b, mean, rstd, x.stride(0), M, N, 1e-5)
    ref = torch.nn.functional.layer_norm(x.float(), (N,), w.float(), b.float(), 1e-5)
    return close(y, ref, 2e-3) or close(mean, x.float().mean(1), 1e-4)


@case("matmul against torch (300 x 496 x 208, f16, tuned at the first call)")
def _():
    M, N, K = 300, 496, 208  # not multiples of the blocks; the strides are promised % 16
    a, b = torch.randn(M, K, device=DEV, dtype=torch.float16), torch.randn(K, N, device=DEV, dtype=torch.float16)
    c = torch.full((M, N), NAN, device=DEV, dtype=torch.float16)
    matmul.matmul(a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
    return close(c, a.float() @ b.float(), 2e-3)


E4M3_MAX = 448.0


def fp8_product(a, b_kmajor, sa, sb, out_dtype):
    """(a @ b) * sa * sb in float64, rounded as matmul_fp8 rounds it: to
    out_dtype, e4m3 saturating at +-448 (cvt.rn.satfinite, as cuBLAS)"""
    ref = (a.double() @ b_kmajor.double().T) * (sa * sb)
    if out_dtype == torch.float8_e4m3fn:
        ref = ref.clamp(-E4M3_MAX, E4M3_MAX)
    return ref.to(out_dtype).double()


# each instance of kernels/matmul_fp8.tk: B e4m3 or e5m2 (K-major: the
# [N, K] tensor's transpose), C f16, bf16 or e4m3 of a wider buffer
# (N 500, row stride 512); M, N, K not multiples of the blocks; the last
# shape saturates the e4m3 output (scales 40 and 30)
for b_dt in ("f8e4m3", "f8e5m2"):
    for c_dt in ("f16", "bf16", "f8e4m3"):
        @case(f"matmul_fp8_{b_dt}_{c_dt} against float64 (300 x 500 x 208 and 1 x 500 x 4096, scaled; tuned)")
        def _(b_dt=b_dt, c_dt=c_dt):
            kernel = getattr(matmul_fp8, f"matmul_fp8_{b_dt}_{c_dt}")
            torch_of = {"f8e4m3": torch.float8_e4m3fn, "f8e5m2": torch.float8_e5m2, "f16": torch.float16,
                        "bf16": torch.bfloat16}
            for M, N, K, sa, sb in ((300, 500, 208, 0.5, 0.25), (1, 500, 4096, 0.125, 0.5), (64, 500, 208, 40.0, 30.0)):
                a = torch.randn(M, K, device=DEV).to(torch.float8_e4m3fn)
                bt = torch.randn(N, K, device=DEV).to(torch_of[b_dt])
                b = bt.T  # [K, N], K-major
                scale_a = torch.tensor([sa], device=DEV)
                scale_b = torch.tensor([sb], device=DEV)
                buf = torch.randn(M, 512, device=DEV).to(torch_of[c_dt])  # poison: random, not zero
                c = buf[:, :N]
                guard = buf[:, N:].view(torch.uint8).clone() if c_dt == "f8e4m3" else buf[:, N:].clone()
                kernel(a, b, c, scale_a, scale_b, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                       c.stride(0), c.stride(1))
                torch.cuda.synchronize()
                want = fp8_product(a, bt, sa, sb, torch_of[c_dt])
                got = c.double()
                if not torch.equal(buf[:, N:].view(torch.uint8) if c_dt == "f8e4m3" else buf[:, N:], guard):
                    return f"{M}x{N}x{K}: wrote past column N"
                if torch.isnan(got).any():
                    return f"{M}x{N}x{K}: NaN in C"
                # the f32 sum before the one rounding: fp8 wgmma sums in
                # reduced precision (2^-10 of sum |a||b|), then C's rounding
                s = (a.double().abs() @ bt.double().abs().T).max().item() * sa * sb
                ulp = {"f16": 2.0 ** -10, "bf16": 2.0 ** -7, "f8e4m3": 2.0 ** -3}[c_dt]
                err = ((got - want).abs() - ulp * want.abs()).max().item()
                if err > 2.0 ** -10 * s * (1 + ulp) + 1e-30:
                    return f"{M}x{N}x{K} scales {sa}, {sb}: error past tolerance by {err:.3g}"
            return None


def attention_forward(module, q, k, v, scale):
    Z, H, N, _ = q.shape
    out = torch.full_like(q, NAN)
    m = torch.full((Z * H * N,), NAN, device=DEV)
    st = [q.stride(i) for i in range(4)]
    module.attention_fwd(q, k, v, scale, m, out, *st, *st, *st, *st, Z, H, N)
    return out, m


for causal in (False, True):
    @case(f"attention forward and backward, D64 {'causal' if causal else 'full'}, Z2 H3 N1000, against autograd")
    def _(causal=causal):
        fwd = attention_d64_causal if causal else attention_d64
        bwd = attention_bwd_d64_causal if causal else attention_bwd_d64
        shape, scale = (2, 3, 1000, 64), 64 ** -0.5
        q, k, v, do = (torch.randn(shape, device=DEV, dtype=torch.float16) for _ in range(4))
        qf, kf, vf = (t.float().requires_grad_() for t in (q, k, v))
        ref = torch.nn.functional.scaled_dot_product_attention(qf, kf, vf, is_causal=causal, scale=scale)
        ref.backward(do.float())
        out, m = attention_forward(fwd, q, k, v, scale)
        problem = close(out, ref.detach(), 1e-2)
        if problem:
            return "Out: " + problem
        Z, H, N, _ = shape
        delta = torch.full((Z * H * N,), NAN, device=DEV)
        st = [q.stride(i) for i in range(3)]
        bwd.attention_bwd_preprocess(out, do, delta, *st, Z, H, N)
        dq, dk, dv = (torch.full_like(q, NAN) for _ in range(3))
        bwd.attention_bwd_dkdv(q, k, v, scale, do, m, delta, dk, dv, *st, Z, H, N)
        bwd.attention_bwd_dq(q, k, v, scale, do, m, delta, dq, *st, Z, H, N)
        for label, got, want in (("dQ", dq, qf.grad), ("dK", dk, kf.grad), ("dV", dv, vf.grad)):
            problem = close(got, want, 2e-2)
            if problem:
                return f"{label}: {problem}"
        return None


# kernels/attention_tma.tk (descriptors; tuned over warp-specialized and
# plain configs): Out and M against float32 attention for lengths that are
# and are not multiples of the tiles (a key tile past N_CTX reads the next
# head's rows), f16 and bf16, Out and M poisoned with NaN first
ATTENTION_TMA = {(64, False): attention_tma_d64, (64, True): attention_tma_d64_causal,
                 (128, False): attention_tma_d128, (128, True): attention_tma_d128_causal}
for (d, causal), module in ATTENTION_TMA.items():
    @case(f"attention_fwd_tma D{d} {'causal' if causal else 'full'}, f16 and bf16, N_CTX 1 to 4097, against float32")
    def _(d=d, causal=causal, module=module):
        for dt, t, tol in (("f16", torch.float16, 5e-3), ("bf16", torch.bfloat16, 2e-2)):
            for Z, H, N in ((1, 1, 1), (2, 3, 17), (1, 2, 128), (2, 3, 1000), (1, 2, 4097)):
                scale = d ** -0.5
                q, k, v = (torch.randn(Z, H, N, d, device=DEV, dtype=t) for _ in range(3))
                out = torch.full_like(q, NAN)
                m = torch.full((Z * H * N,), NAN, device=DEV)
                getattr(module, f"attention_fwd_tma_{dt}")(q.view(-1, d), k.view(-1, d), v.view(-1, d), scale, m,
                                                           out, Z, H, N)
                torch.cuda.synchronize()
                s = (q.float() @ k.float().transpose(-1, -2)) * scale
                if causal:
                    s = s.masked_fill(torch.ones(N, N, device=DEV, dtype=torch.bool).triu(1), float("-inf"))
                want = torch.softmax(s, -1) @ v.float()
                problem = close(out, want, tol)
                if problem:
                    return f"{dt} Z{Z} H{H} N{N}: Out: {problem}"
                want_m = (torch.logsumexp(s, -1) / torch.log(torch.tensor(2.0))).reshape(-1)
                err = (m - want_m).abs().max().item()
                if not err < 1e-2:
                    return f"{dt} Z{Z} H{H} N{N}: M off by {err:.3g}"
        return None


@case("refused: f16 for an f32 pointer (TypeError)")
def _():
    x = torch.randn(64, device=DEV, dtype=torch.float16)
    y = torch.randn(64, device=DEV)
    return refused(TypeError, "x must hold torch.float32, not torch.float16", vector_add.vector_add, x, y, y, 64)


@case("refused: a CPU tensor (ValueError)")
def _():
    y = torch.randn(64, device=DEV)
    return refused(ValueError, "x is on cpu", vector_add.vector_add, torch.randn(64), y, y, 64)


@case("refused: a view 4 bytes past 16-byte alignment (TkcArgumentError, the launcher's message)")
def _():
    x = torch.randn(65, device=DEV)[1:]
    y = torch.randn(64, device=DEV)
    return refused(vector_add.TkcArgumentError, "not 16-byte aligned", vector_add.vector_add, x, y, y, 64)


@case("refused: a strided view where the kernel takes no strides (ValueError)")
def _():
    x = torch.randn(128, device=DEV)[::2]
    y = torch.randn(64, device=DEV)
    return refused(ValueError, "x is not contiguous", vector_add.vector_add, x, y, y, 64)


@case("refused: a row stride that breaks its % 16 promise (TkcArgumentError)")
def _():
    x = torch.randn(10, 20, device=DEV)
    return refused(softmax.TkcArgumentError, "not a multiple of 16", softmax.softmax, x, x, 20, 20, 10, 20)


@case("refused: a tensor on another GPU (ValueError)")
def _():
    if torch.cuda.device_count() < 2:
        return None  # one GPU: nothing to refuse
    x = torch.randn(64, device="cuda:1")
    y = torch.randn(64, device=DEV)
    return refused(ValueError, "current device", vector_add.vector_add, x, y, y, 64)


@case("custom op in torch.compile(fullgraph=True)")
def _():
    op = softmax.register("softmax")["softmax"]

    def f(x):
        out = torch.empty_like(x)
        op(out, x, out.stride(0), x.stride(0), x.shape[0], x.shape[1])
        return out * 2

    x = torch.randn(333, 512, device=DEV)
    got = torch.compile(f, fullgraph=True)(x)
    return close(got, torch.softmax(x, dim=1) * 2, 1e-5)


@case("a launch captured in a CUDA graph, replayed on new inputs")
def _():
    n = 4099
    x, y, out = torch.randn(n, device=DEV), torch.randn(n, device=DEV), torch.full((n,), NAN, device=DEV)
    vector_add.vector_add(x, y, out, n)  # warm: the module loads outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        vector_add.vector_add(x, y, out, n)
    x.copy_(torch.randn(n, device=DEV))
    out.fill_(NAN)
    graph.replay()
    torch.cuda.synchronize()
    return None if torch.equal(out, x + y) else "the replay's output differs"


@case("a launch on a side stream (torch.cuda.stream), ordered by an event")
def _():
    n = 1 << 20
    x, y, out = torch.randn(n, device=DEV), torch.randn(n, device=DEV), torch.full((n,), NAN, device=DEV)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        vector_add.vector_add(x, y, out, n)
    torch.cuda.current_stream().wait_stream(side)
    return None if torch.equal(out, x + y) else "differs"


@case("matmul_fp8_persistent against float64 (ragged sizes, guard columns, scaled; tuned)")
def _():
    kernel = matmul_fp8.matmul_fp8_persistent
    for M, N, K, sa, sb in ((300, 520, 208, 0.5, 0.25), (1, 512, 4096, 0.125, 0.5), (2100, 1000, 64, 1.0, 2.0),
                            (4096, 4096, 1024, 0.25, 0.25)):
        a = torch.randn(M, K, device=DEV).to(torch.float8_e4m3fn)
        bt = torch.randn(N, K, device=DEV).to(torch.float8_e4m3fn)
        scale_a, scale_b = torch.tensor([sa], device=DEV), torch.tensor([sb], device=DEV)
        buf = torch.randn(M, N + 8, device=DEV, dtype=torch.float16)  # poison: random, not zero
        c, guard = buf[:, :N], buf[:, N:].clone()
        kernel(a, bt, c, scale_a, scale_b, M, N, K)
        torch.cuda.synchronize()
        if not torch.equal(buf[:, N:], guard):
            return f"{M}x{N}x{K}: wrote past column N"
        want = fp8_product(a, bt, sa, sb, torch.float16)
        problem = close(c, want, 2e-3)
        if problem:
            return f"{M}x{N}x{K}: {problem}"
    return None


# kernels/matmul_persistent.tk (persistent, TMA, warp-specialized on
# sm_90a; tuned): sizes not multiples of any block, grids of fewer
# programs than tiles and of fewer tiles than multiprocessors, a view of A,
# poisoned C beside guard columns; refused where TMA cannot read
for dt in ("f16", "bf16"):
    @case(f"matmul_persistent_{dt} against float64 (ragged sizes, a view of A, guard columns; tuned)")
    def _(dt=dt):
        kernel = getattr(matmul_persistent, f"matmul_persistent_{dt}")
        t = torch.float16 if dt == "f16" else torch.bfloat16
        tol = 2e-3 if dt == "f16" else 1e-2
        for M, N, K in ((1000, 520, 328), (128, 256, 64), (300, 136, 8), (64, 200, 1000), (2100, 1000, 72),
                        (4000, 4104, 200), (8192, 8192, 512)):
            a = torch.randn(M, K, device=DEV, dtype=t) / 4
            b = torch.randn(K, N, device=DEV, dtype=t) / 4
            buf = torch.randn(M, N + 8, device=DEV, dtype=t)  # poison: random, not zero
            c, guard = buf[:, :N], buf[:, N:].clone()
            kernel(a, b, c, M, N, K)
            torch.cuda.synchronize()
            if not torch.equal(buf[:, N:], guard):
                return f"{M}x{N}x{K}: wrote past column N"
            problem = close(c, a.double() @ b.double(), tol)
            if problem:
                return f"{M}x{N}x{K}: {problem}"
        big = torch.randn(256, 264, device=DEV, dtype=t) / 4
        view, b = big[:200, :256], torch.randn(256, 72, device=DEV, dtype=t) / 4
        c = torch.full((200, 72), NAN, device=DEV, dtype=t)
        kernel(view, b, c, 200, 72, 256)
        problem = close(c, view.double() @ b.double(), tol)
        if problem:
            return "a view of A: " + problem
        return refused(matmul_persistent.TkcArgumentError, "is not 16-byte aligned", kernel, big[:200, 1:257], b,
                       c, 200, 72, 256)


# kernels/matmul_block_scaled.tk (tutorial 10's kernel; tuned): every
# format against float64 of the dequantized operands, sizes not multiples
# of the tiles, the scales in their packed 5-D layout, C poisoned beside
# guard columns; a misaligned A refused
for fmt, (fa, fb, vec) in {"mxfp8": ("e4m3", "e4m3", 32), "mxfp4": ("e2m1", "e2m1", 32),
                           "nvfp4": ("e2m1", "e2m1", 16), "mixed": ("e4m3", "e2m1", 32)}.items():
    @case(f"matmul_block_scaled_{fmt} f16 and f32 against float64 of the dequantized operands (ragged M, N; tuned)")
    def _(fmt=fmt, fa=fa, fb=fb, vec=vec):
        for c_dt, tol in ((torch.float16, 2e-3), (torch.float32, 1e-5)):
            kernel = getattr(matmul_block_scaled, f"matmul_block_scaled_{fmt}_{'f16' if c_dt == torch.float16 else 'f32'}")
            for M, N, K in ((1000, 520, 256), (128, 256, 128), (300, 136, 384), (64, 200, 512), (2100, 1000, 1024),
                            (129, 8, 128)):
                a, av = block_scaled_data.operand(fa, M, K)
                b, bv = block_scaled_data.operand(fb, N, K)
                sa, sav = block_scaled_data.scales(M, K, vec, fmt == "nvfp4")
                sb, sbv = block_scaled_data.scales(N, K, vec, fmt == "nvfp4")
                buf = torch.randn(M, N + 8, device=DEV).to(c_dt)  # poison: random, not zero
                c, guard = buf[:, :N], buf[:, N:].clone()
                kernel(a, sa, b, sb, c, M, N, K)
                torch.cuda.synchronize()
                if not torch.equal(buf[:, N:], guard):
                    return f"{c_dt} {M}x{N}x{K}: wrote past column N"
                problem = close(c, (av * sav) @ (bv * sbv).T, tol)
                if problem:
                    return f"{c_dt} {M}x{N}x{K}: {problem}"
        a, _ = block_scaled_data.operand(fa, 200, 256 + 32)
        return refused(matmul_block_scaled.TkcArgumentError, "is not 16-byte aligned", kernel, a[:, 1:257], sa, b,
                       sb, c, M, N, 256)


@case("descriptor parameters: tutorial 09's persistent matmul (tma_persistent.tk) with torch tensors and a view")
def _():
    # built here (TKC, default build/tkc), as a user builds a module
    out = tempfile.mkdtemp(prefix="tkpy_tma_")
    tkc = os.environ.get("TKC", str(ROOT / "build" / "tkc"))
    subprocess.run([tkc, "--python", "--shared", str(ROOT / "test/gpu/ports/tma_persistent.tk"), "-o", out + "/"],
                   check=True)
    sys.path.insert(0, out)
    import tma_persistent
    sys.path.remove(out)
    mm = tma_persistent.matmul_kernel_tma_persistent
    M, N, K = 1000, 520, 328
    a = torch.randn(M, K, device=DEV, dtype=torch.float16) / 4
    b = torch.randn(N, K, device=DEV, dtype=torch.float16) / 4
    c = torch.full((M, N), NAN, device=DEV, dtype=torch.float16)
    mm(a, b, c, M, N, K)
    problem = close(c, a.float() @ b.float().T, 2e-3)
    if problem:
        return problem
    big = torch.randn(256, 264, device=DEV, dtype=torch.float16) / 4
    view = big[:200, :256]  # rows 528 bytes apart
    c = torch.full((200, N), NAN, device=DEV, dtype=torch.float16)
    b2 = torch.randn(N, 256, device=DEV, dtype=torch.float16) / 4
    mm(view, b2, c, 200, N, 256)
    problem = close(c, view.float() @ b2.float().T, 2e-3)
    if problem:
        return "a view of A: " + problem
    return (refused(tma_persistent.TkcArgumentError, "is not 16-byte aligned", mm, big[:200, 1:257], b2, c, 200, N,
                    256) or
            refused(tma_persistent.TkcArgumentError, "strides[0] = 257 (x 2 bytes)", mm,
                    torch.empty(200, 257, device=DEV, dtype=torch.float16)[:, :256], b2, c, 200, N, 256) or
            refused(TypeError, "must hold torch.float16, not torch.float32", mm, a.float(), b, c, M, N, K))


failed = sum(1 for _, p in results if p)
print(f"{len(results) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
