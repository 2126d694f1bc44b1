#!/usr/bin/env python3
"""Compile the corpus's C tests with every mapping and check the compiled tests.

For each C test (those herd7 answered under the LKMM, per ../shared/corpus/expected) and
each shipped mapping: `litmus compile`, then our answer on the compiled test against
herd7 7.58's (same final states, same observation), and once per test
`litmus check --compile --model all` (LKMM vs each hardware, state by state).

    bench/compile_corpus.py --bin target/release/litmus [--only SUBSTR] [--timeout 20]
        [--jobs 2] [--out results.jsonl]

Prints per mapping: compiled / not compiled (by reason), herd7 agreement, timeouts; and
the tests that separate ppc-lwsync from ppc-sync, the LKMM-weaker states, unsound states.
"""
import argparse, collections, concurrent.futures as cf, json, os, re, subprocess, sys, tempfile

MAPPINGS = {"ppc-lwsync": "ppc.cat", "ppc-sync": "ppc.cat", "aarch64-llsc": "aarch64.cat",
            "aarch64-lse": "aarch64.cat", "x86": "x86tso.cat"}


def herd_answer(herd, cat, path, timeout):
    try:
        p = subprocess.run([herd, "-model", cat, path], capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout"}
    out = p.stdout
    m = re.search(r"^States \d+\n(.*?)^(?:Loop )?(Ok|No)$", out, re.S | re.M)
    o = re.search(r"^Observation \S+ (\w+)", out, re.M)
    if not m or not o:
        return {"status": "error", "msg": (p.stderr or out)[-300:]}
    states = sorted(" ".join(l.split()) for l in m.group(1).strip().splitlines())
    return {"status": "ok", "states": states, "observation": o.group(1)}


def ours(binary, path, timeout):
    try:
        p = subprocess.run([binary, "check", "--format", "json", "--timeout", str(timeout), path],
                           capture_output=True, text=True, timeout=timeout + 30)
    except subprocess.TimeoutExpired:
        return {"status": "timeout"}
    if not p.stdout.strip():
        return {"status": "timeout" if "timed out" in p.stderr else "error", "msg": p.stderr[-300:]}
    j = json.loads(p.stdout.splitlines()[0])
    return {"status": "ok", "states": sorted(" ".join(s.split()) for s in j["states"]),
            "observation": j["observation"]}


def one(args, test, mapping):
    r = {"file": test, "mapping": mapping}
    p = subprocess.run([args.bin, "compile", "--mapping", mapping, test], capture_output=True, text=True)
    if p.returncode != 0:
        msg = p.stderr.strip().split("does not compile with %s: " % mapping)[-1]
        r["compiled"] = False
        r["reason"] = re.sub(r"^P\d+(, line [\d:]+)?: ", "", msg)
        return r
    r["compiled"] = True
    with tempfile.NamedTemporaryFile("w", suffix=".litmus", delete=False) as f:
        f.write(p.stdout)
        path = f.name
    try:
        r["ours"] = ours(args.bin, path, args.timeout)
        if args.herd:
            r["herd"] = herd_answer(args.herd, MAPPINGS[mapping], path, args.timeout)
    finally:
        os.unlink(path)
    return r


def compare_all(args, test):
    try:
        p = subprocess.run([args.bin, "check", "--compile", "--model", "all", "--format", "json",
                            "--timeout", str(args.timeout), test], capture_output=True, text=True,
                           timeout=6 * args.timeout + 60)
    except subprocess.TimeoutExpired:
        return {"file": test, "cmp": None}
    line = p.stdout.strip().splitlines()
    return {"file": test, "cmp": json.loads(line[0]) if line else None}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--corpus", default=os.path.join(os.path.dirname(__file__), "../../shared/corpus"))
    ap.add_argument("--herd", default="/work/herd/bin/herd7")
    ap.add_argument("--only", default="")
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default="compile-corpus.jsonl")
    args = ap.parse_args()
    corpus = os.path.realpath(args.corpus)
    exp = os.path.join(corpus, "expected")
    if not os.path.isdir(exp):
        sys.exit("no corpus at %s: nothing checked" % corpus)
    if not os.path.exists(args.herd):
        print("warning: no herd7 at %s: herd7 agreement not checked" % args.herd, file=sys.stderr)
        args.herd = None
    tests = []
    for fn in sorted(os.listdir(exp)):
        for line in open(os.path.join(exp, fn)):
            j = json.loads(line)
            if j["arch"] == "C" and j["status"] == "ok" and args.only in j["file"]:
                tests.append(os.path.join(corpus, j["file"]))
    results, cmps = [], []
    with cf.ThreadPoolExecutor(args.jobs) as ex, open(args.out, "w") as out:
        futs = [ex.submit(one, args, t, m) for t in tests for m in MAPPINGS]
        futs += [ex.submit(compare_all, args, t) for t in tests]
        for f in cf.as_completed(futs):
            r = f.result()
            out.write(json.dumps(r) + "\n")
            out.flush()
            (cmps if "cmp" in r else results).append(r)
    summary(tests, results, cmps, corpus)


