"""Timing several implementations side by side, as the bench scripts do:
each round times every one once (so that a clock or thermal drift reaches
them all alike), and each gets the median of its rounds."""


def medians(fns, rounds, time_one):
    """{name: median of `rounds` times of fns[name]}, time_one(fn) giving
    one time (do_bench's, in ms)"""
    times = {n: [] for n in fns}
    for _ in range(rounds):
        for n, f in fns.items():
            times[n].append(time_one(f))
    return {n: sorted(t)[len(t) // 2] for n, t in times.items()}


def print_rates(title, med, flops, width=40, base=None, base_name=""):
    """A line a name: its median in us and TFLOP/s, and with `base` (a
    median in ms) its speed against that one"""
    print(f"{title}:")
    for n, ms in med.items():
        against = f"  {base / ms:5.3f}x {base_name}" if base else ""
        print(f"  {n:{width}s} {ms * 1e3:9.1f} us  {flops / ms / 1e9:7.1f} TFLOP/s{against}", flush=True)
