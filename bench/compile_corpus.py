#!/usr/bin/env python3
"""Compile every C test of the corpus with every shipped mapping, check the compiled
tests against herd7, and compare each hardware's answers with the LKMM's.

For each C test (every `*.litmus` file of the corpus whose architecture is C):

* `litmus compile --mapping M` for each mapping M (ppc-lwsync, ppc-sync, aarch64-llsc,
  aarch64-lse, x86): the compiled test, or why it does not compile;
* one `litmus check --compile --format json` with every mapping: the LKMM's answer on the C
  test, our answer on each compiled test (in herd's form) and the comparison, state by
  state, of the LKMM with each compiled form;
* herd7 on each compiled test (`-model ppc.cat`, `aarch64.cat`; X86_64 with herd's own
  default, `x86tso-mixed.cat`), compared with our answer on it: final states and
  observation, and also witness counts and herd's `Loop` flag.

Every process runs under `nice -n 10`, at most --jobs at a time, each `litmus` with one
worker thread; litmus gets --timeout seconds per judgement (the LKMM's, each compiled
form's), herd7 --herd-timeout seconds per compiled test (a run over it is killed and
counted as a timeout). herd7 is not run on a compiled test that took litmus over its
timeout (herd7 is one to three orders of magnitude slower), nor on ppc-sync's and
aarch64-lse's when it timed out on ppc-lwsync's and aarch64-llsc's (the same test with a
`sync` for an `lwsync`; CAS loops, which cost more than LL/SC ones): those count as
"not run", apart from herd7's own timeouts. --unroll N is passed to both (herd's
`-unroll`); --timeouts-of FILE runs only the tests that FILE's run left undetermined
(to judge them again at, say, --unroll 0, where a lock, LL/SC or CAS loop succeeds at its
first attempt).

Results go to --out as JSON lines, one per finished step, and a rerun with the same --out
skips what is there (--fresh starts over), so a run of hours can be stopped and resumed.
Each record is a digest (what the summary needs: statuses, counts, a hash of each
final-state set, and the first few states of each list that separates mappings, with its
length), for a test's whole answer can run to millions of states; memory holds the
digests and a compiled test's text only while its test is in flight.

    bench/compile_corpus.py --bin target/release/litmus [--corpus ../shared/corpus]
        [--herd /work/herd/bin/herd7] [--timeout 10] [--herd-timeout 60] [--jobs 2]
        [--unroll 2] [--timeouts-of FILE] [--only SUBSTR] [--out compile-corpus.jsonl]
        [--fresh] [--summary-only]

Prints, per mapping: compiled / not compiled (by reason), agreement with herd7, timeouts;
then the tests that separate ppc-lwsync from ppc-sync, the tests where the LKMM allows a
state some mapping's compiled form never reaches (per mapping and per architecture), and
every unsound state (a compiled form reaches it, the LKMM forbids it).
"""
import argparse
import collections
import concurrent.futures as cf
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import threading

MAPPINGS = ["ppc-lwsync", "ppc-sync", "aarch64-llsc", "aarch64-lse", "x86"]
ARCH = {"ppc-lwsync": "PPC", "ppc-sync": "PPC", "aarch64-llsc": "AArch64",
        "aarch64-lse": "AArch64", "x86": "X86_64"}
HERD_MODEL = {"ppc-lwsync": ["-model", "ppc.cat"], "ppc-sync": ["-model", "ppc.cat"],
              "aarch64-llsc": ["-model", "aarch64.cat"], "aarch64-lse": ["-model", "aarch64.cat"],
              "x86": []}
# litmus's own model files, for herd7 to run when it disagrees: the same answer then is
# a difference between the two models, not between the two engines.
CAT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cat")
OUR_MODEL = {"ppc-lwsync": "power.cat", "ppc-sync": "power.cat", "aarch64-llsc": "armv8.cat",
             "aarch64-lse": "armv8.cat", "x86": "x86tso.cat"}
NICE = ["nice", "-n", "10"]


def norm_state(s):
    return ";".join(sorted(x.replace(" ", "") for x in s.split(";") if x.strip()))


def c_tests(corpus, only):
    out = []
    for root, dirs, files in os.walk(corpus):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith(".litmus"):
                continue
            p = os.path.join(root, f)
            try:
                with open(p, errors="replace") as fh:
                    first = fh.readline().split()
            except OSError:
                continue
            if first and first[0] == "C" and only in p:
                out.append(p)
    return out


