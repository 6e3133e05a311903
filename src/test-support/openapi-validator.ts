import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { oas31 } from "zod-openapi";
import { ERROR_RESPONSE, type OpenApiDocument } from "../openapi/document.js";
import { errorCodeOf } from "../model/errors.js";

/**
 * Judges requests and responses by the OpenAPI document alone, with Ajv (JSON Schema 2020-12, strict
 * mode) and ajv-formats: tools we did not write, reading the document as any client's tooling would.
 * Nothing here reads the server's zod schemas; only the names of the document's error responses.
 */

// ajv-formats is CommonJS with `exports.default`; under NodeNext the default import is the module.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const COMPONENTS_ID = "urn:accounting-api:openapi:components";
const JSON_MEDIA_TYPE = "application/json";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** `#/components/schemas/X` becomes a reference into the one schema that holds every component. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) =>
      key === "$ref" && typeof v === "string" && v.startsWith("#/components/schemas/")
        ? [key, `${COMPONENTS_ID}#/$defs/${v.slice("#/components/schemas/".length)}`]
        : [key, rewriteRefs(v)],
    ),
  );
}

const isRef = (v: object): v is oas31.ReferenceObject => "$ref" in v;

export interface ObservedResponse {
  method: string;
  /** The path without its query. */
  path: string;
  status: number;
  /** Header names in lower case, as Node gives them. */
  headers: Record<string, string | string[] | undefined>;
  /** The body as received, or "" when there is none. */
  text: string;
}

export type Verdict = { ok: true } | { ok: false; problems: string[] };

