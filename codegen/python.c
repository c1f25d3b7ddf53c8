/* The Python binding (tkc --python): NAME.py, a module with one function
 * per launcher, and the C source of the shared library it loads with
 * ctypes, NAME_tkpy.c. The library includes the launch header (so the
 * cubins stay embedded and the header's checks and tuner run as in C) and
 * exposes each launcher as `int tkpy_LAUNCHER(void *stream, const uint64_t
 * *slots)`: one 8-byte slot an argument (pointers and integers as 64-bit
 * integers, floats as doubles), so that a call is one struct.pack and one
 * ctypes crossing. The module checks what C cannot see of its arguments
 * (dtype, device, contiguity, integer ranges) before it launches, and
 * turns a failed status into an exception with the runtime's message; a
 * kernel built per dtype also gets a function that picks the instance,
 * and register() makes kernels torch.library custom ops. The module's
 * own helpers (py_runtime) are the same text in every module.
 * Needs: the program after codegen (header.c's launchers). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* What Python passes for a scalar: the slot's struct code and the range
 * an integer must be in (as Python literals). */
typedef struct py_scalar {
    char code;                   /* 'q', 'Q' or 'd' */
    const char *lo, *hi;         /* integers: inclusive bounds; NULL for floats and booleans */
} py_scalar;

static py_scalar scalar_of(const tk_sema_param *p) {
    if (p->python_int) return (py_scalar){'q', "-(1 << 63)", "(1 << 63) - 1"};
    switch (p->type->dtype) {
    case TK_I1: return (py_scalar){'q', NULL, NULL};
    case TK_I8: return (py_scalar){'q', "-128", "127"};
    case TK_I16: return (py_scalar){'q', "-32768", "32767"};
    case TK_I32: return (py_scalar){'q', "-2147483648", "2147483647"};
    case TK_I64: return (py_scalar){'q', "-(1 << 63)", "(1 << 63) - 1"};
    case TK_U8: return (py_scalar){'q', "0", "255"};
    case TK_U16: return (py_scalar){'q', "0", "65535"};
    case TK_U32: return (py_scalar){'q', "0", "4294967295"};
    case TK_U64: return (py_scalar){'Q', "0", "(1 << 64) - 1"};
    default: return (py_scalar){'d', NULL, NULL};
    }
}

/* A pointee's names: torch's dtype and __cuda_array_interface__'s typestr
 * without its byte-order character ("" where it has none, as bfloat16). */
static void pointee_names(const tk_type *pointer, const char **torch_name, const char **typestr) {
    *torch_name = *typestr = "";
    const tk_type *e = pointer->elem;
    if (!e || e->kind != TK_TYPE_SCALAR) return;
    switch (e->dtype) {
    case TK_I1: *torch_name = "bool", *typestr = "b1"; break;
    case TK_I8: *torch_name = "int8", *typestr = "i1"; break;
    case TK_I16: *torch_name = "int16", *typestr = "i2"; break;
    case TK_I32: *torch_name = "int32", *typestr = "i4"; break;
    case TK_I64: *torch_name = "int64", *typestr = "i8"; break;
    case TK_U8: *torch_name = "uint8", *typestr = "u1"; break;
    case TK_U16: *torch_name = "uint16", *typestr = "u2"; break;
    case TK_U32: *torch_name = "uint32", *typestr = "u4"; break;
    case TK_U64: *torch_name = "uint64", *typestr = "u8"; break;
    case TK_F8E4M3: *torch_name = "float8_e4m3fn"; break;
    case TK_F8E5M2: *torch_name = "float8_e5m2"; break;
    case TK_F16: *torch_name = "float16", *typestr = "f2"; break;
    case TK_BF16: *torch_name = "bfloat16"; break;
    case TK_F32: *torch_name = "float32", *typestr = "f4"; break;
    case TK_F64: *torch_name = "float64", *typestr = "f8"; break;
    default: break;
    }
}

/* How a parameter reads in the docstrings: "*f32 % 16 (written)", "i32 == 1" */
static void describe_param(FILE *out, const cg_launch_param *lp) {
    const tk_sema_param *p = lp->param;
    if (p->type->kind == TK_TYPE_BLOCK_PTR) {
        fprintf(out, "tensor_descriptor[%s, [", tk_dtype_name(p->type->elem->dtype));
        for (uint32_t d = 0; d < p->type->rank; d++) fprintf(out, "%s%lld", d ? ", " : "", (long long)p->type->shape[d]);
        fputs("]]", out);
    } else if (p->type->kind == TK_TYPE_POINTER) {
        const tk_type *e = p->type->elem;
        fprintf(out, "*%s", e && e->kind == TK_TYPE_SCALAR ? tk_dtype_name(e->dtype) : "void");
    } else {
        fputs(p->python_int ? "int" : tk_dtype_name(p->type->dtype), out);
    }
    if (p->promise == TK_PROMISE_DIVISIBLE) fprintf(out, " %% %llu", (unsigned long long)p->promise_value);
    if (p->promise == TK_PROMISE_EQUAL) fputs(" == 1", out);
    if (p->promise == TK_PROMISE_OPTIONAL) fputs(" | None", out);
    if (lp->written) fputs(" (written)", out);
}

/* Does the kernel take strides (an integer parameter named so)? Then its
 * tensors may be views: the strides passed say how to read them. */
static bool takes_strides(const cg_launch_param *ps, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (ps[i].param->type->kind != TK_TYPE_POINTER && strstr(ps[i].param->name, "stride")) return true;
    return false;
}

/* A Python string literal of text, control characters made spaces as the
 * header's C literals make them (so the two read back equal) */
