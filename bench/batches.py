#!/usr/bin/env python3
"""Speed as users see it: one process per corpus source (`litmus check --jobs 1 FILES`), and
the big tests one process each; optionally herd7 in one process on the same files.

    bench/batches.py [--bin A [--bin B ...]] [--jobs 1 --jobs 2] [--herd HERD7 [--herd-libdir DIR]]
                     [--corpus ../shared/corpus] [--repeat 3] [--json OUT]

Each source is the list of files herd7 answered in `expected/SOURCE.jsonl` (status ok), run
in one process with the model herd7 used. With several --bin, their runs alternate (A B A B
...) so that the machine's drift touches each alike. Each binary's column is the best of
--repeat runs: CPU seconds (user + system) and, in brackets, wall seconds; peak memory is
the process's maximum resident set (from /usr/bin/time when present). Each --jobs gives
every binary a column per worker count (`--jobs 0`: the default, all cores), which is how
the cost of splitting work over workers shows: the same CPU, less wall time. A benchmark,
not a test: it asserts nothing and prints a table.
"""
import argparse, json, os, subprocess, sys, tempfile, time
from pathlib import Path

MODEL_ARGS = {  # litmus's names for the models herd7's answers were made under
    "lkmm": ["--model", "lkmm"], "x86tso": ["--model", "x86tso"],
    "armv8": ["--model", "armv8"], "power": ["--model", "power"],
}
HERD_ARGS = {
    "lkmm": ["-conf", "linux-kernel.cfg"], "x86tso": ["-model", "x86tso.cat"],
    "armv8": ["-model", "aarch64.cat"], "power": ["-model", "ppc.cat"],
}
BIG = [  # (label, path relative to the corpus)
    ("lock -C 5p", "perfbook/CodeSamples/formal/herd/C-SB+l-o-o-u+l-o-o-u+l-o-o-u+l-o-o-u+l-o-o-u-C.litmus"),
    ("lock -X 5p", "perfbook/CodeSamples/formal/herd/C-SB+l-o-o-u+l-o-o-u+l-o-o-u+l-o-o-u+l-o-o-u-X.litmus"),
    ("lock -CE 5p", "perfbook/CodeSamples/formal/herd/C-SB+l-o-o-u+l-o-o-u+l-o-o-u+l-o-o-u+l-o-o-u-CE.litmus"),
    ("lock -XE 5p", "perfbook/CodeSamples/formal/herd/C-SB+l-o-o-u+l-o-o-u+l-o-o-u+l-o-o-u+l-o-o-u-XE.litmus"),
    ("lock -XE 4p", "perfbook/CodeSamples/formal/herd/C-SB+l-o-o-u+l-o-o-u+l-o-o-u+l-o-o-u-XE.litmus"),
    ("RCU ring 16p", "paulmckrcu-litmus/auto/C-RW-G+RW-R+RW-G+RW-R+RW-G+RW-R+RW-G+RW-R+RW-G+RW-R+RW-G+RW-R+RW-G+RW-R+RW-G+RW-R.litmus"),
    ("RCU ring 18p", "paulmckrcu-litmus/auto/C-RW-G+RW-R+RW-G+RW-R+RW-G+RW-R+RW-G+RW-R+RW-G+RW-R+RW-G+RW-R+RW-G+RW-R+RW-G+RW-R+RW-G+RW-R.litmus"),
    ("RCU ring 19p", "paulmckrcu-litmus/auto/C-RW-G+RW-G+RW-R+RW-R+RW-R+RW-R+RW-G+RW-G+RW-G+RW-G+RW-R+RW-R+RW-R+RW-R+RW-G+RW-G+RW-G+RW-G+RW-G.litmus"),
    ("RCU ring 8p", "paulmckrcu-litmus/auto/C-RR-G+RR-R+RR-R+RR-R+RR-R+RR-R+RR-R+RR-R.litmus"),
    ("ManfredSpraul L1G2xchg", "paulmckrcu-litmus/manual/kernel/C-ManfredSpraul-L1G2xchg.litmus"),
    ("ManfredSpraul L1G2lock", "paulmckrcu-litmus/manual/kernel/C-ManfredSpraul-L1G2lock.litmus"),
    ("ManfredSpraul L1G1lock", "paulmckrcu-litmus/manual/kernel/C-ManfredSpraul-L1G1lock.litmus"),
]


TIME = "/usr/bin/time" if os.path.exists("/usr/bin/time") else None


