#!/usr/bin/env python3
"""Score a conformance kit (black box) against server.py: the correct server, then each bug alone.

    score.py KIT_BIN_JS [--bugs a,b,...] [--seed 1] [--seed2 2] [--seeds 1,2,3] [--timeout 60]
             [--out DIR] [--rate-limit 1000] [--no-correct] [--no-bugs]

Runs sequentially, one server and one kit at a time, on 127.0.0.1 with ephemeral ports; kills what it starts.
Prints a table (bug, family, caught?, failing checks) and writes DIR/score.md and DIR/score.json.
"""

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time

REUSE = False
TOKEN_STYLE = "sequential"
HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "server.py")

# bug -> (family, checks that test the rule the bug breaks)
BUGS = {
    # 1 non-canonical legal inputs refused, illegal ones accepted
    "ct-exact-match": ("1 inputs", ["coverage.content-type", "errors.content-type", "contacts.valid-bodies", "products.valid-bodies",
                                    "products.create", "contacts.create-response"]),
    "auth-scheme-case": ("1 inputs", ["auth.scheme-case"]),
    "auth-extra-spaces": ("1 inputs", ["coverage.authorization", "coverage.authorization-open", "auth.invalid-token", "auth.scheme-case"]),
    "name-length-bytes": ("1 inputs", ["coverage.contact-fields", "contacts.length-boundaries", "contacts.valid-bodies",
                                       "envelope.utf-8"]),
    "price-float-truncate": ("1 inputs", ["coverage.product-fields", "products.unit-price-round-trip", "products.valid-bodies",
                                          "products.created-listed", "lists.model"]),
    "price-float-precision": ("1 inputs", ["coverage.product-fields", "products.unit-price-round-trip", "products.valid-bodies",
                                           "products.unit-price-precision"]),
    "email-prefix-match": ("1 inputs", ["coverage.contact-fields", "contacts.email-clear-cases", "contacts.invalid-bodies"]),
    "before-offset-ignored": ("1 inputs", ["coverage.before", "lists.before", "lists.model"]),
    # 2 read back wrong
    "missing-field-none-text": ("2 read-back", ["contacts.created-listed", "lists.model", "contacts.valid-bodies",
                                                "resources.contacts", "contacts.create-response"]),
    "missing-field-stale": ("2 read-back", ["contacts.created-listed", "lists.model", "contacts.valid-bodies",
                                            "contacts.create-response"]),
    "timestamp-local-z": ("2 read-back", ["run.created-timestamps", "contacts.created-listed", "products.created-listed", "lists.model",
                                          "contacts.create-response", "resources.contacts", "resources.products",
                                          "lists.order"]),
    "timestamp-seconds": ("2 read-back", ["run.created-timestamps", "resources.contacts", "resources.products", "contacts.create-response",
                                          "contacts.valid-bodies", "contacts.created-listed",
                                          "products.created-listed"]),
    "date-not-midnight": ("2 read-back", ["coverage.before", "lists.filter-before-limit", "lists.before", "resources.invoices", "resources.expenses"]),
    "taxable-default-false": ("2 read-back", ["coverage.product-fields", "products.unit-price-round-trip", "products.created-listed", "products.valid-bodies", "lists.model"]),
    # 3 a MUST applied to some answers only
    "cors-missing-on-201": ("3 partial-MUST", ["run.cors-success", "cors.success"]),
    "cors-missing-on-errors": ("3 partial-MUST", ["cors.errors", "run.cors-errors", "cors.reference-errors"]),
    "cors-preflight-no-patch": ("3 partial-MUST", ["cors.preflight"]),
    "ratelimit-success-only": ("3 partial-MUST", ["ratelimit.counts-failures", "ratelimit.not-early", "ratelimit.burst"]),
    "ratelimit-double-count": ("3 partial-MUST", ["ratelimit.counts-failures", "ratelimit.not-early", "ratelimit.burst"]),
    # 4 lists
    "limit-above-200": ("4 lists", ["coverage.limit", "lists.page-max", "lists.limit-out-of-range"]),
    "limit-empty-all": ("4 lists", ["coverage.limit", "lists.limit-out-of-range", "lists.page-max"]),
    "default-limit-100": ("4 lists", ["lists.default-limit"]),
    "limit-negative-slice": ("4 lists", ["coverage.limit", "lists.limit-out-of-range"]),
    "sort-ascending": ("4 lists", ["lists.order"]),
    # 5 stateful
    "list-cache-no-org": ("5 stateful", ["isolation.cache", "run.no-foreign-data", "isolation.lists", "isolation.contacts", "isolation.products",
                                         "lists.model"]),
    "filter-after-limit": ("5 stateful", ["lists.filter-before-limit", "lists.model", "lists.limit-and-filters", "lists.type-filter",
                                          "lists.status-filter"]),
    "before-string-compare": ("5 stateful", ["coverage.before", "lists.filter-before-limit", "lists.before", "lists.model"]),
    "created-missing-stale-cache": ("5 stateful", ["contacts.created-listed", "products.created-listed",
                                                   "lists.model", "isolation.contacts", "isolation.products",
                                                   "products.valid-bodies", "products.duplicate-sku"]),
    "before-inclusive": ("5 stateful", ["coverage.before", "lists.filter-before-limit", "lists.before", "lists.model"]),
    # 6 malformed bodies
    "json-nan-accepted": ("6 malformed", ["coverage.product-fields", "errors.non-object-json", "errors.malformed-json", "products.invalid-bodies", "run.no-5xx"]),
    "json-trailing-comma": ("6 malformed", ["errors.malformed-json"]),
    "json-non-object-500": ("6 malformed", ["errors.non-object-json", "run.no-5xx"]),
    "json-bignum-500": ("6 malformed", ["coverage.product-fields", "products.invalid-bodies", "products.unit-price-precision", "run.no-5xx",
                                        "errors.malformed-json"]),
    "body-size-reset": ("6 malformed", ["errors.body-size"]),
    # 7 isolation
    "sku-global-leak": ("7 isolation", ["run.no-foreign-data", "products.sku-other-org", "lists.model", "products.valid-bodies"]),
    "invoice-contact-wrong-org": ("7 isolation", ["run.no-foreign-data", "isolation.contacts", "isolation.lists"]),
    "foreign-id-get": ("7 isolation", ["run.no-foreign-data", "isolation.foreign-id"]),
    "expenses-filter-no-org": ("7 isolation", ["run.no-foreign-data", "isolation.lists", "lists.status-filter",
                                               "resources.ids-unique"]),
    # 8 auth / scope
    "revoked-accepted-on-post": ("8 auth", ["auth.revoked-token"]),
    "scope-wrong-expenses": ("8 auth", ["auth.scope-matrix", "auth.scope-grants-read"]),
    "scope-write-implies-read": ("8 auth", ["auth.scope-matrix"]),
    "plan-check-missing-products": ("8 auth", ["auth.plan"]),
    "malformed-token-403": ("8 auth", ["coverage.authorization", "auth.invalid-token"]),
    "token-prefix-match": ("8 auth", ["coverage.authorization", "auth.invalid-token"]),
    # 9 errors
    "details-array": ("9 errors", ["run.error-envelope"]),
    "error-code-uppercase": ("9 errors", ["run.error-envelope", "contacts.invalid-bodies",
                                          "products.invalid-bodies", "auth.missing-token", "auth.invalid-token",
                                          "errors.malformed-json"]),
    "html-404": ("9 errors", ["errors.unknown-paths", "run.json-responses", "run.error-envelope",
                              "versioning.unversioned-path", "isolation.foreign-id"]),
    "validation-200": ("9 errors", ["coverage.contact-fields", "contacts.create-response", "contacts.invalid-bodies", "run.success-envelope",
                                    "contacts.email-clear-cases"]),
    "methods-501-html": ("9 errors", ["errors.other-methods", "run.no-5xx", "run.json-responses"]),
    "announced-invoices-201": ("9 errors", ["errors.announced-endpoints"]),
}


