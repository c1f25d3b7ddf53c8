"""Differential test of tkc against Triton on a GPU: random programs from
gen.py, each compiled by tkc (header + shim library) and by Triton, run on
the same inputs, outputs compared.

Needs: on the GPU machine, Python 3.12, torch, triton, gcc, tkc (TKC;
default build/static/tkc if it exists, else build/tkc). `--dry-run` needs
only tkc and gcc: it generates, compiles with tkc, builds the shims and
checks the Triton modules parse, without torch, Triton or a GPU.

    python3 test/difftest/run_gpu.py --seed 1 --count 1000 --jobs 16 [--out DIR]

How: a process pool (--jobs) generates each program, runs tkc, gcc (the
shim, test/difftest/shim.c, around the header) and Triton's compiler
(JITFunction.warmup, with TRITON_CACHE_DIR a temporary folder shared by
all processes); then child processes run the kernels on the one GPU, a
batch of programs each, so that a kernel that kills its CUDA context
(illegal address) takes only itself down: its child reports it, and the
rest of the batch goes on in a fresh child. Both sides get identical
inputs (random, never all zero) and outputs poisoned identically (NaN for
floats, 0x55 bytes for integers) with guard elements after each buffer
that must stay poisoned; inputs must come back unchanged.

Comparison: integers and booleans bit-exact; floats exactly (NaN equals
NaN, -0 equals +0) unless gen.py gave the element range a tolerance
(rounding differences allowed where the program's value has err > 0:
order-dependent sums and atomics, transcendental functions, products that
one compiler may fuse into an fma).

Arbitration: a program whose outputs differ runs again against other
Triton runs in place of the compiled kernel, each in its own child
processes: Triton's interpreter (TRITON_INTERPRET=1), then Triton
compiled with num_warps 1, 2, 4, 8 and 16 (a generated program means the
same under any). When one of them agrees with tkc, Triton disagrees with
itself and the outcome is triton-wrong (reported apart, not a tkc
failure); otherwise it stays differed.

Outcomes: passed; differed; triton-wrong; tkc-ice (tkc crashed, hung or exit 3);
tkc-error (another tkc/gcc failure of a valid program); tkc-unsupported
("not supported yet", reported apart); triton-rejected (Triton could not
compile it: not a tkc defect, reported apart); tkc-runtime-error (the
launcher's status was not 0 or the kernel failed at synchronize).
Failures are saved under --out (default build/difftest/failures): the .tk,
the Triton module, the spec (buffers, inputs, tolerances), what differed,
and a reduced reproducer beside it (reduce.py) unless --no-reduce. The
last line is "N passed, M failed" (M = differed + tkc-ice + tkc-error +
tkc-runtime-error); the exit status is 1 when M > 0.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
import gen  # noqa: E402
import reduce as reducer  # noqa: E402

CC = os.environ.get("CC", "gcc")
FAILING = ("differed", "tkc-ice", "tkc-error", "tkc-runtime-error")

# ---------------------------------------------------------------------------
# the build phase (worker processes)


def build_program(task):
    """Generates one program into task['dir'] and compiles both sides.
    Returns a dict: name, seed, index, stage ('built' or an outcome), message."""
    seed, index, work, tkc, rt_obj, weights, dry_run = (task[k] for k in
                                                         ("seed", "index", "dir", "tkc", "rt", "weights", "dry_run"))
    d = Path(work)
    d.mkdir(parents=True, exist_ok=True)
    res = {"seed": seed, "index": index, "dir": str(d), "stage": "built", "message": ""}
    try:
        prog = gen.generate(seed, index, weights)
    except Exception:
        res.update(stage="tkc-error", message="generator failed: " + traceback.format_exc(limit=3))
        return res
    res["name"] = prog.name
    return compile_both(prog, d, tkc, rt_obj, dry_run, res)


def build_all(tasks, jobs):
    """build_program over tasks in a pool of spawned processes. Triton's
    compiler can abort its process (an LLVM assertion): that breaks the
    pool and fails every program not finished yet. Those are built again
    in a fresh pool; one caught in two broken pools is built alone, and if
    that process dies too it is reported as triton-rejected (not a tkc
    defect)."""
    import multiprocessing
    from concurrent.futures.process import BrokenProcessPool
    ctx = multiprocessing.get_context("spawn")     # the workers may start CUDA: never fork it
    results, breaks = {}, {}
    pending = list(tasks)
    while pending:
        shared = [t for t in pending if breaks.get(t["index"], 0) < 2]
        alone = [t for t in pending if breaks.get(t["index"], 0) >= 2]
        pending = []
        if shared:
            with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
                futures = [(t, pool.submit(build_program, t)) for t in shared]
                for t, f in futures:
                    try:
                        results[t["index"]] = f.result()
                    except BrokenProcessPool:
                        breaks[t["index"]] = breaks.get(t["index"], 0) + 1
                        pending.append(t)
        for t in alone:
            with ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
                try:
                    results[t["index"]] = pool.submit(build_program, t).result()
                except BrokenProcessPool:
                    results[t["index"]] = {"seed": t["seed"], "index": t["index"], "dir": t["dir"],
                                           "stage": "triton-rejected",
                                           "message": "the process compiling it died (Triton's compiler aborted)"}
    return [results[t["index"]] for t in tasks]


def compile_both(prog, d, tkc, rt_obj, dry_run, res=None):
    res = res if res is not None else {"stage": "built", "message": "", "dir": str(d)}
    prog.save(d)
    try:
        r = subprocess.run([tkc, str(d / "k.tk"), "-o", str(d) + "/"], capture_output=True, text=True, timeout=60)
        status, msg = r.returncode, (r.stderr + r.stdout).strip()
    except subprocess.TimeoutExpired:
        status, msg = None, "tkc did not exit within 60 s"
    if status != 0:
        first = next((ln for ln in msg.splitlines() if "error" in ln or "internal" in ln),
                     msg.splitlines()[0] if msg else "")
        if status is None or status < 0 or status == 3:
            res.update(stage="tkc-ice", message=f"tkc status {status}: {first}")
        elif status == 1 and reducer.re.search(r"not supported( by [a-z ]+)? yet", msg):
            res.update(stage="tkc-unsupported", message=first)
        else:
            res.update(stage="tkc-error", message=f"tkc status {status}: {first}")
        return res
    lib = d / "libk.so"
    r = subprocess.run([CC, "-O1", "-shared", "-fPIC", "-fvisibility=hidden", "-DTKC_IMPLEMENTATION",
                        "-include", str(d / "k.h"), f"-I{ROOT / 'runtime_stub'}", str(HERE / "shim.c"), rt_obj,
                        "-o", str(lib), "-ldl", "-lpthread"], capture_output=True, text=True)
    if r.returncode != 0:
        res.update(stage="tkc-error", message="shim: " + r.stderr.strip()[:400])
        return res
    try:
        ast.parse(prog.triton_source())
    except SyntaxError as e:
        res.update(stage="triton-rejected", message=f"Triton module does not parse: {e}")
        return res
    if dry_run:
        return res
    try:
        mod = load_module(d / "k_triton.py", f"difftest_warm_{d.name}")
        import torch  # noqa: F401  (warmup takes torch dtypes in place of tensors)
        dtypes = [torch_dtype(bf.dt) for bf in prog.buffers]
        mod.k.warmup(*dtypes, prog.n, BLOCK=prog.block, grid=(prog.grid,), num_warps=prog.num_warps)
    except Exception as e:
        cause = f" (cause: {type(e.__cause__).__name__}: {e.__cause__})" if e.__cause__ else ""
        res.update(stage="triton-rejected", message=f"{type(e).__name__}: {str(e).strip()[-600:]}{cause}")
    return res


def torch_dtype(name):
    import torch
    return getattr(torch, gen.DTYPES[name].torch)


def load_module(path, name):
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod

# ---------------------------------------------------------------------------
# the run phase (child processes on the GPU)


def make_buffers(spec, torch, device):
    """The five buffers, identical for both sides (built on the CPU from a
    generator seeded by the program, then copied)."""
    g = torch.Generator().manual_seed(spec["seed"] * 1000003 + spec["index"])
    bufs = []
    for b in spec["buffers"]:
        dt = torch_dtype(b["dt"])
        total = b["size"] + b["guard"]
        t = poison_tensor(torch, dt, total)
        for start, length, kind, lo, hi in b["fill"]:
            if kind == "rand":
                if dt.is_floating_point:
                    vals = torch.rand(length, generator=g, dtype=torch.float64) * (hi - lo) + lo
                else:
                    vals = torch.randint(int(lo), int(hi) + 1, (length,), generator=g, dtype=torch.int64)
                    if length and not vals.any():
                        vals[0] = 1
                t[start:start + length] = vals.to(dt)
            elif kind == "const":
                t[start:start + length] = lo
        bufs.append(t)
    return bufs


def poison_tensor(torch, dt, total):
    if dt.is_floating_point:
        return torch.full((total,), float("nan"), dtype=dt)
    t = torch.empty((total,), dtype=dt)
    t.view(torch.uint8).fill_(0x55)
    return t


def bits(torch, t):
    """A view of t's raw bits as a signed integer tensor."""
    size = t.element_size()
    return t.view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[size])


