"""The Python binding (tkc --python --shared) on the fake driver, without a
GPU and without torch: test/golden/python/binding.tk's module launches
through test/runtime/fake_libcuda.c (built here with $CC, without the
sanitizers a SAN=1 build adds, so that Python can load it), which records
what each launch passed. So
the argument marshalling (every scalar type through its 8-byte slot), the
checks the module makes (dtype, device, contiguity, integer ranges; of
torch-like tensors, __cuda_array_interface__ and DLPack capsules), the
launcher's own (promises, requires=) as exceptions, streams, optional
pointers, dtype instances, what register() asks of torch.library, and a
build that does not match are tested.
Tensors are stand-ins with torch's attributes, or objects with
__cuda_array_interface__; a stand-in `torch` module gives the current
stream and device.

    python3 test/python/binding_test.py [TKC]

Prints one line per failure and "ok" last; exit status 1 on failure."""

import ctypes
import importlib
import importlib.util
import inspect
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import types
import typing

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TKC = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/tkc"))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL binding_test: {what}")


def raises(kind, text, fn, *args, **kwargs):
    """fn(*args) raises `kind` with `text` in its message."""
    try:
        fn(*args, **kwargs)
    except kind as e:
        check(text in str(e), f"{fn.__name__}{args}: {kind.__name__} says {str(e)!r}, not {text!r}")
        return e
    except Exception as e:  # noqa: BLE001 - any other exception is the failure
        check(False, f"{fn.__name__}{args}: raised {type(e).__name__}: {e}, not {kind.__name__}")
        return None
    check(False, f"{fn.__name__}{args}: raised nothing, not {kind.__name__}")
    return None


def build(out, *options):
    r = subprocess.run([TKC, "--python", "--shared", *options, os.path.join(ROOT, "test/golden/python/binding.tk"),
                        "-o", out + "/"], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL binding_test: tkc --python --shared {' '.join(options)} exited {r.returncode}:\n{r.stderr}")
        sys.exit(1)


def load(folder, name="binding"):
    sys.path.insert(0, folder)
    try:
        sys.modules.pop(name, None)
        return importlib.import_module(name)
    finally:
        sys.path.remove(folder)


# ---- stand-ins ------------------------------------------------------------

class Device:
    def __init__(self, text):
        self.type, _, index = text.partition(":")
        self.index = int(index) if index else None

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"


class DType:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name


class Tensor:
    """What the binding reads of a torch tensor."""

    def __init__(self, address, dtype="float32", device="cuda:0", contiguous=True, shape=(8,), strides=(1,)):
        self.address, self.dtype, self.device, self.contiguous = address, DType(dtype), Device(device), contiguous
        self.shape, self.strides = shape, strides

    def data_ptr(self):
        return self.address

    def stride(self):
        return self.strides

    def is_contiguous(self):
        return self.contiguous


class Array:
    """An object with __cuda_array_interface__ (version 3)."""

    def __init__(self, address, typestr="<f4", shape=(8,), strides=None):
        self.__cuda_array_interface__ = {"data": (address, False), "typestr": typestr, "shape": shape,
                                         "strides": strides, "version": 3}


DLTENSOR = b"dltensor"  # the capsule keeps a pointer to its name


class DLArray:
    """A DLPack producer: __dlpack__ returns a "dltensor" capsule of a
    DLManagedTensor (no deleter: this object owns everything)."""

    def __init__(self, module, address, dtype=(2, 32), shape=(8,), strides=None, device=(2, 0), byte_offset=0):
        class Managed(ctypes.Structure):
            _fields_ = [("dl_tensor", module._TkDLTensor), ("manager_ctx", ctypes.c_void_p),
                        ("deleter", ctypes.c_void_p)]
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.strides = (ctypes.c_int64 * len(shape))(*strides) if strides else None
        self.managed = Managed()
        t = self.managed.dl_tensor
        t.data, t.byte_offset, t.ndim = address - byte_offset, byte_offset, len(shape)
        t.device.device_type, t.device.device_id = device
        t.dtype.code, t.dtype.bits, t.dtype.lanes = dtype[0], dtype[1], 1
        t.shape = ctypes.cast(self.shape, ctypes.POINTER(ctypes.c_int64))
        if self.strides:
            t.strides = ctypes.cast(self.strides, ctypes.POINTER(ctypes.c_int64))

    def __dlpack__(self, stream=None):
        new = ctypes.pythonapi.PyCapsule_New
        new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self.managed), DLTENSOR, None)


