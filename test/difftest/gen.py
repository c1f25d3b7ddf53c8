"""Random tile programs for differential testing of tkc against Triton.

Needs: Python 3.11+ standard library only (importable without torch or
Triton, so `make test` on a machine without a GPU can use it).

`generate(seed, index)` returns a `Program`: one kernel, deterministic from
(seed, index), kept as an internal representation (a statement tree, see
`Stmt`) from which `tk_source()` writes the tkc `.tk` file and
`triton_source()` writes a Triton module whose kernel body is the same text.
Every program has the same C-level signature so that one shim serves all:

    k(a, b, c, out, out2, n)   three input pointers, two output pointers, n: i32

(the pointee types vary per program; `BLOCK`, the per-program input stride,
is a constexpr with a default in tkc and passed by keyword to Triton).

What a generated program guarantees (the generator tracks, per value, its
dtype, shape, an interval of possible values and a bound on how far a
correct compiler's result may be from Triton's, `err`):

* no out-of-bounds access: every address is `base + index` with the index
  built from `tl.arange` and known to stay inside the buffer sizes that
  `Program.buffers` gives the runner;
* no division by zero (divisors go through `tl.where(d == 0, 1, d)`), shift
  amounts inside the bit width, no integer overflow (intervals are checked
  against the result type; an operation that could overflow is not chosen),
  no float->int conversion of NaN/inf/out-of-range values (clamped first,
  and only from values without rounding error);
* discontinuous operations (comparisons, float->int casts, argmax) only see
  float values that both compilers must compute bit-identically (err == 0);
  tl.sort, tl.topk and tl.gather move values without arithmetic, so they
  take any (sorting moves no value further than the largest error), and a
  gather's indices are masked to its axis;
* no reads of memory the runner did not initialise, no data races: each
  program stores to its own segments of `out`/`out2`, each store statement to
  its own segment; programs share memory only through atomics, and a shared
  (contended) atomic region is touched by one commutative operation only, or
  by `atomic_xchg` of one constant; the old value of an atomic is used only
  when it does not depend on the order of contended updates;
* `n` is not a multiple of the block, so masks matter.

`Program.tolerances` lists, per output element range, the absolute
difference allowed (0: bit-exact; NaN equals NaN). Weights of the features
are in `WEIGHTS` (override with `generate(..., weights={...})`).
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
from dataclasses import dataclass, field

# ---------------------------------------------------------------------------
# element types

@dataclass(frozen=True)
class DType:
    name: str      # tkc's name (i32, f16, ...)
    kind: str      # 'b' bool, 'i' signed, 'u' unsigned, 'f' float
    bits: int
    tl: str        # Triton's spelling, which tkc accepts too
    torch: str     # torch dtype name (the runner's)

    @property
    def is_float(self):
        return self.kind == "f"

    @property
    def is_int(self):
        return self.kind in "biu"

    @property
    def signed(self):
        return self.kind == "i"

    def int_range(self):
        if self.kind == "b":
            return 0, 1
        if self.kind == "i":
            return -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        return 0, (1 << self.bits) - 1


DTYPES = {d.name: d for d in [
    DType("i1", "b", 1, "tl.int1", "bool"),
    DType("i8", "i", 8, "tl.int8", "int8"),
    DType("i16", "i", 16, "tl.int16", "int16"),
    DType("i32", "i", 32, "tl.int32", "int32"),
    DType("i64", "i", 64, "tl.int64", "int64"),
    DType("u8", "u", 8, "tl.uint8", "uint8"),
    DType("u16", "u", 16, "tl.uint16", "uint16"),
    DType("u32", "u", 32, "tl.uint32", "uint32"),
    DType("u64", "u", 64, "tl.uint64", "uint64"),
    DType("f16", "f", 16, "tl.float16", "float16"),
    DType("bf16", "f", 16, "tl.bfloat16", "bfloat16"),
    DType("f32", "f", 32, "tl.float32", "float32"),
    DType("f64", "f", 64, "tl.float64", "float64"),
]}
INT_NAMES = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]
FLOAT_NAMES = ["f16", "bf16", "f32", "f64"]
EPS = {"f16": 2.0 ** -11, "bf16": 2.0 ** -8, "f32": 2.0 ** -24, "f64": 2.0 ** -53}
FMAX = {"f16": 65504.0, "bf16": 3.0e38, "f32": 3.0e38, "f64": 1.0e300}
# floats stay below this magnitude (so nothing overflows to inf, and f16
# stores of them stay finite)
FLOAT_MAG_LIMIT = 3.0e4

# which pointee types Triton 3.6 accepts for each atomic (semantic.py's
# atom_red_typechecking_impl and atomic_cas); tkc accepts a superset
ATOMIC_TYPES = {
    "add": ["i32", "u32", "i64", "u64", "f16", "bf16", "f32", "f64"],
    "max": ["i32", "u32", "i64", "u64", "f32", "f64"],
    "min": ["i32", "u32", "i64", "u64", "f32", "f64"],
    "and": ["i32", "u32", "i64", "u64"],
    "or": ["i32", "u32", "i64", "u64"],
    "xor": ["i32", "u32", "i64", "u64"],
    "xchg": ["i32", "u32", "i64", "u64", "f32", "f64"],
    "cas": ["i16", "u16", "i32", "u32", "i64", "u64", "f16", "bf16", "f32", "f64"],
}

WEIGHTS = {
    # statement kinds at each point of a body
    "load": 10, "binop": 14, "unop": 5, "compare": 5, "where": 4, "cast": 6,
    "math": 5, "reduce": 6, "scan": 3, "shape": 8, "store": 7, "atomic": 10, "sort": 3,
    "if": 3, "for": 3, "static_for": 1, "func": 3,
    # program-level choices
    "rank3": 1, "tiny_tiles": 2,
}

MAX_NUMEL = 4096      # no value bigger than this many elements


def promote(a: str, b: str, div_or_mod: bool = False) -> str | None:
    """The computation type of a binary operator on two tensors (LANGUAGE.md 4.1)."""
    da, db = DTYPES[a], DTYPES[b]
    if "f64" in (a, b):
        return "f64"
    if "f32" in (a, b):
        return "f32"
    if "f16" in (a, b):
        return "f32" if div_or_mod else "f16"
    if a == b == "bf16":
        return "f32" if div_or_mod else "bf16"
    if "bf16" in (a, b):
        return "f32"
    if div_or_mod and (da.kind == "i") != (db.kind == "i"):
        return None
    if (da.kind == "i") == (db.kind == "i"):
        return a if da.bits >= db.bits else b
    u, s = (da, db) if da.kind != "i" else (db, da)
    return u.name if u.bits >= s.bits else s.name


def broadcast(*shapes):
    """numpy broadcasting of shapes, None when they do not broadcast."""
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        dims = {s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0}
        dims.discard(1)
        if len(dims) > 1:
            return None
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def numel(shape):
    return math.prod(shape) if shape else 1


def shape_text(shape):
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def bitlen_bound(lo, hi):
    """Bits needed so that any bitwise combination of values in [lo, hi]
    stays in [-2^k, 2^k - 1]."""
    return max(abs(int(lo)), abs(int(hi)) + 1).bit_length()

# ---------------------------------------------------------------------------
# values and statements

@dataclass
class Value:
    name: str
    dt: str
    shape: tuple
    lo: float
    hi: float
    err: float = 0.0        # absolute difference a correct compiler may show
    fmul: bool = False      # a float product (an add of it may become an fma)
    used: bool = False      # read by a later statement (unread values get stored)

    @property
    def d(self):
        return DTYPES[self.dt]

    @property
    def mag(self):
        return max(abs(self.lo), abs(self.hi))

    @property
    def exact(self):
        return self.err == 0.0

    def renamed(self, name):
        return dataclasses.replace(self, name=name)


def const_of(v: Value) -> str:
    """An expression of v's dtype and shape holding 1: what the reducer
    puts in place of a deleted definition."""
    if v.shape:
        return f"tl.full({shape_text(v.shape)}, 1, {v.d.tl})"
    return f"(tl.program_id(0) * 0 + 1).to({v.d.tl})"


@dataclass
class Stmt:
    """One statement of a body. kind: 'assign' (targets = rhs), 'effect'
    (a store or an atomic whose result is unused), 'if', 'for'. `alts` are
    simpler right-hand sides of the same type and narrower range, for the
    reducer. `deletable` is False for statements the rest relies on
    structurally (index tiles, loop counters)."""
    kind: str
    text: str = ""                       # rhs, effect text, if-condition or for-header
    targets: list = field(default_factory=list)
    alts: list = field(default_factory=list)
    body: list = field(default_factory=list)
    orelse: list = field(default_factory=list)
    deletable: bool = True
    tags: tuple = ()                     # features used (for reports)

    def emit(self, indent, out):
        pad = "    " * indent
        if self.kind == "assign":
            out.append(f"{pad}{', '.join(t.name for t in self.targets)} = {self.text}")
        elif self.kind == "effect":
            out.append(pad + self.text)
        elif self.kind == "if":
            out.append(f"{pad}if {self.text}:")
            emit_body(self.body, indent + 1, out)
            if self.orelse:
                out.append(f"{pad}else:")
                emit_body(self.orelse, indent + 1, out)
        elif self.kind == "for":
            out.append(f"{pad}{self.text}:")
            emit_body(self.body, indent + 1, out)


def emit_body(stmts, indent, out):
    before = len(out)
    for s in stmts:
        s.emit(indent, out)
    if len(out) == before:
        out.append("    " * indent + "pass")


@dataclass
class Buffer:
    """A kernel argument buffer: element type, element count, and how the
    runner fills it: [(start, length, kind, lo, hi)], kind 'rand' (uniform
    values in [lo, hi], rounded to the type; never all zero), 'const' (lo)
    or 'poison' (NaN, or 0x55 bytes for integers). Unlisted ranges are
    poison. `guard` elements after `size` are poison and must stay so."""
    name: str
    dt: str
    size: int
    fill: list = field(default_factory=list)
    guard: int = 64


@dataclass
class Program:
    seed: int
    index: int
    grid: int
    num_warps: int
    n: int
    block: int
    buffers: list                 # a, b, c, out, out2
    body: list                    # statements
    funcs: list                   # (name, params, body statements, return text)
    tolerances: list              # (buffer index, start, length, abs tol)
    features: set = field(default_factory=set)

    @property
    def name(self):
        return f"s{self.seed}_i{self.index}"

    def body_lines(self):
        out = []
        emit_body(self.body, 1, out)
        return out

    def _funcs_text(self, decorator):
        text = []
        for name, params, body, ret in self.funcs:
            lines = []
            emit_body(body, 1, lines)
            text.append(f"{decorator}\ndef {name}({', '.join(params)}):\n" + "\n".join(lines)
                        + f"\n    return {ret}\n\n")
        return "".join(text)

    def tk_source(self):
        a, b, c, o, o2 = (bf.dt for bf in self.buffers)
        head = (f"# difftest program seed={self.seed} index={self.index}\n"
                + self._funcs_text("@func")
                + f"@kernel(grid=({self.grid},), num_warps={self.num_warps})\n"
                f"def k(a: *{a}, b: *{b}, c: *{c}, out: *{o}, out2: *{o2}, n: i32, BLOCK: constexpr = {self.block}):\n")
        return head + "\n".join(self.body_lines()) + "\n"

    def triton_source(self):
        return (f"# difftest program seed={self.seed} index={self.index} (Triton side)\n"
                "import triton\nimport triton.language as tl\n\n\n"
                + self._funcs_text("@triton.jit")
                + "@triton.jit\n"
                "def k(a, b, c, out, out2, n, BLOCK: tl.constexpr):\n"
                + "\n".join(self.body_lines()) + "\n\n\n"
                f"GRID = ({self.grid},)\nNUM_WARPS = {self.num_warps}\nBLOCK = {self.block}\nN = {self.n}\n")

    def spec(self):
        """What the runner needs besides the sources, as JSON-able data."""
        return {"seed": self.seed, "index": self.index, "grid": self.grid, "num_warps": self.num_warps,
                "n": self.n, "block": self.block,
                "buffers": [dataclasses.asdict(b) for b in self.buffers],
                "tolerances": self.tolerances, "features": sorted(self.features)}

    def spec_json(self):
        return json.dumps(self.spec(), indent=1)

    def save(self, folder, stem="k"):
        """Writes STEM.tk, STEM_triton.py and STEM_spec.json (for "k": spec.json) into folder."""
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{stem}.tk").write_text(self.tk_source())
        (folder / f"{stem}_triton.py").write_text(self.triton_source())
        (folder / ("spec.json" if stem == "k" else f"{stem}_spec.json")).write_text(self.spec_json())

# ---------------------------------------------------------------------------
# the generator


class Reject(Exception):
    """A random choice that does not fit; the caller tries another."""


@dataclass
class Region:
    """An atomic region of an output buffer."""
    buf: int            # 3 (out) or 4 (out2)
    start: int
    size: int
    lo: float
    hi: float
    err: float = 0.0


class Scope:
    def __init__(self, parent=None, trips=1, in_loop=False, in_func=False):
        self.parent = parent
        self.values = []
        self.trips = trips * (parent.trips if parent else 1)
        self.in_loop = in_loop or (parent.in_loop if parent else False)
        self.in_func = in_func

    def visible(self):
        out, s = [], self
        while s:
            out.extend(s.values)
            if s.in_func:
                break
            s = s.parent
        return out


class Gen:
    def __init__(self, seed, index, weights=None):
        self.rng = random.Random(f"tkc-difftest:{seed}:{index}")
        self.seed, self.index = seed, index
        self.w = dict(WEIGHTS, **(weights or {}))
        self.counter = 0
        self.features = set()
        self.funcs = []
        self.tolerances = []
        self.regions = []

    # -- helpers ------------------------------------------------------------
    def fresh(self, prefix="v"):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def choice_w(self, options):
        names = [o for o in options if self.w.get(o, 0) > 0]
        return self.rng.choices(names, [self.w[o] for o in names])[0]

    def pick(self, scope, pred=lambda v: True):
        cands = [v for v in scope.visible() if pred(v)]
        if not cands:
            raise Reject("no operand")
        # prefer recent values: programs become chains, not piles of loads
        weights = [1 + i for i in range(len(cands))]
        v = self.rng.choices(cands, weights)[0]
        v.used = True
        return v

    def lin(self, shape, style="row"):
        """An i32 tile of `shape` holding distinct indices 0..numel-1."""
        rank = len(shape)
        if rank == 0:
            return "0"
        if style == "trans" and rank == 2:
            return f"tl.trans({self.lin((shape[1], shape[0]), 'row')})"
        strides = []
        acc = 1
        order = list(range(rank))[::-1] if style != "col" else list(range(rank))
        st = [0] * rank
        for ax in order:
            st[ax] = acc
            acc *= shape[ax]
        terms = []
        for ax, dim in enumerate(shape):
            idx = ", ".join(":" if i == ax else "None" for i in range(rank))
            ar = f"tl.arange(0, {dim})" + (f"[{idx}]" if rank > 1 else "")
            terms.append(ar if st[ax] == 1 else f"{ar} * {st[ax]}")
        return "(" + " + ".join(terms) + ")"

    def int_lit(self, lo, hi):
        return self.rng.randint(lo, hi)

    # -- program ------------------------------------------------------------
    def program(self):
        rng = self.rng
        self.num_warps = rng.choice([1, 2, 4, 4, 8])
        self.grid = rng.choice([1, 2, 3, 4, 5, 8])
        tiny = rng.random() < self.w["tiny_tiles"] / 10
        maxd = 8 if tiny else 64
        def dim():
            return rng.choice([d for d in [1, 2, 4, 8, 16, 32, 64] if d <= maxd])
        self.R, self.C = dim(), dim()
        while self.R * self.C > 1024:
            self.R = max(1, self.R // 2)
        self.N1 = rng.choice([d for d in [2, 4, 8, 16, 32, 64, 128, 256, 512] if d <= maxd * maxd])
        self.shape3 = None
        if rng.random() < self.w["rank3"] / 5:
            self.shape3 = tuple(rng.choice([1, 2, 4, 8]) for _ in range(3))
        base = [(self.N1,), (self.R, self.C)] + ([self.shape3] if self.shape3 else [])
        self.block = 1 << (max(numel(s) for s in base) - 1).bit_length()   # every tile fits a block
        self.base_shapes = base + [(self.R, 1), (1, self.C), (self.C,), (self.R,)]
        total = self.grid * self.block
        self.n = rng.choice([rng.randint(max(1, total - self.block + 1), total - 1) if total > 1 else 1,
                             rng.randint(1, total)])
        if self.n % self.block == 0 or (self.n % 16 == 0 and rng.random() < 0.8):
            self.n = max(1, self.n - 1)   # n % 16 == 0 picks tkc's other variant: sometimes
        # buffers: a, b, c inputs; out, out2 outputs
        in_types = [rng.choice(INT_NAMES + FLOAT_NAMES + ["i1", "f32", "i32"]) for _ in range(3)]
        out_types = [rng.choice(["f32", "i32", "f16", "i64", "u32", "f64", "bf16", "u8", "i1"]),
                     rng.choice(["i32", "u32", "i64", "u64", "f32", "f64", "f16", "bf16"])]
        self.buffers = []
        for nm, dt in zip("abc", in_types):
            lo, hi = self.input_range(dt)
            self.buffers.append(Buffer(nm, dt, total, [(0, total, "rand", lo, hi)]))
        self.out_stride = 0             # per-program store segment space, grown as stores come
        self.out_segments = {3: 0, 4: 0}
        self.buffers.append(Buffer("out", out_types[0], 0))
        self.buffers.append(Buffer("out2", out_types[1], 0))
        self.region_end = {3: 0, 4: 0}
        self.pending_regions = []       # (buf, offset within the atomic area, size, kind, lo, hi)

        top = Scope()
        body = []
        pid = Value("pid", "i32", (), 0, self.grid - 1)
        body.append(Stmt("assign", "tl.program_id(0)", [pid], deletable=False))
        top.values.append(pid)
        body.append(Stmt("assign", "pid * BLOCK", [Value("ibase", "i32", (), 0, total - self.block)], deletable=False))
        nstmt = rng.randint(5, 24)
        self.gen_body(top, body, nstmt, depth=0)
        self.store_unused(top, body, limit=12)
        self.finish_layout()
        return Program(self.seed, self.index, self.grid, self.num_warps, self.n, self.block,
                       self.buffers, body, self.funcs, self.tolerances, self.features)

    def input_range(self, dt):
        d = DTYPES[dt]
        if d.kind == "b":
            return 0, 1
        if d.kind == "u":
            return 0, 200 if d.bits > 8 else 200
        if d.kind == "i":
            return -100, 100
        return -4.0, 4.0

    def out_segment(self, buf, size):
        """Offset (per program, within the program's slice) of a new store segment."""
        off = self.out_segments[buf]
        self.out_segments[buf] += size
        return off

    def finish_layout(self):
        """Sizes the output buffers: per program store slices, then the
        atomic regions; writes fills and tolerances with absolute offsets."""
        for buf in (3, 4):
            stride = self.out_segments[buf]
            bf = self.buffers[buf]
            area = self.grid * stride
            bf.size = max(1, area + self.region_end[buf])
            self.buffers[buf] = bf
        # store segments were recorded relative; fix up the text placeholders
        for buf in (3, 4):
            stride = self.out_segments[buf]
            self.slot_values[f"@OS{buf}@"] = str(stride)
            self.slot_values[f"@AB{buf}@"] = str(self.grid * stride)
        for (buf, rel, size, lo, hi, kind) in self.pending_regions:
            start = self.grid * self.out_segments[buf] + rel
            self.buffers[buf].fill.append((start, size, kind, lo, hi))
        for (buf, rel, length, tol, per_program) in self.pending_tols:
            stride = self.out_segments[buf]
            if per_program:
                for p in range(self.grid):
                    self.tolerances.append((buf, p * stride + rel, length, tol))
            else:
                self.tolerances.append((buf, self.grid * stride + rel, length, tol))

    # placeholders in text, resolved by finish_layout
    slot_values: dict = None
    pending_tols: list = None

    def obase(self, buf):
        return f"pid * @OS{buf}@"

    # -- bodies ---------------------------------------------------------------
    def gen_body(self, scope, body, count, depth):
        kinds = ["load", "binop", "unop", "compare", "where", "cast", "math", "reduce", "scan",
                 "shape", "store", "atomic", "func", "sort"]
        if depth < 2:
            kinds += ["if", "for", "static_for"]
        made = 0
        tries = 0
        while made < count and tries < count * 20:
            tries += 1
            kind = self.choice_w(kinds)
            if kind in ("store",) and scope.in_loop:
                continue
            if not any(v.shape or v.name not in ("pid",) for v in scope.visible()) and kind not in ("load",):
                kind = "load"
            try:
                fn = getattr(self, "gen_" + kind)
                if kind in ("if", "for", "static_for"):
                    fn(scope, body, depth)
                else:
                    fn(scope, body)
                made += 1
            except Reject:
                continue

    def define(self, scope, body, v: Value, rhs, alts=(), tags=()):
        self.check_value(v)
        scope.values.append(v)
        body.append(Stmt("assign", rhs, [v], alts=[a for a in alts if a], tags=tuple(tags)))
        self.features.update(tags)
        return v

    def check_value(self, v):
        if numel(v.shape) > MAX_NUMEL:
            raise Reject("too big")
        if v.d.is_int:
            lo, hi = v.d.int_range()
            if v.lo < lo or v.hi > hi:
                raise Reject("overflow")
        elif v.mag > FLOAT_MAG_LIMIT or v.err > 1e3 or math.isnan(v.err):
            raise Reject("float magnitude")

    def same_type_alts(self, result, operands):
        return [o.name for o in operands
                if isinstance(o, Value) and o.dt == result.dt and o.shape == result.shape
                and result.lo <= o.lo and o.hi <= result.hi and o.err <= result.err]

    # -- loads ------------------------------------------------------------------
    def gen_load(self, scope, body):
        rng = self.rng
        bi = rng.randrange(3)
        buf = self.buffers[bi]
        lo, hi = self.input_range(buf.dt)
        d = DTYPES[buf.dt]
        if rng.random() < 0.15:
            # scalar load
            k = rng.randrange(self.block)
            v = Value(self.fresh(), buf.dt, (), lo, hi)
            if rng.random() < 0.5:
                other = self.other_lit(d)
                rhs = f"tl.load({buf.name} + ibase + {k}, mask=ibase + {k} < n, other={other})"
                v.lo, v.hi = min(lo, float(other) if d.is_float else int(other)), max(hi, float(other) if d.is_float else int(other))
            else:
                rhs = f"tl.load({buf.name} + ibase + {k})"
            return self.define(scope, body, v, rhs, tags=("load",))
        shape = rng.choice(self.base_shapes)
        style = rng.choice(["row", "row", "col", "trans"]) if len(shape) == 2 else rng.choice(["row", "col"])
        idx = self.lin(shape, style)
        shift = rng.choice([0, 0, rng.randrange(self.block - numel(shape) + 1)])
        if shift:
            idx = f"{idx} + {shift}"
        mask_kind = rng.choice(["none", "n", "n", "data", "both"])
        v = Value(self.fresh(), buf.dt, shape, lo, hi)
        args = ""
        if mask_kind != "none":
            masks = []
            if mask_kind in ("n", "both"):
                masks.append(f"(ibase + {idx} < n)")
            if mask_kind in ("data", "both"):
                try:
                    m = self.pick(scope, lambda x: x.dt == "i1" and len(x.shape) == len(shape)
                                  and broadcast(x.shape, shape) == shape)
                    masks.append(m.name)
                except Reject:
                    if mask_kind == "data":
                        masks.append(f"(ibase + {idx} < n)")
            other = self.other_lit(d)
            ov = float(other) if d.is_float else int(other)
            v.lo, v.hi = min(lo, ov), max(hi, ov)
            args = f", mask={' & '.join(masks)}, other={other}"
        rhs = f"tl.load({buf.name} + ibase + {idx}{args})"
        return self.define(scope, body, v, rhs, tags=("load",))

    def other_lit(self, d):
        if d.is_float:
            return self.rng.choice(["0.0", "1.0", "-2.5"])
        if d.kind == "b":
            return self.rng.choice(["0", "1"])
        if d.kind == "u":
            return self.rng.choice(["0", "1", "7"])
        return self.rng.choice(["0", "1", "-3"])

    # -- arithmetic -------------------------------------------------------------
    def numeric(self, v):
        return v.dt != "i1"

    def gen_binop(self, scope, body):
        rng = self.rng
        op = rng.choice(["+", "-", "*", "+", "&", "|", "^", "<<", ">>", "//", "%", "/", "lit", "lit", "fma"])
        x = self.pick(scope, lambda v: v.name not in ("ibase",))
        if op == "lit":
            return self.gen_literal_op(scope, body, x)
        if op == "fma":
            return self.gen_fma(scope, body)
        y = self.pick(scope, lambda v: v.name != "ibase" and broadcast(v.shape, x.shape) is not None)
        shape = broadcast(x.shape, y.shape)
        if op in ("&", "|", "^", "<<", ">>", "//", "%") and not (x.d.is_int and y.d.is_int):
            raise Reject("int op")
        if op == "/":
            return self.gen_div(scope, body, x, y, shape)
        if op in ("//", "%"):
            if x.dt == "i1" or y.dt == "i1":
                raise Reject("bool div")
            t = promote(x.dt, y.dt, True)
            if t is None:
                raise Reject("signedness")
            xlo, xhi = self.convert_range(x, t)
            ylo, yhi = self.convert_range(y, t)
            if abs(ylo) > 2 ** 40 or abs(yhi) > 2 ** 40 or abs(xlo) > 2 ** 40 or abs(xhi) > 2**40:
                raise Reject("wide")
            guard = f"tl.where({y.name} == 0, 1, {y.name})"
            if op == "//":
                m = max(abs(xlo), abs(xhi))
                lo, hi = (-m, m) if DTYPES[t].signed else (0, xhi)
            else:
                ym = max(abs(ylo), abs(yhi), 1) - 1
                lo = -ym if DTYPES[t].signed and xlo < 0 else 0
                hi = ym if xhi > 0 else 0
            v = Value(self.fresh(), t, shape, lo, hi)
            return self.define(scope, body, v, f"{x.name} {op} {guard}", tags=("divmod",))
        if op in ("<<", ">>"):
            if y.d.kind == "b":
                amount, k = y.name, 1
            else:
                k = rng.randint(0, 3)
                amount = f"({y.name} & {k})"
            t = promote(x.dt, y.dt)
            if t == "i1":
                raise Reject("bool shift")
            xlo, xhi = self.convert_range(x, t)
            if op == "<<":
                if xlo < 0:
                    raise Reject("negative shl")
                lo, hi = xlo, xhi * (1 << k)
            else:
                lo, hi = min(0, xlo), max(0, xhi)
            v = Value(self.fresh(), t, shape, lo, hi)
            return self.define(scope, body, v, f"{x.name} {op} {amount}", tags=("shift",))
        t = promote(x.dt, y.dt)
        xlo, xhi = self.convert_range(x, t)
        ylo, yhi = self.convert_range(y, t)
        td = DTYPES[t]
        if op in ("&", "|", "^"):
            if td.kind == "b":
                lo, hi = 0, 1
            else:
                k = max(bitlen_bound(xlo, xhi), bitlen_bound(ylo, yhi))
                neg = xlo < 0 or ylo < 0
                lo, hi = (-(1 << k), (1 << k) - 1) if neg else (0, (1 << k) - 1)
            v = Value(self.fresh(), t, shape, lo, hi)
            return self.define(scope, body, v, f"{x.name} {op} {y.name}", tags=("bitwise",))
        if op == "+":
            lo, hi = xlo + ylo, xhi + yhi
        elif op == "-":
            lo, hi = xlo - yhi, xhi - ylo
            if td.kind in "ub" and lo < 0:
                raise Reject("unsigned wrap")
        else:
            ps = [xlo * ylo, xlo * yhi, xhi * ylo, xhi * yhi]
            lo, hi = min(ps), max(ps)
        v = Value(self.fresh(), t, shape, lo, hi)
        if td.is_float:
            v.err = self.float_err(op, x, y, v)
            v.fmul = op == "*"
        alts = self.same_type_alts(v, [x, y]) if op in ("+", "-") else []
        return self.define(scope, body, v, f"{x.name} {op} {y.name}", alts, tags=("arith",))

    def float_err(self, op, x, y, v):
        """Error bound of a float + - * result: the operands' errors carried
        through, plus a rounding when an operand differs already or when an
        add may be contracted into an fma by one compiler and not the other."""
        t = v.dt
        if op == "*":
            err = x.err * y.mag + y.err * x.mag + x.err * y.err
        else:
            err = x.err + y.err
            if x.fmul or y.fmul:
                err += 2 * EPS[t] * max(x.mag * 2, y.mag * 2, v.mag)
        if err:
            err += 2 * EPS[t] * max(v.mag, 1e-30)
        return err

    def convert_range(self, v, t):
        """The interval of v converted to type t (implicit promotion)."""
        td = DTYPES[t]
        if td.is_float or v.d.is_float:
            return v.lo, v.hi
        lo, hi = td.int_range()
        if lo <= v.lo and v.hi <= hi:
            return v.lo, v.hi
        return lo, hi

    def gen_literal_op(self, scope, body, x):
        rng = self.rng
        if x.dt == "i1" or x.name == "pid" and rng.random() < 0.5:
            raise Reject("literal on bool")
        op = rng.choice(["+", "-", "*", "%", "//", "&", ">>"])
        if x.d.is_float:
            if op in ("%", "//", "&", ">>"):
                raise Reject("float literal op")
            lit = rng.choice([0.5, 1.5, 2.0, -3.0, 0.25])
            ps = {"+": (x.lo + lit, x.hi + lit), "-": (x.lo - lit, x.hi - lit),
                  "*": tuple(sorted([x.lo * lit, x.hi * lit]))}[op]
            v = Value(self.fresh(), x.dt, x.shape, ps[0], ps[1])
            v.err = x.err * (abs(lit) if op == "*" else 1)
            if v.err:
                v.err += 2 * EPS[x.dt] * v.mag
            v.fmul = op == "*"
            if x.fmul and op != "*":
                v.err += 2 * EPS[x.dt] * max(x.mag * 2, v.mag)
            return self.define(scope, body, v, f"{x.name} {op} {lit}", tags=("arith",))
        lit = rng.choice([1, 2, 3, 5, 7, 16])
        if op == "+":
            lo, hi = x.lo + lit, x.hi + lit
        elif op == "-":
            lo, hi = x.lo - lit, x.hi - lit
        elif op == "*":
            lo, hi = x.lo * lit, x.hi * lit
        elif op == "%":
            lo, hi = (-(lit - 1) if x.lo < 0 else 0), (lit - 1 if x.hi > 0 else 0)
        elif op == "//":
            lo, hi = x.lo // lit if x.lo >= 0 else -(abs(x.lo) // lit), x.hi // lit if x.hi >= 0 else 0
        elif op == "&":
            lo, hi = 0, lit
        else:
            lit = rng.randint(0, 3)
            lo, hi = min(0, x.lo), max(0, x.hi)
        v = Value(self.fresh(), x.dt, x.shape, lo, hi)
        return self.define(scope, body, v, f"{x.name} {op} {lit}", tags=("arith",))

    def gen_fma(self, scope, body):
        x = self.pick(scope, lambda v: v.dt in ("f32", "f64"))
        y = self.pick(scope, lambda v: v.dt == x.dt and broadcast(v.shape, x.shape))
        z = self.pick(scope, lambda v: v.dt == x.dt and broadcast(v.shape, x.shape, y.shape))
        shape = broadcast(x.shape, y.shape, z.shape)
        if shape is None:
            raise Reject("shape")
        ps = [a * b for a in (x.lo, x.hi) for b in (y.lo, y.hi)]
        v = Value(self.fresh(), x.dt, shape, min(ps) + z.lo, max(ps) + z.hi)
        e = x.err * y.mag + y.err * x.mag + z.err
        v.err = e + 2 * EPS[x.dt] * v.mag if e else 0.0
        return self.define(scope, body, v, f"tl.fma({x.name}, {y.name}, {z.name})", tags=("fma",))

    def gen_div(self, scope, body, x, y, shape):
        # x / (|y| + 1): never a zero divisor, the quotient no larger than x
        if not (x.d.is_float or x.d.is_int) or x.dt == "i1" or y.dt == "i1":
            raise Reject("div")
        if x.dt != y.dt and not (x.d.is_int and y.d.is_int):
            raise Reject("mixed float division: Triton casts to the wider mantissa, keep it simple")
        t = promote(x.dt, y.dt, True)
        if t is None:
            raise Reject("signedness")
        if DTYPES[t].is_int:
            t = "f32"
        if y.d.kind == "u":
            den = f"({y.name} + 1)"
        else:
            den = f"(tl.abs({y.name}) + 1)"
        if y.d.is_int:
            ylo, yhi = self.convert_range(y, promote(y.dt, y.dt))
            if max(abs(ylo), abs(yhi)) >= DTYPES[y.dt].int_range()[1]:
                raise Reject("abs overflow")
        m = x.mag
        v = Value(self.fresh(), t, shape, -m, m)
        if x.d.is_int and x.mag > 2 ** 24:
            raise Reject("big int")
        e = x.err + y.err * x.mag
        # f32 division is approximate (div.full.f32: 2 ulp) and Triton's
        # lowering of it may round otherwise (1 ulp apart, seed 1 program
        # 1218): allowed even for exact operands
        v.err = e + 4 * EPS[t] * max(m, 1e-30)
        return self.define(scope, body, v, f"{x.name} / {den}", tags=("div",))

    def gen_unop(self, scope, body):
        rng = self.rng
        x = self.pick(scope, lambda v: v.name != "ibase")
        op = rng.choice(["-", "abs", "~", "maximum", "minimum"])
        if op == "-":
            if x.d.kind in "ub":
                raise Reject("neg unsigned")
            v = Value(self.fresh(), x.dt, x.shape, -x.hi, -x.lo, x.err, x.fmul)
            return self.define(scope, body, v, f"-{x.name}", tags=("arith",))
        if op == "abs":
            if x.d.kind in "b":
                raise Reject("abs bool")
            lo = 0 if x.lo <= 0 <= x.hi else min(abs(x.lo), abs(x.hi))
            v = Value(self.fresh(), x.dt, x.shape, lo, x.mag, x.err)
            return self.define(scope, body, v, f"tl.abs({x.name})", [x.name if x.lo >= 0 else ""], tags=("math",))
        if op == "~":
            if not x.d.is_int or x.d.kind == "b":
                raise Reject("~")
            if x.d.kind == "u":
                lo, hi = x.d.int_range()
                v = Value(self.fresh(), x.dt, x.shape, hi - x.hi, hi - x.lo)
            else:
                v = Value(self.fresh(), x.dt, x.shape, -x.hi - 1, -x.lo - 1)
            return self.define(scope, body, v, f"~{x.name}", tags=("bitwise",))
        y = self.pick(scope, lambda v: v.name != "ibase" and broadcast(v.shape, x.shape) is not None
                      and v.dt != "i1" and (v.d.is_float == x.d.is_float))
        if x.dt == "i1":
            raise Reject("bool max")
        t = promote("f32" if x.dt == "bf16" else x.dt, "f32" if y.dt == "bf16" else y.dt)
        xlo, xhi = self.convert_range(x, t)
        ylo, yhi = self.convert_range(y, t)
        f = max if op == "maximum" else min
        v = Value(self.fresh(), t, broadcast(x.shape, y.shape), f(xlo, ylo), f(xhi, yhi), max(x.err, y.err))
        return self.define(scope, body, v, f"tl.{op}({x.name}, {y.name})", self.same_type_alts(v, [x, y]),
                           tags=("minmax",))

    def gen_compare(self, scope, body):
        x = self.pick(scope, lambda v: v.exact and v.name != "ibase")
        y = self.pick(scope, lambda v: v.exact and v.name != "ibase" and broadcast(v.shape, x.shape) is not None)
        op = self.rng.choice(["<", "<=", ">", ">=", "==", "!="])
        if self.rng.random() < 0.3:
            lit = "0.0" if x.d.is_float else "0"
            v = Value(self.fresh(), "i1", x.shape, 0, 1)
            return self.define(scope, body, v, f"{x.name} {op} {lit}", tags=("compare",))
        v = Value(self.fresh(), "i1", broadcast(x.shape, y.shape), 0, 1)
        return self.define(scope, body, v, f"{x.name} {op} {y.name}", tags=("compare",))

    def gen_where(self, scope, body):
        c = self.pick(scope, lambda v: v.dt == "i1")
        x = self.pick(scope, lambda v: v.name != "ibase" and broadcast(v.shape, c.shape) is not None)
        y = self.pick(scope, lambda v: v.name != "ibase" and broadcast(v.shape, c.shape, x.shape) is not None
                      and v.d.is_float == x.d.is_float)
        t = promote(x.dt, y.dt)
        xlo, xhi = self.convert_range(x, t)
        ylo, yhi = self.convert_range(y, t)
        v = Value(self.fresh(), t, broadcast(c.shape, x.shape, y.shape), min(xlo, ylo), max(xhi, yhi),
                  max(x.err, y.err))
        return self.define(scope, body, v, f"tl.where({c.name}, {x.name}, {y.name})",
                           self.same_type_alts(v, [x, y]), tags=("where",))

    def gen_cast(self, scope, body):
        rng = self.rng
        x = self.pick(scope, lambda v: v.name != "ibase")
        t = rng.choice(INT_NAMES + FLOAT_NAMES + ["i1"])
        td = DTYPES[t]
        if rng.random() < 0.1 and x.d.is_float and x.exact and x.dt in ("f32", "f16", "bf16", "f64"):
            it = {"f16": "i16", "bf16": "i16", "f32": "i32", "f64": "i64"}[x.dt]
            lo, hi = DTYPES[it].int_range()
            v = Value(self.fresh(), it, x.shape, lo, hi)
            return self.define(scope, body, v, f"{x.name}.to({DTYPES[it].tl}, bitcast=True)", tags=("bitcast",))
        if x.d.is_float and td.is_int:
            if not x.exact:
                raise Reject("inexact float to int")
            if t == "i1":
                v = Value(self.fresh(), t, x.shape, 0, 1)
                return self.define(scope, body, v, f"{x.name}.to(tl.int1)", tags=("cast",))
            lo, hi = (-100, 100) if td.signed else (0, 100)
            v = Value(self.fresh(), t, x.shape, lo, hi)
            return self.define(scope, body, v,
                               f"tl.minimum(tl.maximum({x.name}, {lo}.0), {hi}.0).to({td.tl})", tags=("cast",))
        if td.is_int:
            lo, hi = td.int_range()
            if t == "i1":
                v = Value(self.fresh(), t, x.shape, 0, 1)
            elif lo <= x.lo and x.hi <= hi:
                v = Value(self.fresh(), t, x.shape, x.lo, x.hi)
            else:
                v = Value(self.fresh(), t, x.shape, lo, hi)
            return self.define(scope, body, v, f"{x.name}.to({td.tl})", tags=("cast",))
        # to float
        if x.mag > FMAX[t] / 4:
            raise Reject("float range")
        err = x.err + 2 * EPS[t] * x.mag if x.err else 0.0
        if x.d.is_int and x.mag > 2 ** 53:
            raise Reject("huge")
        v = Value(self.fresh(), t, x.shape, x.lo, x.hi, err, x.fmul and t in ("f32", "f64"))
        rnd = ""
        if x.d.is_float and DTYPES[t].bits < x.d.bits and rng.random() < 0.2:
            rnd = ', fp_downcast_rounding="rtz"'
        return self.define(scope, body, v, f"{x.name}.to({td.tl}{rnd})", tags=("cast",))

    def gen_math(self, scope, body):
        rng = self.rng
        x = self.pick(scope, lambda v: v.dt != "i1" and v.name != "ibase")
        fn = rng.choice(["exp", "log", "sqrt", "abs", "exp2", "log2", "sin", "cos", "floor", "ceil",
                         "rsqrt", "erf", "sigmoid", "sqrt_rn"])
        src = x.name
        t = x.dt
        if not x.d.is_float or t in ("f16", "bf16"):
            t = "f32"
            src = f"{x.name}.to(tl.float32)"
        if fn == "sqrt_rn" and t != "f32":
            raise Reject("sqrt_rn f32 only")
        if fn == "abs":
            return self.gen_unop(scope, body)
        m = x.mag
        e = x.err
        if fn in ("exp", "exp2"):
            if m > 9:
                src = f"tl.minimum(tl.maximum({src}, -9.0), 9.0)"
                m = 9
            hi = math.exp(m) if fn == "exp" else 2 ** m
            v = Value(self.fresh(), t, x.shape, 0.0, hi)
            v.err = hi * e + 4 * EPS[t] * hi + 1e-6 * hi * (t == "f32")
            rhs = f"tl.{fn}({src})"
        elif fn in ("log", "log2"):
            hi = math.log(m + 1) / (math.log(2) if fn == "log2" else 1)
            v = Value(self.fresh(), t, x.shape, 0.0, hi)
            v.err = e + 4 * EPS[t] * max(hi, 1) + 2e-6 * (t == "f32")
            rhs = f"tl.{fn}(tl.abs({src}) + 1.0)"
        elif fn in ("sqrt", "sqrt_rn"):
            v = Value(self.fresh(), t, x.shape, 0.0, math.sqrt(m))
            v.err = math.sqrt(e) + 2 * EPS[t] * v.hi if e else 0.0
            if fn == "sqrt" and t == "f32":
                # Triton's tl.sqrt on f32 is sqrt.approx; tkc's is sqrt.rn
                v.err += 4 * EPS[t] * max(v.hi, 1.0)
            rhs = f"tl.{fn}(tl.abs({src}))"
        elif fn == "rsqrt":
            v = Value(self.fresh(), t, x.shape, 0.0, 1.0)
            v.err = e + 4 * EPS[t] + 1e-6 * (t == "f32")
            rhs = f"tl.rsqrt(tl.abs({src}) + 1.0)"
        elif fn in ("sin", "cos"):
            v = Value(self.fresh(), t, x.shape, -1.0, 1.0)
            v.err = e + 4 * EPS[t] + 2e-6 * (t == "f32") * max(1, m)
            rhs = f"tl.{fn}({src})"
        elif fn in ("floor", "ceil"):
            if not x.exact:
                raise Reject("discontinuous")
            v = Value(self.fresh(), t, x.shape, math.floor(x.lo), math.ceil(x.hi))
            rhs = f"tl.{fn}({src})"
        elif fn == "erf":
            v = Value(self.fresh(), t, x.shape, -1.0, 1.0)
            v.err = e + 4 * EPS[t] + 1e-6
            rhs = f"tl.erf({src})"
        else:
            v = Value(self.fresh(), t, x.shape, 0.0, 1.0)
            v.err = e + 4 * EPS[t] + 1e-6
            rhs = f"tl.sigmoid({src})"
        if t == "f64":
            v.err = v.err if e else 1e-12 * max(1, v.mag)   # libdevice in both; allow last-bit differences
        return self.define(scope, body, v, rhs, tags=("math",))

    # -- reductions and scans -----------------------------------------------------
    def gen_reduce(self, scope, body):
        rng = self.rng
        x = self.pick(scope, lambda v: v.shape and v.name != "ibase")
        fn = rng.choice(["sum", "sum", "max", "min", "argmax", "argmin", "xor_sum", "sum_f32"])
        axis = rng.choice([None] + list(range(len(x.shape))) + [-1])
        keep = axis is not None and rng.random() < 0.3
        if axis is None:
            shape = ()
            count = numel(x.shape)
        else:
            ax = axis % len(x.shape)
            count = x.shape[ax]
            shape = tuple(1 if i == ax else s for i, s in enumerate(x.shape) if keep or i != ax)
        args = (f", axis={axis}" if axis is not None else "") + (", keep_dims=True" if keep else "")
        d = x.d
        if fn in ("argmax", "argmin"):
            if axis is None or not x.exact or x.dt == "i1":
                raise Reject("argmax")
            v = Value(self.fresh(), "i32", shape, 0, count - 1)
            return self.define(scope, body, v, f"tl.{fn}({x.name}{args})", tags=("argreduce",))
        if fn == "xor_sum":
            if not d.is_int or d.kind == "b":
                raise Reject("xor_sum")
            k = bitlen_bound(x.lo, x.hi)
            lo, hi = (-(1 << k), (1 << k) - 1) if x.lo < 0 else (0, (1 << k) - 1)
            v = Value(self.fresh(), x.dt, shape, lo, hi)
            return self.define(scope, body, v, f"tl.xor_sum({x.name}{args})", tags=("reduce",))
        if fn in ("max", "min"):
            t = x.dt
            if t == "bf16" or (d.bits < 32):
                t = "f32" if d.is_float else "i32"
            v = Value(self.fresh(), t, shape, x.lo, x.hi, x.err)
            form = f"{x.name}.{fn}({args[2:]})" if rng.random() < 0.2 else f"tl.{fn}({x.name}{args})"
            return self.define(scope, body, v, form, tags=("reduce",))
        # sum
        extra = ""
        t = self.sum_type(x.dt)
        if fn == "sum_f32" and d.is_float and x.dt != "f64":
            extra = ", dtype=tl.float32"
            t = "f32"
        lo, hi = x.lo * count, x.hi * count
        if d.kind == "u" or d.kind == "b":
            lo = min(lo, 0)
        v = Value(self.fresh(), t, shape, min(lo, 0) if d.is_float else lo, max(hi, 0) if d.is_float else hi)
        if DTYPES[t].is_float:
            v.lo, v.hi = -x.mag * count, x.mag * count
            v.err = count * x.err + 2 * (math.log2(count) + 2) * EPS[t] * count * max(x.mag, 1e-30) \
                if count > 1 or x.err else 0.0
            if count > 1:
                self.features.add("float_sum")
        return self.define(scope, body, v, f"tl.sum({x.name}{args}{extra})", tags=("reduce",))

    def sum_type(self, dt):
        d = DTYPES[dt]
        if d.is_int and d.bits < 32:
            return "i32" if d.signed else "u32"
        return dt

    def gen_scan(self, scope, body):
        rng = self.rng
        # no size-1 dimension: Triton 3.6's scan lowering gets those wrong
        # (a [32, 1] cumsum under 4 warps, seed 1 program 539) or aborts
        # (ScanOpToLLVM.cpp assertions), which says nothing about tkc
        x = self.pick(scope, lambda v: v.shape and v.name != "ibase" and v.dt != "i1" and 1 not in v.shape)
        axis = rng.randrange(len(x.shape))
        rev = ", reverse=True" if rng.random() < 0.3 else ""
        count = x.shape[axis]
        if rng.random() < 0.7:
            t = self.sum_type("f32" if x.dt == "bf16" else x.dt)
            v = Value(self.fresh(), t, x.shape, min(0, x.lo * count), max(0, x.hi * count))
            if DTYPES[t].is_float:
                v.lo, v.hi = -x.mag * count, x.mag * count
                v.err = count * x.err + 2 * (math.log2(count) + 2) * EPS[t] * count * max(x.mag, 1e-30) \
                    if count > 1 or x.err else 0.0
            return self.define(scope, body, v, f"tl.cumsum({x.name}, axis={axis}{rev})", tags=("scan",))
        # cumprod on values in [-1, 1]: products stay bounded
        if x.d.is_int:
            src = f"{x.name} % 2"
            v = Value(self.fresh(), x.dt, x.shape, -1 if x.lo < 0 else 0, 1)
            if x.d.kind == "u":
                v.lo = 0
        else:
            src = f"tl.minimum(tl.maximum({x.name}, -1.0), 1.0)"
            t = promote(x.dt, "f32")
            v = Value(self.fresh(), t, x.shape, -1.0, 1.0)
            v.err = count * (x.err + 2 * EPS[t]) if count > 1 or x.err else 0.0
        return self.define(scope, body, v, f"tl.cumprod({src}, axis={axis}{rev})", tags=("scan",))

    # -- sort, topk, gather -----------------------------------------------------
    def gen_sort(self, scope, body):
        """tl.sort and tl.topk along the last dimension, tl.gather along any
        axis with indices in range (an index tile masked to the axis); each
        moves values without arithmetic, so a value's range and error carry
        over (sorting is 1-Lipschitz in the largest difference)."""
        rng = self.rng
        x = self.pick(scope, lambda v: v.shape and v.name != "ibase" and v.dt != "i1" and not v.dt.startswith("f8"))
        n = x.shape[-1]
        op = rng.choice(["sort", "sort", "topk", "gather", "gather"])
        if op == "sort":
            desc = rng.random() < 0.5
            args = ", descending=True" if desc else ""
            v = Value(self.fresh(), x.dt, x.shape, x.lo, x.hi, x.err)
            return self.define(scope, body, v, f"tl.sort({x.name}{args})", tags=("sort",))
        if op == "topk":
            if n < 2:
                raise Reject("topk of one element")
            # k >= 2: Triton 3.6's sort_impl refuses tl.topk(x, 1)
            k = 1 << rng.randrange(1, n.bit_length())
            # k < n goes through tl.max, which widens types narrower than 32 bits
            dt = x.dt if k == n or x.d.bits >= 32 else "f32" if x.d.is_float else "i32"
            v = Value(self.fresh(), dt, x.shape[:-1] + (k,), x.lo, x.hi, x.err)
            return self.define(scope, body, v, f"tl.topk({x.name}, {k})", tags=("sort",))
        axis = rng.randrange(len(x.shape))
        if x.shape[axis] < 2:
            raise Reject("gather along an axis of one")  # Triton 3.6's passes fail on it
        m = 1 << rng.randrange(max(1, x.shape[axis].bit_length() + 1))
        ishape = tuple(m if i == axis else d for i, d in enumerate(x.shape))
        if numel(ishape) > MAX_NUMEL:
            raise Reject("gather too big")
        lin = self.lin(ishape, rng.choice(["row", "col"]))
        ints = [y for y in scope.visible() if y.shape == ishape and y.d.is_int and y.dt != "i1" and y.d.bits <= 32
                and y.name != "ibase"]
        if ints and rng.random() < 0.6:
            y = rng.choice(ints)
            y.used = True
            index = f"(({y.name} + {lin}) & {x.shape[axis] - 1})"
        else:
            index = f"(({lin} * {rng.choice([1, 3, 5, 7])} + {rng.randrange(8)}) & {x.shape[axis] - 1})"
        v = Value(self.fresh(), x.dt, ishape, x.lo, x.hi, x.err)
        return self.define(scope, body, v, f"tl.gather({x.name}, {index}, {axis})", tags=("gather",))

    # -- shapes ---------------------------------------------------------------
    def gen_shape(self, scope, body):
        rng = self.rng
        op = rng.choice(["trans", "permute", "expand", "broadcast_to", "reshape", "join", "split",
                         "interleave", "ravel", "flip", "index_none"])
        x = self.pick(scope, lambda v: v.shape and v.name != "ibase")
        r = len(x.shape)

        def same(shape, rhs, tag):
            v = dataclasses.replace(x, name=self.fresh(), shape=shape)
            return self.define(scope, body, v, rhs, tags=(tag,))

        if op == "trans":
            if r != 2:
                raise Reject("trans rank")
            form = rng.choice([f"tl.trans({x.name})", f"tl.trans({x.name})", f"{x.name}.T"])
            return same((x.shape[1], x.shape[0]), form, "trans")
        if op == "permute":
            if r < 2:
                raise Reject("permute rank")
            perm = list(range(r))
            rng.shuffle(perm)
            return same(tuple(x.shape[p] for p in perm), f"tl.permute({x.name}, {shape_text(tuple(perm))})", "permute")
        if op in ("expand", "index_none"):
            if r >= 3:
                raise Reject("rank")
            ax = rng.randrange(r + 1)
            shape = x.shape[:ax] + (1,) + x.shape[ax:]
            if op == "expand":
                return same(shape, f"tl.expand_dims({x.name}, {ax})", "expand_dims")
            idx = ", ".join("None" if i == ax else ":" for i in range(r + 1))
            return same(shape, f"{x.name}[{idx}]", "expand_dims")
        if op == "broadcast_to":
            if 1 not in x.shape:
                raise Reject("nothing to broadcast")
            shape = tuple(rng.choice([1, 2, 4, 8, 16]) if s == 1 else s for s in x.shape)
            if numel(shape) > 2048:
                raise Reject("big")
            return same(shape, f"tl.broadcast_to({x.name}, {shape_text(shape)})", "broadcast_to")
        if op == "reshape":
            total = numel(x.shape)
            k = total.bit_length() - 1
            rank = rng.choice([1, 2, 2, 3])
            cuts = sorted(rng.randint(0, k) for _ in range(rank - 1))
            exps = [b - a for a, b in zip([0] + cuts, cuts + [k])]
            shape = tuple(1 << e for e in exps)
            return same(shape, f"tl.reshape({x.name}, {shape_text(shape)})", "reshape")
        if op == "ravel":
            return same((numel(x.shape),), f"tl.ravel({x.name})", "reshape")
        if op == "flip":
            ax = rng.randrange(r)
            if x.shape[ax] < 2:
                raise Reject("Triton's flip fails along a dimension of 1")
            if r + x.shape[ax].bit_length() > 8:
                raise Reject("tkc flips through one dimension per index bit: at most 8 in all")
            return same(x.shape, f"tl.flip({x.name}, {ax})", "flip")
        if op in ("join", "interleave"):
            y = self.pick(scope, lambda v: v.dt == x.dt and v.shape and broadcast(v.shape, x.shape) is not None)
            shape = broadcast(x.shape, y.shape)
            if op == "interleave" and len(shape) < 1:
                raise Reject("interleave")
            v = Value(self.fresh(), x.dt, shape + (2,) if op == "join" else shape[:-1] + (shape[-1] * 2,),
                      min(x.lo, y.lo), max(x.hi, y.hi), max(x.err, y.err))
            return self.define(scope, body, v, f"tl.{op}({x.name}, {y.name})", tags=(op,))
        # split
        if x.shape[-1] != 2:
            # join with itself and split again: both halves are x
            y = self.pick(scope, lambda v: v.dt == x.dt and v.shape and broadcast(v.shape, x.shape) is not None)
            shape = broadcast(x.shape, y.shape)
            j = Value(self.fresh(), x.dt, shape + (2,), min(x.lo, y.lo), max(x.hi, y.hi), max(x.err, y.err))
            self.define(scope, body, j, f"tl.join({x.name}, {y.name})", tags=("join",))
            x = j
        p = dataclasses.replace(x, name=self.fresh(), shape=x.shape[:-1])
        q = dataclasses.replace(x, name=self.fresh(), shape=x.shape[:-1])
        self.check_value(p)
        scope.values += [p, q]
        body.append(Stmt("assign", f"tl.split({x.name})", [p, q], tags=("split",)))
        self.features.add("split")
        return p

    # -- stores -----------------------------------------------------------------
    def store_target(self, v):
        """An output buffer v may be stored to, and the tolerance there."""
        cands = []
        for bi in (3, 4):
            od = DTYPES[self.buffers[bi].dt]
            if v.d.is_float and od.is_int and od.kind != "b":
                continue           # float -> int conversion: not without a clamp
            if v.d.is_float and od.kind == "b" and not v.exact:
                continue
            if od.is_float and v.mag > FMAX[od.name] / 2:
                continue
            cands.append(bi)
        if not cands:
            raise Reject("no output for this type")
        bi = self.rng.choice(cands)
        od = DTYPES[self.buffers[bi].dt]
        tol = 0.0
        if v.err:
            tol = 2 * (v.err + (EPS[od.name] * v.mag if od.is_float else 0))
            if od.is_int:
                raise Reject("inexact into bool")
        return bi, tol

    def store_unused(self, scope, body, limit=10):
        """Stores values nothing read, so that no computation is dead code."""
        unused = [v for v in scope.values if not v.used and v.name != "pid"][-limit:]
        for v in unused:
            try:
                self.gen_store(scope, body, v)
            except Reject:
                pass

    def gen_store(self, scope, body, v=None):
        rng = self.rng
        if v is None:
            v = self.pick(scope, lambda x: x.name not in ("ibase",))
        v.used = True
        bi, tol = self.store_target(v)
        buf = self.buffers[bi].name
        shape = v.shape
        vtext = v.name
        if self.buffers[bi].dt == "i1" and v.dt != "i1":
            # Triton stores through *i1 as through *i8: a wider value would be
            # truncated, not tested against 0 (tkc does the latter); make it i1
            vtext = f"({v.name} != 0)"
        if shape and rng.random() < 0.2:
            # a pointer tile larger than the value: the value broadcasts
            cands = [s for s in self.base_shapes if broadcast(s, shape) == s and len(s) == len(shape)]
            if cands:
                shape = rng.choice(cands)
        size = numel(shape)
        off = self.out_segment(bi, size)
        if not shape:
            mask = f", mask=pid < {rng.randint(1, self.grid)}" if rng.random() < 0.3 else ""
            body.append(Stmt("effect", f"tl.store({buf} + {self.obase(bi)} + {off}, {vtext}{mask})", tags=("store",)))
        else:
            style = rng.choice(["row", "row", "col", "trans"]) if len(shape) == 2 else "row"
            idx = self.lin(shape, style)
            mask = ""
            mk = rng.choice(["none", "n", "n", "data"])
            if mk == "n":
                mask = f", mask=ibase + {idx} < n"
            elif mk == "data":
                try:
                    m = self.pick(scope, lambda x: x.dt == "i1" and len(x.shape) == len(shape)
                                  and broadcast(x.shape, shape) == shape)
                    mask = f", mask={m.name}"
                except Reject:
                    pass
            body.append(Stmt("effect", f"tl.store({buf} + {self.obase(bi)} + {off} + {idx}, {vtext}{mask})",
                             tags=("store",)))
        self.pending_tols.append((bi, off, size, tol, True))
        self.features.add("store")

    # -- atomics ----------------------------------------------------------------
    def gen_atomic(self, scope, body):
        rng = self.rng
        op = rng.choice(["add", "add", "max", "min", "and", "or", "xor", "xchg", "cas"])
        bi = rng.choice([3, 4])
        dt = self.buffers[bi].dt
        if dt not in ATOMIC_TYPES[op]:
            bi = 7 - bi
            dt = self.buffers[bi].dt
            if dt not in ATOMIC_TYPES[op]:
                raise Reject("atomic type")
        d = DTYPES[dt]
        buf = self.buffers[bi].name
        contended = rng.random() < 0.5
        if op == "cas":
            contended = False       # the winner would depend on the order
        scalar = rng.random() < 0.15
        # the value: any visible value that converts to the pointee safely
        def ok(x):
            if x.name == "ibase":
                return False
            if x.d.is_float and d.is_int:
                return False
            if not x.exact and not (op == "add" and d.is_float):
                if op not in ("max", "min", "xchg") or d.is_int:
                    return False
            if scalar and x.shape:
                return False
            return True
        x = self.pick(scope, ok)
        if d.is_int:
            lo, hi = d.int_range()
            vlo, vhi = (x.lo, x.hi) if lo <= x.lo and x.hi <= hi else (lo, hi)
        else:
            vlo, vhi = x.lo, x.hi
            if x.mag > FMAX[dt] / 4:
                raise Reject("range")
        shape = x.shape
        if not scalar and rng.random() < 0.3:
            # Triton broadcasts an atomic's value only within one rank
            cands = [s for s in self.base_shapes if broadcast(s, shape) == s and len(s) == len(shape)]
            if cands:
                shape = rng.choice(cands)
        if scalar:
            shape = ()
        count_per_prog = numel(shape) * scope.trips
        # address
        if contended:
            k = rng.choice([1, 2, 4, 8])
            size = k
            if shape:
                style = rng.choice(["row", "col", "trans"]) if len(shape) == 2 else "row"
                idx = f"{self.lin(shape, style)} % {k}" if k > 1 else f"{self.lin(shape, style)} * 0"
            else:
                idx = f"pid % {k}"
            ptr = f"{buf} + @AB{bi}@ + {self.region_end[bi]} + {idx}"
            hits = self.grid * count_per_prog
        else:
            per = numel(shape)
            size = self.grid * per
            style = rng.choice(["row", "col", "trans"]) if len(shape) == 2 else "row"
            idx = self.lin(shape, style) if shape else "0"
            ptr = f"{buf} + @AB{bi}@ + {self.region_end[bi]} + pid * {per} + {idx}"
            hits = scope.trips
        rel = self.region_end[bi]
        # initial contents and the final range
        if op == "cas":
            ilo, ihi = (0, 1)
        elif op in ("and",):
            ilo, ihi = (0, 255) if d.kind == "u" else (-1, -1) if rng.random() < 0.5 else (0, 255)
        else:
            ilo, ihi = (0, 50) if d.kind == "u" else (-50, 50) if d.is_int else (-4.0, 4.0)
        fill_kind = "rand"
        rlo, rhi, rerr = ilo, ihi, 0.0
        if op == "add":
            rlo, rhi = ilo + hits * min(vlo, 0), ihi + hits * max(vhi, 0)
            if d.is_float:
                order_dep = contended or not x.exact
                tot = max(abs(rlo), abs(rhi))
                if order_dep or scope.trips > 1:
                    rerr = hits * (x.err + 2 * EPS[dt] * tot) if (contended or x.err) else 0.0
                if x.err:
                    rerr = max(rerr, hits * (x.err + 2 * EPS[dt] * tot))
                if tot > FMAX[dt] / 4:
                    raise Reject("atomic range")
        elif op in ("max", "min"):
            rlo, rhi = min(ilo, vlo), max(ihi, vhi)
            rerr = x.err
        elif op in ("and", "or", "xor"):
            kb = max(bitlen_bound(ilo, ihi), bitlen_bound(vlo, vhi))
            rlo, rhi = (-(1 << kb), (1 << kb) - 1) if (ilo < 0 or vlo < 0) else (0, (1 << kb) - 1)
        elif op == "xchg":
            rlo, rhi = min(ilo, vlo), max(ihi, vhi)
            rerr = x.err
        else:
            rlo, rhi = min(ilo, vlo), max(ihi, vhi)
        if d.is_int:
            tlo, thi = d.int_range()
            if rlo < tlo or rhi > thi:
                raise Reject("atomic overflow")
        region_tol = 2 * rerr if rerr else 0.0
        # the text
        mask = ""
        if op != "cas" and rng.random() < 0.5:
            if shape:
                mk = rng.choice(["n", "data", "n"])
                if mk == "data":
                    try:
                        m = self.pick(scope, lambda y: y.dt == "i1" and len(y.shape) == len(shape)
                                      and broadcast(y.shape, shape) == shape)
                        mask = f", mask={m.name}"
                    except Reject:
                        mk = "n"
                if mk == "n":
                    mask = f", mask=ibase + {self.lin(shape)} < n"
            else:
                mask = f", mask=pid < {rng.randint(1, self.grid)}"
        sem = rng.choice(["", "", "", ', sem="relaxed"', ', sem="acquire"', ', sem="release"', ', scope="cta"'])
        if ', scope="cta"' == sem and (contended and self.grid > 1):
            sem = ""            # cta scope across programs would be a race
        if op == "xchg" and contended:
            lit = rng.choice([3, 7]) if d.is_int else rng.choice([1.5, -2.0])
            val = str(lit)
            rlo, rhi, region_tol = min(ilo, lit), max(ihi, lit), 0.0
        else:
            val = x.name
        if op == "cas":
            cv = f"tl.full({shape_text(shape)}, 1, {d.tl})" if shape else f"(pid * 0 + 1).to({d.tl})"
            if x.shape != shape:
                raise Reject("cas needs the pointer's shape")
            vsrc = f"{x.name}.to({d.tl})" if x.dt != dt else x.name
            if d.is_float and not x.d.is_float:
                vsrc = f"{x.name}.to({d.tl})"
            call = f"tl.atomic_cas({ptr}, {cv}, {vsrc}{sem})"
            if self.rng.random() < 0.5:
                # cmp from data: compare against 0 or 1 where x is even/odd
                src_int = self.pick(scope, lambda y: y.d.is_int and y.dt != "i1" and y.shape == shape)
                call = f"tl.atomic_cas({ptr}, ({src_int.name} & 1).to({d.tl}), {vsrc}{sem})"
        else:
            call = f"tl.atomic_{op}({ptr}, {val}{mask}{sem})"
        self.pending_regions.append((bi, rel, size, ilo, ihi, fill_kind))
        self.region_end[bi] += size
        self.pending_tols.append((bi, rel, size, region_tol, False))
        tags = ("atomic", f"atomic_{op}", "contended" if contended else "distinct",
                "scalar_atomic" if not shape else f"rank{len(shape)}_atomic")
        self.features.update(tags)
        use_old = (not contended and not mask and not (op == "add" and d.is_float and not x.exact)
                   and rng.random() < 0.5)
        if use_old:
            old = Value(self.fresh("old"), dt, shape, rlo, rhi, rerr if scope.trips > 1 else 0.0)
            if not d.is_int and old.mag > FLOAT_MAG_LIMIT:
                body.append(Stmt("effect", call, tags=tags))
                return
            return self.define(scope, body, old, call, tags=tags)
        body.append(Stmt("effect", call, tags=tags))

    # -- control flow -----------------------------------------------------------
    def scalar_cond(self, scope):
        rng = self.rng
        kinds = ["pid", "n"]
        try:
            s = self.pick(scope, lambda v: v.shape == () and v.exact and v.dt != "i1" and v.name != "ibase")
            kinds += ["s", "s"]
        except Reject:
            s = None
        k = rng.choice(kinds)
        if k == "pid":
            return f"pid % 2 == {rng.randint(0, 1)}"
        if k == "n":
            return f"n > {rng.randint(0, self.grid * self.block)}"
        return f"{s.name} {rng.choice(['>', '<=', '!='])} {'0.0' if s.d.is_float else '0'}"

    def gen_if(self, scope, body, depth):
        rng = self.rng
        cond = self.scalar_cond(scope)
        # names the two branches both define (one dtype and shape)
        target = self.pick(scope, lambda v: v.name != "ibase" and v.dt != "i1" or rng.random() < 0.2)
        then_s, else_s = Scope(scope), Scope(scope)
        then_b, else_b = [], []
        self.gen_body(then_s, then_b, rng.randint(1, 4), depth + 1)
        has_else = rng.random() < 0.7
        if has_else:
            self.gen_body(else_s, else_b, rng.randint(0, 3), depth + 1)
        if not scope.in_loop:
            self.store_unused(then_s, then_b, limit=3)
            self.store_unused(else_s, else_b, limit=3)
        name = self.fresh("m")
        tup = self.tuple_form(name)
        results = []
        for side, (sc, b) in enumerate(((then_s, then_b), (else_s, else_b))):
            src = self.same_type_value(sc, target)
            results.append(src)
            text = src.name if isinstance(src, Value) else src[0]
            if has_else or sc is then_s:
                if tup:
                    b.append(Stmt("effect", f"{tup[0]} = ({text}, {tup[1 + side]})", deletable=False))
                else:
                    b.append(Stmt("assign", text, [target.renamed(name)], deletable=False))
        if not has_else:
            # assigned in one branch only: the name must exist before the if
            if tup:
                body.append(Stmt("effect", f"{tup[0]} = ({target.name}, {tup[2]})", deletable=False))
            else:
                body.append(Stmt("assign", target.name, [target.renamed(name)], deletable=False))
            results[1] = target
        vals = [r if isinstance(r, Value) else r[1] for r in results]
        merged = Value(name, target.dt, target.shape, min(v.lo for v in vals), max(v.hi for v in vals),
                       max(v.err for v in vals))
        body.append(Stmt("if", cond, body=then_b, orelse=else_b if has_else else []))
        if tup:
            body.append(Stmt("assign", f"{tup[0]}[0]", [merged], deletable=False))
        scope.values.append(merged)
        self.features.add("if")

    def tuple_form(self, name):
        """Sometimes a merged name or a loop's accumulator travels as the
        first item of a tuple (its second a number, the same or not in each
        branch): (the tuple's name, then-item, else-item), or None. Drawn
        from its own generator, so that programs of the same seed and index
        stay as they were otherwise."""
        r = random.Random(f"tkc-difftest-tuple:{self.seed}:{self.index}:{name}")
        if r.random() >= 0.2:
            return None
        self.features.add("tuple")
        k = r.randint(0, 3)
        return (f"t{name}", k, k if r.random() < 0.5 else k + 1)

    def same_type_value(self, scope, target):
        """A value of exactly target's dtype and shape visible in scope
        (target itself at worst), sometimes shifted by an exact op."""
        cands = [v for v in scope.visible() if v.dt == target.dt and v.shape == target.shape]
        v = self.rng.choice(cands) if cands else target
        if v.d.signed and abs(v.lo) < 1000 and abs(v.hi) < 1000 and self.rng.random() < 0.4:
            return (f"{v.name} + 1", dataclasses.replace(v, lo=v.lo + 1, hi=v.hi + 1))
        return v

    def gen_for(self, scope, body, depth):
        rng = self.rng
        acc0 = self.pick(scope, lambda v: v.name != "ibase" and v.dt != "i1")
        kind = rng.choice(["n", "const", "pid"])
        if kind == "n":
            m = rng.randint(2, 4)
            trips = self.n % m + 1
            nit = self.fresh("nit")
            body.append(Stmt("assign", f"n % {m} + 1", [Value(nit, "i32", (), trips, trips)], deletable=False))
            header_range = f"range(0, {nit})"
            lo_i, hi_i = 0, trips - 1
        elif kind == "const":
            trips = rng.randint(1, 4)
            header_range = rng.choice([f"range(0, {trips})", f"tl.range(0, {trips})"])
            lo_i, hi_i = 0, trips - 1
        else:
            trips = rng.randint(1, 3)
            header_range = f"range(pid, pid + {trips})"
            lo_i, hi_i = 0, self.grid - 1 + trips - 1
        ivar = self.fresh("i")
        acc = self.fresh("acc")
        accv = acc0.renamed(acc)
        tup = self.tuple_form(acc)
        if tup:
            # carried as (acc, trips so far); acc read back after the loop
            body.append(Stmt("effect", f"{tup[0]} = ({acc0.name}, {tup[1]})", deletable=False))
        else:
            body.append(Stmt("assign", acc0.name, [accv], deletable=False))
        acc_ref = f"{tup[0]}[0]" if tup else acc
        inner = Scope(scope, trips=trips, in_loop=True)
        inner.values.append(Value(ivar, "i32", (), lo_i, hi_i))
        loop_body = []
        self.gen_body(inner, loop_body, rng.randint(1, 5), depth + 1)
        # the carried update: acc = acc OP e, e of a type that keeps acc's
        e = self.pick(inner, lambda v: v.name != "ibase" and broadcast(v.shape, accv.shape) == accv.shape
                      and v.dt != "i1" and (v.d.is_float or not accv.d.is_float or True)
                      and not (v.d.is_float and accv.d.is_int))
        esrc = e.name if e.dt == accv.dt else f"{e.name}.to({accv.d.tl})"
        elo, ehi = (e.lo, e.hi)
        if accv.d.is_int:
            tlo, thi = accv.d.int_range()
            if not (tlo <= elo and ehi <= thi):
                elo, ehi = tlo, thi
        ops = ["+", "max", "where"] + (["^"] if accv.d.is_int else [])
        if accv.dt == "bf16" or (accv.d.is_int and accv.d.bits < 32):
            ops = [o for o in ops if o != "max"] or ["where"]
        op = rng.choice(ops)
        derr = e.err
        if op == "+":
            if accv.d.kind == "u" and elo < 0:
                op = "where"
            new = f"{acc_ref} + {esrc}"
            lo, hi = acc0.lo + trips * min(0, elo), acc0.hi + trips * max(0, ehi)
            err = acc0.err + trips * e.err
            if accv.d.is_float and (err or e.fmul):
                err += trips * 2 * EPS[accv.dt] * max(abs(lo), abs(hi))
        if op == "max":
            new = f"tl.maximum({acc_ref}, {esrc})"
            lo, hi, err = min(acc0.lo, elo), max(acc0.hi, ehi), max(acc0.err, derr)
        elif op == "where":
            c = f"{ivar} % 2 == 0" if rng.random() < 0.5 else None
            if c is None:
                try:
                    cv = self.pick(inner, lambda v: v.dt == "i1" and broadcast(v.shape, accv.shape) == accv.shape)
                    c = cv.name
                except Reject:
                    c = f"{ivar} % 2 == 0"
            new = f"tl.where({c}, {esrc}, {acc_ref})"
            lo, hi, err = min(acc0.lo, elo), max(acc0.hi, ehi), max(acc0.err, derr)
        elif op == "^":
            kb = max(bitlen_bound(acc0.lo, acc0.hi), bitlen_bound(elo, ehi))
            lo, hi = (-(1 << kb), (1 << kb) - 1) if (acc0.lo < 0 or elo < 0) else (0, (1 << kb) - 1)
            new = f"{acc_ref} ^ {esrc}"
            err = 0.0
        final = Value(acc, accv.dt, accv.shape, lo, hi, err)
        self.check_value(final)
        if tup:
            loop_body.append(Stmt("effect", f"{tup[0]} = ({new}, {tup[0]}[1] + 1)", deletable=False))
        else:
            loop_body.append(Stmt("assign", new, [final], deletable=False))
        body.append(Stmt("for", f"for {ivar} in {header_range}", body=loop_body))
        if tup:
            body.append(Stmt("assign", f"{tup[0]}[0]", [final], deletable=False))
        scope.values.append(final)
        self.features.add("for")

    def gen_static_for(self, scope, body, depth):
        rng = self.rng
        acc0 = self.pick(scope, lambda v: v.name != "ibase" and v.dt != "i1" and v.exact
                         and (v.d.is_float or v.mag < 10 ** 6))
        trips = rng.randint(1, 3)
        j = self.fresh("j")
        acc = self.fresh("acc")
        body.append(Stmt("assign", acc0.name, [acc0.renamed(acc)], deletable=False))
        lit = "1.0" if acc0.d.is_float else "1"
        if acc0.d.kind == "u" or not acc0.d.signed and not acc0.d.is_float:
            new = f"{acc} + {j}"
        else:
            new = rng.choice([f"{acc} + {j}", f"{acc} - {j} * {lit}"])
        lo, hi = acc0.lo - 3 * trips, acc0.hi + 3 * trips
        final = Value(acc, acc0.dt, acc0.shape, lo, hi, acc0.err)
        self.check_value(final)
        loop_body = [Stmt("assign", new, [final], deletable=False)]
        body.append(Stmt("for", f"for {j} in tl.static_range({trips})", body=loop_body))
        scope.values.append(final)
        self.features.add("static_range")

    def gen_func(self, scope, body):
        rng = self.rng
        nargs = rng.randint(1, 3)
        args = []
        for _ in range(nargs):
            args.append(self.pick(scope, lambda v: v.name != "ibase" and v not in args))
        fname = self.fresh("f")
        fscope = Scope(scope, in_func=True)
        params = [f"p{i}" for i in range(nargs)]
        for p, a in zip(params, args):
            fscope.values.append(a.renamed(p))
        fbody = []
        saved = dict(self.w)
        for k in ("load", "store", "atomic", "if", "for", "static_for", "func"):
            self.w[k] = 0
        try:
            self.gen_body(fscope, fbody, rng.randint(1, 3), depth=2)
        finally:
            self.w = saved
        locals_ = [v for v in fscope.values if v.name not in params]
        if not locals_:
            raise Reject("empty func")
        ret = locals_[-1]
        v = ret.renamed(self.fresh())
        early = self.early_return(fname, ret)
        if early:
            fbody.append(early[0])
            v = dataclasses.replace(v, lo=min(v.lo, 0), hi=max(v.hi, early[1] - 1))
        self.funcs.append((fname, params, fbody, ret.name))
        return self.define(scope, body, v, f"{fname}({', '.join(a.name for a in args)})", tags=("func",))

    def early_return(self, fname, ret):
        """Sometimes, before a @func's final return, a tl.static_range loop
        whose runtime if returns early (ret * 0 + the trip): the later trips
        and the final return run only where it did not. Drawn from its own
        generator, so that programs of the same seed and index stay as they
        were otherwise. Returns (statement, trips) or None."""
        r = random.Random(f"tkc-difftest-early:{self.seed}:{self.index}:{fname}")
        if r.random() >= 0.3 or ret.d.kind == "b":
            return None
        trips, j = r.randint(2, 4), f"r{fname[1:]}"
        cond = f"(tl.program_id(0) + {j}) % {r.randint(2, 4)} == {r.randint(0, 1)}"
        ret_stmt = Stmt("effect", f"return {ret.name} * 0 + {j}", deletable=False)
        loop_if = Stmt("if", cond, body=[ret_stmt], deletable=False)
        self.features.add("func_early_return")
        return Stmt("for", f"for {j} in tl.static_range({trips})", body=[loop_if], deletable=False), trips


def parse_weights(text):
    """'atomic=30,store=2' (DIFFTEST_WEIGHTS) as a dict for generate()."""
    out = {}
    for item in filter(None, (text or "").split(",")):
        name, _, value = item.partition("=")
        if name.strip() not in WEIGHTS:
            raise ValueError(f"unknown weight {name!r}; known: {', '.join(WEIGHTS)}")
        out[name.strip()] = float(value)
    return out


def generate(seed: int, index: int, weights=None) -> Program:
    g = Gen(seed, index, weights)
    g.slot_values = {}
    g.pending_tols = []
    prog = g.program()
    resolve_slots(prog, g.slot_values)
    return prog


def resolve_slots(prog, slots):
    """Replaces the layout placeholders (@OS3@ ...) now that sizes are known."""
    def fix(stmts):
        for s in stmts:
            for k, v in slots.items():
                s.text = s.text.replace(k, v)
                s.alts = [a.replace(k, v) for a in s.alts]
            fix(s.body)
            fix(s.orelse)
    fix(prog.body)
    for _, _, fb, _ in prog.funcs:
        fix(fb)


if __name__ == "__main__":
    import sys
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    index = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    p = generate(seed, index)
    which = sys.argv[3] if len(sys.argv) > 3 else "tk"
    print(p.tk_source() if which == "tk" else p.triton_source() if which == "py" else p.spec_json())
