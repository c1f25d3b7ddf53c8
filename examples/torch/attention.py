"""FlashAttention-2 (kernels/attention.tk and kernels/attention_bwd.tk) as
a torch.autograd.Function, through tkc's Python binding.

    make gpu-build          (or tkc --python --shared, as test/gpu/python_modules lists)
    python3 examples/torch/attention.py

The forward saves its output and the base-2 log-sum-exp rows M; the
backward runs the preprocess (delta = rowsum(O * dO)), then the dK/dV and
dQ kernels. Head dim 64, f16, causal or not; Q, K, V and dO are made
contiguous, as the backward's kernels take one set of strides. Checked
against torch autograd through scaled_dot_product_attention in float32."""

import os
import sys

import torch

sys.path.append(os.path.join(os.environ.get("TK_GPU_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "build",
                                                                         "gpu")), "py"))
import attention_bwd_d64  # noqa: E402
import attention_bwd_d64_causal  # noqa: E402
import attention_d64  # noqa: E402
import attention_d64_causal  # noqa: E402


class Attention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, causal, scale):
        q, k, v = (t.contiguous() for t in (q, k, v))
        Z, H, N, D = q.shape
        assert D == 64 and q.dtype == torch.float16, "built for head dim 64, f16"
        out = torch.empty_like(q)
        m = torch.empty(Z * H * N, device=q.device, dtype=torch.float32)
        st = [q.stride(i) for i in range(4)]
        fwd = attention_d64_causal if causal else attention_d64
        fwd.attention_fwd(q, k, v, scale, m, out, *st, *st, *st, *st, Z, H, N)
        ctx.save_for_backward(q, k, v, out, m)
        ctx.causal, ctx.scale = causal, scale
        return out

    @staticmethod
    def backward(ctx, do):
        q, k, v, out, m = ctx.saved_tensors
        do = do.contiguous()
        Z, H, N, _ = q.shape
        bwd = attention_bwd_d64_causal if ctx.causal else attention_bwd_d64
        st = [q.stride(i) for i in range(3)]
        delta = torch.empty_like(m)
        bwd.attention_bwd_preprocess(out, do, delta, *st, Z, H, N)
        dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
        bwd.attention_bwd_dkdv(q, k, v, ctx.scale, do, m, delta, dk, dv, *st, Z, H, N)
        bwd.attention_bwd_dq(q, k, v, ctx.scale, do, m, delta, dq, *st, Z, H, N)
        return dq, dk, dv, None, None


def attention(q, k, v, causal=False, scale=None):
    return Attention.apply(q, k, v, causal, q.shape[-1] ** -0.5 if scale is None else scale)


def main():
    torch.manual_seed(0)
    for causal in (False, True):
        q, k, v = (torch.randn(2, 4, 1000, 64, device="cuda", dtype=torch.float16, requires_grad=True)
                   for _ in range(3))
        do = torch.randn_like(q)
        out = attention(q, k, v, causal)
        out.backward(do)
        qf, kf, vf = (t.detach().float().requires_grad_() for t in (q, k, v))
        ref = torch.nn.functional.scaled_dot_product_attention(qf, kf, vf, is_causal=causal)
        ref.backward(do.float())
        for name, got, want in (("Out", out, ref), ("dQ", q.grad, qf.grad), ("dK", k.grad, kf.grad),
                                ("dV", v.grad, vf.grad)):
            err = ((got.double() - want.double()).norm() / want.double().norm()).item()
            print(f"{'causal' if causal else 'full'} {name}: relative error {err:.2e}")
            assert err < 2e-2
    print("ok")


if __name__ == "__main__":
    main()
