#!/usr/bin/env python3
"""An independent implementation of the accounting public REST API (spec: accounting-api.md).

Python 3.11, standard library only.

    python3 server.py --port 0 --host 127.0.0.1 --manifest-out manifest.json \
        [--rate-limit N] [--bug NAME ...]

Prints the base URL as the first line of stdout, writes the token manifest, serves until killed.
Every --bug NAME switches on one deliberate defect (see BUGS.md); without any, the server aims to be
a faithful implementation of the spec. Choices on points the spec leaves open are listed in CHOICES
below.
"""

import argparse
import json
import re
import sys
import threading
import time
import random
from datetime import datetime, timedelta, timezone
from decimal import Decimal, Context, ROUND_HALF_UP, InvalidOperation
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit, parse_qsl

CHOICES = """
- Lists: newest first (date, then createdAt, then id, descending). `before` on all four lists, exclusive,
  on `date` (invoices, expenses) or `createdAt` (contacts, products); accepted forms: YYYY-MM-DD (midnight
  UTC) or a date-time with hours and minutes, optional seconds and fraction, and a mandatory offset (Z or
  +HH:MM / -HH:MM; a space in place of '+' is read as '+', since form decoding turns '+' into a space).
  Anything else: 400 invalid_request.
- limit: decimal digits only (leading zeros allowed: 050 is fifty); out of range values are CLAMPED to 1..200
  (0 and negative integers give 1, more than 200 gives 200); anything else (empty, +5, 1.5, 10abc, 0x10)
  is 400 invalid_request. A repeated parameter: the first value counts.
- type=CLIENT and type=SUPPLIER include contacts of type BOTH; type=BOTH only BOTH. Unknown filter values: 400.
- Unknown query parameters and unknown body fields are ignored.
- POST without an application/json media type (parameters allowed; charset, if given, must be utf-8): 415.
- PUT/PATCH/DELETE (and POST where there is no creation endpoint) on an endpoint path: 405 with Allow.
  Unknown path: 404 not_found. HEAD on a list behaves as GET without a body. A trailing slash is tolerated.
- Product creation: 200, data = {id, sku, createdAt}.
- unitPrice: JSON number, finite, >= 0, below 1e30; more than 4 decimals are rounded half-up to 4.
- Body cap 100 kB: 413. Rate limit per organization (fixed one-minute window); requests without an active
  token are counted per client address; headers X-RateLimit-Limit/Remaining/Reset, Retry-After on 429.
- Optional contact fields not set are absent from responses (taxNumberTPS/TVQ: null).
- Error details: an object {field: message}.
"""

BUGS = set()
KNOWN_BUGS = [
    # 1 inputs in non-canonical legal forms / illegal values accepted
    "ct-exact-match", "auth-scheme-case", "auth-extra-spaces", "name-length-bytes",
    "price-float-truncate", "price-float-precision", "email-prefix-match", "before-offset-ignored",
    # 2 read back wrong
    "missing-field-none-text", "missing-field-stale", "timestamp-local-z", "timestamp-seconds",
    "date-not-midnight", "taxable-default-false",
    # 3 MUST applied to some answers only
    "cors-missing-on-201", "cors-missing-on-errors", "cors-preflight-no-patch",
    "ratelimit-success-only", "ratelimit-double-count",
    # 4 lists
    "limit-above-200", "limit-empty-all", "default-limit-100", "limit-negative-slice", "sort-ascending",
    # 5 stateful
    "list-cache-no-org", "filter-after-limit", "before-string-compare", "created-missing-stale-cache",
    "before-inclusive",
    # 6 malformed bodies
    "json-nan-accepted", "json-trailing-comma", "json-non-object-500", "json-bignum-500", "body-size-reset",
    # 7 isolation
    "sku-global-leak", "invoice-contact-wrong-org", "foreign-id-get", "expenses-filter-no-org",
    # 8 auth / scope
    "revoked-accepted-on-post", "scope-wrong-expenses", "scope-write-implies-read",
    "plan-check-missing-products", "malformed-token-403", "token-prefix-match",
    # 9 errors
    "details-array", "error-code-uppercase", "html-404", "validation-200", "methods-501-html",
    "announced-invoices-201",
]


def bug(name):
    return name in BUGS


# --------------------------------------------------------------------------------------------- time