def run(cmd, timeout):
    """(returncode, stdout, stderr), or None when over the timeout (the process is killed)."""
    try:
        p = subprocess.run(NICE + cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return p.returncode, p.stdout, p.stderr


def compile_one(args, test, mapping):
    p = subprocess.run([args.bin, "compile", "--mapping", mapping, test],
                       capture_output=True, text=True)
    if p.returncode == 0:
        return {"compiled": True, "text": p.stdout}
    msg = p.stderr.strip().splitlines()[0] if p.stderr.strip() else "no message"
    msg = msg.split("does not compile with %s: " % mapping)[-1]
    return {"compiled": False, "reason": msg}


def reason_kind(msg):
    """The reason without its place: `X` has no entry / has no instruction sequence / ..."""
    msg = re.sub(r"^P\d+(, line [\d:]+)?: ", "", msg)
    m = re.match(r"(`[^`]+` has no instruction sequence)", msg)
    if m:
        return m.group(1)
    m = re.match(r"(`[^`]+` has no entry in mapping) \S+", msg)
    if m:
        return m.group(1)
    return re.sub(r"\(shipped:[^)]*\)", "", msg).strip()


def check_compile(args, test):
    cmd = [args.bin, "check", "--compile", "--format", "json", "--jobs", "1",
           "--timeout", str(args.timeout), "--unroll", str(args.unroll)]
    for m in MAPPINGS:
        cmd += ["--mapping", m]
    r = run(cmd + [test], 7 * args.timeout + 120)
    if r is None:
        return {"status": "process-timeout"}
    code, out, err = r
    line = out.strip().splitlines()
    if not line:
        return {"status": "error", "message": err.strip()[-500:]}
    return {"status": "ok", "record": json.loads(line[0]), "exit": code,
            "stderr": err.strip()[-500:]}


def herd_answer(args, mapping, text, model=None):
    with tempfile.NamedTemporaryFile("w", suffix=".litmus", delete=False) as f:
        f.write(text)
        path = f.name
    model = model or HERD_MODEL[mapping]
    try:
        r = run([args.herd, "-unroll", str(args.unroll)] + model + [path], args.herd_timeout)
    finally:
        os.unlink(path)
    if r is None:
        return {"status": "timeout"}
    code, out, err = r
    m = re.search(r"^States \d+\n(.*?)^(Loop )?(Ok|No)$", out, re.S | re.M)
    o = re.search(r"^Observation \S+ (\w+) (\d+) (\d+)", out, re.M)
    if not m or not o:
        return {"status": "error", "message": (err or out).strip()[-400:]}
    states = [l.strip() for l in m.group(1).strip().splitlines() if l.strip()]
    return {"status": "ok", "states": states, "observation": o.group(1),
            "pos": int(o.group(2)), "neg": int(o.group(3)), "loop": bool(m.group(2))}


SHOWN = 12  # states kept (and printed) per list; more are counted, not kept


def answer_digest(a):
    """An answer (ours on a compiled test, or herd7's) without its final states: their
    number, a hash of the normalised set, and the first SHOWN of them to print. A digest
    is its own digest."""
    if "states_hash" in a:
        return a
    keep = {k: v for k, v in a.items() if k not in ("states", "herd", "forbidden_by", "witness")}
    if "states" in a:
        norm = sorted(map(norm_state, a["states"]))
        keep["nstates"] = len(norm)
        keep["states_hash"] = hashlib.sha1("\n".join(norm).encode()).hexdigest()
        keep["states"] = a["states"][:SHOWN]
    if "message" in a:
        keep["message"] = a["message"][-400:]
    if "with_litmus_model" in a:
        keep["with_litmus_model"] = answer_digest(a["with_litmus_model"])
    return keep


def check_digest(r):
    """`litmus check --compile`'s record on one C test, reduced to what the summary uses:
    each column's answer digest, the LKMM's status, and the states that separate the
    lwsync/sync unlocks, that the LKMM allows and an architecture never reaches, and the
    unsound ones (each list cut at SHOWN, with its length)."""
    if r.get("status") != "ok":
        return {k: v for k, v in r.items() if k != "record"}
    rec = r["record"]
    r = {"file": r["file"], "task": r["task"]}
    cols = {x["mapping"]: x for x in rec["columns"]}
    ok = lambda m: cols.get(m, {}).get("status") == "ok"
    d = {**r, "status": "ok", "lkmm_status": rec["lkmm"]["status"],
         "lkmm_observation": rec["lkmm"].get("observation"),
         "columns": [answer_digest(c) for c in rec["columns"]], "compared": "states" in rec}
    if "states" not in rec:
        return d
    rows = rec["states"]
    cut = lambda xs: {"n": len(xs), "first": xs[:SHOWN]}
    if ok("ppc-lwsync") and ok("ppc-sync"):
        lw = [x["state"] for x in rows if x["hw"].get("ppc-lwsync") and not x["hw"].get("ppc-sync")]
        sy = [x["state"] for x in rows if x["hw"].get("ppc-sync") and not x["hw"].get("ppc-lwsync")]
        if lw or sy:
            d["sep"] = {"lkmm": rec["lkmm"]["observation"], "lw": cols["ppc-lwsync"]["observation"],
                        "sy": cols["ppc-sync"]["observation"], "only_lw": cut(lw), "only_sy": cut(sy),
                        "lkmm_forbids_lw": [s for s in lw if any(
                            x["state"] == s and not x["lkmm"] for x in rows)][:SHOWN]}
    d["unsound"] = ["%s reaches %s" % (u["mapping"], u["state"]) for u in rec["unsound"]]
    d["weaker"] = {m: {"cut_by_unroll": cols[m]["loop"], **cut(st)}
                   for m, st in rec["lkmm_weaker_than"].items() if st}
    d["weaker_arch"] = {}
    for arch in ("PPC", "AArch64", "X86_64"):
        ms = [m for m in MAPPINGS if ARCH[m] == arch and ok(m)]
        if ms:
            st = [x["state"] for x in rows if x["lkmm"] and not any(x["hw"].get(m) for m in ms)]
            if st:
                d["weaker_arch"][arch] = {"cut_by_unroll": any(cols[m]["loop"] for m in ms), **cut(st)}
    return d


def digest(r):
    """What memory keeps of one record of --out (see the module's doc)."""
    if r["task"] == "check":
        return check_digest(r)
    if r["task"].startswith("compile:"):
        return {k: v for k, v in r.items() if k != "text"}
    return answer_digest(r)


def agreement(ours, herd):
    """'agree' (states, observation, witnesses and Loop), 'agree-answer' (states and
    observation only), or 'DISAGREE'. Both are digests."""
    if ours["states_hash"] != herd["states_hash"] or ours["observation"] != herd["observation"]:
        return "DISAGREE"
    if (ours["pos"], ours["neg"], ours["loop"]) != (herd["pos"], herd["neg"], herd["loop"]):
        return "agree-answer"
    return "agree"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    here = os.path.dirname(os.path.abspath(__file__))
    # ../shared/corpus beside the checkout (or beside the folder of a git worktree's).
    corpora = [os.path.join(here, "../../shared/corpus"), os.path.join(here, "../../../shared/corpus")]
    ap.add_argument("--corpus", default=next((c for c in corpora if os.path.isdir(c)), corpora[0]))
    ap.add_argument("--herd", default="/work/herd/bin/herd7")
    ap.add_argument("--only", default="")
    ap.add_argument("--timeout", type=float, default=10)
    ap.add_argument("--herd-timeout", type=float, default=60)
    ap.add_argument("--unroll", type=int, default=2)
    ap.add_argument("--timeouts-of", default=None)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default="compile-corpus.jsonl")
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--summary-only", action="store_true")
    args = ap.parse_args()
    corpus = os.path.realpath(args.corpus)
    if not os.path.isdir(corpus):
        sys.exit("no corpus at %s: nothing checked" % corpus)
    if not os.path.exists(args.herd):
        print("warning: no herd7 at %s: herd7 agreement NOT checked" % args.herd, file=sys.stderr)
        args.herd = None
    tests = c_tests(corpus, args.only)
    if args.timeouts_of:
        undetermined = set()
        for line in open(args.timeouts_of):
            r = json.loads(line)
            if r["task"] == "check" and (r.get("status") != "ok" or r["lkmm_status"] == "timeout"
                                         or any(x["status"] == "timeout" for x in r["columns"])):
                undetermined.add(r["file"])
        tests = [t for t in tests if t in undetermined]
    done = {}
    if os.path.exists(args.out) and not args.fresh:
        for line in open(args.out):
            r = json.loads(line)
            done[(r["file"], r["task"])] = r
    if not args.summary_only:
        lock = threading.Lock()
        out = open(args.out, "a" if not args.fresh else "w")

        def record(r):
            r = digest(r)
            with lock:
                done[(r["file"], r["task"])] = r
                out.write(json.dumps(r) + "\n")
                out.flush()

        texts = {}  # (test, mapping) -> compiled text, while the test is in flight

        def compile_task(t):
            for m in MAPPINGS:
                if (t, "compile:" + m) not in done:
                    c = compile_one(args, t, m)
                    record({"file": t, "task": "compile:" + m, **c})
                    if c["compiled"]:
                        texts[(t, m)] = c["text"]

        def ours(t, m):
            c = done.get((t, "check"), {})
            for col in c.get("columns", []):
                if col["mapping"] == m:
                    return col
            return {}

        def test_task(t):
            compile_task(t)
            if (t, "check") not in done:
                record({"file": t, "task": "check", **check_compile(args, t)})
            if not args.herd:
                return
            for m in ["x86", "ppc-lwsync", "ppc-sync", "aarch64-llsc", "aarch64-lse"]:
                if (t, "herd:" + m) in done or not done[(t, "compile:" + m)]["compiled"]:
                    continue
                sibling = {"ppc-sync": "ppc-lwsync", "aarch64-lse": "aarch64-llsc"}.get(m)
                if ours(t, m).get("status") != "ok":
                    h = {"status": "not-run", "why": "litmus: %s" % ours(t, m).get("status", "no answer")}
                elif sibling and done.get((t, "herd:" + sibling), {}).get("status") == "timeout":
                    h = {"status": "not-run", "why": "herd7 timed out on " + sibling}
                else:
                    text = texts.pop((t, m), None) or compile_one(args, t, m)["text"]
                    h = answer_digest(herd_answer(args, m, text))
                    if h["status"] == "ok" and agreement(ours(t, m), h) == "DISAGREE":
                        h["with_litmus_model"] = herd_answer(
                            args, m, text, ["-I", CAT, "-model", os.path.join(CAT, OUR_MODEL[m])])
                record({"file": t, "task": "herd:" + m, **h})
            for m in MAPPINGS:
                texts.pop((t, m), None)

        n = len(tests)
        with cf.ThreadPoolExecutor(args.jobs) as ex:
            futs = [ex.submit(test_task, t) for t in tests]
            for k, f in enumerate(cf.as_completed(futs), 1):
                f.result()
                if k % 50 == 0 or k == n:
                    print("%d/%d tests" % (k, n), file=sys.stderr, flush=True)
        out.close()
    summary(tests, done, corpus)


