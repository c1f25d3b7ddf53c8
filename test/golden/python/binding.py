"""binding: kernels compiled by tkc 0.1.0, and their launchers. Generated: do not edit.

Each function launches one kernel through binding_tkpy.so (beside this file), which
holds the compiled code: no compiler runs at import or at a call.
Arguments: tensors (torch, __cuda_array_interface__ or DLPack) or int
addresses for pointers, Python numbers for scalars. A launch that fails
raises TkcError (TkcArgumentError, a ValueError, for an argument).
"""

import ctypes as _tk_ctypes
import operator as _tk_operator
import os as _tk_os
import struct as _tk_struct
import sys as _tk_sys
import typing as _tk_typing


class TkcError(RuntimeError):
    """A launch that failed: .status is the runtime's tk_status, .kernel the kernel."""

    def __init__(self, kernel, status, message):
        super().__init__(message)
        self.kernel, self.status = kernel, status


class TkcArgumentError(TkcError, ValueError):
    """An argument the launcher refused (a promise, requires=, the grid)."""


def _tk_load():
    path = _tk_os.path.join(_tk_os.path.dirname(_tk_os.path.abspath(__file__)), _TK_LIBRARY)
    try:
        lib = _tk_ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(f"{__name__}: cannot load {path} ({e}); build it with tkc --python --shared") from None
    lib.tkpy_build.restype = _tk_ctypes.c_char_p
    built = lib.tkpy_build().decode()
    if built != _TK_BUILD:
        raise ImportError(f"{__name__}: {path} was built from another compilation ({built!r}, "
                          f"this module {_TK_BUILD!r}); rebuild both with one tkc run")
    lib.tkpy_status_string.argtypes = [_tk_ctypes.c_int]
    lib.tkpy_status_string.restype = _tk_ctypes.c_char_p
    lib.tkpy_argument_status.argtypes = [_tk_ctypes.c_int]
    return lib


def _tk_entry(name):
    fn = getattr(_tk_lib, "tkpy_" + name)
    fn.argtypes = [_tk_ctypes.c_void_p, _tk_ctypes.c_char_p]
    fn.restype = _tk_ctypes.c_int
    return fn


def _tk_fail(kernel, status):
    message = _tk_lib.tkpy_status_string(status).decode(errors="replace")
    if _tk_lib.tkpy_argument_status(status):
        raise TkcArgumentError(kernel, status, message)
    raise TkcError(kernel, status, message)


_tk_torch = None


def _tk_torch_api():
    """(torch, current raw stream, current device) where torch is loaded: the
    private C functions Triton's launcher calls too where torch has them
    (a launch asks both), else the public ones."""
    global _tk_torch
    torch = _tk_sys.modules.get("torch")
    if torch is None:
        return None
    if _tk_torch is None or _tk_torch[0] is not torch:
        c = getattr(torch, "_C", None)
        raw, device = getattr(c, "_cuda_getCurrentRawStream", None), getattr(c, "_cuda_getDevice", None)
        if raw is not None and device is not None:
            _tk_torch = (torch, lambda: raw(device()), device)
        else:
            _tk_torch = (torch, lambda: torch.cuda.current_stream().cuda_stream, torch.cuda.current_device)
    return _tk_torch


def _tk_stream(stream):
    """A CUstream handle: torch's current stream where torch is loaded (so a launch
    goes where torch's own kernels go, graph capture included), else 0."""
    if stream is None:
        api = _tk_torch_api()
        return api[1]() if api is not None else 0
    if isinstance(stream, int):
        return stream
    handle = getattr(stream, "cuda_stream", None)
    if handle is None and hasattr(stream, "__cuda_stream__"):
        handle = stream.__cuda_stream__()[1]
    if not isinstance(handle, int):
        raise TypeError(f"stream must be an int (a CUstream), a torch.cuda.Stream or have __cuda_stream__, "
                        f"not {type(stream).__name__}")
    return handle


