#!/usr/bin/env python3
"""Self-test of server.py: for each bug, one probe that the correct server passes and the buggy one fails.

    python3 selftest.py [bug ...]
"""
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FULL = "acct_test000000000000000000000001"
FULL2 = "acct_test000000000000000000000002"
NORDET = "acct_test000000000000000000000004"
C_READ = "acct_test000000000000000000000007"
C_WRITE = "acct_test000000000000000000000008"
E_READ = "acct_test000000000000000000000013"
REVOKED = "acct_test000000000000000000000017"
GRANGE = "acct_test000000000000000000000020"


class Srv:
    def __init__(self, bugs, rate=100000):
        args = [sys.executable, os.path.join(HERE, "server.py"), "--port", "0", "--manifest-out",
                "/tmp/selftest-manifest.json", "--rate-limit", str(rate)]
        for b in bugs:
            args += ["--bug", b]
        self.p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                  start_new_session=True)
        url = self.p.stdout.readline().strip()
        self.host, self.port = url[7:].split(":")
        self.port = int(self.port)

    def close(self):
        os.killpg(self.p.pid, signal.SIGTERM)
        self.p.wait()

    def req(self, method, path, body=None, token=FULL, headers=None, raw=False):
        c = http.client.HTTPConnection(self.host, self.port, timeout=10)
        h = {}
        if token is not None:
            h["Authorization"] = "Bearer " + token
        if body is not None:
            h["Content-Type"] = "application/json"
            if not isinstance(body, (bytes, str)):
                body = json.dumps(body)
        h.update(headers or {})
        try:
            c.request(method, path, body=body, headers=h)
            r = c.getresponse()
            data = r.read()
        except (ConnectionError, http.client.HTTPException, socket.timeout) as e:
            return -1, {}, str(e)
        finally:
            c.close()
        try:
            j = json.loads(data) if data else None
        except ValueError:
            j = data.decode("utf-8", "replace")
        return r.status, {k.lower(): v for k, v in r.getheaders()}, j


def uniq(p="st"):
    return "%s-%d" % (p, time.time_ns())


def contact(s, **kw):
    b = {"type": "CLIENT", "name": uniq("c")}
    b.update(kw)
    return s.req("POST", "/api/v1/contacts", b)


def list_(s, path, token=FULL):
    st, h, j = s.req("GET", path, token=token)
    return st, (j or {}).get("data") if isinstance(j, dict) else None


def find(s, path, ident, token=FULL):
    st, d = list_(s, path, token)
    return next((x for x in d or [] if x["id"] == ident), None)


def P_ct(s):
    st, _, _ = s.req("POST", "/api/v1/contacts", {"type": "CLIENT", "name": "x"},
                     headers={"Content-Type": "application/json; charset=utf-8"})
    return st == 201


def P_scheme(s):
    return s.req("GET", "/api/v1/contacts?limit=1", token=None, headers={"Authorization": "bearer " + FULL})[0] == 200


def P_spaces(s):
    return s.req("GET", "/api/v1/contacts?limit=1", token=None, headers={"Authorization": "Bearer   " + FULL})[0] == 200


def P_bytes(s):
    st, _, j = contact(s, name="é" * 200)
    return st == 201


def P_trunc(s):
    sku = uniq("p")
    s.req("POST", "/api/v1/products", json.dumps({"sku": sku, "name": "n", "unitPrice": 0.57}))
    st, d = list_(s, "/api/v1/products?limit=5")
    p = next(x for x in d if x["sku"] == sku)
    return p["unitPrice"] == "0.5700"


def P_prec(s):
    sku = uniq("p")
    s.req("POST", "/api/v1/products", '{"sku":"%s","name":"n","unitPrice":123456789012345.1234}' % sku)
    st, d = list_(s, "/api/v1/products?limit=5")
    p = next(x for x in d if x["sku"] == sku)
    return p["unitPrice"] == "123456789012345.1234"


def P_email(s):
    return contact(s, email="a@example.com junk")[0] == 400


def P_offset(s):
    # 2026-06-30T00:00:00+05:00 is 2026-06-29T19:00Z: nothing dated 2026-06-30 may come back
    st, d = list_(s, "/api/v1/invoices?limit=200&before=2026-06-30T01:00:00%2B05:00")
    return st == 200 and all(x["date"] < "2026-06-29T19" for x in d) and len(d) > 0


def P_none(s):
    st, _, j = contact(s)
    c = find(s, "/api/v1/contacts?limit=5", j["data"]["id"])
    return c is not None and c.get("phone") is None


def P_stale(s):
    contact(s, phone="418-555-0000", email="first@example.com")
    st, _, j = contact(s)
    c = find(s, "/api/v1/contacts?limit=5", j["data"]["id"])
    return "phone" not in c and "email" not in c


