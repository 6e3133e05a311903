// The spec file: what a spec author may change, read by the reference, the kit, the OpenAPI document and
// the clause document (`accounting-api-reference/spec`). README, "Try a change to the spec".
export {
  BUILT_IN_FIELDS,
  SpecShape,
  type AddedField,
  type AnnouncedId,
  type EndpointId,
  type EnumName,
  type ErrorAnswer,
  type ErrorRole,
  type ResourceWithFields,
  type Spec,
} from "./schema.js";
export {
  SpecVariantError,
  applyVariant,
  defaultSpec,
  diffSpecs,
  mergePatch,
  parseSpec,
  type SpecDifference,
  type SpecProblem,
} from "./variant.js";