def _tk_contiguous(shape, strides, itemsize):
    expect = itemsize
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size != 1 and stride != expect:
            return False
        expect *= size
    return True


def _tk_ptr(value, torch_dtype, typestr, optional, contiguous, kernel, param):
    """The device address an argument for a pointer parameter holds, after the
    checks the launcher cannot make: dtype, device, contiguity."""
    if value is None:
        if optional:
            return 0
        raise TypeError(f"{kernel}: {param} must be a tensor, not None")
    if type(value) is int:
        return value
    if hasattr(value, "data_ptr") and hasattr(value, "device") and hasattr(value, "dtype"):
        device = value.device
        if device.type != "cuda":
            raise ValueError(f"{kernel}: {param} is on {device}, not on a CUDA device")
        api = _tk_torch_api()
        if api is not None and device.index is not None and device.index != api[2]():
            raise ValueError(f"{kernel}: {param} is on {device}, but the current device is "
                             f"cuda:{api[2]()} (use torch.cuda.device({device.index}))")
        if torch_dtype and str(value.dtype) != "torch." + torch_dtype:
            raise TypeError(f"{kernel}: {param} must hold torch.{torch_dtype}, not {value.dtype}")
        if contiguous and not value.is_contiguous():
            raise ValueError(f"{kernel}: {param} is not contiguous, and {kernel} takes no strides to read "
                             f"it as a view; pass {param}.contiguous()")
        return value.data_ptr()
    cai = getattr(value, "__cuda_array_interface__", None)
    if cai is not None:
        got = cai["typestr"]
        if torch_dtype and (not typestr or got[1:] != typestr):
            raise TypeError(f"{kernel}: {param} must hold {torch_dtype}, not typestr {got!r}")
        strides = cai.get("strides")
        if contiguous and strides is not None and not _tk_contiguous(cai["shape"], strides, int(got[2:])):
            raise ValueError(f"{kernel}: {param} is not contiguous, and {kernel} takes no strides to read "
                             f"it as a view")
        return cai["data"][0]
    if hasattr(value, "__dlpack__"):
        return _tk_dlpack(value, torch_dtype, contiguous, kernel, param)
    raise TypeError(f"{kernel}: {param} must be a CUDA tensor (torch, __cuda_array_interface__ or DLPack) "
                    f"or an int address, not {type(value).__name__}")


_TK_TYPESTRS = {"b1": "bool", "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64", "u1": "uint8",
                "u2": "uint16", "u4": "uint32", "u8": "uint64", "f2": "float16", "f4": "float32", "f8": "float64"}


def _tk_pick(instances, value, kernel, param):
    """The instance of a kernel built per dtype that takes `value`'s dtype."""
    if hasattr(value, "data_ptr") and hasattr(value, "dtype"):
        name = str(value.dtype).replace("torch.", "")
    elif hasattr(value, "__cuda_array_interface__"):
        name = _TK_TYPESTRS.get(value.__cuda_array_interface__["typestr"][1:], "?")
    else:
        raise TypeError(f"{kernel}: {param} has no dtype to choose an instance by; call one of "
                        f"{', '.join(f.__name__ for f in instances.values())}")
    fn = instances.get(name)
    if fn is None:
        raise TypeError(f"{kernel}: no instance takes {param} of {name}; there are "
                        f"{', '.join(f'{f.__name__} ({d})' for d, f in instances.items())}")
    return fn


class _TkDLDevice(_tk_ctypes.Structure):
    _fields_ = [("device_type", _tk_ctypes.c_int32), ("device_id", _tk_ctypes.c_int32)]


class _TkDLDataType(_tk_ctypes.Structure):
    _fields_ = [("code", _tk_ctypes.c_uint8), ("bits", _tk_ctypes.c_uint8), ("lanes", _tk_ctypes.c_uint16)]