static void print_py_string(FILE *out, const char *text) {
    fputc('"', out);
    for (const char *t = text; *t; t++) {
        if (*t == '"' || *t == '\\') fprintf(out, "\\%c", *t);
        else if ((unsigned char)*t < 0x20) fputc(' ', out);
        else fputc(*t, out);
    }
    fputc('"', out);
}

/* The first parameter from which every one is an optional pointer: those
 * default to None in Python (the .tk file may give only them defaults) */
static uint32_t optional_from(const cg_launch_param *ps, uint32_t n) {
    uint32_t first = n;
    while (first > 0 && ps[first - 1].param->promise == TK_PROMISE_OPTIONAL) first--;
    return first;
}

/* a Python def's parameters, the trailing optional pointers defaulting to None */
static void write_py_params(FILE *out, const cg_launch_param *ps, uint32_t n) {
    uint32_t optional = optional_from(ps, n);
    for (uint32_t i = 0; i < n; i++) fprintf(out, "%s%s, ", ps[i].param->name, i >= optional ? "=None" : "");
}

static const char *launcher_of(const tk_sema_kernel *sk) {
    return sk->launcher_name ? sk->launcher_name : sk->name;
}

/* ---- NAME_tkpy.c ---- */

static void write_shim_entry(FILE *out, const char *launcher_prefix, const tk_sema_kernel *sk,
                             const cg_launch_param *ps, uint32_t n) {
    const char *name = launcher_of(sk);
    fprintf(out, "TKPY_EXPORT int tkpy_%s(void *stream, const uint64_t *slot) {\n", name);
    if (!n) fputs("    (void)slot;\n", out);
    fprintf(out, "    return (int)%s%s((tk_stream)stream", launcher_prefix, name);
    uint32_t i = 0; /* the slot an argument starts at: a descriptor takes 1 + 2 x rank */
    for (uint32_t a = 0; a < n; a++) {
        const tk_sema_param *p = ps[a].param;
        if (p->type->kind == TK_TYPE_BLOCK_PTR) {
            uint32_t r = p->type->rank;
            fprintf(out, ",\n        tkpy_tensor(slot + %u, %u)", i, r);
            i += 1 + 2 * r;
            continue;
        }
        if (p->type->kind == TK_TYPE_POINTER) {
            fprintf(out, ",\n        (%s%s *)(uintptr_t)slot[%u]", ps[a].written ? "" : "const ",
                    cg_element_c_type(p->type), i++);
            continue;
        }
        py_scalar s = scalar_of(p);
        if (s.code == 'd') fprintf(out, ",\n        (%s)tkpy_double(slot[%u])", cg_launcher_scalar_type(p), i);
        else if (p->type->dtype == TK_I1 && !p->python_int) fprintf(out, ",\n        slot[%u] != 0", i);
        else fprintf(out, ",\n        (%s)(int64_t)slot[%u]", cg_launcher_scalar_type(p), i);
        i++;
    }
    fputs(");\n}\n\n", out);
}

static void write_shim(FILE *out, const tk_tir_program *program, const char *sym, const char *launcher_prefix,
                       const char *header_name, const char *tkc_version, cg_launch_param *ps) {
    fprintf(out, "/* Generated by tkc %s: the entry points %s.py calls through ctypes, one a launcher of\n"
                 " * %s, each taking the stream and an array of 8-byte argument slots. Do not edit.\n"
                 " * Build it into the library the module loads (tkc --shared does):\n"
                 " *   cc -O2 -fPIC -shared -fvisibility=hidden -I. -IRUNTIME THIS.c RUNTIME/tkrt.c -o LIB.so -ldl -lpthread */\n",
            tkc_version ? tkc_version : "", sym, header_name);
    fputs("#define TKC_IMPLEMENTATION\n", out);
    fprintf(out, "#include \"%s\"\n\n#include <stdint.h>\n#include <string.h>\n\n", header_name);
    fputs("#define TKPY_EXPORT __attribute__((visibility(\"default\")))\n\n"
          "static double tkpy_double(uint64_t bits) {\n    double d;\n    memcpy(&d, &bits, sizeof d);\n    return d;\n}\n\n"
          "/* a descriptor's tensor from its slots: data, then rank sizes, then rank strides */\n"
          "static tk_tensor tkpy_tensor(const uint64_t *slot, unsigned rank) {\n"
          "    tk_tensor t;\n    unsigned d;\n    memset(&t, 0, sizeof t);\n"
          "    t.data = (const void *)(uintptr_t)slot[0];\n"
          "    for (d = 0; d < rank; d++) {\n"
          "        t.shape[d] = (long long)slot[1 + d];\n        t.strides[d] = (long long)slot[1 + rank + d];\n    }\n"
          "    return t;\n}\n\n",
          out);
    /* what the module checks it was generated with */
    fprintf(out, "TKPY_EXPORT const char *tkpy_build(void) {\n    return TK_%s_SOURCE_HASH \" \" TK_%s_ARCHS \" \" "
                 "TK_%s_DEFINES;\n}\n\n", sym, sym, sym);
    fputs("TKPY_EXPORT const char *tkpy_status_string(int status) { return tkrt_status_string((tk_status)status); }\n\n"
          "/* a status that an argument caused (the module raises ValueError for it) */\n"
          "TKPY_EXPORT int tkpy_argument_status(int status) {\n"
          "    return status == TK_ERROR_MISALIGNED || status == TK_ERROR_NOT_DIVISIBLE || status == TK_ERROR_NOT_ONE ||\n"
          "           status == TK_ERROR_REQUIREMENT || status == TK_ERROR_INVALID_VALUE;\n}\n\n",
          out);
    for (uint32_t i = 0; i < program->kernels.len; i++) {
        if (!cg_first_of_name(program, i)) continue;
        uint32_t n = cg_launch_params(program, i, ps);
        write_shim_entry(out, launcher_prefix, program->kernels.data[i]->sema, ps, n);
    }
}