def norm_msg(m):
    m = re.sub(r"cfk-[0-9a-z-]+", "<run>", m or "")
    m = re.sub(r"\d+", "N", m)
    return m[:400]


def norm_obs(m):
    """Observations keep their values (a PROBE shows them), minus run names, timings and counters."""
    m = re.sub(r"cfk-[0-9a-z-]+", "<run>", m or "")
    m = re.sub(r"\d+ ms", "N ms", m)
    m = re.sub(r"(remaining|reset|retry-after): \d+", r"\1: N", m, flags=re.I)
    m = re.sub(r"at request \d+", "at request N", m)
    return m


class Proc:
    """A child in its own process group, killed by its id."""

    def __init__(self, args, **kw):
        self.p = subprocess.Popen(args, start_new_session=True, **kw)

    def kill(self):
        if self.p.poll() is None:
            try:
                os.killpg(self.p.pid, signal.SIGTERM)
            except ProcessLookupError:
                return
            try:
                self.p.wait(3)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(self.p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.p.wait()


def start_server(bugs, manifest, rate_limit, log):
    args = [sys.executable, SERVER, "--host", "127.0.0.1", "--port", "0", "--manifest-out", manifest,
            "--rate-limit", str(rate_limit), "--token-style", TOKEN_STYLE]
    for b in bugs:
        args += ["--bug", b]
    srv = Proc(args, stdout=subprocess.PIPE, stderr=open(log, "w"), text=True)
    line = ""
    deadline = time.time() + 15
    while time.time() < deadline:
        line = srv.p.stdout.readline().strip()
        if line.startswith("http://"):
            return srv, line
        if srv.p.poll() is not None:
            break
    srv.kill()
    raise RuntimeError("server did not start: %r" % line)


def run_kit(kit, base, manifest, seed, strict, out_json, timeout, extra=()):
    args = ["node", kit, "--base-url", base, "--tokens", manifest, "--reporter", "json", "--output", out_json,
            "--seed", str(seed)] + (["--strict"] if strict else []) + list(extra)
    t0 = time.time()
    if REUSE and os.path.exists(out_json):
        return parse_report(out_json, {"seconds": 0, "timedOut": False, "rc": None, "summary": "(reused)",
                                       "fails": []})
    if os.path.exists(out_json):
        os.remove(out_json)
    k = Proc(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = k.p.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        k.kill()
        out, timed_out = "", True
    dt = time.time() - t0
    res = {"seconds": round(dt, 1), "timedOut": timed_out, "rc": None if timed_out else k.p.returncode,
           "summary": (out or "").strip().splitlines()[0] if (out or "").strip() else "", "fails": []}
    if not timed_out and os.path.exists(out_json):
        parse_report(out_json, res)
    return res


def parse_report(out_json, res):
    if True:
        r = json.load(open(out_json))
        res["requests"] = r.get("requests")
        res["observations"] = {c["id"]: [norm_obs(str(o)) for o in c.get("observations") or []]
                               for c in r["results"]}
        res["outcomes"] = {c["id"]: c["outcome"] for c in r["results"]}
        for c in r["results"]:
            if c["outcome"] == "fail":
                res["fails"].append({"id": c["id"], "level": c["level"], "failsRun": c.get("failsRun"),
                                     "message": (c.get("failure") or {}).get("message", "")})
        res["pacing"] = r.get("pacing")
        if res.get("summary") == "(reused)":
            from collections import Counter
            n = Counter(c["outcome"] for c in r["results"])
            res["summary"] = "(reused) " + ", ".join("%d %s" % (v, k) for k, v in sorted(n.items()))
            res["seconds"] = round(r.get("durationMs", 0) / 1000, 1)
    return res


def one(kit, name, bugs, seed, strict, a):
    out_json = os.path.join(a.out, "reports", "%s.seed%s%s.json" % (name, seed, ".strict" if strict else ""))
    if REUSE and os.path.exists(out_json):
        return run_kit(kit, None, None, seed, strict, out_json, a.timeout)
    manifest = os.path.join(a.out, "manifests", name + ".json")
    log = os.path.join(a.out, "logs", "%s.server.log" % name)
    out_json = os.path.join(a.out, "reports", "%s.seed%s%s.json" % (name, seed, ".strict" if strict else ""))
    srv, base = start_server(bugs, manifest, a.rate_limit, log)
    try:
        return run_kit(kit, base, manifest, seed, strict, out_json, a.timeout)
    finally:
        srv.kill()


def new_fails(res, base):
    bmap = {f["id"]: norm_msg(f["message"]) for f in base["fails"]}
    return [f for f in res["fails"] if f["id"] not in bmap or bmap[f["id"]] != norm_msg(f["message"])]


def verdict(bug, res, base):
    if res["timedOut"]:
        return "TIMEOUT", []
    fam, relevant = BUGS[bug]
    if res.get("rc") == 2 and "manifest token" in res.get("summary", ""):
        # The kit's preflight refused to run: the target does not treat a manifest token as declared.
        return "caught (preflight, exit 2: %s)" % res["summary"].replace("conformance: ", "")[:160], []
    nf = new_fails(res, base)
    rel = [f for f in nf if f["id"] in relevant]
    if rel:
        return "caught", nf
    masked = [f for f in res["fails"] if f["id"] in relevant and f not in nf]
    obs = [c for c in relevant if res.get("observations", {}).get(c) != base.get("observations", {}).get(c)
           and res.get("outcomes", {}).get(c) == "observed"]
    tail = ""
    if masked:
        tail += "; relevant check already failing on the correct server: " + ", ".join(f["id"] for f in masked)
    if obs:
        tail += "; PROBE observation changed: " + ", ".join(obs)
    if nf:
        return "unrelated" + tail, nf
    return "missed" + tail, nf


def fmt_fails(fs):
    return ", ".join("%s(%s)" % (f["id"], f["level"][0]) for f in fs) or "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kit")
    ap.add_argument("--bugs", default="")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seed2", type=int, default=2, help="second seed for rows missed with the first")
    ap.add_argument("--seeds", default="1,2,3", help="seeds for the correct server")
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--rate-limit", type=int, default=1000)
    ap.add_argument("--out", default=os.path.join(os.getcwd(), "score-out"))
    ap.add_argument("--no-correct", action="store_true")
    ap.add_argument("--no-bugs", action="store_true")
    ap.add_argument("--token-style", default="sequential", choices=["sequential", "random"],
                    help="the server's test tokens (the brief's default: sequential)")
    ap.add_argument("--reuse", action="store_true", help="reuse reports already in --out (recompute the table)")
    a = ap.parse_args()
    global REUSE, TOKEN_STYLE
    REUSE = a.reuse
    TOKEN_STYLE = a.token_style
    kit = os.path.abspath(a.kit)
    for d in ("manifests", "logs", "reports"):
        os.makedirs(os.path.join(a.out, d), exist_ok=True)
    t_start = time.time()
    summary = {"kit": kit, "correct": [], "bugs": []}
    lines = []

    def emit(s=""):
        print(s, flush=True)
        lines.append(s)

    emit("# Score of %s" % kit)
    emit("")
    emit("Server rate limit %d/min per organization (declared in the manifest); kit timeout %d s per run." %
         (a.rate_limit, a.timeout))
    emit("")
    # correct server (strict with the first seed is the baseline for the bug rows)
    base = one(kit, "correct", [], a.seed, True, a)
    summary["baseline"] = base
    if not a.no_correct:
        emit("## Correct server")
        emit("")
        emit("| run | result | failing checks | requests | s |")
        emit("|---|---|---|---|---|")
        emit("| seed %d --strict | %s | %s | %s | %s |" % (a.seed, "TIMEOUT" if base["timedOut"] else base["summary"][:90],
                                                          fmt_fails(base["fails"]), base.get("requests"), base["seconds"]))
        for s in [int(x) for x in a.seeds.split(",") if x]:
            r = one(kit, "correct", [], s, False, a)
            summary["correct"].append({"seed": s, **r})
            emit("| seed %d | %s | %s | %s | %s |" % (s, "TIMEOUT" if r["timedOut"] else r["summary"][:90],
                                                     fmt_fails(r["fails"]), r.get("requests"), r["seconds"]))
        emit("")
        for f in base["fails"]:
            emit("- baseline failure %s (%s): %s" % (f["id"], f["level"], f["message"][:300]))
        emit("")
    if a.no_bugs:
        return finish(a, summary, lines, t_start)
    names = [b for b in a.bugs.split(",") if b] or list(BUGS)
    emit("## Bugs (each alone, --strict, seed %d; seed %d again where missed)" % (a.seed, a.seed2))
    emit("")
    emit("| bug | family | caught? | failing checks (new vs the correct server) |")
    emit("|---|---|---|---|")
    per_family = {}
    for b in names:
        fam = BUGS[b][0]
        res = one(kit, b, [b], a.seed, True, a)
        v, nf = verdict(b, res, base)
        note = ""
        if not v.startswith("caught") and a.seed2 is not None:
            if "base2" not in summary:
                summary["base2"] = one(kit, "correct", [], a.seed2, True, a)
            res2 = one(kit, b + "-s2", [b], a.seed2, True, a)
            v2, nf2 = verdict(b, res2, summary["base2"])
            note = " (seed %d: %s)" % (a.seed2, v2)
            if v2 == "caught":
                v, nf = "caught (seed-dependent)", nf2
        summary["bugs"].append({"bug": b, "family": fam, "verdict": v, "newFails": nf, "seconds": res["seconds"],
                                "timedOut": res["timedOut"]})
        per_family.setdefault(fam, [0, 0])
        per_family[fam][1] += 1
        if v.startswith("caught"):
            per_family[fam][0] += 1
        emit("| %s | %s | %s%s | %s |" % (b, fam, v, note, fmt_fails(nf)))
    emit("")
    emit("## Per family")
    emit("")
    emit("| family | caught / total |")
    emit("|---|---|")
    tc = tt = 0
    for fam in sorted(per_family):
        c, t = per_family[fam]
        tc += c
        tt += t
        emit("| %s | %d / %d |" % (fam, c, t))
    emit("| **total** | **%d / %d** |" % (tc, tt))
    finish(a, summary, lines, t_start)


def finish(a, summary, lines, t_start):
    el = time.time() - t_start
    lines.append("")
    lines.append("Scoring took %.0f s." % el)
    print("Scoring took %.0f s." % el)
    summary["seconds"] = round(el)
    with open(os.path.join(a.out, "score.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(a.out, "score.json"), "w") as f:
        json.dump(summary, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