class Stream:
    def __init__(self, handle):
        self.cuda_stream = handle


class CudaStream:
    """CUDA Python's protocol: __cuda_stream__() -> (version, handle)."""

    def __init__(self, handle):
        self.handle = handle

    def __cuda_stream__(self):
        return (0, self.handle)


# ---- the fake driver's record of the last launch ---------------------------

tmp = tempfile.mkdtemp()
FAKE = os.path.join(tmp, "fake_libcuda.so")
cc = os.environ.get("CC", "cc").split()
if subprocess.run(cc + ["-O1", "-fPIC", "-shared", os.path.join(ROOT, "test/runtime/fake_libcuda.c"), "-o", FAKE,
                        "-lpthread"]).returncode != 0:
    print("FAIL binding_test: cannot build the fake driver")
    sys.exit(1)
os.environ["TKRT_LIBCUDA"] = FAKE
fake = ctypes.CDLL(FAKE)
sizes = (ctypes.c_uint * 16).in_dll(fake, "fake_arg_sizes")
last_args = (ctypes.c_ubyte * (16 * 8)).in_dll(fake, "fake_last_args")
last_arg_bytes = (ctypes.c_ubyte * (16 * 256)).in_dll(fake, "fake_last_arg_bytes")
last_grid = (ctypes.c_uint * 3).in_dll(fake, "fake_last_grid")
last_stream = ctypes.c_void_p.in_dll(fake, "fake_last_stream")
launches = ctypes.c_int.in_dll(fake, "fake_launches")


def record(*byte_sizes):
    for i, n in enumerate(byte_sizes + (0,)):
        sizes[i] = n


def arg(i, fmt):
    n = struct.calcsize(fmt)
    return struct.unpack(fmt, bytes(last_args[i * 8:i * 8 + n]))[0]


def kernel_name():
    return bytes((ctypes.c_char * 64).in_dll(fake, "fake_last_kernel")).split(b"\0")[0].decode()