/* ---- NAME.py ---- */

static const char py_runtime[] =
    "import ctypes as _tk_ctypes\n"
    "import operator as _tk_operator\n"
    "import os as _tk_os\n"
    "import struct as _tk_struct\n"
    "import sys as _tk_sys\n"
    "import typing as _tk_typing\n"
    "\n"
    "\n"
    "class TkcError(RuntimeError):\n"
    "    \"\"\"A launch that failed: .status is the runtime's tk_status, .kernel the kernel.\"\"\"\n"
    "\n"
    "    def __init__(self, kernel, status, message):\n"
    "        super().__init__(message)\n"
    "        self.kernel, self.status = kernel, status\n"
    "\n"
    "\n"
    "class TkcArgumentError(TkcError, ValueError):\n"
    "    \"\"\"An argument the launcher refused (a promise, requires=, the grid).\"\"\"\n"
    "\n"
    "\n"
    "def _tk_load():\n"
    "    path = _tk_os.path.join(_tk_os.path.dirname(_tk_os.path.abspath(__file__)), _TK_LIBRARY)\n"
    "    try:\n"
    "        lib = _tk_ctypes.CDLL(path)\n"
    "    except OSError as e:\n"
    "        raise ImportError(f\"{__name__}: cannot load {path} ({e}); build it with tkc --python --shared\") from None\n"
    "    lib.tkpy_build.restype = _tk_ctypes.c_char_p\n"
    "    built = lib.tkpy_build().decode()\n"
    "    if built != _TK_BUILD:\n"
    "        raise ImportError(f\"{__name__}: {path} was built from another compilation ({built!r}, \"\n"
    "                          f\"this module {_TK_BUILD!r}); rebuild both with one tkc run\")\n"
    "    lib.tkpy_status_string.argtypes = [_tk_ctypes.c_int]\n"
    "    lib.tkpy_status_string.restype = _tk_ctypes.c_char_p\n"
    "    lib.tkpy_argument_status.argtypes = [_tk_ctypes.c_int]\n"
    "    return lib\n"
    "\n"
    "\n"
    "def _tk_entry(name):\n"
    "    fn = getattr(_tk_lib, \"tkpy_\" + name)\n"
    "    fn.argtypes = [_tk_ctypes.c_void_p, _tk_ctypes.c_char_p]\n"
    "    fn.restype = _tk_ctypes.c_int\n"
    "    return fn\n"
    "\n"
    "\n"
    "def _tk_fail(kernel, status):\n"
    "    message = _tk_lib.tkpy_status_string(status).decode(errors=\"replace\")\n"
    "    if _tk_lib.tkpy_argument_status(status):\n"
    "        raise TkcArgumentError(kernel, status, message)\n"
    "    raise TkcError(kernel, status, message)\n"
    "\n"
    "\n"
    "_tk_torch = None\n"
    "\n"
    "\n"
    "def _tk_torch_api():\n"
    "    \"\"\"(torch, current raw stream, current device) where torch is loaded: the\n"
    "    private C functions Triton's launcher calls too where torch has them\n"
    "    (a launch asks both), else the public ones.\"\"\"\n"
    "    global _tk_torch\n"
    "    torch = _tk_sys.modules.get(\"torch\")\n"
    "    if torch is None:\n"
    "        return None\n"
    "    if _tk_torch is None or _tk_torch[0] is not torch:\n"
    "        c = getattr(torch, \"_C\", None)\n"
    "        raw, device = getattr(c, \"_cuda_getCurrentRawStream\", None), getattr(c, \"_cuda_getDevice\", None)\n"
    "        if raw is not None and device is not None:\n"
    "            _tk_torch = (torch, lambda: raw(device()), device)\n"
    "        else:\n"
    "            _tk_torch = (torch, lambda: torch.cuda.current_stream().cuda_stream, torch.cuda.current_device)\n"
    "    return _tk_torch\n"
    "\n"
    "\n"
    "def _tk_stream(stream):\n"
    "    \"\"\"A CUstream handle: torch's current stream where torch is loaded (so a launch\n"
    "    goes where torch's own kernels go, graph capture included), else 0.\"\"\"\n"
    "    if stream is None:\n"
    "        api = _tk_torch_api()\n"
    "        return api[1]() if api is not None else 0\n"
    "    if isinstance(stream, int):\n"
    "        return stream\n"
    "    handle = getattr(stream, \"cuda_stream\", None)\n"
    "    if handle is None and hasattr(stream, \"__cuda_stream__\"):\n"
    "        handle = stream.__cuda_stream__()[1]\n"
    "    if not isinstance(handle, int):\n"
    "        raise TypeError(f\"stream must be an int (a CUstream), a torch.cuda.Stream or have __cuda_stream__, \"\n"
    "                        f\"not {type(stream).__name__}\")\n"
    "    return handle\n"
    "\n"
    "\n"
    "def _tk_contiguous(shape, strides, itemsize):\n"
    "    expect = itemsize\n"
    "    for size, stride in zip(reversed(shape), reversed(strides)):\n"
    "        if size != 1 and stride != expect:\n"
    "            return False\n"
    "        expect *= size\n"
    "    return True\n"
    "\n"
    "\n"
    "def _tk_ptr(value, torch_dtype, typestr, optional, contiguous, kernel, param):\n"
    "    \"\"\"The device address an argument for a pointer parameter holds, after the\n"
    "    checks the launcher cannot make: dtype, device, contiguity.\"\"\"\n"
    "    if value is None:\n"
    "        if optional:\n"
    "            return 0\n"
    "        raise TypeError(f\"{kernel}: {param} must be a tensor, not None\")\n"
    "    if type(value) is int:\n"
    "        return value\n"
    "    if hasattr(value, \"data_ptr\") and hasattr(value, \"device\") and hasattr(value, \"dtype\"):\n"
    "        device = value.device\n"
    "        if device.type != \"cuda\":\n"
    "            raise ValueError(f\"{kernel}: {param} is on {device}, not on a CUDA device\")\n"
    "        api = _tk_torch_api()\n"
    "        if api is not None and device.index is not None and device.index != api[2]():\n"
    "            raise ValueError(f\"{kernel}: {param} is on {device}, but the current device is \"\n"
    "                             f\"cuda:{api[2]()} (use torch.cuda.device({device.index}))\")\n"
    "        if torch_dtype and str(value.dtype) != \"torch.\" + torch_dtype:\n"
    "            raise TypeError(f\"{kernel}: {param} must hold torch.{torch_dtype}, not {value.dtype}\")\n"
    "        if contiguous and not value.is_contiguous():\n"
    "            raise ValueError(f\"{kernel}: {param} is not contiguous, and {kernel} takes no strides to read \"\n"
    "                             f\"it as a view; pass {param}.contiguous()\")\n"
    "        return value.data_ptr()\n"
    "    cai = getattr(value, \"__cuda_array_interface__\", None)\n"
    "    if cai is not None:\n"
    "        got = cai[\"typestr\"]\n"
    "        if torch_dtype and (not typestr or got[1:] != typestr):\n"
    "            raise TypeError(f\"{kernel}: {param} must hold {torch_dtype}, not typestr {got!r}\")\n"
    "        strides = cai.get(\"strides\")\n"
    "        if contiguous and strides is not None and not _tk_contiguous(cai[\"shape\"], strides, int(got[2:])):\n"
    "            raise ValueError(f\"{kernel}: {param} is not contiguous, and {kernel} takes no strides to read \"\n"
    "                             f\"it as a view\")\n"
    "        return cai[\"data\"][0]\n"
    "    if hasattr(value, \"__dlpack__\"):\n"
    "        return _tk_dlpack(value, torch_dtype, contiguous, kernel, param)\n"
    "    raise TypeError(f\"{kernel}: {param} must be a CUDA tensor (torch, __cuda_array_interface__ or DLPack) \"\n"
    "                    f\"or an int address, not {type(value).__name__}\")\n"
    "\n"
    "\n"
    "_TK_TYPESTRS = {\"b1\": \"bool\", \"i1\": \"int8\", \"i2\": \"int16\", \"i4\": \"int32\", \"i8\": \"int64\", \"u1\": \"uint8\",\n"
    "                \"u2\": \"uint16\", \"u4\": \"uint32\", \"u8\": \"uint64\", \"f2\": \"float16\", \"f4\": \"float32\", \"f8\": \"float64\"}\n"
    "\n"
    "\n"
    "def _tk_pick(instances, value, kernel, param):\n"
    "    \"\"\"The instance of a kernel built per dtype that takes `value`'s dtype.\"\"\"\n"
    "    if hasattr(value, \"data_ptr\") and hasattr(value, \"dtype\"):\n"
    "        name = str(value.dtype).replace(\"torch.\", \"\")\n"
    "    elif hasattr(value, \"__cuda_array_interface__\"):\n"
    "        name = _TK_TYPESTRS.get(value.__cuda_array_interface__[\"typestr\"][1:], \"?\")\n"
    "    else:\n"
    "        raise TypeError(f\"{kernel}: {param} has no dtype to choose an instance by; call one of \"\n"
    "                        f\"{', '.join(f.__name__ for f in instances.values())}\")\n"
    "    fn = instances.get(name)\n"
    "    if fn is None:\n"
    "        raise TypeError(f\"{kernel}: no instance takes {param} of {name}; there are \"\n"
    "                        f\"{', '.join(f'{f.__name__} ({d})' for d, f in instances.items())}\")\n"
    "    return fn\n"
    "\n"
    "\n"
    "class _TkDLDevice(_tk_ctypes.Structure):\n"
    "    _fields_ = [(\"device_type\", _tk_ctypes.c_int32), (\"device_id\", _tk_ctypes.c_int32)]\n"
    "\n"
    "\n"
    "class _TkDLDataType(_tk_ctypes.Structure):\n"
    "    _fields_ = [(\"code\", _tk_ctypes.c_uint8), (\"bits\", _tk_ctypes.c_uint8), (\"lanes\", _tk_ctypes.c_uint16)]\n"
    "\n"
    "\n"
    "class _TkDLTensor(_tk_ctypes.Structure):\n"
    "    \"\"\"DLPack's DLTensor, the first member of the DLManagedTensor a \"dltensor\" capsule holds.\"\"\"\n"
    "    _fields_ = [(\"data\", _tk_ctypes.c_void_p), (\"device\", _TkDLDevice), (\"ndim\", _tk_ctypes.c_int32),\n"
    "                (\"dtype\", _TkDLDataType), (\"shape\", _tk_ctypes.POINTER(_tk_ctypes.c_int64)),\n"
    "                (\"strides\", _tk_ctypes.POINTER(_tk_ctypes.c_int64)), (\"byte_offset\", _tk_ctypes.c_uint64)]\n"
    "\n"
    "\n"
    "# DLPack's (type code, bits) -> torch's dtype names; kDLCUDA and kDLCUDAManaged\n"
    "_TK_DL_DTYPES = {(0, 8): \"int8\", (0, 16): \"int16\", (0, 32): \"int32\", (0, 64): \"int64\", (1, 8): \"uint8\",\n"
    "                 (1, 16): \"uint16\", (1, 32): \"uint32\", (1, 64): \"uint64\", (2, 16): \"float16\", (2, 32): \"float32\",\n"
    "                 (2, 64): \"float64\", (4, 16): \"bfloat16\", (6, 8): \"bool\"}\n"
    "_TK_DL_CUDA = (2, 13)\n"
    "_tk_capsule_pointer = _tk_ctypes.pythonapi.PyCapsule_GetPointer\n"
    "_tk_capsule_pointer.restype = _tk_ctypes.c_void_p\n"
    "_tk_capsule_pointer.argtypes = [_tk_ctypes.py_object, _tk_ctypes.c_char_p]\n"
    "\n"
    "\n"
    "def _tk_dlpack(value, torch_dtype, contiguous, kernel, param):\n"
    "    \"\"\"The address a DLPack producer's tensor starts at, read from its capsule\n"
    "    (not consumed: the capsule frees what it holds; value keeps the memory).\"\"\"\n"
    "    capsule = value.__dlpack__()\n"
    "    t = _TkDLTensor.from_address(_tk_capsule_pointer(capsule, b\"dltensor\"))\n"
    "    if t.device.device_type not in _TK_DL_CUDA:\n"
    "        raise ValueError(f\"{kernel}: {param} is not in CUDA memory (DLPack device type {t.device.device_type})\")\n"
    "    api = _tk_torch_api()\n"
    "    if api is not None and t.device.device_id != api[2]():\n"
    "        raise ValueError(f\"{kernel}: {param} is on cuda:{t.device.device_id}, but the current device is \"\n"
    "                         f\"cuda:{api[2]()}\")\n"
    "    name = _TK_DL_DTYPES.get((t.dtype.code, t.dtype.bits)) if t.dtype.lanes == 1 else None\n"
    "    if torch_dtype and name != torch_dtype:\n"
    "        raise TypeError(f\"{kernel}: {param} must hold {torch_dtype}, not {name or 'DLPack dtype code %d, %d bits, %d lanes' % (t.dtype.code, t.dtype.bits, t.dtype.lanes)}\")\n"
    "    if contiguous and t.strides:\n"
    "        shape = [t.shape[i] for i in range(t.ndim)]\n"
    "        if not _tk_contiguous(shape, [t.strides[i] for i in range(t.ndim)], 1):\n"
    "            raise ValueError(f\"{kernel}: {param} is not contiguous, and {kernel} takes no strides to read \"\n"
    "                             f\"it as a view\")\n"
    "    return (t.data or 0) + t.byte_offset\n"
    "\n"
    "\n"
    "def _tk_tensor(value, torch_dtype, typestr, rank, kernel, param):\n"
    "    \"\"\"A tensor for a descriptor parameter of `rank` dimensions as (data, sizes...,\n"
    "    strides in elements...): the launcher checks what a descriptor needs of them.\"\"\"\n"
    "    if hasattr(value, \"data_ptr\") and hasattr(value, \"device\") and hasattr(value, \"dtype\"):\n"
    "        shape, strides = tuple(value.shape), tuple(value.stride())\n"
    "    elif hasattr(value, \"__cuda_array_interface__\"):\n"
    "        cai = value.__cuda_array_interface__\n"
    "        shape, itemsize = tuple(cai[\"shape\"]), int(cai[\"typestr\"][2:])\n"
    "        strides = cai.get(\"strides\")\n"
    "        if strides is None:\n"
    "            strides, step = [], 1\n"
    "            for size in reversed(shape):\n"
    "                strides.insert(0, step)\n"
    "                step *= size\n"
    "        elif any(s % itemsize for s in strides):\n"
    "            raise ValueError(f\"{kernel}: {param}'s strides {tuple(strides)} are not whole elements\")\n"
    "        else:\n"
    "            strides = [s // itemsize for s in strides]\n"
    "    else:\n"
    "        raise TypeError(f\"{kernel}: {param} is a tensor descriptor: it takes a CUDA tensor (torch or \"\n"
    "                        f\"__cuda_array_interface__), not {type(value).__name__}\")\n"
    "    if len(shape) != rank:\n"
    "        raise ValueError(f\"{kernel}: {param} has {len(shape)} dimensions; its descriptor has {rank}\")\n"
    "    return (_tk_ptr(value, torch_dtype, typestr, False, False, kernel, param), *shape, *strides)\n"
    "\n"
    "\n"
    "def _tk_int(value, lo, hi, kernel, param):\n"
    "    if type(value) is not int:\n"
    "        try:\n"
    "            value = _tk_operator.index(value)\n"
    "        except TypeError:\n"
    "            raise TypeError(f\"{kernel}: {param} must be an integer, not {type(value).__name__}\") from None\n"
    "    if value < lo or value > hi:\n"
    "        raise OverflowError(f\"{kernel}: {param} = {value} is outside its type's range [{lo}, {hi}]\")\n"
    "    return value\n"
    "\n"
    "\n"
    "def _tk_bool(value, kernel, param):\n"
    "    if value is True or value is False or value == 0 or value == 1:\n"
    "        return 1 if value else 0\n"
    "    raise TypeError(f\"{kernel}: {param} must be a bool, not {value!r}\")\n"
    "\n"
    "\n"
    "def _tk_float(value, kernel, param):\n"
    "    try:\n"
    "        return float(value)\n"
    "    except (TypeError, ValueError):\n"
    "        raise TypeError(f\"{kernel}: {param} must be a number, not {type(value).__name__}\") from None\n";

