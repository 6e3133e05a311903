import { http } from "msw";
import { setupServer } from "msw/node";
import { createReference } from "./src/entry/reference.js";
const mode = process.argv[2]!; const N = Number(process.argv[3]);
const reference = await createReference({ rateLimit: { limit: 1e9, windowMs: 60_000 }, log: () => {} });
const token = reference.manifest.tokens.find((t) => t.label === "lumiere-full")?.token ?? "";
const hdrs = { Authorization: `Bearer ${token}` };
const PATH = `/api/v1/contacts?limit=50`;
const base = "http://localhost:4010";
const captured = await reference.fetch(`${base}${PATH}`, { headers: hdrs });
const fixed = { status: captured.status, headers: [...captured.headers], body: await captured.arrayBuffer() };
const call = async () => { const x = await reference.fetch(`${base}${PATH}`, { headers: hdrs }); await x.arrayBuffer(); };
const s = setupServer(http.get(`http://localhost:4013/api/v1/contacts`, async () => { if (mode === "inside") await call(); return new Response(fixed.body, { status: fixed.status, headers: fixed.headers }); }));
s.listen();
for (let i = 0; i < N; i++) {
  if (mode === "listening") await call();
  const x = await fetch(`http://localhost:4013${PATH}`, { headers: hdrs }); await x.arrayBuffer();
}
s.close();
