import request from "supertest";
import { testReference, type TestReference, type TestReferenceOptions } from "./reference.js";

/** The control key of the tests' references, and the header that carries it. */
export const CONTROL_KEY = "test-control-key-0123456789";
export const CONTROL_AUTH = { Authorization: `Bearer ${CONTROL_KEY}` };

/** A reference with its control surface open (the key above), on the tests' manual clock. */
export const controlledReference = (options: TestReferenceOptions = {}): Promise<TestReference> =>
  testReference({ controlKey: CONTROL_KEY, ...options });

/**
 * Control calls with the key, as the developer's own tools send them: on the default state, or on the
 * sandbox `sandbox` (its surface under /__control/sandboxes/{id}).
 */
export function ctl(ref: TestReference, sandbox = "") {
  const app = request(ref.app);
  const base = sandbox === "" ? "/__control" : `/__control/sandboxes/${sandbox}`;
  return {
    get: (path: string) => app.get(`${base}${path}`).set(CONTROL_AUTH),
    post: (path: string, body?: object) => app.post(`${base}${path}`).set(CONTROL_AUTH).send(body),
    put: (path: string, body?: object) => app.put(`${base}${path}`).set(CONTROL_AUTH).send(body),
    delete: (path: string) => app.delete(`${base}${path}`).set(CONTROL_AUTH),
  };
}

/** A GET of the API with a fixture token: what the control surface's effects are read through. */
export const api = (ref: TestReference, label: string, path = "/api/v1/contacts?limit=200") =>
  request(ref.app).get(path).set(ref.auth(label));

/** A contact created through the API with a fixture token. */
export const createContact = (ref: TestReference, label: string, name: string) =>
  request(ref.app).post("/api/v1/contacts").set(ref.auth(label)).send({ type: "CLIENT", name });