/* a keyword for the stream that no parameter has */
static const char *stream_keyword(const cg_launch_param *ps, uint32_t n) {
    static const char *const names[] = {"stream", "cuda_stream", "tk_stream"};
    for (uint32_t k = 0; k < 3; k++) {
        bool taken = false;
        for (uint32_t i = 0; i < n; i++) taken |= strcmp(ps[i].param->name, names[k]) == 0;
        if (!taken) return names[k];
    }
    return "tk_launch_stream";
}

static void write_py_function(FILE *out, const tk_sema_kernel *sk, const cg_launch_param *ps, uint32_t n) {
    const char *name = launcher_of(sk);
    const char *stream = stream_keyword(ps, n);
    bool contiguous = !takes_strides(ps, n);
    fprintf(out, "\n\n_tk_%s_entry = _tk_entry(\"%s\")\n_tk_%s_pack = _tk_struct.Struct(\"<", name, name, name);
    for (uint32_t i = 0; i < n; i++) {
        const tk_type *t = ps[i].param->type;
        if (t->kind == TK_TYPE_BLOCK_PTR) fprintf(out, "Q%uq", 2 * t->rank);
        else fputc(t->kind == TK_TYPE_POINTER ? 'Q' : scalar_of(ps[i].param).code, out);
    }
    fputs("\").pack\n\n\n", out);
    fprintf(out, "def %s(", name);
    write_py_params(out, ps, n);
    fprintf(out, "*, %s=None):\n", stream);
    fprintf(out, "    \"\"\"%s(", name);
    for (uint32_t i = 0; i < n; i++) {
        fprintf(out, "%s%s: ", i ? ", " : "", ps[i].param->name);
        describe_param(out, &ps[i]);
    }
    bool pointers = false, descriptors = false;
    for (uint32_t i = 0; i < n; i++) {
        pointers |= ps[i].param->type->kind == TK_TYPE_POINTER;
        descriptors |= ps[i].param->type->kind == TK_TYPE_BLOCK_PTR;
    }
    fprintf(out, ")\n\n    Launches %s on `%s` (default: torch's current stream, where torch is\n"
                 "    loaded).%s%s%s\n    \"\"\"\n",
            sk->name, stream,
            !pointers ? "" : contiguous ? " Tensors must be contiguous (the kernel takes no strides)."
                                        : " Tensors may be views: the strides passed say how the kernel reads them.",
            descriptors ? "\n    A descriptor's tensor may be a view: its sizes and strides are passed." : "",
            "");
    fprintf(out, "    status = _tk_%s_entry(_tk_stream(%s), _tk_%s_pack(", name, stream, name);
    for (uint32_t i = 0; i < n; i++) {
        const tk_sema_param *p = ps[i].param;
        fputs(i ? ",\n        " : "\n        ", out);
        if (p->type->kind == TK_TYPE_BLOCK_PTR) {
            const char *torch_name, *typestr;
            pointee_names(p->type, &torch_name, &typestr);
            fprintf(out, "*_tk_tensor(%s, \"%s\", \"%s\", %u, \"%s\", \"%s\")", p->name, torch_name, typestr,
                    p->type->rank, name, p->name);
            continue;
        }
        if (p->type->kind == TK_TYPE_POINTER) {
            const char *torch_name, *typestr;
            pointee_names(p->type, &torch_name, &typestr);
            fprintf(out, "_tk_ptr(%s, \"%s\", \"%s\", %s, %s, \"%s\", \"%s\")", p->name, torch_name, typestr,
                    p->promise == TK_PROMISE_OPTIONAL ? "True" : "False", contiguous ? "True" : "False", name, p->name);
            continue;
        }
        py_scalar s = scalar_of(p);
        if (s.lo) fprintf(out, "_tk_int(%s, %s, %s, \"%s\", \"%s\")", p->name, s.lo, s.hi, name, p->name);
        else if (s.code == 'd') fprintf(out, "_tk_float(%s, \"%s\", \"%s\")", p->name, name, p->name);
        else fprintf(out, "_tk_bool(%s, \"%s\", \"%s\")", p->name, name, p->name);
    }
    fprintf(out, "))\n    if status:\n        _tk_fail(\"%s\", status)\n", name);
}