def compare(spec, init, tk, tr, torch):
    """Problems found comparing tkc's buffers tk with Triton's tr (both on
    the CPU) given the initial contents init; [] when they agree."""
    problems = []
    for bi, b in enumerate(spec["buffers"]):
        size = b["size"]
        for side, bufs in (("tkc", tk), ("triton", tr)):
            if not torch.equal(bits(torch, bufs[bi][size:]), bits(torch, init[bi][size:])):
                problems.append(f"{side} wrote into the guard after {b['name']}")
            if bi < 3 and not torch.equal(bits(torch, bufs[bi]), bits(torch, init[bi])):
                problems.append(f"{side} changed input {b['name']}")
        if bi < 3:
            continue
        g, e = tk[bi][:size], tr[bi][:size]
        same_bits = bits(torch, g) == bits(torch, e)
        if g.dtype.is_floating_point:
            gd, ed = g.double(), e.double()
            ok = same_bits | (gd == ed) | (torch.isnan(gd) & torch.isnan(ed))
            tol = torch.zeros(size, dtype=torch.float64)
            for tbi, start, length, t in spec["tolerances"]:
                if tbi == bi and t > 0:
                    tol[start:start + length] = t
            ok |= (gd - ed).abs() <= tol
        else:
            ok = same_bits
        bad = (~ok).nonzero().flatten()
        if len(bad):
            if g.dtype.is_floating_point:
                shown = ", ".join(f"[{int(i)}] tkc {fmt(g[i])} triton {fmt(e[i])}" for i in bad[:4])
            else:   # raw bits: a bool byte of 0x55 (poison) reads as True
                gb, eb = bits(torch, g), bits(torch, e)
                shown = ", ".join(f"[{int(i)}] tkc {int(gb[i])} triton {int(eb[i])}" for i in bad[:4])
            problems.append(f"{b['name']} ({b['dt']}): {len(bad)} of {size} elements differ: {shown}")
    return problems


