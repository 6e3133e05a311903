/**
 * The JSON Schema twin of a zod check that zod cannot express (a refinement, a custom type, a
 * transform). zod-openapi drops refinements silently, so each such check names its twin here, next
 * to the check, and the property test of the document proves that the two agree.
 */
export type JsonSchemaTwin = Record<string, unknown>;

/** A zod-openapi `override` that replaces whatever zod rendered with `twin`. */
export const renderedAs =
  (twin: JsonSchemaTwin) =>
  ({ jsonSchema }: { jsonSchema: Record<string, unknown> }): void => {
    for (const key of Object.keys(jsonSchema)) Reflect.deleteProperty(jsonSchema, key);
    Object.assign(jsonSchema, structuredClone(twin));
  };
