#!/usr/bin/env python3
"""Score a conformance kit against the Go implementation and its switchable bugs.

    python3 score.py --kit /path/to/dist/conformance/bin.js [--seeds 1,2,3] [--bug-seed 1]
                     [--bugs a,b] [--timeout 300] [--out DIR] [--no-self-test]

Builds the server (go build, no network), runs its self-tests (go test), runs the kit against the
correct server at each seed (default options and --strict), then against each bug alone (default
options and --strict), and writes DIR/score.md (the table) and DIR/score.json (every run).
Every server listens on 127.0.0.1 with an ephemeral port and is stopped here; every kit run is
bounded by --timeout.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field, asdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
BINARY = HERE / "foreign-go-server"
TOKENS = HERE / "tokens.json"


def go_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("GOFLAGS", "-mod=mod")
    env["GOPROXY"] = "off"  # stdlib only: nothing to download
    env["GOTOOLCHAIN"] = "local"
    return env


def build(self_test: bool) -> None:
    subprocess.run(["go", "build", "-o", str(BINARY), "."], cwd=HERE, env=go_env(), check=True)
    if self_test:
        res = subprocess.run(["go", "test", "-count=1", "."], cwd=HERE, env=go_env(), capture_output=True, text=True)
        if res.returncode != 0:
            sys.stderr.write(res.stdout + res.stderr)
            raise SystemExit("self-tests failed: a bug's probe does not separate it from the correct server")
        print("self-tests: every bug fails its probe, the correct server passes them all")


def bug_catalogue() -> list[dict[str, str]]:
    out = subprocess.run([str(BINARY), "--list-bugs"], capture_output=True, text=True, check=True).stdout
    bugs = []
    for line in out.splitlines():
        m = re.match(r"(\S+)\s+(\S+)\s+(\S+)\s+(.*)$", line)
        if m:
            bugs.append({"name": m[1], "kind": m[2], "level": m[3], "what": m[4]})
    # the level column may hold spaces (e.g. "PROBE (spec-gaps #20); §1 leak"): read it from the Go table
    src = (HERE / "bugs.go").read_text()
    for b in bugs:
        m = re.search(r'\{"%s", "([^"]*)", "([^"]*)", "((?:[^"\\]|\\.)*)"\}' % re.escape(b["name"]), src)
        if m:
            b["kind"], b["level"], b["what"] = m[1], m[2], m[3].replace('\\"', '"')
    return bugs


# Legal alternatives of the correct server (not bugs): other answers to open points of the spec.
# Each is (server flags, the manifest's rateLimit or None to leave it out, slow?).
VARIANTS: dict[str, tuple[list[str], dict | None, bool]] = {
    "bucket": (["--rate-algo", "bucket"], {"requests": 100, "per": "token"}, False),
    "no-rate-headers": (["--no-rate-headers"], {"requests": 100, "per": "token"}, False),
    "product-minimal": (["--product-minimal"], {"requests": 100, "per": "token"}, False),
    "per-organization": (["--rate-scope", "organization"], {"requests": 100, "per": "organization"}, True),
    "per-organization-undeclared": (["--rate-scope", "organization"], None, True),
    "per-address": (["--rate-scope", "address"], {"requests": 100, "per": "address"}, True),
}


class Server:
    def __init__(self, bugs: list[str], extra: list[str] | None = None):
        args = [str(BINARY), "--addr", "127.0.0.1:0"] + (extra or [])
        for b in bugs:
            args += ["--bug", b]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        m = re.match(r"listening on (http://\S+)", line)
        if not m:
            self.stop()
            raise RuntimeError(f"server did not start: {line!r}")
        self.url = m[1]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@dataclass
class Run:
    label: str
    bug: str | None
    seed: int
    strict: bool
    rc: int | None = None
    seconds: float = 0.0
    failed: list[dict[str, str]] = field(default_factory=list)  # {id, level, failsRun}
    preflight: list[str] = field(default_factory=list)
    summary: str = ""
    note: str = ""


def kit_command(kit: str) -> list[str]:
    if kit.endswith(".ts"):
        return ["npx", "tsx", kit]
    return ["node", kit]


def run_kit(kit: str, out: Path, bug: str | None, seed: int, strict: bool, timeout: int, variant: str | None = None) -> Run:
    label = f"{bug or ('variant-' + variant if variant else 'correct')}-seed{seed}{'-strict' if strict else ''}"
    run = Run(label, bug, seed, strict)
    tokens = TOKENS
    extra: list[str] = []
    if variant:
        extra, rate, _ = VARIANTS[variant]
        manifest = json.loads(TOKENS.read_text())
        manifest.pop("rateLimit", None)
        if rate:
            manifest["rateLimit"] = rate
        tokens = out / "runs" / f"tokens-{variant}.json"
        tokens.write_text(json.dumps(manifest, indent=1))
    report = out / "runs" / f"{label}.json"
    log = out / "runs" / f"{label}.log"
    report.unlink(missing_ok=True)
    server = Server([bug] if bug else [], extra)
    try:
        cmd = kit_command(kit) + ["--base-url", server.url, "--tokens", str(tokens), "--seed", str(seed),
                                  "--reporter", "console", "--reporter", f"json:{report}"]
        if strict:
            cmd.append("--strict")
        t0 = time.monotonic()
        with open(log, "w") as fh:
            proc = subprocess.Popen(cmd, cwd=REPO, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True,
                                    env={**os.environ, "CI": "1", "NO_COLOR": "1"})
            try:
                run.rc = proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                run.note = f"timeout after {timeout} s"
        run.seconds = round(time.monotonic() - t0, 1)
    finally:
        server.stop()
    text = log.read_text(errors="replace")
    if run.rc == 2:
        run.preflight = [ln.strip() for ln in text.splitlines() if ln.startswith("conformance:")]
    m = re.search(r"^(PASSED|FAILED)[^\n]*", text, re.M)
    run.summary = m[0] if m else (text.strip().splitlines() or [""])[-1][:300]
    if report.exists():
        data = json.loads(report.read_text())
        run.failed = [{"id": r["id"], "level": r["level"], "failsRun": r.get("failsRun", False)}
                      for r in data.get("results", []) if r.get("outcome") == "fail"]
    return run


def fmt_checks(checks: list[dict[str, str]]) -> str:
    return ", ".join(f"`{c['id']}` ({c['level']})" for c in checks) or "–"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kit", required=True, help="the kit's bin: dist/conformance/bin.js (or conformance/bin.ts, run by tsx)")
    ap.add_argument("--seeds", default="1,2,3", help="seeds of the clean runs against the correct server")
    ap.add_argument("--bug-seed", type=int, default=1, help="seed of the runs against each bug")
    ap.add_argument("--bugs", default="", help="comma-separated bugs to score (default: all)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per kit run")
    ap.add_argument("--out", default=str(HERE / "score-out"), help="output folder")
    ap.add_argument("--no-self-test", action="store_true", help="skip go test")
    ap.add_argument("--variants", default="fast",
                    help="legal variants of the correct server to run (default and --strict at --bug-seed): "
                         "fast (those that take seconds), all, none, or a comma-separated list of " + ", ".join(VARIANTS))
    ap.add_argument("--no-bugs", action="store_true", help="run only the clean runs and the variants")
    args = ap.parse_args()

    kit = str(Path(args.kit).resolve())
    out = Path(args.out).resolve()
    shutil.rmtree(out / "runs", ignore_errors=True)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    build(not args.no_self_test)
    catalogue = bug_catalogue()
    chosen = [b for b in catalogue if not args.bugs or b["name"] in args.bugs.split(",")]
    if args.no_bugs:
        chosen = []
    if args.variants == "fast":
        variants = [v for v, (_, _, slow) in VARIANTS.items() if not slow]
    elif args.variants == "all":
        variants = list(VARIANTS)
    elif args.variants == "none":
        variants = []
    else:
        variants = args.variants.split(",")
        unknown = [v for v in variants if v not in VARIANTS]
        if unknown:
            raise SystemExit(f"unknown variants: {unknown}")

    runs: list[Run] = []

    def go(bug: str | None, seed: int, strict: bool, variant: str | None = None) -> Run:
        r = run_kit(kit, out, bug, seed, strict, args.timeout, variant)
        runs.append(r)
        flag = "ok " if (r.rc == 0) == (bug is None) else ("MISS" if bug else "FALSE")
        print(f"{flag} {r.label:48} rc={r.rc} {r.seconds:6.1f}s {len(r.failed)} failing {r.note}", flush=True)
        return r

    clean = [go(None, int(s), strict) for s in args.seeds.split(",") for strict in (False, True)]
    clean_failed = {strict: {c["id"] for r in clean if r.strict == strict for c in r.failed} for strict in (False, True)}
    # a slow variant (hundreds of seconds: the rate limit counted more widely) runs with default options only
    clean += [go(None, args.bug_seed, strict, v) for v in variants for strict in ((False,) if VARIANTS[v][2] else (False, True))]
    false_default = [r for r in clean if not r.strict and (r.rc != 0 or any(c["level"] == "MUST" for c in r.failed))]
    false_strict = [r for r in clean if r.strict and r.rc != 0]

    rows = []
    for b in chosen:
        d = go(b["name"], args.bug_seed, False)
        s = go(b["name"], args.bug_seed, True)
        new_d = [c for c in d.failed if c["id"] not in clean_failed[False]]
        new_s = [c for c in s.failed if c["id"] not in clean_failed[True] and c["id"] not in {x["id"] for x in new_d}]
        rows.append((b, d, s, new_d, new_s))

    def verdict(r: Run) -> str:
        if r.note:
            return "timeout"
        if r.rc == 2:
            return "caught (preflight, exit 2)" if r.preflight else "exit 2"
        return "caught" if r.rc == 1 else ("missed" if r.rc == 0 else f"exit {r.rc}")

    caught_d = sum(1 for _, d, _, _, _ in rows if d.rc not in (0, None))
    caught_s = sum(1 for _, _, s, _, _ in rows if s.rc not in (0, None))
    times = sorted(r.seconds for r in runs)
    median = times[len(times) // 2] if times else 0
    lines = [
        "# Conformance kit against the Go implementation (foreign-go)",
        "",
        f"Kit: `{kit}`; seeds of the clean runs {args.seeds}; seed of the bug runs {args.bug_seed}; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
        "",
        f"- Bugs caught with default options: **{caught_d} / {len(rows)}**; with `--strict`: **{caught_s} / {len(rows)}**.",
        f"- Correct server: {len([r for r in clean if not r.strict])} default runs, false failures (a MUST failure or exit ≠ 0): "
        f"**{len(false_default)}**; {len([r for r in clean if r.strict])} `--strict` runs, exit ≠ 0: **{len(false_strict)}**.",
        f"- Time per kit run: median {median} s, min {times[0] if times else 0} s, max {times[-1] if times else 0} s "
        f"({len(runs)} runs, {round(sum(times))} s in all).",
        "",
        "## Clean runs (correct server)",
        "",
        "| server | seed | options | exit | time (s) | failing checks | summary |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in clean:
        server = r.label.split("-seed")[0]
        lines.append(f"| {server} | {r.seed} | {'--strict' if r.strict else 'default'} | {r.rc} | {r.seconds} | {fmt_checks(r.failed)} | {r.summary.replace('|', '/')} |")
    lines += [
        "",
        "## Bugs, one at a time",
        "",
        "| bug | kind | level (implementer's reading) | default | --strict | newly failing (default) | newly failing only with --strict | time (s) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for b, d, s, new_d, new_s in rows:
        nd = fmt_checks(new_d)
        if d.preflight:
            nd = "preflight: " + "; ".join(p.replace("|", "/") for p in d.preflight)[:400]
        lines.append(f"| `{b['name']}` | {b['kind']} | {b['level']} | {verdict(d)} | {verdict(s)} | {nd} | {fmt_checks(new_s)} | {d.seconds} / {s.seconds} |")
    missed = [b["name"] for b, d, s, _, _ in rows if s.rc == 0]
    lines += ["", f"Missed even with `--strict`: {', '.join(missed) or 'none'}.", ""]
    (out / "score.md").write_text("\n".join(lines))
    (out / "score.json").write_text(json.dumps([asdict(r) for r in runs], indent=1))
    print("\n".join(lines[:10]))
    print(f"\nwritten: {out / 'score.md'}")


if __name__ == "__main__":
    main()
