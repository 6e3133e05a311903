import request from "supertest";
import { expect } from "vitest";
import type { ReferenceState } from "../store/state.js";
import { CONTROL_AUTH, controlledReference } from "./control.js";
import type { TestReference, TestReferenceOptions } from "./reference.js";

/** Sandboxes for the tests: made over HTTP as a test runner makes them, read back in process. */

export interface TestSandbox {
  id: string;
  /** Clear token by label. */
  tokens: Record<string, string>;
  organizations: Record<string, string>;
  auth(label: string): { Authorization: string };
  /** Its state, read in process (never through the API, so that reading it changes nothing). */
  state(): ReferenceState;
}

/** The default state, reached as a sandbox is: its fixture tokens, its organizations under their own ids. */
export function defaultState(ref: TestReference): TestSandbox {
  return {
    id: "",
    tokens: Object.fromEntries(ref.manifest.tokens.map((t) => [t.label, t.token])),
    organizations: { org_lumiere: "org_lumiere", org_boreal: "org_boreal", org_petitpas: "org_petitpas" },
    auth: (label) => ref.auth(label),
    state: () => ref.state,
  };
}

/** A sandbox made through `POST /__control/sandboxes`. */
export async function createSandbox(ref: TestReference, body: object = {}): Promise<TestSandbox> {
  const res = await request(ref.app).post("/__control/sandboxes").set(CONTROL_AUTH).send(body);
  expect(res.status, res.text).toBe(201);
  const created = res.body as {
    id: string;
    organizations: Record<string, string>;
    manifest: { tokens: { label: string; token: string }[] };
  };
  const tokens = Object.fromEntries(created.manifest.tokens.map((t) => [t.label, t.token]));
  return {
    id: created.id,
    tokens,
    organizations: created.organizations,
    auth: (label) => ({ Authorization: `Bearer ${tokens[label] ?? `no-token-${label}`}` }),
    state: () => {
      const found = ref.sandboxes.list().find((s) => s.id === created.id);
      if (found === undefined) throw new Error(`sandbox ${created.id} is gone`);
      return found.state;
    },
  };
}

/** The default state and two sandboxes, each reached the way a client reaches it. */
export async function threeStates(options: TestReferenceOptions = {}) {
  const ref = await controlledReference(options);
  const a = await createSandbox(ref);
  const b = await createSandbox(ref);
  const main = defaultState(ref);
  /** The control surface of one of them, under /__control: "" or /sandboxes/{id}. */
  const under = (s: TestSandbox) => (s.id === "" ? "" : `/sandboxes/${s.id}`);
  return { ref, a, b, main, all: [main, a, b], under };
}

/**
 * Everything a state holds that a client or a test could read: its records, its tokens and their
 * usage, its clock, rate-limit windows, faults, journal and latency. Read in process: reading it
 * changes nothing.
 */
export function snapshotOf(state: ReferenceState) {
  const records = state.store.records();
  const now = state.clock.now();
  return {
    records: JSON.stringify(records),
    tokens: JSON.stringify(state.tokens.export()),
    clock: state.clock.state().now.toISOString(),
    frozen: state.clock.frozen,
    rateLimits: JSON.stringify(state.tokens.export().map((t) => state.rateLimits.peek(`token:${t.id}`).used)),
    faults: JSON.stringify(state.faults.list(now)),
    journal: JSON.stringify(state.journal.list()),
    latency: JSON.stringify(state.latency),
  };
}