class _TkDLTensor(_tk_ctypes.Structure):
    """DLPack's DLTensor, the first member of the DLManagedTensor a "dltensor" capsule holds."""
    _fields_ = [("data", _tk_ctypes.c_void_p), ("device", _TkDLDevice), ("ndim", _tk_ctypes.c_int32),
                ("dtype", _TkDLDataType), ("shape", _tk_ctypes.POINTER(_tk_ctypes.c_int64)),
                ("strides", _tk_ctypes.POINTER(_tk_ctypes.c_int64)), ("byte_offset", _tk_ctypes.c_uint64)]


# DLPack's (type code, bits) -> torch's dtype names; kDLCUDA and kDLCUDAManaged
_TK_DL_DTYPES = {(0, 8): "int8", (0, 16): "int16", (0, 32): "int32", (0, 64): "int64", (1, 8): "uint8",
                 (1, 16): "uint16", (1, 32): "uint32", (1, 64): "uint64", (2, 16): "float16", (2, 32): "float32",
                 (2, 64): "float64", (4, 16): "bfloat16", (6, 8): "bool"}
_TK_DL_CUDA = (2, 13)
_tk_capsule_pointer = _tk_ctypes.pythonapi.PyCapsule_GetPointer
_tk_capsule_pointer.restype = _tk_ctypes.c_void_p
_tk_capsule_pointer.argtypes = [_tk_ctypes.py_object, _tk_ctypes.c_char_p]


def _tk_dlpack(value, torch_dtype, contiguous, kernel, param):
    """The address a DLPack producer's tensor starts at, read from its capsule
    (not consumed: the capsule frees what it holds; value keeps the memory)."""
    capsule = value.__dlpack__()
    t = _TkDLTensor.from_address(_tk_capsule_pointer(capsule, b"dltensor"))
    if t.device.device_type not in _TK_DL_CUDA:
        raise ValueError(f"{kernel}: {param} is not in CUDA memory (DLPack device type {t.device.device_type})")
    api = _tk_torch_api()
    if api is not None and t.device.device_id != api[2]():
        raise ValueError(f"{kernel}: {param} is on cuda:{t.device.device_id}, but the current device is "
                         f"cuda:{api[2]()}")
    name = _TK_DL_DTYPES.get((t.dtype.code, t.dtype.bits)) if t.dtype.lanes == 1 else None
    if torch_dtype and name != torch_dtype:
        raise TypeError(f"{kernel}: {param} must hold {torch_dtype}, not {name or 'DLPack dtype code %d, %d bits, %d lanes' % (t.dtype.code, t.dtype.bits, t.dtype.lanes)}")
    if contiguous and t.strides:
        shape = [t.shape[i] for i in range(t.ndim)]
        if not _tk_contiguous(shape, [t.strides[i] for i in range(t.ndim)], 1):
            raise ValueError(f"{kernel}: {param} is not contiguous, and {kernel} takes no strides to read "
                             f"it as a view")
    return (t.data or 0) + t.byte_offset