/* The pointee dtype of launch parameter `j` of kernel i (TK_DTYPE_COUNT for a scalar) */
static tk_dtype pointee_at(const tk_tir_program *program, uint32_t i, uint32_t j, cg_launch_param *ps) {
    uint32_t n = cg_launch_params(program, i, ps);
    if (j >= n || (ps[j].param->type->kind != TK_TYPE_POINTER && ps[j].param->type->kind != TK_TYPE_BLOCK_PTR) ||
        !ps[j].param->type->elem)
        return TK_DTYPE_COUNT;
    return ps[j].param->type->elem->dtype;
}

/* For a kernel built once per dtype (dtypes=): a function of the kernel's
 * own name that calls the instance for the dtype of the first pointer
 * argument whose dtype tells the instances apart. None where only scalars
 * differ, or a launcher already has the name. */
static void write_py_dispatcher(FILE *out, const tk_tir_program *program, uint32_t first, cg_launch_param *ps) {
    const char *base = program->kernels.data[first]->sema->instance_of;
    uint32_t members[64], count = 0;
    for (uint32_t i = 0; i < program->kernels.len && count < 64; i++) {
        const tk_sema_kernel *sk = program->kernels.data[i]->sema;
        if (!cg_first_of_name(program, i)) continue;
        if (!strcmp(launcher_of(sk), base)) return;
        if (sk->instance_of && !strcmp(sk->instance_of, base)) members[count++] = i;
    }
    uint32_t n = cg_launch_params(program, first, ps), key = n;
    for (uint32_t j = 0; j < n && key == n; j++)
        for (uint32_t m = 1; m < count; m++)
            if (pointee_at(program, members[m], j, ps) != pointee_at(program, first, j, ps)) key = j;
    if (key == n) return;
    n = cg_launch_params(program, first, ps);
    const char *stream = stream_keyword(ps, n), *key_name = ps[key].param->name;
    fprintf(out, "\n\n_tk_%s_instances = {", base);
    for (uint32_t m = 0; m < count; m++) {
        const char *torch_name, *typestr;
        cg_launch_params(program, members[m], ps);
        pointee_names(ps[key].param->type, &torch_name, &typestr);
        fprintf(out, "%s\"%s\": %s", m ? ", " : "", torch_name, launcher_of(program->kernels.data[members[m]]->sema));
    }
    n = cg_launch_params(program, first, ps);
    fprintf(out, "}\n\n\ndef %s(", base);
    write_py_params(out, ps, n);
    fprintf(out, "*, %s=None):\n    \"\"\"Launches ", stream);
    for (uint32_t m = 0; m < count; m++)
        fprintf(out, "%s%s", m == 0 ? "" : m + 1 == count ? " or " : ", ", launcher_of(program->kernels.data[members[m]]->sema));
    fprintf(out, ", as the dtype of `%s` says.\"\"\"\n    _tk_pick(_tk_%s_instances, %s, \"%s\", \"%s\")(", key_name, base,
            key_name, base, key_name);
    for (uint32_t i = 0; i < n; i++) fprintf(out, "%s, ", ps[i].param->name);
    fprintf(out, "%s=%s)\n", stream, stream);
}