def summary(tests, done, corpus):
    rel = lambda f: os.path.relpath(f, corpus)
    print("%d C tests in %s" % (len(tests), corpus))
    ours_of = {}
    for t in tests:
        c = done.get((t, "check"))
        if c and c.get("status") == "ok":
            for col in c["columns"]:
                ours_of[(t, col["mapping"])] = col
    print("\n| mapping | compiled | not compiled | litmus timeout | herd7 and litmus agree | of which also witnesses and Loop | disagree | herd7 timeout | herd7 not run | herd7 error |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    reasons = collections.defaultdict(collections.Counter)
    disagreements = []
    for m in MAPPINGS:
        comp = [t for t in tests if done.get((t, "compile:" + m), {}).get("compiled")]
        for t in tests:
            c = done.get((t, "compile:" + m))
            if c and not c["compiled"]:
                reasons[m][reason_kind(c["reason"])] += 1
        agree = full = dis = htime = herr = otime = notrun = 0
        for t in comp:
            h = done.get((t, "herd:" + m), {})
            o = ours_of.get((t, m), {})
            if o.get("status") == "timeout":
                otime += 1
            if h.get("status") == "timeout":
                htime += 1
            elif h.get("status") == "not-run":
                notrun += 1
            elif h.get("status") == "error":
                herr += 1
                disagreements.append("%s %s: herd7 error: %s" % (m, rel(t), h.get("message", "")[-200:]))
            if h.get("status") == "ok" and o.get("status") == "ok":
                a = agreement(o, h)
                if a == "DISAGREE":
                    dis += 1
                    w = h.get("with_litmus_model", {})
                    kind = ""
                    if w.get("status") == "ok":
                        same = agreement(o, w) != "DISAGREE"
                        kind = " [herd7 with litmus's %s: %s]" % (
                            OUR_MODEL[m], "same answer as litmus (the model files differ)" if same
                            else "still differs")
                    disagreements.append("%s %s: herd7 %s %s %s/%s%s, litmus %s %s %s/%s%s%s" % (
                        m, rel(t), h["observation"], h["states"], h["pos"], h["neg"], " Loop" if h["loop"] else "",
                        o["observation"], o["states"], o["pos"], o["neg"], " Loop" if o["loop"] else "", kind))
                else:
                    agree += 1
                    if a == "agree":
                        full += 1
                    else:
                        disagreements.append("%s %s: same answer, witnesses/Loop differ: herd7 %s/%s%s, litmus %s/%s%s" % (
                            m, rel(t), h["pos"], h["neg"], " Loop" if h["loop"] else "",
                            o["pos"], o["neg"], " Loop" if o["loop"] else ""))
        not_comp = sum(1 for t in tests if done.get((t, "compile:" + m), {}).get("compiled") is False)
        print("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d |" % (
            m, len(comp), not_comp, otime, agree, full, dis, htime, notrun, herr))
    print("\nnot compiled, by reason (the same tests for every mapping unless said):")
    allr = collections.Counter()
    for m in MAPPINGS:
        allr.update({k: v for k, v in reasons[m].items()})
    for why, n in sorted(allr.items(), key=lambda x: -x[1]):
        per = {m: reasons[m][why] for m in MAPPINGS}
        same = len(set(per.values())) == 1
        print("   %4d  %s%s" % (per[MAPPINGS[0]] if same else n, why,
                                "" if same else "  (%s)" % ", ".join("%s %d" % kv for kv in per.items())))
    if disagreements:
        print("\nherd7 vs litmus on compiled tests, differences:")
        for d in disagreements:
            print("   " + d)

    # LKMM against each compiled form.
    sep, unsound = [], []
    weaker = {m: [] for m in MAPPINGS}
    weaker_cut = {m: [] for m in MAPPINGS}
    weaker_arch = collections.defaultdict(list)
    lk_status = collections.Counter()
    compared = 0
    shown = lambda c: " | ".join(c["first"]) + (" (and %d more)" % (c["n"] - len(c["first"]))
                                              if c["n"] > len(c["first"]) else "")
    for t in tests:
        c = done.get((t, "check"))
        if not c or c.get("status") != "ok":
            lk_status[c.get("status") if c else "not run"] += 1
            continue
        lk_status["lkmm " + c["lkmm_status"]] += 1
        if not c["compared"]:
            continue
        compared += 1
        if "sep" in c:
            sep.append((rel(t), c["sep"]))
        unsound += ["%s: %s" % (rel(t), u) for u in c["unsound"]]
        for m, w in c["weaker"].items():
            (weaker_cut if w["cut_by_unroll"] else weaker)[m].append((rel(t), shown(w)))
        for arch, w in c["weaker_arch"].items():
            weaker_arch[arch].append((rel(t), w["cut_by_unroll"]))
    print("\nLKMM vs compiled forms: %d tests compared (%s)" % (
        compared, ", ".join("%s %d" % kv for kv in sorted(lk_status.items()))))
    print("\ntests that separate the lwsync and sync unlocks on POWER: %d" % len(sep))
    for f, x in sep:
        print("   %s: lkmm %s, ppc-lwsync %s, ppc-sync %s; only lwsync reaches %s%s%s" % (
            f, x["lkmm"], x["lw"], x["sy"], shown(x["only_lw"]) or "-",
            ("; only sync reaches " + shown(x["only_sy"])) if x["only_sy"]["n"] else "",
            "  (LKMM FORBIDS %s)" % " ".join(x["lkmm_forbids_lw"]) if x["lkmm_forbids_lw"] else ""))
    print("\ntests where the LKMM allows a state the compiled form never reaches:")
    print("   (complete: the compiled test's runs were not cut by -unroll; cut: some were, so the state may need more iterations)")
    for m in MAPPINGS:
        print("   %-13s %4d complete, %4d cut" % (m, len(weaker[m]), len(weaker_cut[m])))
    for arch in ("PPC", "AArch64", "X86_64"):
        w = weaker_arch[arch]
        print("   %-13s %4d (no variant reaches it; %d with runs cut)" % (arch, len(w), sum(1 for x in w if x[1])))
    for m in MAPPINGS:
        for f, st in weaker[m]:
            print("   %s complete: %s: %s" % (m, f, st))
    print("\nunsound states (a compiled form reaches it, the LKMM forbids it): %d" % len(unsound))
    for u in unsound:
        print("   " + u)


if __name__ == "__main__":
    main()