const describeErrors = (errors: ErrorObject[] | null | undefined): string =>
  (errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message ?? e.keyword}`).join("; ");

export class OpenApiValidator {
  readonly #document: OpenApiDocument;
  readonly #ajv: Ajv2020;
  readonly #compiled = new Map<object, ValidateFunction>();

  constructor(document: OpenApiDocument) {
    this.#document = document;
    // multipleOfPrecision: `multipleOf: 0.0001` on a binary float (19.99 / 0.0001 = 199899.99999999997)
    // would fail without it; 4 digits of tolerance still tells 4 decimals from 5 for prices < 10^7.
    this.#ajv = new Ajv2020({ strict: true, allErrors: true, multipleOfPrecision: 4 });
    addFormats(this.#ajv);
    this.#ajv.addSchema({ $id: COMPONENTS_ID, $defs: rewriteRefs(document.components?.schemas ?? {}) });
  }

  /** Compiles every schema of the document: Ajv's strict mode refuses unknown keywords and types. */
  compileAll(): number {
    let n = 0;
    for (const [path, method, op] of this.operations()) {
      for (const p of this.#parameters(op)) if (p.schema !== undefined) this.#schema(p.schema);
      const body = this.requestBodySchema(method, path);
      if (body !== undefined) this.#schema(body);
      for (const status of Object.keys(op.responses ?? {})) {
        const response = this.#response(op, status);
        const schema = response?.content?.[JSON_MEDIA_TYPE]?.schema;
        if (schema !== undefined) this.#schema(schema);
        for (const header of Object.values(response?.headers ?? {})) {
          const h = this.#deref(header, "headers");
          if (h?.schema !== undefined) this.#schema(h.schema);
        }
        n += 1;
      }
    }
    return n;
  }

  *operations(): Generator<[string, string, oas31.OperationObject]> {
    for (const [path, item] of Object.entries(this.#document.paths ?? {})) {
      for (const method of ["get", "post", "put", "patch", "delete"] as const) {
        const op = item[method];
        if (op !== undefined) yield [path, method, op];
      }
    }
  }

  operation(method: string, path: string): oas31.OperationObject | undefined {
    const item = this.#document.paths?.[path];
    const m = method.toLowerCase();
    return m === "get" || m === "post" || m === "put" || m === "patch" || m === "delete"
      ? item?.[m]
      : undefined;
  }

  requestBodySchema(method: string, path: string): oas31.SchemaObject | oas31.ReferenceObject | undefined {
    const body = this.operation(method, path)?.requestBody;
    if (body === undefined) return undefined;
    return this.#deref(body, "requestBodies")?.content[JSON_MEDIA_TYPE]?.schema;
  }

  /** Does the document call this JSON body valid for the operation? */
  acceptsBody(method: string, path: string, body: unknown): Verdict {
    const schema = this.requestBodySchema(method, path);
    if (schema === undefined) return { ok: false, problems: [`${method} ${path} takes no body`] };
    const validate = this.#schema(schema);
    return validate(body) ? { ok: true } : { ok: false, problems: [describeErrors(validate.errors)] };
  }

  /**
   * Does the document call this query valid? Each parameter is a single value (`style: form` of a
   * scalar: a repeated parameter is not one); a number or integer is valid only as its own plain
   * serialization (`String(n)`). Parameters the document does not name are ignored.
   */
  acceptsQuery(method: string, path: string, query: URLSearchParams): Verdict {
    const op = this.operation(method, path);
    if (op === undefined) return { ok: false, problems: [`no operation ${method} ${path}`] };
    const problems: string[] = [];
    for (const p of this.#parameters(op).filter((p) => p.in === "query")) {
      const values = query.getAll(p.name);
      if (values.length === 0) {
        if (p.required === true) problems.push(`${p.name} is required`);
        continue;
      }
      if (values.length > 1) {
        problems.push(`${p.name} is given ${values.length} times`);
        continue;
      }
      const problem = this.#checkScalar(p.schema, values[0] ?? "");
      if (problem !== undefined) problems.push(`${p.name}: ${problem}`);
    }
    return problems.length === 0 ? { ok: true } : { ok: false, problems };
  }

  /**
   * Does the document describe this response? The status must be one the operation declares, the
   * media type and body must match its content, and each declared header must be present when
   * required and match its schema. A path or method outside the document is judged by the
   * reusable error response of its status (any request may meet a 401 or a 404 there).
   */
  checkResponse(r: ObservedResponse): Verdict {
    const problems: string[] = [];
    const op = this.operation(r.method, r.path);
    let response: oas31.ResponseObject | undefined;
    if (op !== undefined) {
      response = this.#response(op, String(r.status));
      if (response === undefined)
        problems.push(`status ${r.status} is not declared for ${r.method} ${r.path}`);
    } else {
      response = this.#errorResponseFor(r.status);
      if (response === undefined)
        problems.push(`status ${r.status} is not an error response of the document`);
    }
    if (response === undefined) return { ok: false, problems };

    const contentType = String(r.headers["content-type"] ?? "");
    const mediaType = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
    const media = response.content?.[mediaType];
    if (response.content === undefined) {
      if (r.text !== "") problems.push(`a body where the document declares none`);
    } else if (media === undefined) {
      problems.push(`media type "${contentType}" is not one of ${Object.keys(response.content).join(", ")}`);
    } else if (media.schema !== undefined && r.method.toUpperCase() !== "HEAD") {
      let body: unknown;
      try {
        body = JSON.parse(r.text) as Json;
      } catch {
        problems.push(`the body is not JSON: ${r.text.slice(0, 80)}`);
      }
      const validate = this.#schema(media.schema);
      if (body !== undefined && !validate(body)) problems.push(`body: ${describeErrors(validate.errors)}`);
    }

    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const h = this.#deref(header, "headers");
      if (h === undefined) continue;
      const raw = r.headers[name.toLowerCase()];
      if (raw === undefined) {
        if (h.required === true) problems.push(`header ${name} is missing`);
        continue;
      }
      const value = Array.isArray(raw) ? raw.join(", ") : raw;
      const problem = this.#checkScalar(h.schema, value);
      if (problem !== undefined) problems.push(`header ${name}: ${problem}`);
    }
    return problems.length === 0 ? { ok: true } : { ok: false, problems };
  }

  #checkScalar(schema: oas31.SchemaObject | oas31.ReferenceObject | undefined, raw: string) {
    if (schema === undefined) return undefined;
    const resolved = isRef(schema) ? undefined : schema;
    const numeric = resolved?.type === "integer" || resolved?.type === "number";
    let value: unknown = raw;
    if (numeric) {
      const n = Number(raw);
      if (raw === "" || String(n) !== raw) return `"${raw}" is not written as a plain number`;
      value = n;
    }
    const validate = this.#schema(schema);
    return validate(value) ? undefined : `"${raw}": ${describeErrors(validate.errors)}`;
  }

  #parameters(op: oas31.OperationObject): oas31.ParameterObject[] {
    return (op.parameters ?? []).flatMap((p) => {
      const resolved = this.#deref(p, "parameters");
      return resolved === undefined ? [] : [resolved];
    });
  }

  #response(op: oas31.OperationObject, status: string): oas31.ResponseObject | undefined {
    const r = (op.responses as Record<string, oas31.ResponseObject | oas31.ReferenceObject> | undefined)?.[
      status
    ];
    return r === undefined ? undefined : this.#deref(r, "responses");
  }

  /** The reusable response of the error whose status this is (§7: one code per status). */
  #errorResponseFor(status: number): oas31.ResponseObject | undefined {
    const code = errorCodeOf(status);
    if (code === undefined) return undefined;
    const ref: oas31.ReferenceObject = { $ref: `#/components/responses/${ERROR_RESPONSE[code]}` };
    return this.#deref<oas31.ResponseObject>(ref, "responses");
  }

  #deref<T extends object>(value: T | oas31.ReferenceObject, section: string): T | undefined {
    if (!isRef(value)) return value;
    const prefix = `#/components/${section}/`;
    if (!value.$ref.startsWith(prefix)) throw new Error(`unsupported reference ${value.$ref}`);
    const components = this.#document.components as Record<string, Record<string, unknown> | undefined>;
    const target = components[section]?.[value.$ref.slice(prefix.length)];
    return target === undefined ? undefined : this.#deref(target as T | oas31.ReferenceObject, section);
  }

  #schema(schema: oas31.SchemaObject | oas31.ReferenceObject): ValidateFunction {
    let validate = this.#compiled.get(schema);
    if (validate === undefined) {
      validate = this.#ajv.compile(rewriteRefs(schema) as object);
      this.#compiled.set(schema, validate);
    }
    return validate;
  }
}
