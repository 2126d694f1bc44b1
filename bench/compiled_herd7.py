#!/usr/bin/env python3
"""herd7's answers on the compiled C tests of `litmus/`, recorded, and ours compared.

    bench/compiled_herd7.py record --bin target/release/litmus --herd /work/tools/bin/herd7 \\
        [--unroll 1] [--herd-timeout 20] [--jobs 2] [--out litmus/compiled/herd7-answers.jsonl]
    bench/compiled_herd7.py compare --bin target/release/litmus [--timeout 10] \\
        [--answers litmus/compiled/herd7-answers.jsonl]

`record`: every C test of `litmus/` compiled with every shipped mapping (`litmus compile
--mapping M`), and herd7 run on each compiled test (`-model ppc.cat`, `aarch64.cat`; X86_64
with herd7's own default model), at --unroll, under --herd-timeout seconds. One JSON line
per (file, mapping): herd7's final states, observation, witness counts and `Loop`, or
`timeout`, `not-compiled`, `error`. tests/hardware.rs reads the file and checks that
`litmus check --model M` on the C test gives herd7's answer wherever herd7 finished.

`compare`: the same check from the command line, through the binary: `litmus check --model
M --mapping MAP --unroll U --format json FILE` against each recorded answer; prints the
disagreements and a count; exit status 1 when some disagree.

herdtools7 itself is never copied into the repository: only its answers are.
"""
import argparse
import concurrent.futures as cf
import json
import os
import re
import subprocess
import sys
import tempfile
import time

MAPPINGS = ["x86", "aarch64-llsc", "aarch64-lse", "ppc-lwsync", "ppc-sync"]
MODEL = {"x86": "x86tso", "aarch64-llsc": "armv8", "aarch64-lse": "armv8",
         "ppc-lwsync": "power", "ppc-sync": "power"}
# X86_64: herd7's default for it is `x86tso-mixed.cat`, another model than our x86tso (it
# allows more on some tests); herd7 runs our `cat/x86tso.cat`, so that its answers compare
# the engines. POWER and ARMv8: herd's own `ppc.cat` and `aarch64.cat`.
HERD_MODEL = {"x86": ["-model", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                             "cat", "x86tso.cat")],
              "aarch64-llsc": ["-model", "aarch64.cat"],
              "aarch64-lse": ["-model", "aarch64.cat"], "ppc-lwsync": ["-model", "ppc.cat"],
              "ppc-sync": ["-model", "ppc.cat"]}
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def norm(s):
    """A final state as a set of `loc=value` items: herd writes `[x]=1`, ours may too."""
    return ";".join(sorted(x.replace(" ", "") for x in s.split(";") if x.strip()))


def c_tests():
    out = []
    for root, dirs, files in os.walk(os.path.join(ROOT, "litmus")):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(root, f)
            if f.endswith(".litmus"):
                with open(p, errors="replace") as fh:
                    if fh.readline().split()[:1] == ["C"]:
                        out.append(os.path.relpath(p, ROOT))
    return out


# herd7 7.58's PPC has no doubleword LL/SC or compare (`ldarx`, `stdcx.`, `cmpd`, `cmpdi`:
# its lexer knows only the word forms), which the kernel's 64-bit atomics compile to. herd's
# values have no width (tests that are not mixed-size), so the word forms are the same
# test to herd7: it is given those, and the record says so (`herd_dialect`).
WORD_FORMS = [(r"\bldarx\b", "lwarx"), (r"\bstdcx\.", "stwcx."), (r"\bcmpdi\b", "cmpwi"),
              (r"\bcmpd\b", "cmpw")]


def herd_dialect(text):
    out = text
    for pat, word in WORD_FORMS:
        out = re.sub(pat, word, out)
    return out


