import type { ContactRecordInput } from "../clients/control.js";
import type { Contact, ContactType } from "../model/records.js";

// Contacts for tests and benchmarks that add them in numbers: every optional field left empty.

/** A contact as the store holds it, its optional fields null, created and last updated `at`. */
export function storedContact(fields: {
  id: string;
  organizationId: string;
  name: string;
  at: Date;
  type?: ContactType;
  email?: string | null;
}): Contact {
  return {
    id: fields.id,
    organizationId: fields.organizationId,
    type: fields.type ?? "CLIENT",
    name: fields.name,
    email: fields.email ?? null,
    phone: null,
    address: null,
    taxNumberTPS: null,
    taxNumberTVQ: null,
    createdAt: fields.at,
    updatedAt: fields.at,
  };
}

/** A contact in the fixtures' format, as `POST /__control/records` takes it, its optional fields null. */
export function seedContact(
  organizationId: string,
  fields: Partial<ContactRecordInput> & Record<string, unknown> = {},
): ContactRecordInput {
  return {
    organizationId,
    type: "BOTH",
    name: "Seeded contact",
    email: null,
    phone: null,
    address: null,
    taxNumberTPS: null,
    taxNumberTVQ: null,
    ...fields,
  };
}