def timed(cmd, cwd=None):
    """(CPU seconds, wall seconds, peak RSS MiB or None) of one process."""
    rss_file = None
    if TIME:
        fd, rss_file = tempfile.mkstemp()
        os.close(fd)
        cmd = [TIME, "-f", "%M", "-o", rss_file] + cmd
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    mib = None
    if rss_file:
        try:
            mib = int(Path(rss_file).read_text().split()[-1]) / 1024.0
        except (ValueError, IndexError):
            pass
        os.unlink(rss_file)
    return ru.ru_utime + ru.ru_stime, wall, mib


def best(cmds, repeat, cwd=None):
    """The best run of each command, the commands' runs alternating."""
    runs = [[] for _ in cmds]
    for _ in range(repeat):
        for k, c in enumerate(cmds):
            runs[k].append(timed(c, cwd))
    return [(min(r[0] for r in rs), min(r[1] for r in rs), max((r[2] or 0) for r in rs))
            for rs in runs]


def sources(corpus, only):
    for exp in sorted((corpus / "expected").glob("*.jsonl")):
        if only and only not in exp.stem:
            continue
        by_model = {}
        for line in exp.read_text().splitlines():
            if not line.strip():
                continue
            d = json.loads(line)
            if d.get("status") == "ok":
                by_model.setdefault(d["model"], []).append(str(corpus / d["file"]))
        for model, files in sorted(by_model.items()):
            yield exp.stem, model, files


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", action="append", help="litmus binaries to compare (default target/release/litmus)")
    ap.add_argument("--corpus", default="../shared/corpus")
    ap.add_argument("--herd", help="herd7 binary, to time it in one process on the same files")
    ap.add_argument("--herd-libdir", help="herd7's -set-libdir")
    ap.add_argument("--herd-conf-dir", default="../shared/kernel-memory-model",
                    help="folder with linux-kernel.cfg, herd7's working folder for C tests")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--jobs", type=int, action="append",
                    help="worker counts to run each binary with (0: the default); default 1")
    ap.add_argument("--only", help="sources whose name contains this")
    ap.add_argument("--no-big", action="store_true")
    ap.add_argument("--no-batches", action="store_true")
    ap.add_argument("--json", help="write the rows here")
    a = ap.parse_args()
    corpus = Path(a.corpus).resolve()
    if not (corpus / "expected").is_dir():
        sys.exit(f"bench: no corpus at {corpus} (give --corpus)")
    bins = [str(Path(b).resolve()) for b in (a.bin or ["target/release/litmus"])]
    jobs = a.jobs or [1]
    # One column per (binary, worker count).
    cols = [(b, j) for b in bins for j in jobs]
    jarg = lambda j: [] if j == 0 else ["--jobs", str(j)]
    rows = []
    head = f"{'source':32} {'model':6} {'tests':>5}"
    for b, j in cols:
        head += f" {Path(b).name[-14:] + ' j' + (str(j) if j else '*'):>25}"
    if a.herd:
        head += f" {'herd7 wall':>10} {'ratio':>7}"
    print(head)

    def line(label, model, n, res, h=None):
        out = f"{label[:32]:32} {model:6} {n:5}"
        for cpu, wall, mib in res:
            out += f" {cpu:8.3f} ({wall:7.3f}) {mib:5.0f}M"
        if h is not None:
            out += f" {h:10.2f} {h / res[0][1]:6.1f}x"
        print(out, flush=True)

    if not a.no_batches:
        for src, model, files in sources(corpus, a.only):
            res = best([[b, "check", *jarg(j), *MODEL_ARGS[model], *files] for b, j in cols], a.repeat)
            h = None
            if a.herd:
                hcmd = [a.herd] + (["-set-libdir", a.herd_libdir] if a.herd_libdir else []) + HERD_ARGS[model] + files
                h = best([hcmd], 1, cwd=a.herd_conf_dir if model == "lkmm" else None)[0][1]
            rows.append(dict(kind="batch", source=src, model=model, tests=len(files), herd=h,
                             runs={f"{b} j{j}": dict(cpu=c, wall=w, mib=m) for (b, j), (c, w, m) in zip(cols, res)}))
            line(src, model, len(files), res, h)
    if not a.no_big:
        for label, rel in BIG:
            f = corpus / rel
            if not f.exists():
                print(f"{label:32} missing: {f}", flush=True)
                continue
            res = best([[b, "check", *jarg(j), "--model", "lkmm", str(f)] for b, j in cols], a.repeat)
            rows.append(dict(kind="big", source=label, model="lkmm", tests=1,
                             runs={f"{b} j{j}": dict(cpu=c, wall=w, mib=m) for (b, j), (c, w, m) in zip(cols, res)}))
            line(label, "lkmm", 1, res)
    if a.json:
        Path(a.json).write_text("".join(json.dumps(r) + "\n" for r in rows))


if __name__ == "__main__":
    main()
