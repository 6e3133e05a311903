import { getAs, HOST, CONTACTS, req, bearer, get, type Probe } from "./probe.js";

// Tokens: Authorization headers in every wrong shape, and pre-flights.

export const token: Probe[] = [
  { name: "no Authorization", send: get(CONTACTS, () => []), status: 401 },
  { name: "an empty Authorization", send: get(CONTACTS, () => ["Authorization:"]), status: 401 },
  { name: "Bearer alone", send: get(CONTACTS, () => ["Authorization: Bearer"]), status: 401 },
  { name: "Basic", send: get(CONTACTS, (ctx) => [`Authorization: Basic ${ctx.token}`]), status: 401 },
  {
    name: "a tab after Bearer",
    send: get(CONTACTS, (ctx) => [`Authorization: Bearer\t${ctx.token}`]),
    status: 401,
  },
  {
    name: "a 10 000-character token",
    send: get(CONTACTS, () => [`Authorization: Bearer acct_${"A".repeat(10_000)}`]),
    status: 401,
  },
  {
    name: "a 1 MB token",
    send: get(CONTACTS, () => [`Authorization: Bearer acct_${"A".repeat(1_000_000)}`]),
    status: 400,
  },
  {
    name: "a non-ASCII token",
    send: get(CONTACTS, () => [
      "Authorization: Bearer acct_\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9",
    ]),
    status: 401,
  },
  {
    name: "the token in the query string",
    send: (ctx) => req(`GET ${CONTACTS}?access_token=${ctx.token} HTTP/1.1`, [HOST]),
    status: 401,
  },
  {
    name: "two Authorization headers, same token",
    send: get(CONTACTS, (ctx) => [bearer(ctx), bearer(ctx)]),
    status: 401,
  },
  {
    name: "a second Authorization after 2 100 header lines",
    send: get(CONTACTS, (ctx) => [
      bearer(ctx),
      ...Array.from({ length: 2100 }, () => "a: 1"),
      "Authorization: Bearer x",
    ]),
    status: 401,
  },
  {
    name: "a revoked token",
    send: getAs("lumiere-revoked"),
    status: 401,
  },
  {
    name: "an expired token",
    send: getAs("lumiere-expired"),
    status: 401,
  },
  {
    name: "a plan without API access",
    send: getAs("petitpas-full"),
    status: 403,
  },
  {
    name: "a token without the scope",
    send: getAs("lumiere-no-scope"),
    status: 403,
  },
  {
    name: "another prefix",
    send: get(CONTACTS, (ctx) => [`Authorization: Bearer xyz_${ctx.token.slice(5)}`]),
    status: 401,
  },
  {
    name: "a trailing space",
    send: get(CONTACTS, (ctx) => [`Authorization: Bearer ${ctx.token} `]),
    status: 200,
  },
  {
    name: "a pre-flight with a hostile origin",
    send: () =>
      req(`OPTIONS ${CONTACTS} HTTP/1.1`, [HOST, "Origin: null", "Access-Control-Request-Method: DELETE"]),
    status: 204,
  },
];