def herd(args, mapping, text):
    with tempfile.NamedTemporaryFile("w", suffix=".litmus", delete=False) as f:
        f.write(herd_dialect(text))
        path = f.name
    start = time.time()
    try:
        p = subprocess.run([args.herd, "-unroll", str(args.unroll)] + HERD_MODEL[mapping] + [path],
                           capture_output=True, text=True, timeout=args.herd_timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout"}
    finally:
        os.unlink(path)
    m = re.search(r"^States \d+\n(.*?)^(Loop )?(Ok|No)$", p.stdout, re.S | re.M)
    o = re.search(r"^Observation \S+ (\w+) (\d+) (\d+)", p.stdout, re.M)
    if not m or not o:
        return {"status": "error", "message": (p.stderr or p.stdout).strip()[-300:]}
    states = [l.strip() for l in m.group(1).strip().splitlines() if l.strip()]
    return {"status": "ok", "states": states, "observation": o.group(1),
            "pos": int(o.group(2)), "neg": int(o.group(3)), "loop": bool(m.group(2)),
            "herd_seconds": round(time.time() - start, 3)}


def record_one(args, test, mapping):
    c = subprocess.run([args.bin, "compile", "--mapping", mapping, test], cwd=ROOT,
                       capture_output=True, text=True)
    base = {"file": test, "mapping": mapping, "model": MODEL[mapping], "unroll": args.unroll}
    if c.returncode != 0:
        return {**base, "status": "not-compiled", "message": c.stderr.strip()[-300:]}
    out = {**base, **herd(args, mapping, c.stdout)}
    if herd_dialect(c.stdout) != c.stdout:
        out["herd_dialect"] = "doubleword LL/SC and compares given to herd7 as word forms"
    return out


def record(args):
    jobs = [(t, m) for t in c_tests() for m in MAPPINGS]
    old = {}
    if args.redo:
        # Only the records of these statuses run again; the others are kept.
        for line in open(args.out):
            r = json.loads(line)
            old[(r["file"], r["mapping"])] = r
        jobs = [j for j in jobs if j not in old or (old[j]["status"] in args.redo.split(",")
                                                      and j[1] in args.mappings.split(","))]
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        redone = {tm: r for tm, r in zip(jobs, ex.map(lambda tm: record_one(args, *tm), jobs))}
    recs = [redone.get((t, m)) or old[(t, m)] for t in c_tests() for m in MAPPINGS]
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        for r in recs:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    count = {}
    for r in recs:
        count[r["status"]] = count.get(r["status"], 0) + 1
    print(f"{len(recs)} compiled tests: {count}")


def compare(args):
    bad = same = skipped = 0
    for line in open(args.answers):
        h = json.loads(line)
        if h["status"] != "ok":
            continue
        p = subprocess.run([args.bin, "check", "--model", h["model"], "--mapping", h["mapping"],
                            "--unroll", str(h["unroll"]), "--timeout", str(args.timeout),
                            "--format", "json", h["file"]], cwd=ROOT, capture_output=True,
                           text=True)
        ours = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
        if not ours or ours[0].get("status") != "ok":
            skipped += 1
            continue
        o = ours[0]
        mine = sorted(norm(";".join(f"{k}={v}" for k, v in s.items())) for s in o["states"])
        theirs = sorted(norm(s) for s in h["states"])
        if mine != theirs or o["observation"] != h["observation"]:
            bad += 1
            print(f"{h['file']}@{h['mapping']}: ours {o['observation']} {mine} "
                  f"herd7 {h['observation']} {theirs}")
        else:
            same += 1
    print(f"{same} agree, {bad} disagree, {skipped} not answered by litmus within {args.timeout} s")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--bin", required=True)
    r.add_argument("--herd", default="/work/tools/bin/herd7")
    r.add_argument("--unroll", type=int, default=1)
    r.add_argument("--herd-timeout", type=float, default=20)
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--out", default=os.path.join(ROOT, "litmus/compiled/herd7-answers.jsonl"))
    r.add_argument("--redo", default="", help="statuses to run again (error,timeout), keeping the rest")
    r.add_argument("--mappings", default=",".join(MAPPINGS), help="with --redo: only these")
    c = sub.add_parser("compare")
    c.add_argument("--bin", required=True)
    c.add_argument("--timeout", type=float, default=10)
    c.add_argument("--answers", default=os.path.join(ROOT, "litmus/compiled/herd7-answers.jsonl"))
    args = ap.parse_args()
    args.bin = os.path.abspath(args.bin)
    if args.cmd == "record":
        record(args)
        return 0
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
