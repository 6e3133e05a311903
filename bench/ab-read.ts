/**
 * `npm run bench:ab -- DIR_A DIR_B`: the CPU cost of one list read in two built checkouts (each with
 * `dist/src` built and its own `node_modules`: zod keeps a registry per module instance), measured in
 * one process, batch by batch, alternated (A B B A A B …), so that whatever else the machine does falls
 * on both alike. Each read goes over an in-memory connection into `createServer(reference.app)`:
 * the server's whole work, HTTP parsing included, and no kernel, no load generator. On a shared
 * machine the ratio of batch pairs is the figure to trust; the absolute figures move with the load.
 *
 * Usage: npm run bench:ab -- DIR_A DIR_B [--batches 30] [--reads 500] [--path /api/v1/contacts?limit=50]
 */
import { resolve } from "node:path";
import { Duplex } from "node:stream";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { createReference as CreateReference, createServer as CreateServer } from "../src/index.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    batches: { type: "string", default: "30" },
    reads: { type: "string", default: "500" },
    path: { type: "string", default: "/api/v1/contacts?limit=50" },
  },
});
const [dirA, dirB] = positionals;
if (dirA === undefined || dirB === undefined) {
  console.error("usage: npm run bench:ab -- DIR_A DIR_B [--batches 30] [--reads 500] [--path PATH]");
  process.exit(2);
}

/** The server's end of an in-memory connection; the client's end is the driver below. */
class Socket extends Duplex {
  onData: (chunk: Buffer) => void = () => {};
  readonly remoteAddress = "127.0.0.1";
  readonly remoteFamily = "IPv4";
  override _read(): void {}
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.onData(chunk);
    done();
  }
  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
}

/** One list read at a time against the build in `dir`. */
async function driver(dir: string): Promise<() => Promise<void>> {
  const entry = pathToFileURL(resolve(dir, "dist", "src", "index.js")).href;
  const { createReference, createServer } = (await import(entry)) as {
    createReference: typeof CreateReference;
    createServer: typeof CreateServer;
  };
  const reference = await createReference({
    rateLimit: { limit: 1e9, windowMs: 60_000 },
    log: () => {},
    controlKey: null,
  });
  const token = reference.manifest.tokens.find((t) => t.label === "lumiere-full")?.token ?? "";
  const socket = new Socket();
  createServer(reference.app).emit("connection", socket);
  const request = Buffer.from(
    `GET ${values.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`,
  );
  let pending: (() => void) | undefined;
  let bytes = Buffer.alloc(0);
  let need = -1;
  socket.onData = (chunk) => {
    bytes = Buffer.concat([bytes, chunk]);
    if (need < 0) {
      const end = bytes.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = bytes.toString("latin1", 0, end);
      if (!head.startsWith("HTTP/1.1 200")) throw new Error(`${dir}: ${head.split("\r\n")[0]}`);
      need = end + 4 + Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
    }
    if (bytes.length < need) return;
    bytes = bytes.subarray(need);
    need = -1;
    pending?.();
  };
  return () =>
    new Promise((done) => {
      pending = done;
      socket.push(request);
    });
}

const drivers = [await driver(dirA), await driver(dirB)] as const;
const reads = Number(values.reads);
for (const read of drivers) for (let i = 0; i < 2000; i++) await read();
const cpu: [number[], number[]] = [[], []];
for (let batch = 0; batch < Number(values.batches); batch++) {
  for (const which of batch % 2 === 0 ? [0, 1] : [1, 0]) {
    const read = drivers[which as 0 | 1];
    const before = process.cpuUsage();
    for (let i = 0; i < reads; i++) await read();
    const used = process.cpuUsage(before);
    cpu[which as 0 | 1].push((used.user + used.system) / reads);
  }
}
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)] ?? NaN;
for (const [i, dir] of [dirA, dirB].entries()) {
  const xs = cpu[i as 0 | 1];
  console.log(
    `${i === 0 ? "A" : "B"} ${dir}: CPU per read min ${quantile(xs, 0).toFixed(1)} µs, median ${quantile(xs, 0.5).toFixed(1)} µs`,
  );
}
const ratios = cpu[0].map((a, k) => (cpu[1][k] ?? NaN) / a);
console.log(
  `B / A, batch pairs: p25 ${quantile(ratios, 0.25).toFixed(3)}, median ${quantile(ratios, 0.5).toFixed(3)}, p75 ${quantile(ratios, 0.75).toFixed(3)}`,
);
process.exit(0);