def summary(tests, results, cmps, corpus):
    rel = lambda f: os.path.relpath(f, corpus)
    print("%d C tests" % len(tests))
    for m in MAPPINGS:
        rs = [r for r in results if r["mapping"] == m]
        comp = [r for r in rs if r["compiled"]]
        reasons = collections.Counter(r["reason"] for r in rs if not r["compiled"])
        agree = [r for r in comp if r.get("herd", {}).get("status") == "ok"
                 and r["ours"]["status"] == "ok"
                 and (r["herd"]["states"], r["herd"]["observation"]) == (r["ours"]["states"], r["ours"]["observation"])]
        both = [r for r in comp if r.get("herd", {}).get("status") == "ok" and r["ours"]["status"] == "ok"]
        print("\n%s: %d compile, %d do not" % (m, len(comp), len(rs) - len(comp)))
        for why, n in reasons.most_common():
            print("   %4d  %s" % (n, why))
        print("   herd7 and litmus both answered %d: agree on %d" % (len(both), len(agree)))
        for r in both:
            if r not in agree:
                print("   DISAGREE %s: herd %s %s, ours %s %s" % (rel(r["file"]), r["herd"]["observation"], r["herd"]["states"], r["ours"]["observation"], r["ours"]["states"]))
        print("   herd7 timed out %d, failed %d; litmus timed out %d, failed %d" % (
            sum(r.get("herd", {}).get("status") == "timeout" for r in comp),
            sum(r.get("herd", {}).get("status") == "error" for r in comp),
            sum(r["ours"]["status"] == "timeout" for r in comp),
            sum(r["ours"]["status"] == "error" for r in comp)))
    sep, weaker, unsound = [], collections.Counter(), []
    for c in cmps:
        j = c["cmp"]
        if not j:
            continue
        cols = {x["mapping"]: x for x in j["columns"]}
        a, b = cols.get("ppc-lwsync", {}), cols.get("ppc-sync", {})
        if "observation" in a and "observation" in b and a["observation"] != b["observation"]:
            sep.append("%s (lwsync %s, sync %s)" % (rel(c["file"]), a["observation"], b["observation"]))
        for m, states in j["lkmm_weaker_than"].items():
            if states:
                weaker[m] += 1
        for u in j["unsound"]:
            unsound.append("%s: %s reaches %s" % (rel(c["file"]), u["mapping"], u["state"]))
    print("\ntests that separate the lwsync and sync unlocks on POWER: %d" % len(sep))
    for s in sep:
        print("   " + s)
    print("tests with a state the LKMM allows and the mapping's hardware does not reach:")
    for m in MAPPINGS:
        print("   %-13s %d" % (m, weaker[m]))
    print("unsound states (hardware reaches, LKMM forbids): %d" % len(unsound))
    for u in unsound:
        print("   " + u)


if __name__ == "__main__":
    main()
