import { z } from "zod";
import { SpecShape } from "./schema.js";

/**
 * The JSON Schema shipped beside the spec file (accounting-api.schema.json), for editors: completion and
 * a first check as an author types. It describes a variant, so no key is required but an added field's
 * own (written whole), and an added field may be `null` (removed). The rules that tie keys together stay with the tools, which name each fault.
 */
export function specJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(SpecShape, { io: "input", target: "draft-2020-12" });
  const relax = (node: unknown, path: string): void => {
    if (typeof node !== "object" || node === null) return;
    if (Array.isArray(node)) {
      node.forEach((item) => relax(item, path));
      return;
    }
    const object = node as Record<string, unknown>;
    if (path === "fields.contact" || path === "fields.product") {
      // An added field is written whole (its type and whether it is required), or removed.
      object.additionalProperties = { anyOf: [object.additionalProperties, { type: "null" }] };
      return;
    }
    if (Array.isArray(object.required)) Reflect.deleteProperty(object, "required");
    for (const [key, value] of Object.entries(object)) {
      relax(value, key === "properties" ? path : path === "" ? key : `${path}.${key}`);
    }
  };
  relax(schema, "");
  return {
    ...schema,
    $id: "https://accounting-api-reference.local/spec/accounting-api.schema.json",
    title: "Accounting API spec file or variant",
    description:
      "The spec's numbers, codes, enumerations and added fields (accounting-api-reference). A variant is a partial file merged over the default by JSON Merge Patch (RFC 7396).",
  };
}

export const renderSpecJsonSchema = (): string => `${JSON.stringify(specJsonSchema(), null, 2)}\n`;