def _tk_tensor(value, torch_dtype, typestr, rank, kernel, param):
    """A tensor for a descriptor parameter of `rank` dimensions as (data, sizes...,
    strides in elements...): the launcher checks what a descriptor needs of them."""
    if hasattr(value, "data_ptr") and hasattr(value, "device") and hasattr(value, "dtype"):
        shape, strides = tuple(value.shape), tuple(value.stride())
    elif hasattr(value, "__cuda_array_interface__"):
        cai = value.__cuda_array_interface__
        shape, itemsize = tuple(cai["shape"]), int(cai["typestr"][2:])
        strides = cai.get("strides")
        if strides is None:
            strides, step = [], 1
            for size in reversed(shape):
                strides.insert(0, step)
                step *= size
        elif any(s % itemsize for s in strides):
            raise ValueError(f"{kernel}: {param}'s strides {tuple(strides)} are not whole elements")
        else:
            strides = [s // itemsize for s in strides]
    else:
        raise TypeError(f"{kernel}: {param} is a tensor descriptor: it takes a CUDA tensor (torch or "
                        f"__cuda_array_interface__), not {type(value).__name__}")
    if len(shape) != rank:
        raise ValueError(f"{kernel}: {param} has {len(shape)} dimensions; its descriptor has {rank}")
    return (_tk_ptr(value, torch_dtype, typestr, False, False, kernel, param), *shape, *strides)


def _tk_int(value, lo, hi, kernel, param):
    if type(value) is not int:
        try:
            value = _tk_operator.index(value)
        except TypeError:
            raise TypeError(f"{kernel}: {param} must be an integer, not {type(value).__name__}") from None
    if value < lo or value > hi:
        raise OverflowError(f"{kernel}: {param} = {value} is outside its type's range [{lo}, {hi}]")
    return value


def _tk_bool(value, kernel, param):
    if value is True or value is False or value == 0 or value == 1:
        return 1 if value else 0
    raise TypeError(f"{kernel}: {param} must be a bool, not {value!r}")


def _tk_float(value, kernel, param):
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{kernel}: {param} must be a number, not {type(value).__name__}") from None

_TK_LIBRARY = "binding_tkpy.so"
_TK_BUILD = "0f4f60205b65d340 sm_90a "
_tk_lib = _tk_load()


_tk_add_entry = _tk_entry("add")
_tk_add_pack = _tk_struct.Struct("<QQQq").pack


def add(x, y, out, n, *, stream=None):
    """add(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16 (written), n: i32)

    Launches add on `stream` (default: torch's current stream, where torch is
    loaded). Tensors must be contiguous (the kernel takes no strides).
    """
    status = _tk_add_entry(_tk_stream(stream), _tk_add_pack(
        _tk_ptr(x, "float32", "f4", False, True, "add", "x"),
        _tk_ptr(y, "float32", "f4", False, True, "add", "y"),
        _tk_ptr(out, "float32", "f4", False, True, "add", "out"),
        _tk_int(n, -2147483648, 2147483647, "add", "n")))
    if status:
        _tk_fail("add", status)


_tk_rows_entry = _tk_entry("rows")
_tk_rows_pack = _tk_struct.Struct("<QQqqqq").pack


def rows(x, out, stride_xm, stride_xn, m, n, *, stream=None):
    """rows(x: *f16, out: *f16 (written), stride_xm: i32 % 16, stride_xn: i32 == 1, m: i32, n: i32)

    Launches rows on `stream` (default: torch's current stream, where torch is
    loaded). Tensors may be views: the strides passed say how the kernel reads them.
    """
    status = _tk_rows_entry(_tk_stream(stream), _tk_rows_pack(
        _tk_ptr(x, "float16", "f2", False, False, "rows", "x"),
        _tk_ptr(out, "float16", "f2", False, False, "rows", "out"),
        _tk_int(stride_xm, -2147483648, 2147483647, "rows", "stride_xm"),
        _tk_int(stride_xn, -2147483648, 2147483647, "rows", "stride_xn"),
        _tk_int(m, -2147483648, 2147483647, "rows", "m"),
        _tk_int(n, -2147483648, 2147483647, "rows", "n")))
    if status:
        _tk_fail("rows", status)


_tk_scalars_entry = _tk_entry("scalars")
_tk_scalars_pack = _tk_struct.Struct("<QqqqqqqqQddddqq").pack


def scalars(out, a, b, c, d, e, f, g, h, p, q, r, s, t, u, *, stream=None):
    """scalars(out: *f64 (written), a: i8, b: i16, c: i32, d: i64, e: u8, f: u16, g: u32, h: u64, p: f16, q: bf16, r: f32, s: f64, t: i1, u: int)

    Launches scalars on `stream` (default: torch's current stream, where torch is
    loaded). Tensors must be contiguous (the kernel takes no strides).
    """
    status = _tk_scalars_entry(_tk_stream(stream), _tk_scalars_pack(
        _tk_ptr(out, "float64", "f8", False, True, "scalars", "out"),
        _tk_int(a, -128, 127, "scalars", "a"),
        _tk_int(b, -32768, 32767, "scalars", "b"),
        _tk_int(c, -2147483648, 2147483647, "scalars", "c"),
        _tk_int(d, -(1 << 63), (1 << 63) - 1, "scalars", "d"),
        _tk_int(e, 0, 255, "scalars", "e"),
        _tk_int(f, 0, 65535, "scalars", "f"),
        _tk_int(g, 0, 4294967295, "scalars", "g"),
        _tk_int(h, 0, (1 << 64) - 1, "scalars", "h"),
        _tk_float(p, "scalars", "p"),
        _tk_float(q, "scalars", "q"),
        _tk_float(r, "scalars", "r"),
        _tk_float(s, "scalars", "s"),
        _tk_bool(t, "scalars", "t"),
        _tk_int(u, -(1 << 63), (1 << 63) - 1, "scalars", "u")))
    if status:
        _tk_fail("scalars", status)


_tk_maybe_scale_entry = _tk_entry("maybe_scale")
_tk_maybe_scale_pack = _tk_struct.Struct("<QQq").pack


def maybe_scale(x, w, stream, *, cuda_stream=None):
    """maybe_scale(x: *f32 (written), w: *f32 | None, stream: i32)

    Launches optional on `cuda_stream` (default: torch's current stream, where torch is
    loaded). Tensors must be contiguous (the kernel takes no strides).
    """
    status = _tk_maybe_scale_entry(_tk_stream(cuda_stream), _tk_maybe_scale_pack(
        _tk_ptr(x, "float32", "f4", False, True, "maybe_scale", "x"),
        _tk_ptr(w, "float32", "f4", True, True, "maybe_scale", "w"),
        _tk_int(stream, -2147483648, 2147483647, "maybe_scale", "stream")))
    if status:
        _tk_fail("maybe_scale", status)


_tk_fill_f16_entry = _tk_entry("fill_f16")
_tk_fill_f16_pack = _tk_struct.Struct("<Qdq").pack


def fill_f16(out, v, n, *, stream=None):
    """fill_f16(out: *f16 (written), v: f16, n: i32)

    Launches fill_f16 on `stream` (default: torch's current stream, where torch is
    loaded). Tensors must be contiguous (the kernel takes no strides).
    """
    status = _tk_fill_f16_entry(_tk_stream(stream), _tk_fill_f16_pack(
        _tk_ptr(out, "float16", "f2", False, True, "fill_f16", "out"),
        _tk_float(v, "fill_f16", "v"),
        _tk_int(n, -2147483648, 2147483647, "fill_f16", "n")))
    if status:
        _tk_fail("fill_f16", status)


_tk_fill_bf16_entry = _tk_entry("fill_bf16")
_tk_fill_bf16_pack = _tk_struct.Struct("<Qdq").pack


def fill_bf16(out, v, n, *, stream=None):
    """fill_bf16(out: *bf16 (written), v: bf16, n: i32)

    Launches fill_bf16 on `stream` (default: torch's current stream, where torch is
    loaded). Tensors must be contiguous (the kernel takes no strides).
    """
    status = _tk_fill_bf16_entry(_tk_stream(stream), _tk_fill_bf16_pack(
        _tk_ptr(out, "bfloat16", "", False, True, "fill_bf16", "out"),
        _tk_float(v, "fill_bf16", "v"),
        _tk_int(n, -2147483648, 2147483647, "fill_bf16", "n")))
    if status:
        _tk_fail("fill_bf16", status)


_tk_fill_f32_entry = _tk_entry("fill_f32")
_tk_fill_f32_pack = _tk_struct.Struct("<Qdq").pack


def fill_f32(out, v, n, *, stream=None):
    """fill_f32(out: *f32 (written), v: f32, n: i32)

    Launches fill_f32 on `stream` (default: torch's current stream, where torch is
    loaded). Tensors must be contiguous (the kernel takes no strides).
    """
    status = _tk_fill_f32_entry(_tk_stream(stream), _tk_fill_f32_pack(
        _tk_ptr(out, "float32", "f4", False, True, "fill_f32", "out"),
        _tk_float(v, "fill_f32", "v"),
        _tk_int(n, -2147483648, 2147483647, "fill_f32", "n")))
    if status:
        _tk_fail("fill_f32", status)


_tk_with_bias_entry = _tk_entry("with_bias")
_tk_with_bias_pack = _tk_struct.Struct("<QQ").pack


def with_bias(x, b=None, *, stream=None):
    """with_bias(x: *f32 (written), b: *f32 | None)

    Launches with_bias on `stream` (default: torch's current stream, where torch is
    loaded). Tensors must be contiguous (the kernel takes no strides).
    """
    status = _tk_with_bias_entry(_tk_stream(stream), _tk_with_bias_pack(
        _tk_ptr(x, "float32", "f4", False, True, "with_bias", "x"),
        _tk_ptr(b, "float32", "f4", True, True, "with_bias", "b")))
    if status:
        _tk_fail("with_bias", status)


_tk_tile_copy_entry = _tk_entry("tile_copy")
_tk_tile_copy_pack = _tk_struct.Struct("<Q4qQ4qq").pack


def tile_copy(src, dst, M, *, stream=None):
    """tile_copy(src: tensor_descriptor[f32, [64, 32]], dst: tensor_descriptor[f32, [64, 32]] (written), M: i32)

    Launches tile_copy on `stream` (default: torch's current stream, where torch is
    loaded).
    A descriptor's tensor may be a view: its sizes and strides are passed.
    """
    status = _tk_tile_copy_entry(_tk_stream(stream), _tk_tile_copy_pack(
        *_tk_tensor(src, "float32", "f4", 2, "tile_copy", "src"),
        *_tk_tensor(dst, "float32", "f4", 2, "tile_copy", "dst"),
        _tk_int(M, -2147483648, 2147483647, "tile_copy", "M")))
    if status:
        _tk_fail("tile_copy", status)


_tk_fill_instances = {"float16": fill_f16, "bfloat16": fill_bf16, "float32": fill_f32}


def fill(out, v, n, *, stream=None):
    """Launches fill_f16, fill_bf16 or fill_f32, as the dtype of `out` says."""
    _tk_pick(_tk_fill_instances, out, "fill", "out")(out, v, n, stream=stream)


def _tk_op_add(torch, namespace):
    _tk_launch = add

    @torch.library.custom_op(namespace + "::add", mutates_args=("out",), device_types="cuda")
    def op(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor, n: int) -> None:
        _tk_launch(x, y, out, n)

    @op.register_fake
    def _(x, y, out, n):
        return None

    return op


def _tk_op_rows(torch, namespace):
    _tk_launch = rows

    @torch.library.custom_op(namespace + "::rows", mutates_args=("out",), device_types="cuda")
    def op(x: torch.Tensor, out: torch.Tensor, stride_xm: int, stride_xn: int, m: int, n: int) -> None:
        _tk_launch(x, out, stride_xm, stride_xn, m, n)

    @op.register_fake
    def _(x, out, stride_xm, stride_xn, m, n):
        return None

    return op


def _tk_op_scalars(torch, namespace):
    _tk_launch = scalars

    @torch.library.custom_op(namespace + "::scalars", mutates_args=("out",), device_types="cuda")
    def op(out: torch.Tensor, a: int, b: int, c: int, d: int, e: int, f: int, g: int, h: int, p: float, q: float, r: float, s: float, t: bool, u: int) -> None:
        _tk_launch(out, a, b, c, d, e, f, g, h, p, q, r, s, t, u)

    @op.register_fake
    def _(out, a, b, c, d, e, f, g, h, p, q, r, s, t, u):
        return None

    return op


def _tk_op_maybe_scale(torch, namespace):
    _tk_launch = maybe_scale

    @torch.library.custom_op(namespace + "::maybe_scale", mutates_args=("x",), device_types="cuda")
    def op(x: torch.Tensor, w: _tk_typing.Optional[torch.Tensor], stream: int) -> None:
        _tk_launch(x, w, stream)

    @op.register_fake
    def _(x, w, stream):
        return None

    return op


def _tk_op_fill_f16(torch, namespace):
    _tk_launch = fill_f16

    @torch.library.custom_op(namespace + "::fill_f16", mutates_args=("out",), device_types="cuda")
    def op(out: torch.Tensor, v: float, n: int) -> None:
        _tk_launch(out, v, n)

    @op.register_fake
    def _(out, v, n):
        return None

    return op


def _tk_op_fill_bf16(torch, namespace):
    _tk_launch = fill_bf16

    @torch.library.custom_op(namespace + "::fill_bf16", mutates_args=("out",), device_types="cuda")
    def op(out: torch.Tensor, v: float, n: int) -> None:
        _tk_launch(out, v, n)

    @op.register_fake
    def _(out, v, n):
        return None

    return op


def _tk_op_fill_f32(torch, namespace):
    _tk_launch = fill_f32

    @torch.library.custom_op(namespace + "::fill_f32", mutates_args=("out",), device_types="cuda")
    def op(out: torch.Tensor, v: float, n: int) -> None:
        _tk_launch(out, v, n)

    @op.register_fake
    def _(out, v, n):
        return None

    return op


def _tk_op_with_bias(torch, namespace):
    _tk_launch = with_bias

    @torch.library.custom_op(namespace + "::with_bias", mutates_args=("x",), device_types="cuda")
    def op(x: torch.Tensor, b: _tk_typing.Optional[torch.Tensor] = None) -> None:
        _tk_launch(x, b)

    @op.register_fake
    def _(x, b):
        return None

    return op


def _tk_op_tile_copy(torch, namespace):
    _tk_launch = tile_copy

    @torch.library.custom_op(namespace + "::tile_copy", mutates_args=("dst",), device_types="cuda")
    def op(src: torch.Tensor, dst: torch.Tensor, M: int) -> None:
        _tk_launch(src, dst, M)

    @op.register_fake
    def _(src, dst, M):
        return None

    return op


_TK_OPS = {
    "add": _tk_op_add,
    "rows": _tk_op_rows,
    "scalars": _tk_op_scalars,
    "maybe_scale": _tk_op_maybe_scale,
    "fill_f16": _tk_op_fill_f16,
    "fill_bf16": _tk_op_fill_bf16,
    "fill_f32": _tk_op_fill_f32,
    "with_bias": _tk_op_with_bias,
    "tile_copy": _tk_op_tile_copy,
}
_tk_registered = {}


def register(*kernels, namespace="tkc_binding"):
    """Registers kernels (by name; all without names) as torch.library custom ops
    NAMESPACE::KERNEL, the pointers each writes declared mutated, so that torch.compile
    (fullgraph) and CUDA graphs take them as opaque ops. Returns the ops by name; a
    second call returns the ops registered before."""
    import torch
    ops = {}
    for name in kernels or _TK_OPS:
        if name not in _TK_OPS:
            raise KeyError(f"{__name__} has no kernel {name!r}; it has {', '.join(_TK_OPS)}")
        key = (namespace, name)
        if key not in _tk_registered:
            _tk_registered[key] = _TK_OPS[name](torch, namespace)
        ops[name] = _tk_registered[key]
    return ops
