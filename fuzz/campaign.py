#!/usr/bin/env python3
"""A long fuzzing campaign on a shared machine, accounted in CPU time, resumable.

Runs the libFuzzer binaries that `.clusterfuzzlite/build.sh` puts in OUT, each over its own
working corpus, in chunks of CHUNK CPU-seconds (the last one only up to GOAL), always the
target with the least CPU time so far,
WORKERS at a time, at nice 19 so that builds and tests on the same machine go first. The
campaign is accounted in CPU time of the fuzzer process (utime + stime), not in wall time,
because a niced fuzzer on a busy machine may get a fraction of a core. Every chunk appends a
record to STATE (JSON): the commit it fuzzed, CPU and wall seconds, executions, edges and
features at the end, corpus size before and after, and whether it crashed; the campaign resumes
from STATE when started again, until every target has GOAL CPU-seconds.

    bash .ci/fuzz-build-check            # or build.sh with SRC/OUT/WORK set: the ASan binaries
    python3 fuzz/campaign.py run --out OUT --dir CAMPAIGN [--chunk 900] [--goal 3600] [--workers 2]
    touch CAMPAIGN/STOP                  # ends the running chunks (they are recorded)
    python3 fuzz/campaign.py report --dir CAMPAIGN      # the table of fuzz/README.md

OUT/T.commit, when present, names the commit T was built from (else `git rev-parse HEAD`).
Working corpora start from fuzz/corpus/T (decode_message's for the structured target); merge
them back with `-merge=1` (fuzz/README.md, "Minimising the corpus").
"""
import argparse
import json
import os
import re
import signal
import subprocess
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TICK = os.sysconf("SC_CLK_TCK")


