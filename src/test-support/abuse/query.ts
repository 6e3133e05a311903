import { CONTACTS, LISTS, get, type Probe } from "./probe.js";

// List queries: limits, dates and filters no list may take.

export const query: Probe[] = LISTS.flatMap((path): Probe[] => [
  ...[
    "limit=0",
    "limit=-1",
    "limit=201",
    "limit=1e2",
    "limit=0x10",
    "limit=99999999999999999999",
    "limit=%00",
    "limit=%EF%BC%91",
    "limit=1&limit=1",
    "before=garbage",
    "before=275760-09-14",
    "before=2026-10-30T00:00:00.0001",
    `${Array.from({ length: 3000 }, (_, i) => `f${i % 10}`).join("&")}&limit=0`,
  ].map(
    (q): Probe => ({
      name: `${path}?${q.length > 60 ? `${q.slice(0, 40)}… (${q.length} chars)` : q}`,
      send: get(`${path}?${q}`),
      status: 400,
    }),
  ),
  ...[
    "limit=1&__proto__=1",
    "limit=1&limit[]=1",
    `limit=1&before=2026-10-30T00:00:00.${"1".repeat(5000)}Z`,
    "limit=1&constructor=x&hasOwnProperty=1&toString=",
    "limit=1&a[b]=c",
    "limit=1&%zz=%zz",
    "limit=1&%E2%82=1",
    "&&&limit=1&&&",
    "limit=1&before=2026-10-30T00:00:00.0001Z",
    "limit=1&before=1969-12-31T23:59:59.9995Z",
    `limit=1&pad=${"p".repeat(15_000)}`,
  ].map(
    (q): Probe => ({
      name: `${path}?${q.length > 60 ? `${q.slice(0, 40)}… (${q.length} chars)` : q}`,
      send: get(`${path}?${q}`),
      status: 200,
    }),
  ),
]);
query.push(
  ...["type=BOGUS", "type=client", "type=CLIENT&type=CLIENT", "type=CLIENT%00"].map(
    (q): Probe => ({ name: `${CONTACTS}?${q}`, send: get(`${CONTACTS}?${q}`), status: 400 }),
  ),
  ...["status=BOGUS", "status=paid", "status=PAID&status=SENT"].map(
    (q): Probe => ({ name: `/api/v1/invoices?${q}`, send: get(`/api/v1/invoices?${q}`), status: 400 }),
  ),
);