def P_localz(s):
    t0 = time.time()
    st, _, j = contact(s)
    from datetime import datetime
    t = datetime.strptime(j["data"]["createdAt"], "%Y-%m-%dT%H:%M:%S.%fZ").timestamp() - time.timezone
    import calendar
    t = calendar.timegm(datetime.strptime(j["data"]["createdAt"], "%Y-%m-%dT%H:%M:%S.%fZ").timetuple())
    return abs(t - t0) < 5


def P_seconds(s):
    st, _, j = contact(s)
    import re
    return re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", j["data"]["createdAt"]) is not None


def P_midnight(s):
    st, d = list_(s, "/api/v1/invoices?limit=3")
    return all(x["date"].endswith("T00:00:00.000Z") for x in d)


def P_taxable(s):
    sku = uniq("p")
    s.req("POST", "/api/v1/products", {"sku": sku, "name": "n", "unitPrice": 1})
    st, d = list_(s, "/api/v1/products?limit=5")
    return next(x for x in d if x["sku"] == sku)["taxable"] is True


def P_cors201(s):
    st, h, _ = contact(s)
    return h.get("access-control-allow-origin") == "*"


def P_corserr(s):
    st, h, _ = s.req("GET", "/api/v1/contacts", token="acct_nope")
    return st == 401 and h.get("access-control-allow-origin") == "*"


def P_preflight(s):
    st, h, _ = s.req("OPTIONS", "/api/v1/contacts", token=None, headers={"Origin": "http://x", "Access-Control-Request-Method": "PATCH"})
    return "PATCH" in h.get("access-control-allow-methods", "")


def P_success_only(s):
    # limit 20: 25 failing requests with a valid token, then a success must be 429
    for _ in range(25):
        s.req("GET", "/api/v1/contacts?limit=abc")
    return s.req("GET", "/api/v1/contacts?limit=1")[0] == 429


def P_double(s):
    codes = [s.req("GET", "/api/v1/contacts?limit=1")[0] for _ in range(20)]
    return all(c == 200 for c in codes)


def P_above(s):
    st, d = list_(s, "/api/v1/invoices?limit=500")
    return len(d) == 200


def P_empty(s):
    st, d = list_(s, "/api/v1/invoices?limit=")
    return st == 400 or len(d) <= 200


def P_default(s):
    st, d = list_(s, "/api/v1/invoices")
    return len(d) == 50


def P_negative(s):
    st, d = list_(s, "/api/v1/invoices?limit=-5")
    return st == 400 or len(d) <= 1


def P_order(s):
    st, d = list_(s, "/api/v1/invoices?limit=20")
    return [x["date"] for x in d] == sorted([x["date"] for x in d], reverse=True)


def P_cache(s):
    a = list_(s, "/api/v1/contacts?limit=3", FULL)[1]
    b = list_(s, "/api/v1/contacts?limit=3", NORDET)[1]
    return not ({x["id"] for x in a} & {x["id"] for x in b})


def P_filter_after(s):
    st, d = list_(s, "/api/v1/invoices?status=PAID&limit=10")
    return len(d) == 10


def P_strcmp(s):
    st, d = list_(s, "/api/v1/invoices?limit=200&before=2026-06-30T00:00:00Z")
    return all(x["date"] < "2026-06-30" for x in d)


def P_stalecache(s):
    list_(s, "/api/v1/contacts?limit=5")
    st, _, j = contact(s)
    return find(s, "/api/v1/contacts?limit=5", j["data"]["id"]) is not None


def P_inclusive(s):
    st, d = list_(s, "/api/v1/invoices?limit=200&before=2026-06-30")
    return all(x["date"] < "2026-06-30" for x in d)


def P_nan(s):
    st, _, _ = s.req("POST", "/api/v1/contacts", '{"type":"CLIENT","name":"x","note":NaN}')
    st2, _, _ = s.req("POST", "/api/v1/products", '{"sku":"n1","name":"x","unitPrice":NaN}')
    return st == 400 and st2 == 400


def P_comma(s):
    return s.req("POST", "/api/v1/contacts", '{"type":"CLIENT","name":"x",}')[0] == 400


def P_nonobj(s):
    return s.req("POST", "/api/v1/contacts", "[]")[0] == 400


def P_bignum(s):
    return s.req("POST", "/api/v1/products", '{"sku":"b1","name":"x","unitPrice":1e400}')[0] == 400


def P_bodysize(s):
    st, _, _ = s.req("POST", "/api/v1/contacts", b"a" * 2_000_000)
    return st in (400, 413) and s.req("GET", "/api/v1/contacts?limit=1")[0] == 200


def P_sku(s):
    sku = uniq("sku")
    s.req("POST", "/api/v1/products", {"sku": sku, "name": "secret", "unitPrice": 1})
    return s.req("POST", "/api/v1/products", {"sku": sku, "name": "x", "unitPrice": 1}, token=NORDET)[0] in (200, 201)


def P_join(s):
    ids = {x["id"] for x in list_(s, "/api/v1/contacts?limit=200", NORDET)[1]}
    inv = list_(s, "/api/v1/invoices?limit=200", NORDET)[1]
    return all(x["contact"]["id"] in ids for x in inv)