class Campaign:
    def __init__(self, args):
        self.out, self.dir, self.repo = args.out, args.dir, args.repo
        self.chunk, self.goal = args.chunk, args.goal
        self.lock = threading.Lock()
        self.busy = set()
        os.makedirs(self.dir, exist_ok=True)

    # ---- state ----
    def load(self):
        try:
            with open(os.path.join(self.dir, "state.json")) as f:
                return json.load(f)
        except OSError:
            return {}

    def save(self, st):
        tmp = os.path.join(self.dir, "state.json.tmp")
        with open(tmp, "w") as f:
            json.dump(st, f, indent=1)
        os.replace(tmp, os.path.join(self.dir, "state.json"))

    def stopping(self):
        return os.path.exists(os.path.join(self.dir, "STOP"))

    # ---- targets ----
    def targets(self):
        return sorted(
            f for f in os.listdir(self.out)
            if os.path.isfile(os.path.join(self.out, f)) and os.access(os.path.join(self.out, f), os.X_OK)
        )

    def options(self, t):
        o = {}
        with open(os.path.join(self.out, f"{t}.options")) as f:
            for line in f:
                m = re.match(r"\s*(\w+)\s*=\s*(\S+)", line)
                if m:
                    o[m.group(1)] = m.group(2)
        return o

    def commit(self, t):
        p = os.path.join(self.out, f"{t}.commit")
        if os.path.exists(p):
            return open(p).read().strip()
        return subprocess.run(["git", "-C", self.repo, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip()

    def corpus(self, t):
        d = os.path.join(self.dir, "corpus", t)
        if not os.path.isdir(d):
            os.makedirs(d)
            seeds = os.path.join(self.repo, "fuzz/corpus",
                                 "decode_message" if t == "decode_message_structured" else t)
            if not os.path.isdir(seeds):
                # Fuzzing from nothing is legal but rarely meant: say so in the log.
                print(f"campaign: no seeds for {t} in {seeds}; starting from an empty corpus",
                      flush=True)
            for n in sorted(os.listdir(seeds)) if os.path.isdir(seeds) else []:
                with open(os.path.join(seeds, n), "rb") as src, open(os.path.join(d, n), "wb") as dst:
                    dst.write(src.read())
        return d

    # ---- one chunk ----
    @staticmethod
    def cpu_of(pid):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / TICK
        except OSError:
            return None

    def run_chunk(self, t, limit):
        o = self.options(t)
        art = os.path.join(self.dir, "artifacts", t) + "/"
        logs = os.path.join(self.dir, "logs")
        os.makedirs(art, exist_ok=True)
        os.makedirs(logs, exist_ok=True)
        d = self.corpus(t)
        before = len(os.listdir(d))
        # Read before the fuzzer starts: OUT may be swapped for a newer build mid-chunk.
        commit = self.commit(t)
        cmd = ["nice", "-n", "19", os.path.join(self.out, t), f"-max_len={o.get('max_len', '70000')}",
               "-print_final_stats=1", f"-artifact_prefix={art}", "-max_total_time=86400",
               "-timeout=30", "-rss_limit_mb=4096"]
        if "dict" in o:
            cmd.append(f"-dict={os.path.join(self.out, o['dict'])}")
        cmd.append(d)
        log = os.path.join(logs, f"{t}-{int(time.time())}.log")
        t0, cpu = time.time(), 0.0
        with open(log, "w") as lf:
            # nice(1) execs the fuzzer: the pid is the fuzzer's.
            p = subprocess.Popen(cmd, stdout=lf, stderr=subprocess.STDOUT)
            while p.poll() is None:
                time.sleep(5)
                c = self.cpu_of(p.pid)
                cpu = c if c is not None else cpu
                if cpu >= limit or self.stopping():
                    p.send_signal(signal.SIGINT)  # libFuzzer prints its final stats and exits
                    try:
                        p.wait(60)
                    except subprocess.TimeoutExpired:
                        p.kill()
                    break
            rc = p.wait()
        with open(log, errors="replace") as f:
            text = f.read()

        def stat(name):
            m = re.search(rf"stat::{name}:\s*(\d+)", text)
            return int(m.group(1)) if m else None

        status = re.findall(r"#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+)", text)
        rec = {
            "commit": commit, "cpu_s": round(cpu, 1), "wall_s": round(time.time() - t0, 1),
            "execs": stat("number_of_executed_units"), "peak_rss_mb": stat("peak_rss_mb"),
            "cov": int(status[-1][1]) if status else None, "ft": int(status[-1][2]) if status else None,
            "corpus_before": before, "corpus_after": len(os.listdir(d)), "rc": rc,
            # libFuzzer also writes a `slow-unit-*` file when a unit beats the slowest so far
            # (10 s by default): a report, not a crash. On a shared machine a chunk that was
            # paused (SIGSTOP) writes one when it resumes; replay it to tell.
            "crash": bool(re.search(r"Test unit written to \S*/(crash|leak|timeout|oom)-", text)),
            "slow_unit": stat("slowest_unit_time_sec"), "log": log,
        }
        with self.lock:
            st = self.load()
            e = st.setdefault(t, {"cpu_s": 0.0, "execs": 0, "runs": []})
            e["cpu_s"] = round(e["cpu_s"] + cpu, 1)
            e["execs"] += rec["execs"] or 0
            e["runs"].append(rec)
            self.save(st)
        print(time.strftime("%H:%M:%S"), t, json.dumps(rec), flush=True)

    def worker(self):
        while not self.stopping():
            with self.lock:
                st = self.load()
                todo = [t for t in self.targets()
                        if t not in self.busy and st.get(t, {}).get("cpu_s", 0) < self.goal
                        and not any(r["crash"] for r in st.get(t, {}).get("runs", []))]
                if not todo:
                    return
                t = min(todo, key=lambda t: st.get(t, {}).get("cpu_s", 0))
                self.busy.add(t)
                # The last chunk of a target stops at the goal instead of a whole chunk past it
                # (at least 30 s, so that the fuzzer does more than load its corpus).
                limit = max(30.0, min(self.chunk, self.goal - st.get(t, {}).get("cpu_s", 0)))
            try:
                self.run_chunk(t, limit)
            finally:
                with self.lock:
                    self.busy.discard(t)


def report(args):
    with open(os.path.join(args.dir, "state.json")) as f:
        st = json.load(f)
    print("| target | CPU time | chunks | executions | exec/s (CPU) | edges (`cov`) | features (`ft`) | corpus at the end | crashes | commits |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for t in sorted(st):
        e = st[t]
        runs = e["runs"]
        last = runs[-1]
        cpu = e["cpu_s"]
        commits = ", ".join(dict.fromkeys(r["commit"] for r in runs))
        print(f"| `{t}` | {cpu / 60:.1f} min | {len(runs)} | {e['execs']:,} | "
              f"{e['execs'] / cpu if cpu else 0:,.0f} | {last['cov']} | {last['ft']} | "
              f"{last['corpus_after']} | {sum(r['crash'] for r in runs)} | {commits} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--out", required=True, help="build.sh's $OUT: binaries, .options, dictionaries")
    r.add_argument("--dir", required=True, help="campaign directory: state, corpora, logs, artifacts")
    r.add_argument("--chunk", type=float, default=900, help="CPU-seconds per chunk")
    r.add_argument("--goal", type=float, default=3600, help="CPU-seconds per target in all")
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--repo", default=REPO,
                   help="checkout whose fuzz/corpus seeds new working corpora (default: this one)")
    p = sub.add_parser("report")
    p.add_argument("--dir", required=True)
    args = ap.parse_args()
    if args.cmd == "report":
        return report(args)
    c = Campaign(args)
    threads = [threading.Thread(target=c.worker) for _ in range(args.workers)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    print("campaign: done", flush=True)


if __name__ == "__main__":
    main()
