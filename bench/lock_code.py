#!/usr/bin/env python3
"""The lock code of our suite, every way it is judged: each C test of `litmus/locks` and
`litmus/kernel` under the LKMM, and compiled with each shipped mapping (`litmus compile
--mapping M`) under the mapping's hardware model, each judgement one `litmus check --jobs 1`
process with a time limit (`--timeout`, default 10 s: past it the test is undetermined).

    bench/lock_code.py [--bin A [--bin B ...]] [--exploration auto|domains|grow ...]
                       [--timeout 10] [--unroll 2] [--slowest 10] [--json OUT]

Each (--bin, --exploration) pair is a column. Prints, per column: how many judgements
answered, how many were undetermined (over the limit, or a limit of the engine), errors,
total CPU seconds; then the slowest judgements of the last column with each column's CPU
seconds (`-` for one not answered). A benchmark, not a test: it asserts nothing; run it on
a quiet machine (the limit is wall time).
"""
import argparse, json, os, resource, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAPPINGS = {  # mapping -> the hardware model that judges its compiled tests
    "x86": "x86tso", "aarch64-llsc": "armv8", "aarch64-lse": "armv8",
    "ppc-lwsync": "power", "ppc-sync": "power",
}


def c_tests():
    out = []
    for d in ["litmus/locks", "litmus/kernel"]:
        for p in sorted((ROOT / d).rglob("*.litmus")):
            with open(p, errors="replace") as f:
                if f.readline().split()[:1] == ["C"]:
                    out.append(p)
    return out


def compiled(bin_, tests, tmp):
    """(label, path, model) for every judgement: each test under the LKMM, then compiled."""
    jobs = [(str(t.relative_to(ROOT)), t, "lkmm") for t in tests]
    for m, model in MAPPINGS.items():
        for t in tests:
            out = Path(tmp) / m / t.name
            out.parent.mkdir(parents=True, exist_ok=True)
            p = subprocess.run([bin_, "compile", "--mapping", m, str(t)],
                               capture_output=True, text=True)
            if p.returncode == 0:
                out.write_text(p.stdout)
                jobs.append((f"{t.relative_to(ROOT)} @{m}", out, model))
    return jobs


def judge(bin_, exploration, path, model, timeout, unroll):
    """(status, cpu seconds): ok, undetermined or error."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cmd = [bin_, "check", "--jobs", "1", "--format", "json", "--model", model,
           "--exploration", exploration, "--timeout", str(timeout), "--unroll", str(unroll),
           str(path)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout * 3 + 30)
        status = "error"
        for line in p.stdout.splitlines():
            if line.startswith("{"):
                status = json.loads(line).get("status", "error")
                if status in ("timeout", "too-big", "out-of-memory"):
                    status = "undetermined"
    except subprocess.TimeoutExpired:
        status = "undetermined"
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return status, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", action="append")
    ap.add_argument("--exploration", action="append")
    ap.add_argument("--timeout", type=float, default=10)
    ap.add_argument("--unroll", type=int, default=2)
    ap.add_argument("--slowest", type=int, default=10)
    ap.add_argument("--json")
    a = ap.parse_args()
    bins = a.bin or [str(ROOT / "target/release/litmus")]
    explorations = a.exploration or ["auto"]
    cols = [(b, e) for b in bins for e in explorations]
    tests = c_tests()
    with tempfile.TemporaryDirectory() as tmp:
        jobs = compiled(bins[0], tests, tmp)
        results = {}
        for label, path, model in jobs:
            for c in cols:
                results[(label, c)] = judge(c[0], c[1], path, model, a.timeout, a.unroll)
            print(".", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
    for c in cols:
        rs = [results[(l, c)] for l, _, _ in jobs]
        count = lambda s: sum(1 for st, _ in rs if st == s)
        print(f"{c[0]} --exploration {c[1]}: {len(rs)} judgements, {count('ok')} answered, "
              f"{count('undetermined')} undetermined, {len(rs) - count('ok') - count('undetermined')} "
              f"errors, {sum(t for _, t in rs):.1f} s CPU")
    # The slowest by the last column (the one measured against the others).
    worst = sorted(jobs, key=lambda j: -results[(j[0], cols[-1])][1])[: a.slowest]
    print(f"\nslowest {len(worst)}: " + " | ".join(f"{os.path.basename(c[0])}/{c[1]}" for c in cols))
    for label, _, _ in worst:
        cells = []
        for c in cols:
            st, t = results[(label, c)]
            cells.append(f"{t:.2f}" if st == "ok" else f"- ({st})")
        print(f"  {label}: " + " | ".join(cells))
    if a.json:
        with open(a.json, "w") as f:
            for (label, c), (st, t) in results.items():
                f.write(json.dumps({"test": label, "bin": c[0], "exploration": c[1],
                                    "status": st, "cpu": t}) + "\n")


if __name__ == "__main__":
    main()