/* torch.library.custom_op registration, opt-in (register()): each kernel
 * an op of the namespace whose pointer parameters it writes are declared
 * mutated, and whose fake returns nothing, so that torch.compile and CUDA
 * graphs take it as an opaque op. The schema comes from the annotations. */
static void write_py_custom_op(FILE *out, const tk_sema_kernel *sk, const cg_launch_param *ps, uint32_t n) {
    const char *name = launcher_of(sk);
    fprintf(out, "\n\ndef _tk_op_%s(torch, namespace):\n    _tk_launch = %s\n\n", name, name);
    fprintf(out, "    @torch.library.custom_op(namespace + \"::%s\", mutates_args=(", name);
    uint32_t written = 0;
    for (uint32_t i = 0; i < n; i++)
        if (ps[i].written) fprintf(out, "\"%s\"%s", ps[i].param->name, ++written == 1 ? "," : ", ");
    fputs("), device_types=\"cuda\")\n    def op(", out);
    for (uint32_t i = 0; i < n; i++) {
        const tk_sema_param *p = ps[i].param;
        const char *type = p->type->kind == TK_TYPE_BLOCK_PTR ? "torch.Tensor"
                           : p->type->kind == TK_TYPE_POINTER
                               ? (p->promise == TK_PROMISE_OPTIONAL ? "_tk_typing.Optional[torch.Tensor]" : "torch.Tensor")
                           : p->python_int || tk_dtype_is_int(p->type->dtype) ? (p->type->dtype == TK_I1 && !p->python_int ? "bool" : "int")
                                                                              : "float";
        fprintf(out, "%s%s: %s%s", i ? ", " : "", p->name, type, i >= optional_from(ps, n) ? " = None" : "");
    }
    fputs(") -> None:\n        _tk_launch(", out);
    for (uint32_t i = 0; i < n; i++) fprintf(out, "%s%s", i ? ", " : "", ps[i].param->name);
    fputs(")\n\n    @op.register_fake\n    def _(", out);
    for (uint32_t i = 0; i < n; i++) fprintf(out, "%s%s", i ? ", " : "", ps[i].param->name);
    fputs("):\n        return None\n\n    return op\n", out);
}

