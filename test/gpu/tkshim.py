"""ctypes access to tkc-compiled kernels, shared by test/gpu/check.py and
bench/bench.py.

test/gpu/build.sh compiles each kernel variant named in test/gpu/variants
into build/gpu/VARIANT/libtkshim.so, which exports tkshim_<kernel> (the
launcher from tkc's header behind a plain C signature) plus the runtime's
status helpers (test/gpu/shims/shim_common.h).

Arguments are passed exactly as the C launcher takes them: torch tensors
become their data_ptr() (so a view passes the address of its first element:
that is how the tests hand in misaligned pointers), Python ints pass as
int32 or pointers, floats as C float. Unless given, the stream is read at
call time from torch's current stream, so a launch inside
`torch.cuda.graph(...)` or `torch.cuda.stream(...)` goes where torch's own
kernels would.
"""

import ctypes
import os
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
GPU_DIR = Path(os.environ.get("TK_GPU_DIR", ROOT / "build" / "gpu"))

_P, _I32, _F32 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_float

# Argument types after the stream, in the order of the .tk signature
# (constexpr parameters are not arguments).
SIGNATURES = {
    "vector_add": [_P, _P, _P, _I32],
    "softmax": [_P, _P, _I32, _I32, _I32, _I32],
    "layer_norm_fwd": [_P, _P, _P, _P, _P, _P, _I32, _I32, _I32, _F32],
    "matmul": [_P, _P, _P] + [_I32] * 9,
    "matmul_acc": [_P, _P, _P] + [_I32] * 6,
    "attention_fwd": [_P, _P, _P, _F32, _P, _P] + [_I32] * 19,
    "attention_bwd_preprocess": [_P, _P, _P] + [_I32] * 6,
    "attention_bwd_dkdv": [_P, _P, _P, _F32, _P, _P, _P, _P, _P] + [_I32] * 6,
    "attention_bwd_dq": [_P, _P, _P, _F32, _P, _P, _P, _P] + [_I32] * 6,
}


def library_path(variant):
    return GPU_DIR / variant / "libtkshim.so"


def _c_arg(a):
    if isinstance(a, torch.Tensor):
        return a.data_ptr()
    return a


class Kernel:
    """One compiled variant: call it like the C launcher minus the stream.

    `kernel(*args)` launches on torch's current stream and returns the
    tk_status as an int; compare it with `kernel.success`.
    """

    def __init__(self, variant, path=None, kernel=None):
        """`kernel` names one launcher of a library holding several (a .tk
        file with several kernels); by default the library's only one."""
        self.variant = variant
        self.path = Path(path) if path else library_path(variant)
        if not self.path.exists():
            raise FileNotFoundError(f"{self.path} missing (did test/gpu/build.sh fail for {variant}?)")
        lib = ctypes.CDLL(os.fspath(self.path))
        self._lib = lib
        for name, argtypes in SIGNATURES.items():
            if kernel is not None and name != kernel:
                continue
            fn = getattr(lib, "tkshim_" + name, None)
            if fn is not None:
                fn.argtypes = [_P] + argtypes
                fn.restype = ctypes.c_int
                self.name, self._fn = name, fn
                break
        else:
            raise RuntimeError(f"{self.path} exports no tkshim_{kernel or '<kernel>'} function")
        lib.tkshim_status_string.argtypes = [ctypes.c_int]
        lib.tkshim_status_string.restype = ctypes.c_char_p
        self.success = lib.tkshim_success()
        self.error_misaligned = lib.tkshim_error_misaligned()
        self.error_not_divisible = lib.tkshim_error_not_divisible()
        self.error_invalid_value = lib.tkshim_error_invalid_value()
        self.error_requirement = lib.tkshim_error_requirement()

    def status_string(self, status):
        s = self._lib.tkshim_status_string(status)
        return s.decode(errors="replace") if s else f"<no text for status {status}>"

    def describe(self, status):
        return f"status {status} ({self.status_string(status)})"

    def __call__(self, *args, stream=None):
        return self._fn(_stream_handle(stream), *[_c_arg(a) for a in args])

    def launcher(self, *args, stream=None):
        """A no-argument callable for timing loops: the arguments and the
        stream are converted once, so a call costs one ctypes crossing."""
        c_args = [_stream_handle(stream)] + [_c_arg(a) for a in args]
        fn = self._fn
        return lambda: fn(*c_args)


def _stream_handle(stream):
    # An int is a raw CUstream (0: the legacy default stream); it lets a
    # thread launch without asking torch anything, so the thread stays
    # without a current CUDA context.
    if stream is None:
        return torch.cuda.current_stream().cuda_stream
    if isinstance(stream, int):
        return stream
    return stream.cuda_stream