def P_foreign(s):
    cid = list_(s, "/api/v1/contacts?limit=1", FULL)[1][0]["id"]
    return s.req("GET", "/api/v1/contacts/" + cid, token=NORDET)[0] == 404


def P_expfilter(s):
    ids = {x["id"] for x in list_(s, "/api/v1/expenses?limit=200", FULL)[1]}
    b = list_(s, "/api/v1/expenses?limit=200&status=PAID", NORDET)[1]
    return not (ids & {x["id"] for x in b})


def P_revoked(s):
    return contact(s.__class__.__new__(s.__class__)) if False else \
        s.req("POST", "/api/v1/contacts", {"type": "CLIENT", "name": "x"}, token=REVOKED)[0] == 401


def P_scope_exp(s):
    return s.req("GET", "/api/v1/expenses", token=E_READ)[0] == 200


def P_write_read(s):
    return s.req("GET", "/api/v1/contacts", token=C_WRITE)[0] == 403


def P_plan(s):
    return s.req("GET", "/api/v1/products", token=GRANGE)[0] == 403


def P_malformed(s):
    return s.req("GET", "/api/v1/contacts", token="xyz")[0] == 401


def P_prefix(s):
    return s.req("GET", "/api/v1/contacts", token=FULL + "x")[0] == 401


def P_details(s):
    st, _, j = s.req("POST", "/api/v1/contacts", {"type": "CLIENT"})
    return isinstance(j["error"].get("details", {}), dict)


def P_upper(s):
    return s.req("GET", "/api/v1/contacts", token=None)[2]["error"]["code"] == "unauthorized"


def P_html(s):
    st, h, j = s.req("GET", "/api/v1/nowhere")
    return st == 404 and isinstance(j, dict) and j["error"]["code"] == "not_found"


def P_200(s):
    return s.req("POST", "/api/v1/contacts", {"type": "CLIENT"})[0] == 400


def P_501(s):
    st, h, j = s.req("DELETE", "/api/v1/contacts")
    return st in (404, 405) and isinstance(j, dict)


def P_announced(s):
    st = s.req("POST", "/api/v1/invoices", {"x": 1})[0]
    return 400 <= st < 500 or st == 501


PROBES = {
    "ct-exact-match": P_ct, "auth-scheme-case": P_scheme, "auth-extra-spaces": P_spaces,
    "name-length-bytes": P_bytes, "price-float-truncate": P_trunc, "price-float-precision": P_prec,
    "email-prefix-match": P_email, "before-offset-ignored": P_offset,
    "missing-field-none-text": P_none, "missing-field-stale": P_stale, "timestamp-local-z": P_localz,
    "timestamp-seconds": P_seconds, "date-not-midnight": P_midnight, "taxable-default-false": P_taxable,
    "cors-missing-on-201": P_cors201, "cors-missing-on-errors": P_corserr, "cors-preflight-no-patch": P_preflight,
    "ratelimit-success-only": P_success_only, "ratelimit-double-count": P_double,
    "limit-above-200": P_above, "limit-empty-all": P_empty, "default-limit-100": P_default,
    "limit-negative-slice": P_negative, "sort-ascending": P_order,
    "list-cache-no-org": P_cache, "filter-after-limit": P_filter_after, "before-string-compare": P_strcmp,
    "created-missing-stale-cache": P_stalecache, "before-inclusive": P_inclusive,
    "json-nan-accepted": P_nan, "json-trailing-comma": P_comma, "json-non-object-500": P_nonobj,
    "json-bignum-500": P_bignum, "body-size-reset": P_bodysize,
    "sku-global-leak": P_sku, "invoice-contact-wrong-org": P_join, "foreign-id-get": P_foreign,
    "expenses-filter-no-org": P_expfilter,
    "revoked-accepted-on-post": P_revoked, "scope-wrong-expenses": P_scope_exp,
    "scope-write-implies-read": P_write_read, "plan-check-missing-products": P_plan,
    "malformed-token-403": P_malformed, "token-prefix-match": P_prefix,
    "details-array": P_details, "error-code-uppercase": P_upper, "html-404": P_html, "validation-200": P_200,
    "methods-501-html": P_501, "announced-invoices-201": P_announced,
}
RATE = {"ratelimit-success-only": 20, "ratelimit-double-count": 20}


def main():
    names = sys.argv[1:] or list(PROBES)
    bad = 0
    for b in names:
        s = Srv([], RATE.get(b, 100000))
        try:
            ok_correct = PROBES[b](s)
        finally:
            s.close()
        s = Srv([b], RATE.get(b, 100000))
        try:
            ok_bug = PROBES[b](s)
        finally:
            s.close()
        good = ok_correct and not ok_bug
        bad += not good
        print("%-30s correct:%s bug:%s %s" % (b, "ok" if ok_correct else "FAIL", "breaks" if not ok_bug else "NO EFFECT",
                                              "" if good else "<<<<"), flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