static void write_py_custom_ops(FILE *out, const tk_tir_program *program, const char *mod, cg_launch_param *ps) {
    for (uint32_t i = 0; i < program->kernels.len; i++) {
        if (!cg_first_of_name(program, i)) continue;
        uint32_t n = cg_launch_params(program, i, ps);
        write_py_custom_op(out, program->kernels.data[i]->sema, ps, n);
    }
    fputs("\n\n_TK_OPS = {", out);
    bool any = false;
    for (uint32_t i = 0; i < program->kernels.len; i++) {
        if (!cg_first_of_name(program, i)) continue;
        const char *name = launcher_of(program->kernels.data[i]->sema);
        fprintf(out, "%s\n    \"%s\": _tk_op_%s", any ? "," : "", name, name);
        any = true;
    }
    fprintf(out, "%s}\n_tk_registered = {}\n\n\n"
                 "def register(*kernels, namespace=\"tkc_%s\"):\n"
                 "    \"\"\"Registers kernels (by name; all without names) as torch.library custom ops\n"
                 "    NAMESPACE::KERNEL, the pointers each writes declared mutated, so that torch.compile\n"
                 "    (fullgraph) and CUDA graphs take them as opaque ops. Returns the ops by name; a\n"
                 "    second call returns the ops registered before.\"\"\"\n"
                 "    import torch\n"
                 "    ops = {}\n"
                 "    for name in kernels or _TK_OPS:\n"
                 "        if name not in _TK_OPS:\n"
                 "            raise KeyError(f\"{__name__} has no kernel {name!r}; it has {', '.join(_TK_OPS)}\")\n"
                 "        key = (namespace, name)\n"
                 "        if key not in _tk_registered:\n"
                 "            _tk_registered[key] = _TK_OPS[name](torch, namespace)\n"
                 "        ops[name] = _tk_registered[key]\n"
                 "    return ops\n",
            any ? ",\n" : "", mod);
}