try:
    build(tmp)
    m = load(tmp)

    # ---- marshalling: pointers, every scalar type --------------------------
    record(8, 8, 8, 4)
    m.add(0x1000, Tensor(0x2000), Array(0x3000), 300)
    check([arg(0, "<Q"), arg(1, "<Q"), arg(2, "<Q"), arg(3, "<i")] == [0x1000, 0x2000, 0x3000, 300],
          f"add's arguments: {[arg(i, '<Q') for i in range(3)]}, {arg(3, '<i')}")
    check(list(last_grid) == [3, 1, 1] and kernel_name().startswith("add"), f"add's grid {list(last_grid)}")
    m.add(x=0x1000, y=0x2000, out=0x3000, n=7)
    check(arg(3, "<i") == 7, "add by keywords")

    record(8, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 1, 4)
    m.scalars(0x100, -128, -32768, -2147483648, -(1 << 63), 255, 65535, 4294967295, (1 << 64) - 1,
              1.5, -2.0, 0.25, 1e300, True, -7)
    got = [arg(1, "<b"), arg(2, "<h"), arg(3, "<i"), arg(4, "<q"), arg(5, "<B"), arg(6, "<H"), arg(7, "<I"),
           arg(8, "<Q"), arg(9, "<H"), arg(10, "<H"), arg(11, "<f"), arg(12, "<d"), arg(13, "<B"), arg(14, "<i")]
    want = [-128, -32768, -2147483648, -(1 << 63), 255, 65535, 4294967295, (1 << 64) - 1, 0x3e00, 0xc000, 0.25,
            1e300, 1, -7]
    check(got == want, f"scalars: passed {got}, not {want}")
    m.scalars(0x100, 127, 32767, 2147483647, (1 << 63) - 1, 0, 0, 0, 0, 65504.0, 1.0, -0.5, -0.0, False, 2147483647)
    got = [arg(1, "<b"), arg(2, "<h"), arg(3, "<i"), arg(4, "<q"), arg(9, "<H"), arg(10, "<H"), arg(11, "<f"),
           arg(13, "<B"), arg(14, "<i")]
    check(got == [127, 32767, 2147483647, (1 << 63) - 1, 0x7bff, 0x3f80, -0.5, 0, 2147483647], f"scalars: {got}")

    class Index:  # anything with __index__ is an integer
        def __index__(self):
            return 5

    m.scalars(0x100, Index(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0)
    check(arg(1, "<b") == 5, "an __index__ object as i8")

    # ranges: a value outside its type is refused, never wrapped
    for position, value in ((1, 128), (1, -129), (2, 32768), (3, 2147483648), (4, 1 << 63), (5, -1), (5, 256),
                            (6, 65536), (7, 1 << 32), (8, -1), (8, 1 << 64), (14, 1 << 63)):
        values = [0x100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        values[position] = value
        raises(OverflowError, "outside its type's range", m.scalars, *values)
    # `int`: taken as 64 bits, refused by the launcher outside i32
    raises(m.TkcArgumentError, "u fits in i32 (annotated int)", m.scalars, 0x100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
           0, 0, 1 << 31)
    raises(TypeError, "must be an integer", m.scalars, 0x100, 1.5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    raises(TypeError, "must be a number", m.scalars, 0x100, 0, 0, 0, 0, 0, 0, 0, 0, "x", 0, 0, 0, 0, 0)
    raises(TypeError, "must be a bool", m.scalars, 0x100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)

    # ---- descriptor parameters: a tensor's data, sizes and strides --------
    def block(i):
        """(data, shape[:2], strides[:2]) of the descriptor block argument i passed"""
        b = bytes(last_arg_bytes[i * 256:(i + 1) * 256])
        return struct.unpack("<Q", b[128:136])[0], struct.unpack("<2q", b[136:152]), struct.unpack("<2q", b[176:192])

    record(256, 256, 4)
    m.tile_copy(Tensor(0x10000, shape=(100, 40), strides=(48, 1)), Array(0x20000, "<f4", (100, 40), (192, 4)), 100)
    check(block(0) == (0x10000, (100, 40), (48, 1)) and block(1) == (0x20000, (100, 40), (48, 1)),
          f"tile_copy's descriptors: {block(0)}, {block(1)}")
    check(arg(2, "<i") == 100, "tile_copy's M after two descriptors")
    m.tile_copy(Array(0x30000, "<f4", (16, 8)), Tensor(0x40000, shape=(16, 8), strides=(8, 1)), 16)
    check(block(0) == (0x30000, (16, 8), (8, 1)), f"a dense __cuda_array_interface__ array's strides: {block(0)}")
    good = Tensor(0x10000, shape=(100, 40), strides=(48, 1))
    raises(ValueError, "tile_copy: src has 1 dimensions; its descriptor has 2", m.tile_copy,
           Tensor(0x10000, shape=(8,), strides=(1,)), good, 8)
    raises(TypeError, "src must hold torch.float32, not torch.float16", m.tile_copy,
           Tensor(0x10000, "float16", shape=(100, 40), strides=(48, 1)), good, 100)
    raises(TypeError, "src is a tensor descriptor: it takes a CUDA tensor", m.tile_copy, 0x10000, good, 100)
    raises(ValueError, "not whole elements", m.tile_copy, Array(0x10000, "<f4", (4, 4), (18, 4)), good, 4)
    raises(m.TkcArgumentError, "descriptor argument 'dst': strides[0] = 47 (x 4 bytes) is not a multiple of 16",
           m.tile_copy, good, Tensor(0x20000, shape=(100, 40), strides=(47, 1)), 100)
    raises(m.TkcArgumentError, "its last stride (strides[1]) is 2, not 1", m.tile_copy,
           Tensor(0x10000, shape=(100, 40), strides=(96, 2)), good, 100)
    raises(m.TkcArgumentError, "its data (0x10008) is not 16-byte aligned", m.tile_copy,
           Tensor(0x10008, shape=(100, 40), strides=(48, 1)), good, 100)

    # ---- what only Python sees: dtype, device, contiguity -----------------
    record(8, 8, 8, 4)
    raises(TypeError, "x must hold torch.float32, not torch.float16", m.add, Tensor(0x1000, "float16"), 0x2000,
           0x3000, 8)
    raises(ValueError, "x is on cpu, not on a CUDA device", m.add, Tensor(0x1000, device="cpu"), 0x2000, 0x3000, 8)
    raises(ValueError, "y is not contiguous, and add takes no strides", m.add, 0x1000,
           Tensor(0x2000, contiguous=False), 0x3000, 8)
    raises(ValueError, "not contiguous", m.add, 0x1000, Array(0x2000, shape=(4, 4), strides=(4, 8)), 0x3000, 8)
    m.add(0x1000, Array(0x2000, shape=(4, 4), strides=(16, 4)), 0x3000, 8)  # C order, strides given
    raises(TypeError, "must hold float32, not typestr '<f2'", m.add, Array(0x1000, "<f2"), 0x2000, 0x3000, 8)
    # DLPack, read without torch
    m.add(DLArray(m, 0x4000, byte_offset=0x40), 0x2000, 0x3000, 8)
    check(arg(0, "<Q") == 0x4000, f"DLPack's address (data + byte_offset): {arg(0, '<Q'):#x}")
    m.add(DLArray(m, 0x4000, shape=(4, 4), strides=(4, 1)), 0x2000, 0x3000, 8)
    raises(TypeError, "x must hold float32, not float16", m.add, DLArray(m, 0x4000, dtype=(2, 16)), 0x2000,
           0x3000, 8)
    raises(TypeError, "DLPack dtype code 5", m.add, DLArray(m, 0x4000, dtype=(5, 64)), 0x2000, 0x3000, 8)
    raises(ValueError, "x is not in CUDA memory (DLPack device type 1)", m.add, DLArray(m, 0x4000, device=(1, 0)),
           0x2000, 0x3000, 8)
    raises(ValueError, "x is not contiguous", m.add, DLArray(m, 0x4000, shape=(4, 4), strides=(1, 4)), 0x2000,
           0x3000, 8)
    raises(TypeError, "must be a CUDA tensor", m.add, "x", 0x2000, 0x3000, 8)
    raises(TypeError, "must be a tensor, not None", m.add, None, 0x2000, 0x3000, 8)
    # a kernel that takes strides takes views
    record(8, 8, 4, 4, 4, 4)
    m.rows(Tensor(0x1000, "float16", contiguous=False), Tensor(0x2000, "float16"), 64, 1, 3, 100)
    check(arg(2, "<i") == 64 and list(last_grid) == [3, 1, 1], "rows takes a view")

    # ---- the launcher's checks, as exceptions with its message ------------
    e = raises(m.TkcArgumentError, "'x' (0x1004) is not 16-byte aligned", m.add, 0x1004, 0x2000, 0x3000, 8)
    check(e is None or (isinstance(e, ValueError) and e.kernel == "add" and e.status != 0), "TkcArgumentError fields")
    raises(m.TkcArgumentError, "'stride_xm' = 8 is not a multiple of 16", m.rows, 0x1000, 0x2000, 8, 1, 3, 100)
    raises(m.TkcArgumentError, "'stride_xn' = 2", m.rows, 0x1000, 0x2000, 64, 2, 3, 100)
    raises(m.TkcArgumentError, "n <= 256", m.rows, 0x1000, 0x2000, 64, 1, 3, 300)

    # ---- streams -----------------------------------------------------------
    record(8, 8, 8, 4)
    for given, handle in ((None, 0), (0x5000, 0x5000), (Stream(0x6000), 0x6000), (CudaStream(0x7000), 0x7000)):
        m.add(0x1000, 0x2000, 0x3000, 8, stream=given)
        check((last_stream.value or 0) == handle, f"stream {given!r}: launched on {last_stream.value}")
    raises(TypeError, "stream must be", m.add, 0x1000, 0x2000, 0x3000, 8, stream="s")
    # with torch loaded: its current stream and device
    torch = types.ModuleType("torch")
    torch.cuda = types.SimpleNamespace(current_stream=lambda: Stream(0x8000), current_device=lambda: 0)
    sys.modules["torch"] = torch
    m.add(Tensor(0x1000), 0x2000, 0x3000, 8)
    check(last_stream.value == 0x8000, f"torch's current stream: launched on {last_stream.value}")
    raises(ValueError, "x is on cuda:1, but the current device is cuda:0", m.add, Tensor(0x1000, device="cuda:1"),
           0x2000, 0x3000, 8)
    # where torch has them, the C functions Triton's launcher calls
    torch = types.ModuleType("torch")
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: 0xa000 + device,
                                     _cuda_getDevice=lambda: 1)
    sys.modules["torch"] = torch
    m.add(Tensor(0x1000, device="cuda:1"), 0x2000, 0x3000, 8)
    check(last_stream.value == 0xa001, f"torch._C's raw stream: launched on {last_stream.value}")
    raises(ValueError, "the current device is cuda:1", m.add, Tensor(0x1000, device="cuda:0"), 0x2000, 0x3000, 8)
    del sys.modules["torch"]

    # ---- optional pointers; a parameter named `stream`; the launcher's name
    record(8, 8, 4)
    m.maybe_scale(0x1000, None, 3, cuda_stream=0x9000)
    check(arg(1, "<Q") == 0 and arg(2, "<i") == 3 and last_stream.value == 0x9000, "maybe_scale(w=None)")
    none_kernel = kernel_name()
    m.maybe_scale(0x1000, 0x2000, 3)
    check(arg(1, "<Q") == 0x2000 and kernel_name() != none_kernel, f"maybe_scale(w): {kernel_name()}")

    record(8, 8)
    m.with_bias(0x1000)
    check(arg(1, "<Q") == 0, "with_bias(x): b defaults to None")
    m.with_bias(0x1000, b=0x2000)
    check(arg(1, "<Q") == 0x2000, "with_bias(x, b=...)")

    # ---- dtype instances, and the function that picks among them ---------
    record(8, 2, 4)
    m.fill_bf16(0x1000, 1.5, 10)
    check(arg(1, "<H") == 0x3fc0, f"fill_bf16's value {arg(1, '<H'):#x}")
    m.fill(Tensor(0x1000, "float16"), 1.5, 10)
    check(arg(1, "<H") == 0x3e00 and "f16" in kernel_name(), f"fill picked {kernel_name()}")
    record(8, 4, 4)
    m.fill(Array(0x1000, "<f4"), 1.5, 10)
    check(arg(1, "<f") == 1.5, "fill picked f32 by typestr")
    raises(TypeError, "no instance takes out of float64", m.fill, Tensor(0x1000, "float64"), 1.0, 10)
    raises(TypeError, "has no dtype to choose an instance by", m.fill, 0x1000, 1.0, 10)

    # ---- overhead: one struct.pack and one ctypes call a launch -----------
    count = launches.value
    for _ in range(1000):
        m.add(0x1000, 0x2000, 0x3000, 8)
    check(launches.value == count + 1000, "1000 launches")

    # ---- torch.library custom ops, opt-in: what register() asks torch for --
    registered = {}

    class CustomOp:
        def __init__(self, fn):
            self.fn, self.fake = fn, None

        def register_fake(self, fn):
            self.fake = fn
            return fn

        def __call__(self, *args):
            return self.fn(*args)

    def custom_op(name, mutates_args, device_types):
        def wrap(fn):
            registered[name] = (tuple(mutates_args), device_types, inspect.signature(fn), CustomOp(fn))
            return registered[name][3]
        return wrap

    torch = types.ModuleType("torch")
    torch.Tensor = type("Tensor", (), {})
    torch.library = types.SimpleNamespace(custom_op=custom_op)
    torch.cuda = types.SimpleNamespace(current_stream=lambda: Stream(0x8000), current_device=lambda: 0)
    sys.modules["torch"] = torch
    ops = m.register("add", "maybe_scale")
    check(sorted(registered) == ["tkc_binding::add", "tkc_binding::maybe_scale"], f"registered {sorted(registered)}")
    mutated, devices, sig, op = registered["tkc_binding::add"]
    check(mutated == ("out",) and devices == "cuda" and ops["add"] is op, f"add: mutates {mutated} on {devices}")
    check([(p.name, p.annotation) for p in sig.parameters.values()] ==
          [("x", torch.Tensor), ("y", torch.Tensor), ("out", torch.Tensor), ("n", int)] and
          sig.return_annotation is None, f"add's schema: {sig}")
    sig = registered["tkc_binding::maybe_scale"][2]
    check(sig.parameters["w"].annotation == typing.Optional[torch.Tensor], f"maybe_scale's schema: {sig}")
    check(op.fake is not None and op.fake(0, 0, 0, 1) is None, "add's fake returns nothing")
    record(8, 8, 8, 4)
    op(0x1000, 0x2000, 0x3000, 9)
    check(arg(3, "<i") == 9 and last_stream.value == 0x8000, "the op launches on torch's stream")
    check(m.register("add")["add"] is op and len(registered) == 2, "a second register() returns the same op")
    m.register(namespace="other")
    check(len(registered) == 2 + 9 and "other::scalars" in registered, f"register(): {sorted(registered)}")
    check(registered["other::with_bias"][2].parameters["b"].default is None, "with_bias's op: b defaults to None")
    mutated, _, sig, _ = registered["other::tile_copy"]
    check(mutated == ("dst",) and [p.annotation for p in sig.parameters.values()] == [torch.Tensor, torch.Tensor, int],
          f"tile_copy's op: mutates {mutated}, schema {sig}")
    sig = registered["other::scalars"][2]
    check([p.annotation for p in sig.parameters.values()][1:] == [int] * 8 + [float] * 4 + [bool, int],
          f"scalars' schema: {sig}")
    raises(KeyError, "has no kernel 'nope'", m.register, "nope")
    del sys.modules["torch"]

    # ---- --prefix: launchers PREFIX_NAME in C, the same names in Python ----
    prefixed = os.path.join(tmp, "prefixed")
    build(prefixed, "--prefix=pre")
    p = load(prefixed)
    record(8, 8, 8, 4)
    p.add(0x1000, 0x2000, 0x3000, 5)
    check(arg(3, "<i") == 5, "--prefix build launches")

    # ---- a header named otherwise than the .tk file: its module takes the
    # header's name, its library calls the header's launchers
    renamed = os.path.join(tmp, "renamed")
    r = subprocess.run([TKC, "--python", "--shared", os.path.join(ROOT, "test/golden/python/binding.tk"), "-o",
                        os.path.join(renamed, "other_name.h")], capture_output=True, text=True)
    check(r.returncode == 0, f"-o other_name.h: {r.stderr.strip()[:300]}")
    if r.returncode == 0:
        o = load(renamed, "other_name")
        record(8, 8, 8, 4)
        o.add(0x1000, 0x2000, 0x3000, 6)
        check(arg(3, "<i") == 6 and "tkc_other_name" in str(o.register.__kwdefaults__), "other_name.add")

    # ---- a C compiler that fails: tkc exits 1, nothing half-written stays
    failing = os.path.join(tmp, "failing")
    r = subprocess.run([TKC, "--python", "--shared", os.path.join(ROOT, "test/golden/python/binding.tk"), "-o",
                        failing + "/"], capture_output=True, text=True, env=dict(os.environ, CC="false"))
    left = sorted(f for f in os.listdir(failing) if "tkpy.so" in f) if os.path.isdir(failing) else []
    check(r.returncode == 1 and "failed to build" in r.stderr and not left,
          f"CC=false: exit {r.returncode}, {r.stderr.strip()[:200]!r}, left {left}")

    # ---- a library from another compilation, or none, is refused ---------
    other = os.path.join(tmp, "other")
    build(other, "--arch=sm_80")
    mixed = os.path.join(tmp, "mixed")
    os.makedirs(mixed)
    shutil.copy(os.path.join(tmp, "binding.py"), mixed)
    shutil.copy(os.path.join(other, "binding_tkpy.so"), mixed)
    raises(ImportError, "was built from another compilation", load, mixed)
    missing = os.path.join(tmp, "missing")
    os.makedirs(missing)
    shutil.copy(os.path.join(tmp, "binding.py"), missing)
    raises(ImportError, "build it with tkc --python --shared", load, missing)

    # ---- examples/torch/softmax_op.py's wrapper passes the launcher's checks:
    # its op, through a stand-in torch, launches kernels/softmax.tk's module
    # with row strides that keep their `% 16` promise
    example_dir = os.path.join(tmp, "example")
    r = subprocess.run([TKC, "--python", "--shared", os.path.join(ROOT, "kernels/softmax.tk"), "-o",
                        os.path.join(example_dir, "py") + "/"], capture_output=True, text=True)
    check(r.returncode == 0, f"kernels/softmax.tk --python --shared: {r.stderr.strip()[:300]}")

    class Matrix(Tensor):
        """A row-major float32 matrix, or a column slice of one."""

        def __init__(self, address, shape, row_stride):
            super().__init__(address, contiguous=row_stride == shape[1])
            self.shape, self.row_stride = shape, row_stride

        def stride(self, dim):
            return (self.row_stride, 1)[dim]

        def __getitem__(self, index):
            rows, cols = index
            return Matrix(self.address, (self.shape[0], len(range(self.shape[1])[cols])), self.row_stride)

    def library_op(name, mutates_args, device_types):
        def wrap(fn):
            namespace, _, op_name = name.partition("::")
            setattr(torch.ops.__dict__.setdefault(namespace, types.SimpleNamespace()), op_name, CustomOp(fn))
            return getattr(getattr(torch.ops, namespace), op_name)
        return wrap

    allocations = [0x100000]

    def empty(rows, cols, device=None, dtype=None):
        allocations[0] += rows * cols * 4 + 256
        return Matrix(allocations[0] - rows * cols * 4 - 256, (rows, cols), cols)

    torch = types.ModuleType("torch")
    torch.Tensor, torch.float32 = Tensor, DType("float32")
    torch.library = types.SimpleNamespace(custom_op=library_op)
    torch.ops = types.SimpleNamespace()
    torch.empty = empty
    torch.empty_like = lambda x: empty(*x.shape)  # a slice's copy is dense, as torch's
    torch.cuda = types.SimpleNamespace(current_stream=lambda: Stream(0x8000), current_device=lambda: 0)
    sys.modules["torch"] = torch
    os.environ["TK_GPU_DIR"] = example_dir
    try:
        spec = importlib.util.spec_from_file_location("softmax_op", os.path.join(ROOT, "examples/torch/softmax_op.py"))
        example = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(example)
        record(8, 8, 4, 4, 4, 4)
        out = example.softmax(empty(4096, 1008)[:, :999])
        check(arg(2, "<i") % 16 == 0 and arg(3, "<i") == 1008 and arg(5, "<i") == 999 and out.shape == (4096, 999),
              f"softmax_op.py's op: strides {arg(2, '<i')}, {arg(3, '<i')}; n_cols {arg(5, '<i')}")
    except Exception as e:  # noqa: BLE001 - the launcher's refusal is the failure this looks for
        check(False, f"softmax_op.py's op: {type(e).__name__}: {e}")
    finally:
        del sys.modules["torch"], os.environ["TK_GPU_DIR"]
        sys.modules.pop("softmax", None)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

if failures:
    print(f"{len(failures)} failures")
    sys.exit(1)
print("ok")