def fmt(x):
    v = x.item()
    return f"{v:.9g}" if isinstance(v, float) else str(v)


def run_child(batch_file, results_file):
    """Runs the programs listed in batch_file in order, appending one JSON
    line per program to results_file; stops after a CUDA error (the context
    is lost) so that the parent can go on in a fresh process."""
    import ctypes
    import torch
    interpreted = os.environ.get("TRITON_INTERPRET") == "1"
    warps = int(os.environ.get("DIFFTEST_TRITON_WARPS", "0"))
    items = json.loads(Path(batch_file).read_text())
    out = open(results_file, "a")
    dev = torch.device("cuda")
    stream = torch.cuda.current_stream().cuda_stream
    for item in items:
        d = Path(item["dir"])
        spec = json.loads((d / "spec.json").read_text())
        rec = {"dir": item["dir"], "index": item["index"], "seed": item["seed"]}
        fatal = False
        if warps == spec["num_warps"]:
            rec.update(outcome="same-run", message="")
            out.write(json.dumps(rec) + "\n")
            out.flush()
            continue
        try:
            init = make_buffers(spec, torch, dev)
            lib = ctypes.CDLL(str(d / "libk.so"))
            lib.tkshim_k.argtypes = [ctypes.c_void_p] * 6 + [ctypes.c_int32]
            lib.tkshim_status_string.restype = ctypes.c_char_p
            tk_bufs = [t.to(dev) for t in init]
            status = lib.tkshim_k(stream, *[t.data_ptr() for t in tk_bufs], spec["n"])
            try:
                torch.cuda.synchronize()
            except Exception as e:
                rec.update(outcome="tkc-runtime-error", message=f"synchronize after tkc's launch: {str(e).splitlines()[0]}")
                fatal = True
                raise
            if status != 0:
                rec.update(outcome="tkc-runtime-error",
                           message=f"launcher status {status}: {lib.tkshim_status_string(status).decode()}")
                raise RuntimeError("status")
            mod = load_module(d / "k_triton.py", f"difftest_{d.name}")
            # the interpreter runs on copies in host memory
            tr_bufs = [t.clone() if interpreted else t.to(dev) for t in init]
            try:
                mod.k[(spec["grid"],)](*tr_bufs, spec["n"], BLOCK=spec["block"], num_warps=warps or spec["num_warps"])
                torch.cuda.synchronize()
            except Exception as e:
                rec.update(outcome="triton-rejected", message=f"Triton run: {type(e).__name__}: {str(e)[-300:]}")
                fatal = "CUDA" in str(e) or "illegal" in str(e)
                raise
            problems = compare(spec, init, [t.cpu() for t in tk_bufs], [t.cpu() for t in tr_bufs], torch)
            if problems:
                rec.update(outcome="differed", message="; ".join(problems))
            else:
                rec.update(outcome="passed", message="")
        except Exception as e:
            if "outcome" not in rec:
                rec.update(outcome="tkc-runtime-error" if "CUDA" in str(e) else "harness-error",
                           message=f"{type(e).__name__}: {str(e)[-300:]}")
                fatal = fatal or "CUDA" in str(e)
        out.write(json.dumps(rec) + "\n")
        out.flush()
        if fatal:
            return 3
    return 0