static void write_module(FILE *out, const tk_tir_program *program, const char *mod, const char *build,
                         const char *library, const char *tkc_version, cg_launch_param *ps) {
    fprintf(out, "\"\"\"%s: kernels compiled by tkc %s, and their launchers. Generated: do not edit.\n\n"
                 "Each function launches one kernel through %s (beside this file), which\n"
                 "holds the compiled code: no compiler runs at import or at a call.\n"
                 "Arguments: tensors (torch, __cuda_array_interface__ or DLPack) or int\n"
                 "addresses for pointers, Python numbers for scalars. A launch that fails\n"
                 "raises TkcError (TkcArgumentError, a ValueError, for an argument).\n\"\"\"\n",
            mod, tkc_version ? tkc_version : "", library);
    fputs("\n", out);
    fputs(py_runtime, out);
    fputs("\n", out);
    fputs("_TK_LIBRARY = ", out);
    print_py_string(out, library);
    fputs("\n_TK_BUILD = ", out);
    print_py_string(out, build);
    fputs("\n_tk_lib = _tk_load()\n", out);
    for (uint32_t i = 0; i < program->kernels.len; i++) {
        if (!cg_first_of_name(program, i)) continue;
        uint32_t n = cg_launch_params(program, i, ps);
        write_py_function(out, program->kernels.data[i]->sema, ps, n);
    }
    for (uint32_t i = 0; i < program->kernels.len; i++) {
        const char *base = program->kernels.data[i]->sema->instance_of;
        bool first_instance = base && cg_first_of_name(program, i);
        for (uint32_t j = 0; j < i && first_instance; j++)
            first_instance = !program->kernels.data[j]->sema->instance_of ||
                             strcmp(program->kernels.data[j]->sema->instance_of, base) != 0;
        if (first_instance) write_py_dispatcher(out, program, i, ps);
    }
    write_py_custom_ops(out, program, mod, ps);
}

/* Names the module keeps for itself: a kernel or parameter of such a name
 * would shadow one of its helpers. */
static bool taken_by_module(const char *name) {
    return !strncmp(name, "_tk_", 4) || !strncmp(name, "_TK_", 4) || !strcmp(name, "TkcError") ||
           !strcmp(name, "TkcArgumentError");
}

bool tk_cg_write_python(FILE *py, FILE *shim, tk_diag *diag, const tk_cg_build *builds, uint32_t nbuilds,
                        const char *module_name, const tk_cg_python_options *options) {
    const tk_tir_program *program = builds[0].program;
    bool ok = true;
    for (uint32_t i = 0; i < program->kernels.len; i++) {
        const tk_sema_kernel *sk = program->kernels.data[i]->sema;
        if (!cg_first_of_name(program, i)) continue;
        if (taken_by_module(launcher_of(sk))) {
            tk_error(diag, sk->loc, "the Python module has a name '%s' of its own; name the kernel otherwise "
                     "(or its launcher, with name=)", launcher_of(sk));
            ok = false;
        }
        for (uint32_t p = 0; p < sk->params.len; p++)
            if (!sk->params.data[p].is_constexpr && taken_by_module(sk->params.data[p].name)) {
                tk_error(diag, sk->params.data[p].loc, "the Python module's function for '%s' cannot take a "
                         "parameter named '%s' (its own names start with _tk_); rename it", sk->name,
                         sk->params.data[p].name);
                ok = false;
            }
    }
    if (!ok) return false;
    const char *sym = options->header->prefix ? options->header->prefix : module_name;
    char launcher_prefix[256] = "";
    if (options->header->prefix) snprintf(launcher_prefix, sizeof launcher_prefix, "%s_", options->header->prefix);
    uint32_t most = 1;
    for (uint32_t i = 0; i < program->kernels.len; i++)
        if (program->kernels.data[i]->sema->params.len + 1 > most) most = program->kernels.data[i]->sema->params.len + 1;
    cg_launch_param *ps = calloc(most, sizeof *ps);
    if (!ps) {
        tk_error(diag, (tk_loc){0}, "out of memory writing the Python binding");
        return false;
    }
    /* the build the library reports (tkpy_build): what the header's macros hold */
    const tk_source *src = program->kernels.len ? program->kernels.data[0]->sema->loc.src : NULL;
    char build[512];
    size_t at = (size_t)snprintf(build, sizeof build, "%016llx ",
                                 (unsigned long long)(src ? tk_hash_bytes(src->text, src->len) : 0));
    for (uint32_t b = 0; b < nbuilds && at < sizeof build; b++)
        at += (size_t)snprintf(build + at, sizeof build - at, "%s%s", b ? "," : "", builds[b].target->name);
    if (at < sizeof build) snprintf(build + at, sizeof build - at, " %s", options->header->defines ? options->header->defines : "");
    write_module(py, program, options->python_name, build, options->library_name, options->header->tkc_version, ps);
    write_shim(shim, program, sym, launcher_prefix, options->header_name, options->header->tkc_version, ps);
    free(ps);
    return true;
}