def now_ms():
    t = datetime.now(timezone.utc)
    return t.replace(microsecond=(t.microsecond // 1000) * 1000)


def fmt_ts(dt, created=False):
    """UTC, millisecond precision, trailing Z."""
    if created and bug("timestamp-local-z"):
        try:
            from zoneinfo import ZoneInfo
            dt = dt.astimezone(ZoneInfo("America/Toronto")).replace(tzinfo=timezone.utc)
        except Exception:  # pragma: no cover
            dt = dt - timedelta(hours=5)
    if created and bug("timestamp-seconds"):
        return dt.strftime("%Y-%m-%dT%H:%M:%SZ")
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (dt.microsecond // 1000)


def fmt_date(d):
    """A calendar date as a midnight timestamp."""
    if bug("date-not-midnight"):
        return d.strftime("%Y-%m-%d") + "T05:00:00.000Z"  # "local midnight" in Montreal, as UTC
    return d.strftime("%Y-%m-%d") + "T00:00:00.000Z"


def epoch_ns(dt):
    delta = dt - datetime(1970, 1, 1, tzinfo=timezone.utc)
    return (delta.days * 86400 + delta.seconds) * 10**9 + delta.microseconds * 1000


# ------------------------------------------------------------------------------------------- money

MONEY_CTX = Context(prec=80, rounding=ROUND_HALF_UP)
Q4 = Decimal("0.0001")
Q2 = Decimal("0.01")


def money(d):
    q = d.quantize(Q4, context=MONEY_CTX)
    if q == 0:
        q = Decimal("0.0000")
    return format(q, "f")


def taxes(base):
    tps = (base * Decimal("0.05")).quantize(Q2, rounding=ROUND_HALF_UP)
    tvq = (base * Decimal("0.09975")).quantize(Q2, rounding=ROUND_HALF_UP)
    return tps, tvq


# --------------------------------------------------------------------------------------------- data

SCOPES = ["contacts:read", "contacts:write", "products:read", "products:write",
          "invoices:read", "invoices:write", "expenses:read", "expenses:write"]


class Store:
    def __init__(self):
        self.lock = threading.RLock()
        self.orgs = {}
        self.tokens = {}       # token string -> dict
        self.contacts = []     # dicts with "org"
        self.products = []
        self.invoices = []
        self.expenses = []
        self.accounts = {}     # org -> list
        self.seq = {"con": 0, "prd": 0, "inv": 0, "exp": 0}
        self.cache = {}
        self.draft = {}        # bug missing-field-stale

    def next_id(self, kind):
        self.seq[kind] += 1
        return "%s_%06d" % (kind, self.seq[kind])


STORE = Store()

FIRST = ["Amélie", "Benoît", "Chloé", "Denis", "Éloïse", "François", "Gaëlle", "Hugo", "Inès", "Jérôme",
         "Karine", "Louis", "Maëlle", "Nicolas", "Océane", "Pascal", "Rosalie", "Samuel", "Thérèse", "Yannick"]
LAST = ["Bouchard", "Côté", "Gagnon", "Lévesque", "Morin", "Ouellet", "Pelletier", "Roy", "Tremblay", "Vézina"]
COMPANIES = ["Boulangerie", "Quincaillerie", "Imprimerie", "Menuiserie", "Fromagerie", "Garage", "Studio",
             "Librairie", "Pharmacie", "Traiteur", "Atelier", "Clinique"]
PLACES = ["du Fjord", "Saint-Roch", "des Cantons", "Beauport", "de la Côte", "Limoilou", "du Plateau",
          "Sainte-Foy", "des Laurentides", "de Charlevoix"]


def seed(token_rate):
    rnd = random.Random(20261123)
    s = STORE
    s.orgs = {
        "org_erable": {"id": "org_erable", "name": "Cabinet Érable & Fils", "apiAccess": True},
        "org_nordet": {"id": "org_nordet", "name": "Transports Nordet inc.", "apiAccess": True},
        "org_grange": {"id": "org_grange", "name": "La Petite Grange", "apiAccess": False},
    }
    plan = {"contacts": {"org_erable": 16, "org_nordet": 8, "org_grange": 3},
            "products": {"org_erable": 12, "org_nordet": 6, "org_grange": 2},
            "invoices": {"org_erable": 236, "org_nordet": 30, "org_grange": 4},
            "expenses": {"org_erable": 72, "org_nordet": 24, "org_grange": 3}}
    base_created = datetime(2026, 1, 5, 14, 0, 0, tzinfo=timezone.utc)
    local_index = {}
    for org in s.orgs:
        local_index[org] = []
        n = plan["contacts"][org]
        for i in range(n):
            kind = ["CLIENT", "CLIENT", "SUPPLIER", "BOTH"][i % 4]
            if i % 3 == 0:
                name = "%s %s" % (rnd.choice(COMPANIES), rnd.choice(PLACES))
            else:
                name = "%s %s" % (rnd.choice(FIRST), rnd.choice(LAST))
            created = base_created + timedelta(days=7 * i + (3 if org == "org_nordet" else 0),
                                               minutes=rnd.randint(0, 600), milliseconds=rnd.randint(0, 999))
            c = {"org": org, "id": s.next_id("con"), "type": kind, "name": name,
                 "createdAt": created, "updatedAt": created,
                 "taxNumberTPS": None, "taxNumberTVQ": None}
            slug = re.sub(r"[^a-z]", "", name.lower().encode("ascii", "ignore").decode())[:12] or "contact"
            # every client or both has an e-mail (invoices show it); some suppliers do not
            if kind != "SUPPLIER" or i % 2 == 0:
                c["email"] = "%s%d@%s.example.ca" % (slug, i, org[4:])
            if i % 5 != 4:
                c["phone"] = "418-555-%04d" % rnd.randint(0, 9999)
            if i % 2 == 0:
                c["address"] = "%d rue %s, Québec QC G1K %dA%d" % (rnd.randint(1, 999), rnd.choice(PLACES),
                                                                  rnd.randint(1, 9), rnd.randint(1, 9))
            if kind != "CLIENT" and i % 2 == 1:
                c["taxNumberTPS"] = "%09d RT0001" % rnd.randint(10**8, 10**9 - 1)
                c["taxNumberTVQ"] = "%010d TQ0001" % rnd.randint(10**9, 10**10 - 1)
            s.contacts.append(c)
            local_index[org].append(c)
        for i in range(plan["products"][org]):
            created = base_created + timedelta(days=5 * i + 1, hours=rnd.randint(0, 9),
                                               milliseconds=rnd.randint(0, 999))
            price = Decimal(rnd.randint(0, 250000)) / Decimal(100)
            if i % 4 == 3:
                price = price + Decimal("0.0075")
            p = {"org": org, "id": s.next_id("prd"), "sku": "%s-%03d" % (org[4:7].upper(), i + 1),
                 "name": rnd.choice(["Consultation", "Livraison", "Entretien", "Gabarit", "Forfait",
                                     "Pièce", "Réparation", "Formation"]) + " " + str(i + 1),
                 "description": "Article %d du catalogue" % (i + 1),
                 "type": "SERVICE" if i % 3 == 0 else "PRODUCT",
                 "unitPrice": price, "taxable": i % 5 != 2,
                 "createdAt": created, "updatedAt": created}
            s.products.append(p)
        s.accounts[org] = [
            {"id": "%s_acc_%s" % (org[4:], code), "code": code, "name": name}
            for code, name in [("5100", "Fournitures de bureau"), ("5200", "Loyer"),
                               ("5300", "Frais de déplacement"), ("5400", "Télécommunications"),
                               ("5500", "Honoraires professionnels")]
        ]
        clients = [i for i, c in enumerate(local_index[org]) if c["type"] in ("CLIENT", "BOTH")]
        suppliers = [i for i, c in enumerate(local_index[org]) if c["type"] in ("SUPPLIER", "BOTH")]
        # invoices: several per day, one year-end batch of 14 on a single date
        day = datetime(2026, 1, 2, tzinfo=timezone.utc)
        n = plan["invoices"][org]
        for i in range(n):
            if org == "org_erable" and 100 <= i < 114:
                d = datetime(2026, 6, 30, tzinfo=timezone.utc)
            else:
                if rnd.random() < 0.55:
                    day = day + timedelta(days=rnd.randint(1, 2))
                d = day
            status = rnd.choice(["DRAFT", "SENT", "SENT", "PAID", "PAID", "PAID", "OVERDUE", "VOIDED"])
            sub = Decimal(rnd.randint(5000, 900000)) / Decimal(100)
            tps, tvq = taxes(sub)
            k = rnd.choice(clients)
            created = d + timedelta(hours=rnd.randint(8, 18), minutes=rnd.randint(0, 59),
                                    milliseconds=rnd.randint(0, 999))
            s.invoices.append({"org": org, "id": s.next_id("inv"), "invoiceNumber": "F-2026-%04d" % (i + 1),
                               "date": d, "dueDate": d + timedelta(days=30), "status": status,
                               "subtotal": sub, "tps": tps, "tvq": tvq, "total": sub + tps + tvq,
                               "description": "Services rendus, lot %d" % (i + 1), "contact": k,
                               "createdAt": created})
        day = datetime(2026, 1, 3, tzinfo=timezone.utc)
        for i in range(plan["expenses"][org]):
            if rnd.random() < 0.6:
                day = day + timedelta(days=rnd.randint(1, 5))
            status = rnd.choice(["DRAFT", "APPROVED", "APPROVED", "PAID", "PAID", "REJECTED"])
            amt = Decimal(rnd.randint(500, 250000)) / Decimal(100)
            if i % 6 == 5:
                tps = tvq = Decimal("0.00")
            else:
                tps, tvq = taxes(amt)
            k = rnd.choice(suppliers)
            acc = rnd.choice(s.accounts[org])
            created = day + timedelta(hours=rnd.randint(8, 18), milliseconds=rnd.randint(0, 999))
            s.expenses.append({"org": org, "id": s.next_id("exp"), "date": day, "status": status,
                               "amount": amt, "tps": tps, "tvq": tvq, "total": amt + tps + tvq,
                               "description": "Dépense %d" % (i + 1), "contact": k, "account": acc,
                               "createdAt": created})
    s.local_contacts = local_index

    # tokens: sequential-looking test tokens
    toks = []
    counter = [0]

    def tok(label, org, scopes, state="active", expires=None, description=""):
        counter[0] += 1
        if TOKEN_STYLE == "random":
            alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
            t = "acct_" + "".join(random.SystemRandom().choice(alphabet) for _ in range(32))
        else:
            t = "acct_test%024d" % counter[0]
        toks.append({"label": label, "token": t, "organization": org, "scopes": list(scopes),
                     "state": state, "expiresAt": expires, "description": description})

    tok("erable-full", "org_erable", SCOPES, description="every scope")
    tok("erable-full-2", "org_erable", SCOPES, description="every scope, spare")
    tok("erable-full-3", "org_erable", SCOPES, description="every scope, spare")
    tok("nordet-full", "org_nordet", SCOPES, description="every scope, second organization")
    tok("nordet-full-2", "org_nordet", SCOPES, description="every scope, spare")
    tok("nordet-full-3", "org_nordet", SCOPES, description="every scope, spare")
    for sc in SCOPES:
        tok("erable-" + sc.replace(":", "-"), "org_erable", [sc], description="only " + sc)
    tok("erable-no-scope", "org_erable", [], description="no scope")
    tok("erable-readers", "org_erable", ["contacts:read", "products:read", "invoices:read", "expenses:read"],
        description="the four read scopes")
    tok("erable-revoked", "org_erable", SCOPES, state="revoked", description="revoked")
    tok("erable-expired", "org_erable", SCOPES, state="expired", expires="2026-06-30T00:00:00.000Z",
        description="expired on 2026-06-30")
    tok("erable-expiring", "org_erable", SCOPES, expires="2099-12-31T00:00:00.000Z",
        description="expires in 2099")
    tok("grange-full", "org_grange", SCOPES, description="plan without API access")
    for t in toks:
        exp = None
        if t["expiresAt"]:
            exp = datetime.strptime(t["expiresAt"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
        s.tokens[t["token"]] = {"org": t["organization"], "scopes": set(t["scopes"]),
                                "revoked": t["state"] == "revoked", "expiresAt": exp,
                                "label": t["label"], "count": 0, "lastUse": None}
    return {
        "version": 1,
        "tokenPrefix": "acct",
        "rateLimit": {"requests": token_rate, "per": "organization"},
        "organizations": [{"id": o["id"], "name": o["name"], "apiAccess": o["apiAccess"]}
                          for o in s.orgs.values()],
        "tokens": toks,
    }


# ------------------------------------------------------------------------------------- rate limiting

class RateLimiter:
    def __init__(self, limit):
        self.limit = limit
        self.buckets = {}
        self.lock = threading.Lock()

    def _bucket(self, key, now):
        b = self.buckets.get(key)
        if b is None or now - b[0] >= 60.0:
            b = [now, 0]
            self.buckets[key] = b
        return b

    def check(self, key):
        """Counts the request (unless counting happens later) and says whether it is allowed."""
        now = time.monotonic()
        with self.lock:
            b = self._bucket(key, now)
            if b[1] >= self.limit:
                return False, 0, max(1, int(60 - (now - b[0]) + 0.999))
            if not bug("ratelimit-success-only"):
                b[1] += 2 if bug("ratelimit-double-count") else 1
            return True, max(0, self.limit - b[1]), max(1, int(60 - (now - b[0]) + 0.999))

    def count_late(self, key):
        now = time.monotonic()
        with self.lock:
            self._bucket(key, now)[1] += 1


RATE = None
TOKEN_STYLE = "sequential"
ACCESS_LOG = None
ACCESS_LOCK = threading.Lock()


# --------------------------------------------------------------------------------------------- errors

class ApiError(Exception):
    def __init__(self, status, code, message, details=None, headers=None):
        super().__init__(message)
        self.status, self.code, self.message, self.details = status, code, message, details
        self.headers = headers or {}


def bad(message, details=None):
    return ApiError(400, "invalid_request", message, details)


# --------------------------------------------------------------------------------------------- JSON

class StrictJSONError(ValueError):
    pass


def _reject_constant(name):
    raise StrictJSONError("not JSON: " + name)


def _has_surrogate(s):
    return any(0xD800 <= ord(ch) <= 0xDFFF for ch in s)


def _check_strings(v, depth=0):
    if isinstance(v, str):
        if _has_surrogate(v):
            raise StrictJSONError("lone surrogate in a string")
    elif isinstance(v, dict):
        for k, x in v.items():
            if _has_surrogate(k):
                raise StrictJSONError("lone surrogate in a key")
            _check_strings(x, depth + 1)
    elif isinstance(v, list):
        for x in v:
            _check_strings(x, depth + 1)


def parse_json_body(raw):
    """RFC 8259 JSON, UTF-8, must be an object."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise bad("The body is not valid UTF-8.")
    if bug("json-trailing-comma"):
        text = re.sub(r",\s*([}\]])", r"\1", text)   # "tolerant" parsing
    kwargs = {"parse_float": Decimal, "parse_int": Decimal, "parse_constant": _reject_constant}
    if bug("json-nan-accepted"):
        kwargs["parse_constant"] = Decimal          # NaN, Infinity, -Infinity let through
    if bug("json-bignum-500"):
        kwargs["parse_float"] = float               # 1e400 becomes inf
    try:
        obj = json.loads(text, **kwargs)
        _check_strings(obj)
    except RecursionError:
        raise bad("The body nests too deeply.")
    except ValueError as e:  # JSONDecodeError, StrictJSONError
        raise bad("The body is not well-formed JSON: %s" % e)
    if not isinstance(obj, dict) and not bug("json-non-object-500"):
        raise bad("The body must be a JSON object.")
    return obj


# ------------------------------------------------------------------------------------- validation

EMAIL_LABEL = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
EMAIL_RE = re.compile(r"[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@" + EMAIL_LABEL + r"(?:\." + EMAIL_LABEL + r")+", re.ASCII)


def valid_email(v):
    if bug("email-prefix-match"):
        return EMAIL_RE.match(v) is not None
    return EMAIL_RE.fullmatch(v) is not None


def char_len(s):
    return len(s)  # Unicode code points


def check_string(body, field, errors, required=False, max_len=None, nullable=False, byte_len=False):
    if field not in body:
        if required:
            errors[field] = "is required"
        return
    v = body[field]
    if v is None and nullable:
        return
    if not isinstance(v, str):
        errors[field] = "must be a string"
        return
    if required and v == "":
        errors[field] = "must not be empty"
        return
    n = len(v.encode("utf-8")) if byte_len else char_len(v)
    if max_len is not None and n > max_len:
        errors[field] = "must be at most %d characters" % max_len


def raise_validation(errors):
    if errors:
        raise bad("The request body has invalid fields: " + ", ".join(sorted(errors)) + ".", errors)


def validate_contact(body):
    e = {}
    if "type" not in body:
        e["type"] = "is required"
    elif not isinstance(body["type"], str) or body["type"] not in ("CLIENT", "SUPPLIER", "BOTH"):
        e["type"] = "must be CLIENT, SUPPLIER or BOTH"
    check_string(body, "name", e, required=True, max_len=200, byte_len=bug("name-length-bytes"))
    check_string(body, "email", e)
    if "email" in body and "email" not in e and not valid_email(body["email"]):
        e["email"] = "must be a valid e-mail address"
    check_string(body, "phone", e, max_len=50)
    check_string(body, "address", e, max_len=500)
    check_string(body, "taxNumberTPS", e, max_len=50, nullable=True)
    check_string(body, "taxNumberTVQ", e, max_len=50, nullable=True)
    raise_validation(e)


def parse_unit_price(v):
    if isinstance(v, bool) or not isinstance(v, (Decimal, int, float)):
        return None, "must be a number"
    d = v if isinstance(v, Decimal) else Decimal(repr(v))   # float only with json-bignum-500
    if not (bug("json-nan-accepted") or bug("json-bignum-500")) and not d.is_finite():
        return None, "must be a finite number"
    if d < 0:                                                # raises on NaN
        return None, "must be >= 0"
    if d.is_finite() and d != 0 and d.adjusted() >= 30:
        return None, "must be below 1e30"
    if bug("price-float-truncate"):
        return Decimal(int(float(d) * 10000)) / Decimal(10000), None
    if bug("price-float-precision"):
        return Decimal("%.4f" % float(d)), None
    return d.quantize(Q4, context=MONEY_CTX), None          # raises on Infinity


def validate_product(body, org):
    e = {}
    check_string(body, "sku", e, required=True, max_len=100)
    check_string(body, "name", e, required=True, max_len=200)
    check_string(body, "description", e, max_len=2000)
    if "type" in body and (not isinstance(body["type"], str) or body["type"] not in ("PRODUCT", "SERVICE")):
        e["type"] = "must be PRODUCT or SERVICE"
    price = None
    if "unitPrice" not in body:
        e["unitPrice"] = "is required"
    else:
        price, err = parse_unit_price(body["unitPrice"])
        if err:
            e["unitPrice"] = err
    if "taxable" in body and not isinstance(body["taxable"], bool):
        e["taxable"] = "must be a boolean"
    raise_validation(e)
    sku = body["sku"]
    for p in STORE.products:
        if p["sku"] != sku:
            continue
        if p["org"] == org:
            raise bad("A product with this sku already exists.", {"sku": "is already used"})
        if bug("sku-global-leak"):
            raise bad("sku %s is already used by product \"%s\" (%s)." % (sku, p["name"], p["id"]),
                      {"sku": "already used by %s" % p["id"]})
    return price


# ------------------------------------------------------------------------------------------ lists

LIMIT_RE = re.compile(r"[0-9]+", re.ASCII)
NEG_RE = re.compile(r"-[0-9]+", re.ASCII)
BEFORE_RE = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})"
    r"(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+\- ]\d{2}:\d{2}))?", re.ASCII)


def parse_limit(params):
    vals = params.get("limit")
    default = 100 if bug("default-limit-100") else 50
    if not vals:
        return default
    raw = vals[0]
    if raw == "" and bug("limit-empty-all"):
        return None
    if LIMIT_RE.fullmatch(raw):
        n = int(raw)
    elif NEG_RE.fullmatch(raw):
        n = int(raw)
    else:
        raise bad("limit must be an integer from 1 to 200.", {"limit": "must be an integer from 1 to 200"})
    if n > 200 and not bug("limit-above-200"):
        n = 200
    if n < 1 and not bug("limit-negative-slice"):
        n = 1
    return n


def parse_before(params):
    """Returns (instant in ns since epoch, raw string) or None."""
    vals = params.get("before")
    if not vals:
        return None
    raw = vals[0]
    m = BEFORE_RE.fullmatch(raw)
    err = bad("before must be an ISO 8601 date (YYYY-MM-DD) or date-time with an offset.",
              {"before": "must be an ISO 8601 date or date-time with offset"})
    if not m:
        raise err
    y, mo, d, hh, mi, ss, frac, off = m.groups()
    try:
        dt = datetime(int(y), int(mo), int(d), int(hh or 0), int(mi or 0), int(ss or 0), tzinfo=timezone.utc)
        ns = epoch_ns(dt)
        if frac:
            ns += int(frac.ljust(9, "0"))
        if off and off not in ("Z", "z") and not bug("before-offset-ignored"):
            sign = -1 if off[0] == "-" else 1
            oh, om = int(off[1:3]), int(off[4:6])
            if oh > 23 or om > 59:
                raise ValueError
            ns -= sign * (oh * 3600 + om * 60) * 10**9
    except (ValueError, OverflowError):
        raise err
    return ns, raw


def filtered_sorted(items, key_fn, params, filt=None):
    """items: records already restricted to the organization. key_fn: record -> (datetime, id)."""
    limit = parse_limit(params)
    before = parse_before(params)
    out = list(items)
    if before is not None:
        ns, raw = before
        if bug("before-string-compare"):
            out = [r for r in out if fmt_ts(key_fn(r)[0]) < raw]
        elif bug("before-inclusive"):
            out = [r for r in out if epoch_ns(key_fn(r)[0]) <= ns]
        else:
            out = [r for r in out if epoch_ns(key_fn(r)[0]) < ns]
    out.sort(key=key_fn, reverse=not bug("sort-ascending"))
    if filt is not None and not bug("filter-after-limit"):
        out = [r for r in out if filt(r)]
    if limit is not None:
        out = out[:limit]
    if filt is not None and bug("filter-after-limit"):
        out = [r for r in out if filt(r)]
    return out


def first(params, name):
    v = params.get(name)
    return v[0] if v else None


def render_contact(c):
    r = {"id": c["id"], "type": c["type"], "name": c["name"]}
    for f in ("email", "phone", "address"):
        if f in c:
            r[f] = c[f]
    r["taxNumberTPS"] = c.get("taxNumberTPS")
    r["taxNumberTVQ"] = c.get("taxNumberTVQ")
    created = c.get("created", False)
    r["createdAt"] = fmt_ts(c["createdAt"], created)
    r["updatedAt"] = fmt_ts(c["updatedAt"], created)
    return r


def render_product(p):
    created = p.get("created", False)
    return {"id": p["id"], "sku": p["sku"], "name": p["name"], **({"description": p["description"]}
                                                                   if "description" in p else {}),
            "type": p["type"], "unitPrice": money(p["unitPrice"]), "taxable": p["taxable"],
            "createdAt": fmt_ts(p["createdAt"], created), "updatedAt": fmt_ts(p["updatedAt"], created)}


def contact_of(org, k):
    if bug("invoice-contact-wrong-org"):
        # resolves the per-organization contact number against the first organization's table
        return STORE.local_contacts["org_erable"][k]
    return STORE.local_contacts[org][k]


def render_invoice(i):
    c = contact_of(i["org"], i["contact"])
    return {"id": i["id"], "invoiceNumber": i["invoiceNumber"], "date": fmt_date(i["date"]),
            "dueDate": fmt_date(i["dueDate"]), "status": i["status"], "subtotal": money(i["subtotal"]),
            "tps": money(i["tps"]), "tvq": money(i["tvq"]), "total": money(i["total"]),
            "description": i["description"],
            "contact": {"id": c["id"], "name": c["name"], "email": c.get("email", "")},
            "createdAt": fmt_ts(i["createdAt"])}


def render_expense(x):
    c = contact_of(x["org"], x["contact"])
    return {"id": x["id"], "date": fmt_date(x["date"]), "status": x["status"], "amount": money(x["amount"]),
            "tps": money(x["tps"]), "tvq": money(x["tvq"]), "total": money(x["total"]),
            "description": x["description"], "contact": {"id": c["id"], "name": c["name"]},
            "account": dict(x["account"]), "createdAt": fmt_ts(x["createdAt"])}


def by_created(r):
    return (r["createdAt"], r["id"])


def by_date(r):
    return (r["date"], r["createdAt"], r["id"])


def list_contacts(org, params):
    t = first(params, "type")
    filt = None
    if t is not None:
        if t not in ("CLIENT", "SUPPLIER", "BOTH"):
            raise bad("type must be CLIENT, SUPPLIER or BOTH.", {"type": "must be CLIENT, SUPPLIER or BOTH"})
        filt = (lambda r: r["type"] == "BOTH") if t == "BOTH" else (lambda r: r["type"] in (t, "BOTH"))
    items = [c for c in STORE.contacts if c["org"] == org]
    return [render_contact(c) for c in filtered_sorted(items, by_created, params, filt)]


def list_products(org, params):
    items = [p for p in STORE.products if p["org"] == org]
    return [render_product(p) for p in filtered_sorted(items, by_created, params)]


def list_invoices(org, params):
    st = first(params, "status")
    filt = None
    if st is not None:
        if st not in ("DRAFT", "SENT", "PAID", "OVERDUE", "VOIDED"):
            raise bad("status must be DRAFT, SENT, PAID, OVERDUE or VOIDED.", {"status": "unknown status"})
        filt = lambda r: r["status"] == st
    items = [i for i in STORE.invoices if i["org"] == org]
    return [render_invoice(i) for i in filtered_sorted(items, by_date, params, filt)]


def list_expenses(org, params):
    st = first(params, "status")
    filt = None
    if st is not None:
        if st not in ("DRAFT", "APPROVED", "PAID", "REJECTED"):
            raise bad("status must be DRAFT, APPROVED, PAID or REJECTED.", {"status": "unknown status"})
        filt = lambda r: r["status"] == st
    if st is not None and bug("expenses-filter-no-org"):
        items = list(STORE.expenses)
    else:
        items = [x for x in STORE.expenses if x["org"] == org]
    return [render_expense(x) for x in filtered_sorted(items, by_date, params, filt)]


# ---------------------------------------------------------------------------------------- creation

OPTIONAL_CONTACT = ("email", "phone", "address", "taxNumberTPS", "taxNumberTVQ")


def create_contact(org, body):
    validate_contact(body)
    t = now_ms()
    c = {"org": org, "id": STORE.next_id("con"), "type": body["type"], "name": body["name"],
         "createdAt": t, "updatedAt": t, "created": True}
    if bug("missing-field-stale"):
        # a draft shared between requests: fields not sent keep the previous contact's values
        for f in ("email", "phone", "address"):
            if f in body:
                STORE.draft[f] = body[f]
        c.update(STORE.draft)
        for f in ("taxNumberTPS", "taxNumberTVQ"):
            if f in body:
                c[f] = body[f]
    else:
        for f in OPTIONAL_CONTACT:
            if f in body:
                c[f] = body[f]
    if bug("missing-field-none-text"):
        c["phone"] = str(body.get("phone"))
    STORE.contacts.append(c)
    r = render_contact(c)
    return r


def create_product(org, body):
    price = validate_product(body, org)
    t = now_ms()
    p = {"org": org, "id": STORE.next_id("prd"), "sku": body["sku"], "name": body["name"],
         "type": body.get("type", "PRODUCT"), "unitPrice": price,
         "taxable": body.get("taxable", False if bug("taxable-default-false") else True),
         "createdAt": t, "updatedAt": t, "created": True}
    if "description" in body:
        p["description"] = body["description"]
    STORE.products.append(p)
    return {"id": p["id"], "sku": p["sku"], "createdAt": fmt_ts(t, True)}


# ------------------------------------------------------------------------------------------ routing

ENDPOINTS = {
    "/api/v1/contacts": {"GET": ("contacts:read", list_contacts), "POST": ("contacts:write", create_contact)},
    "/api/v1/products": {"GET": ("products:read", list_products), "POST": ("products:write", create_product)},
    "/api/v1/invoices": {"GET": ("invoices:read", list_invoices)},
    "/api/v1/expenses": {"GET": ("expenses:read", list_expenses)},
}
KNOWN_FIELDS = {
    "/api/v1/contacts": {"type", "name", "email", "phone", "address", "taxNumberTPS", "taxNumberTVQ"},
    "/api/v1/products": {"sku", "name", "description", "type", "unitPrice", "taxable"},
}
ALLOW_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
BODY_CAP = 100 * 1024
HARD_CAP = 16 * 1024 * 1024
DETAIL_RE = re.compile(r"^/api/v1/(contacts|products|invoices|expenses)/([^/]+)/?$")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "ForeignAccounting/1.0"
    sys_version = ""

    def log_message(self, fmt, *args):
        pass

    def log_request(self, code="-", size="-"):
        if ACCESS_LOG is not None:
            with ACCESS_LOCK:
                h = self.headers
                ACCESS_LOG.write("%.3f %s %s %s %s %s %s %s\n" % (
                    time.time(), self.command, self.path[:300], code,
                    json.dumps((h.get("Authorization") or "-")[:60]) if h else "-",
                    json.dumps(h.get("Content-Type")) if h else "-",
                    json.dumps(h.get("Origin")) if h else "-",
                    json.dumps(getattr(self, "_body_raw", b"")[:160].decode("utf-8", "replace"),
                               ensure_ascii=False)))
                ACCESS_LOG.flush()

    # --- output -----------------------------------------------------------------------------------
    def _cors(self, status):
        if status == 201 and bug("cors-missing-on-201"):
            return
        if status >= 400 and bug("cors-missing-on-errors"):
            return
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Expose-Headers",
                         "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After")

    def send_json(self, status, obj, headers=None):
        body = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self._cors(status)
        for k, v in (getattr(self, "_rl_headers", None) or {}).items():
            self.send_header(k, v)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self._status = status

    def send_error_json(self, err):
        code = err.code.upper() if bug("error-code-uppercase") else err.code
        e = {"code": code, "message": err.message}
        if err.details:
            if bug("details-array"):
                e["details"] = [{"field": k, "message": v} for k, v in err.details.items()]
            else:
                e["details"] = err.details
        self.send_json(err.status, {"error": e}, err.headers)

    def send_error(self, code, message=None, explain=None):
        # http.server's own errors (bad request line, unsupported method...) in the JSON envelope
        if code == 501 and bug("methods-501-html"):
            return BaseHTTPRequestHandler.send_error(self, code, message, explain)
        if code == 404 and bug("html-404"):
            return BaseHTTPRequestHandler.send_error(self, code, message, explain)
        self.close_connection = True
        if code == 501:
            err = ApiError(405, "method_not_allowed", "Method not allowed.")
        elif code == 404:
            err = ApiError(404, "not_found", "No such resource.")
        elif code in (413, 414, 431):
            err = ApiError(code, "invalid_request", message or "Request too large.")
        else:
            err = ApiError(400, "invalid_request", message or "Bad request.")
        try:
            self.send_error_json(err)
        except Exception:
            pass

    # --- input ------------------------------------------------------------------------------------
    def read_body(self):
        te = (self.headers.get("Transfer-Encoding") or "").lower()
        if "chunked" in te:
            chunks, total = [], 0
            while True:
                line = self.rfile.readline(1024)
                if not line:
                    raise ApiError(400, "invalid_request", "Truncated chunked body.")
                try:
                    size = int(line.split(b";")[0].strip(), 16)
                except ValueError:
                    self.close_connection = True
                    raise ApiError(400, "invalid_request", "Malformed chunked body.")
                if size == 0:
                    while True:
                        t = self.rfile.readline(1024)
                        if t in (b"\r\n", b"\n", b""):
                            break
                    break
                total += size
                if total > HARD_CAP:
                    self.close_connection = True
                    raise ApiError(413, "payload_too_large", "The body exceeds 100 kB.")
                data = self.rfile.read(size)
                self.rfile.readline(8)
                if total <= BODY_CAP:
                    chunks.append(data)
            if total > BODY_CAP:
                raise ApiError(413, "payload_too_large", "The body exceeds 100 kB.")
            return b"".join(chunks)
        cl = self.headers.get("Content-Length")
        if cl is None:
            return b""
        try:
            n = int(cl.strip())
            if n < 0:
                raise ValueError
        except ValueError:
            self.close_connection = True
            raise ApiError(400, "invalid_request", "Invalid Content-Length.")
        if n > 1024 * 1024 and bug("body-size-reset"):
            self.close_connection = True
            raise ConnectionAbortedError("body too large, dropping the connection")
        if n > HARD_CAP:
            self.close_connection = True
            raise ApiError(413, "payload_too_large", "The body exceeds 100 kB.")
        left, data = n, []
        while left > 0:
            chunk = self.rfile.read(min(65536, left))
            if not chunk:
                break
            left -= len(chunk)
            if sum(len(x) for x in data) < BODY_CAP + 1:
                data.append(chunk)
        if n > BODY_CAP:
            raise ApiError(413, "payload_too_large", "The body exceeds 100 kB.")
        return b"".join(data)

    def bearer(self):
        """The presented token string, or None."""
        v = self.headers.get("Authorization")
        if v is None:
            return None
        v = v.strip()
        if bug("auth-extra-spaces"):
            parts = v.split(" ")
            if len(parts) != 2:
                return None
            scheme, tok = parts
        else:
            m = re.fullmatch(r"(\S+)(?: +(\S+))?", v)
            if not m:
                return None
            scheme, tok = m.group(1), m.group(2)
        if bug("auth-scheme-case"):
            if scheme != "Bearer":
                return None
        elif scheme.lower() != "bearer":
            return None
        return tok or None

    def lookup_token(self, tok):
        if tok is None:
            return None
        rec = STORE.tokens.get(tok)
        if rec is None and bug("token-prefix-match"):
            for k, r in STORE.tokens.items():
                if tok.startswith(k):
                    return r
        return rec

    # --- dispatch ---------------------------------------------------------------------------------
    def do_GET(self):
        self.handle_api()

    def do_HEAD(self):
        self.handle_api()

    def do_POST(self):
        self.handle_api()

    def do_OPTIONS(self):
        self.handle_api()

    def do_PUT(self):
        if bug("methods-501-html"):
            self.read_body_quietly()
            return BaseHTTPRequestHandler.send_error(self, 501, "Unsupported method (%r)" % self.command)
        self.handle_api()

    do_PATCH = do_PUT
    do_DELETE = do_PUT

    def read_body_quietly(self):
        try:
            self.read_body()
        except Exception:
            self.close_connection = True

    def handle_api(self):
        self._body_raw = b""
        self._rl_headers = None
        self._status = None
        try:
            self.route()
        except ConnectionAbortedError:
            self.close_connection = True
            return
        except ApiError as e:
            self.send_error_json(e)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as e:  # any unexpected failure: 500 in the envelope
            import traceback
            traceback.print_exc(file=sys.stderr)
            try:
                self.send_error_json(ApiError(500, "internal_error", "Internal server error."))
            except Exception:
                self.close_connection = True

    def route(self):
        method = self.command
        parts = urlsplit(self.path)
        path = parts.path
        params = {}
        for k, v in parse_qsl(parts.query, keep_blank_values=True):
            params.setdefault(k, []).append(v)

        # a body is always consumed first, so that the connection stays usable
        body_raw, body_err = b"", None
        if method in ("POST", "PUT", "PATCH", "DELETE"):
            try:
                body_raw = self.read_body()
            except ApiError as e:
                body_err = e
        self._body_raw = body_raw

        if method == "OPTIONS":
            self.send_response(204)
            self.send_header("Access-Control-Allow-Origin", "*")
            methods = ALLOW_METHODS if not bug("cors-preflight-no-patch") else "GET, POST, PUT, DELETE, OPTIONS"
            self.send_header("Access-Control-Allow-Methods", methods)
            self.send_header("Access-Control-Allow-Headers", "Authorization, Content-Type")
            self.send_header("Access-Control-Max-Age", "600")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return

        # rate limit: per organization for an active known token, else per client address
        tok = self.bearer()
        rec = self.lookup_token(tok)
        now = datetime.now(timezone.utc)
        active = rec is not None and not rec["revoked"] and not (rec["expiresAt"] and rec["expiresAt"] <= now)
        key = ("org", rec["org"]) if active else ("addr", self.client_address[0])
        ok, remaining, reset = RATE.check(key)
        self._rl_headers = {"X-RateLimit-Limit": str(RATE.limit), "X-RateLimit-Remaining": str(remaining),
                            "X-RateLimit-Reset": str(reset)}
        try:
            if not ok:
                raise ApiError(429, "rate_limited", "More than %d requests per minute." % RATE.limit,
                               headers={"Retry-After": str(reset)})
            if rec is not None and active:
                with STORE.lock:
                    rec["count"] += 1
                    rec["lastUse"] = now
            self.dispatch(method, path, params, tok, rec, body_raw, body_err)
        finally:
            if bug("ratelimit-success-only") and self._status is not None and 200 <= self._status < 300:
                RATE.count_late(key)

    def dispatch(self, method, path, params, tok, rec, body_raw, body_err):
        norm = path[:-1] if path.endswith("/") and len(path) > 1 else path
        ep = ENDPOINTS.get(norm)
        if ep is None:
            m = DETAIL_RE.match(path)
            if m and bug("foreign-id-get") and method == "GET":
                return self.get_detail(m.group(1), m.group(2), tok, rec)
            if bug("html-404"):
                return BaseHTTPRequestHandler.send_error(self, 404, "Not Found")
            raise ApiError(404, "not_found", "No resource at %s." % path)
        verb = "GET" if method == "HEAD" else method
        if verb not in ep:
            if norm == "/api/v1/invoices" and verb == "POST" and bug("announced-invoices-201"):
                return self.send_json(201, {"data": {"status": "coming_soon"}})
            allow = ", ".join(sorted(set(ep) | ({"HEAD"} if "GET" in ep else set())))
            msg = "Method %s not allowed on %s." % (method, norm)
            if norm == "/api/v1/invoices" and verb == "POST":
                msg = "Invoice creation is announced but not yet available."
            raise ApiError(405, "method_not_allowed", msg, headers={"Allow": allow})
        scope, fn = ep[verb]
        org = self.authorize(verb, norm, scope, tok, rec)
        if verb == "GET":
            data = self.cached_list(norm, org, params, fn)
            return self.send_json(200, {"data": data})
        # POST
        if body_err is not None:
            raise body_err
        ctype = self.headers.get("Content-Type")
        if not self.json_media_type(ctype):
            raise ApiError(415, "unsupported_media_type", "POST bodies must be sent as application/json.")
        body = parse_json_body(body_raw)
        if bug("json-non-object-500") or isinstance(body, dict):
            # unknown fields are ignored, but noted in the server log
            known = KNOWN_FIELDS[norm]
            ignored = sorted(set(body.keys()) - known)
            if ignored:
                print("ignored fields %s on %s" % (ignored, norm), file=sys.stderr)
        with STORE.lock:
            try:
                data = fn(org, body)
            except ApiError as e:
                if bug("validation-200") and norm == "/api/v1/contacts" and e.status == 400:
                    e.status = 200
                raise
            STORE.cache_gen = getattr(STORE, "cache_gen", 0) + 1
        status = 201 if norm == "/api/v1/contacts" else 200
        self.send_json(status, {"data": data})

    @staticmethod
    def json_media_type(ctype):
        if ctype is None:
            return False
        if bug("ct-exact-match"):
            return ctype == "application/json"
        parts = [p.strip() for p in ctype.split(";")]
        if parts[0].lower() != "application/json":
            return False
        for p in parts[1:]:
            if not p:
                continue
            k, _, v = p.partition("=")
            if k.strip().lower() == "charset" and v.strip().strip('"').lower() not in ("utf-8", "utf8"):
                return False
        return True

    def authorize(self, verb, path, scope, tok, rec):
        malformed = tok is not None and not tok.startswith("acct_")
        if rec is None:
            if malformed and bug("malformed-token-403"):
                raise ApiError(403, "forbidden", "Malformed token.")
            raise ApiError(401, "unauthorized", "Missing or invalid token.")
        if rec["revoked"] and not (verb == "POST" and bug("revoked-accepted-on-post")):
            raise ApiError(401, "unauthorized", "This token was revoked.")
        if rec["expiresAt"] is not None and rec["expiresAt"] <= datetime.now(timezone.utc):
            raise ApiError(401, "unauthorized", "This token has expired.")
        org = rec["org"]
        if not STORE.orgs[org]["apiAccess"] and not (bug("plan-check-missing-products")
                                                     and path == "/api/v1/products"):
            raise ApiError(403, "forbidden", "The organization's plan does not include API access.")
        need = scope
        if bug("scope-wrong-expenses") and path == "/api/v1/expenses":
            need = "invoices:read"
        have = rec["scopes"]
        if need not in have:
            if not (bug("scope-write-implies-read") and need == "contacts:read" and "contacts:write" in have):
                raise ApiError(403, "forbidden", "This token lacks the scope %s." % need)
        return org

    def cached_list(self, path, org, params, fn):
        use_cache = bug("list-cache-no-org") or bug("created-missing-stale-cache")
        with STORE.lock:
            if not use_cache:
                return fn(org, params)
            if bug("list-cache-no-org"):
                key = (path, urlsplit(self.path).query, getattr(STORE, "cache_gen", 0))
            else:
                key = (org, path, urlsplit(self.path).query)
            hit = STORE.cache.get(key)
            if hit and time.monotonic() - hit[0] < (30 if bug("list-cache-no-org") else 5):
                return hit[1]
            data = fn(org, params)
            STORE.cache[key] = (time.monotonic(), data)
            return data

    def get_detail(self, kind, ident, tok, rec):
        scope = kind + ":read"
        org = self.authorize("GET", "/api/v1/" + kind, scope, tok, rec)
        table = {"contacts": (STORE.contacts, render_contact), "products": (STORE.products, render_product),
                 "invoices": (STORE.invoices, render_invoice), "expenses": (STORE.expenses, render_expense)}
        items, render = table[kind]
        for r in items:
            if r["id"] == ident:   # the organization is not compared
                return self.send_json(200, {"data": render(r)})
        raise ApiError(404, "not_found", "No such %s." % kind[:-1])


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128


def main():
    global RATE, ACCESS_LOG, TOKEN_STYLE
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--manifest-out", default="manifest.json")
    ap.add_argument("--rate-limit", type=int, default=100)
    ap.add_argument("--bug", action="append", default=[])
    ap.add_argument("--list-bugs", action="store_true")
    ap.add_argument("--token-style", choices=["sequential", "random"], default="sequential",
                    help="sequential test tokens (acct_test000...001) or random base62 ones")
    ap.add_argument("--access-log", default=None, help="append one line per request to this file")
    a = ap.parse_args()
    if a.list_bugs:
        print("\n".join(KNOWN_BUGS))
        return
    for b in a.bug:
        if b not in KNOWN_BUGS:
            ap.error("unknown bug %s" % b)
        BUGS.add(b)
    RATE = RateLimiter(a.rate_limit)
    TOKEN_STYLE = a.token_style
    if a.access_log:
        ACCESS_LOG = open(a.access_log, "a", encoding="utf-8")
    manifest = seed(a.rate_limit)
    with open(a.manifest_out, "w", encoding="utf-8") as f:
        json.dump(manifest, f, ensure_ascii=False, indent=2)
    srv = Server((a.host, a.port), Handler)
    print("http://%s:%d" % (a.host, srv.server_address[1]), flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