def run_batches(items, work, parallel, log, env=None):
    """Runs items (built programs) in child processes (environment env, or
    this one's); returns {dir: record}."""
    results = {}
    pending = [items[i:i + 40] for i in range(0, len(items), 40)]
    procs = []
    serial = 0
    while pending or procs:
        while pending and len(procs) < parallel:
            batch = pending.pop(0)
            serial += 1
            tag = "i" if env else ""
            bf = Path(work) / f"batch{tag}{serial}.json"
            rf = Path(work) / f"results{tag}{serial}.jsonl"
            bf.write_text(json.dumps(batch))
            rf.write_text("")
            p = subprocess.Popen([sys.executable, __file__, "--child", str(bf), str(rf)],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
            procs.append((p, batch, rf))
        time.sleep(0.05)
        for entry in list(procs):
            p, batch, rf = entry
            if p.poll() is None:
                continue
            procs.remove(entry)
            output = p.stdout.read()
            done = [json.loads(ln) for ln in rf.read_text().splitlines() if ln.strip()]
            for rec in done:
                results[rec["dir"]] = rec
            rest = batch[len(done):]
            if p.returncode not in (0, 3) and rest:
                # the child died without a record: blame the program it was on
                victim = rest[0]
                results[victim["dir"]] = {"dir": victim["dir"], "index": victim["index"], "seed": victim["seed"],
                                          "outcome": "tkc-runtime-error",
                                          "message": f"child process died (status {p.returncode}): {output[-300:]}"}
                rest = rest[1:]
            if rest:
                pending.insert(0, rest)
    return results


def arbitrate(records, work, parallel, log):
    """Reruns the programs that differed with other Triton runs in place of
    the compiled kernel: its interpreter, then other num_warps (a generated
    program means the same under any). The first that accepts tkc's
    outputs makes the program triton-wrong: Triton disagrees with itself,
    and one of its answers is tkc's."""
    undecided = [{"dir": r["dir"], "index": r["index"], "seed": r["seed"]}
                 for r in records.values() if r["outcome"] == "differed"]
    runs = [("Triton's interpreter", {"TRITON_INTERPRET": "1"})]
    runs += [(f"Triton with num_warps={w}", {"DIFFTEST_TRITON_WARPS": str(w)}) for w in (1, 2, 4, 8, 16)]
    for what, extra in runs:
        if not undecided:
            return
        second = run_batches(undecided, work, parallel, log, dict(os.environ, **extra))
        left = []
        for item in undecided:
            rec = records[item["dir"]]
            if second.get(item["dir"], {}).get("outcome") == "passed":
                rec.update(outcome="triton-wrong", message=f"{what} agrees with tkc; compiled Triton: {rec['message']}")
            else:
                left.append(item)
        undecided = left
    for item in undecided:
        records[item["dir"]]["message"] += " [no other Triton run (interpreter, num_warps 1-16) agrees with tkc]"

# ---------------------------------------------------------------------------
# reduction of failures


def reduce_failure(prog, rec, tkc, rt_obj, work, budget, log):
    """Shrinks prog while it fails the same way; returns the reduced program or None."""
    kind = rec["outcome"]
    if kind in ("tkc-ice", "tkc-error"):
        want = reducer.tkc_signature(tkc, prog.tk_source())
        if want is None:
            return None
        return reducer.reduce_program(prog, lambda p: reducer.tkc_signature(tkc, p.tk_source()) == want,
                                      budget=budget * 5)
    counter = [0]

    def still_fails(p):
        counter[0] += 1
        d = Path(work) / f"reduce_{prog.name}_{counter[0]}"
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        res = compile_both(p, d, tkc, rt_obj, False)
        if res["stage"] != "built":
            return False
        out = run_batches([{"dir": str(d), "index": prog.index, "seed": prog.seed}], work, 1, log)
        got = out.get(str(d), {}).get("outcome")
        return got == kind
    return reducer.reduce_program(prog, still_fails, budget=budget, log=log)


def save_failure(out_dir, prog, rec, reduced):
    d = Path(out_dir) / prog.name
    prog.save(d)
    (d / "failure.txt").write_text(f"{rec['outcome']}: {rec['message']}\n")
    if reduced is not None:
        reduced.save(d, "reduced")
    return d


def main():
    ap = argparse.ArgumentParser(description="tkc against Triton on random programs")
    ap.add_argument("--seed", type=int, default=int(os.environ.get("DIFFTEST_SEED", 1)))
    ap.add_argument("--count", type=int, default=int(os.environ.get("DIFFTEST_COUNT", 1000)))
    ap.add_argument("--start", type=int, default=0, help="first program index")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    ap.add_argument("--gpu-procs", type=int, default=4, help="child processes running kernels at once")
    ap.add_argument("--out", default=str(ROOT / "build" / "difftest" / "failures"))
    ap.add_argument("--weights", default=os.environ.get("DIFFTEST_WEIGHTS", ""), help="e.g. atomic=30,store=2")
    ap.add_argument("--tkc", default=os.environ.get("TKC") or reducer.default_tkc())
    ap.add_argument("--dry-run", action="store_true", help="no GPU, no torch, no Triton: generate and compile only")
    ap.add_argument("--no-reduce", action="store_true")
    ap.add_argument("--reduce-budget", type=int, default=25, help="most reruns per reduced failure")
    ap.add_argument("--reduce-max", type=int, default=4, help="most failures reduced per run")
    ap.add_argument("--reduce-seconds", type=int, default=120,
                    help="no reduction starts after the run has taken this long in all")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return run_child(*args.child)

    start = time.time()
    weights = gen.parse_weights(args.weights)
    work = Path(tempfile.mkdtemp(prefix="tkdifftest-"))
    os.environ.setdefault("TRITON_CACHE_DIR", str(work / "triton-cache"))
    rt_obj = str(work / "tkrt.o")
    subprocess.run([CC, "-O2", "-fPIC", "-std=c11", "-D_DEFAULT_SOURCE", "-c", str(ROOT / "runtime_stub" / "tkrt.c"),
                    "-o", rt_obj], check=True)
    tasks = [{"seed": args.seed, "index": i, "dir": str(work / f"p{i}"), "tkc": args.tkc, "rt": rt_obj,
              "weights": weights, "dry_run": args.dry_run} for i in range(args.start, args.start + args.count)]
    built = build_all(tasks, args.jobs)
    print(f"built {len(built)} programs in {time.time() - start:.0f} s", file=sys.stderr)

    records = {}
    runnable = []
    for b in built:
        if b["stage"] == "built":
            runnable.append({"dir": b["dir"], "index": b["index"], "seed": b["seed"]})
        else:
            records[b["dir"]] = {"dir": b["dir"], "index": b["index"], "seed": b["seed"],
                                 "outcome": b["stage"], "message": b["message"]}
    if args.dry_run:
        for r in runnable:
            records[r["dir"]] = dict(r, outcome="passed", message="(dry run: compiled only)")
    else:
        records.update(run_batches(runnable, work, args.gpu_procs, print))
        arbitrate(records, work, args.gpu_procs, print)
    run_seconds = time.time() - start
    print(f"ran in {run_seconds:.0f} s", file=sys.stderr)

    counts = {}
    reduced_count = 0
    for b in built:
        rec = records.get(b["dir"]) or {"outcome": "harness-error", "message": "no result", **b}
        outcome = rec["outcome"]
        counts[outcome] = counts.get(outcome, 0) + 1
        if outcome == "passed":
            continue
        prog = gen.generate(args.seed, rec["index"], weights)
        label = f"seed={args.seed} index={rec['index']}"
        reduced = None
        if outcome in FAILING and not args.no_reduce and reduced_count < args.reduce_max \
                and time.time() - start < run_seconds + args.reduce_seconds \
                and not (args.dry_run and outcome not in ("tkc-ice", "tkc-error")):
            reduced_count += 1
            try:
                reduced = reduce_failure(prog, rec, args.tkc, rt_obj, work, args.reduce_budget, None)
            except Exception:
                print(f"note: reducing {label} failed: {traceback.format_exc(limit=2)}")
        where = save_failure(args.out, prog, rec, reduced)
        tag = "FAIL" if outcome in FAILING else "NOTE"
        print(f"{tag} {outcome} {label}: {rec['message'][:600]} ({where})")

    failed = sum(counts.get(k, 0) for k in FAILING) + counts.get("harness-error", 0)
    passed = counts.get("passed", 0)
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    print(f"difftest seed {args.seed}, programs {args.start}..{args.start + args.count - 1}: {summary}; "
          f"{time.time() - start:.0f} s{' (dry run)' if args.dry_run else ''}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"work folder kept: {work}", file=sys.stderr)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
