import request from "supertest";
import { testReference, type TestReference, type TestReferenceOptions } from "./reference.js";

/** The control key of the tests' references, and the header that carries it. */
export const CONTROL_KEY = "test-control-key-0123456789";
export const CONTROL_AUTH = { Authorization: `Bearer ${CONTROL_KEY}` };

/** A reference with its control surface open (the key above), on the tests' manual clock. */
export const controlledReference = (options: TestReferenceOptions = {}): Promise<TestReference> =>
  testReference({ controlKey: CONTROL_KEY, ...options });

/** Control calls with the key, as the developer's own tools send them. */
export function ctl(ref: TestReference) {
  const app = request(ref.app);
  return {
    get: (path: string) => app.get(`/__control${path}`).set(CONTROL_AUTH),
    post: (path: string, body?: object) => app.post(`/__control${path}`).set(CONTROL_AUTH).send(body),
    put: (path: string, body?: object) => app.put(`/__control${path}`).set(CONTROL_AUTH).send(body),
    delete: (path: string) => app.delete(`/__control${path}`).set(CONTROL_AUTH),
  };
}
