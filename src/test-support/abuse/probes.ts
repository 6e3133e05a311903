/**
 * The abuse suite's catalogue: requests as a hostile or clumsy client writes them, as raw bytes. Each
 * probe names what it sends and, where the answer is decided (DECISIONS.md), the status it must get;
 * every answer is also held to the suite's general rules (src/abuse.test.ts).
 */
import { framing } from "./framing.js";
import { json } from "./json.js";
import type { Probe, ProbeClass } from "./probe.js";
import { query } from "./query.js";
import { slow } from "./slow.js";
import { token } from "./token.js";

export const PROBES: Record<ProbeClass, readonly Probe[]> = { framing, json, query, token, slow };
