"""kernels/softmax.tk as a PyTorch operator, through tkc's Python binding.

    tkc --python --shared kernels/softmax.tk -o build/py/
    PYTHONPATH=build/py python3 examples/torch/softmax_op.py

(make gpu-build builds the module into build/gpu/py/, which this script
also looks in.) softmax.register() makes the kernel the custom op
torch.ops.tkc_softmax.softmax, which writes its first argument; the
function below allocates the output, so torch.compile(fullgraph=True)
can take it whole. Checked against torch.softmax."""

import os
import sys

import torch

sys.path.append(os.path.join(os.environ.get("TK_GPU_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "build",
                                                                         "gpu")), "py"))
import softmax as tk_softmax  # noqa: E402

tk_softmax.register("softmax")


def softmax(x: torch.Tensor) -> torch.Tensor:
    """Row softmax of a 2-D float32 tensor whose rows fit the kernel's block
    (n_cols <= 1024) and whose row stride is a multiple of 16 elements."""
    n_rows, n_cols = x.shape
    # the output's rows padded to a multiple of 16 elements too (the
    # kernel's `% 16` promise on out_row_stride); the op writes the whole
    # fresh buffer, so torch.compile sees no view mutated
    padded = torch.empty(n_rows, (n_cols + 15) // 16 * 16, device=x.device, dtype=x.dtype)
    torch.ops.tkc_softmax.softmax(padded, x, padded.stride(0), x.stride(0), n_rows, n_cols)
    return padded[:, :n_cols]


def main():
    x = torch.randn(4096, 1008, device="cuda")[:, :999]  # stride 1008, a multiple of 16
    for name, fn in (("eager", softmax), ("torch.compile(fullgraph=True)", torch.compile(softmax, fullgraph=True))):
        err = (fn(x) - torch.softmax(x, dim=1)).abs().max().item()
        print(f"{name}: max abs error against torch.softmax {err:.2e}")
        assert err < 1e-6
    print("ok")


if __name__ == "__main__":
    main()
