import type { Request } from "express";
import getRawBody from "raw-body";
import { headerCount } from "../../http/headers.js";
import { ApiError } from "../../model/errors.js";
import { JsonSyntaxError, parseJson, type JsonValue } from "../../validation/json.js";
import type { Exchange } from "./exchange.js";

/** A JSON object as parsed: what a POST body must be. */
type JsonObject = { [key: string]: JsonValue };

const invalid = (message: string) => new ApiError("invalidRequest", message);

/**
 * §4: POST bodies are JSON sent as `application/json`. Anything else is 400 invalid_request, the
 * one code §7 has for a malformed payload (spec-gaps #13, #14, #15): a wrong or missing media type,
 * a charset other than UTF-8, bytes that are not UTF-8, a body over the cap, JSON that does not
 * parse, and JSON that is not an object. The body's bytes go to the exchange, for the journal.
 */
export async function readJsonBody(exchange: Exchange, limitBytes: number): Promise<JsonObject> {
  checkMediaType(exchange.req);
  const bytes = await readRaw(exchange.req, limitBytes);
  exchange.requestBody = bytes ?? null;
  return parse(bytes);
}

function checkMediaType(req: Request): void {
  // One value only (RFC 9110 §8.3); Node keeps the first of several without a word.
  if (headerCount(req, "content-type") > 1) throw invalid("Several Content-Type headers: send exactly one");
  const [mediaType = "", ...params] = (req.headers["content-type"] ?? "").split(";");
  if (mediaType.trim().toLowerCase() !== "application/json") {
    throw invalid("Content-Type must be application/json");
  }
  for (const param of params) {
    const [name = "", value = ""] = param.split("=").map((s) => s.trim().toLowerCase());
    if (name === "charset" && value.replace(/^"|"$/g, "") !== "utf-8") {
      throw invalid("The request body must be UTF-8 (charset=utf-8)");
    }
  }
}

/**
 * Reads the body with raw-body rather than express.raw: body-parser reads a refused body to its
 * end before it answers, so a declared 50 MB kept the client waiting while it was read and thrown
 * away, and an endless chunked body was never answered. Here a declared length over the cap is
 * refused before a byte is read, and an undeclared one as soon as it passes the cap; the error
 * answer then closes the connection rather than drain what is left.
 */
async function readRaw(req: Request, limitBytes: number): Promise<Buffer | undefined> {
  // A body already read by whatever wraps the app (the kit's variant harness does) and left on
  // `req.body` is taken as it is, as body-parser took it.
  const preRead: unknown = req.body;
  if (req.complete && !req.readable) return preRead instanceof Buffer ? preRead : undefined;
  // A compressed body is refused rather than expanded past the cap.
  const encoding = (req.headers["content-encoding"] ?? "identity").trim().toLowerCase();
  if (encoding !== "identity") throw invalid("Content-Encoding is not supported: send the body uncompressed");
  return getRawBody(req, { length: req.headers["content-length"] ?? null, limit: limitBytes });
}

/** The body's bytes, read whole, to the JSON object the endpoint validates. */
function parse(bytes: Buffer | undefined): JsonObject {
  if (bytes === undefined || bytes.length === 0) {
    throw invalid("The request body is empty: a JSON object is expected");
  }
  // RFC 8259 §8.1: senders MUST NOT add a byte order mark; parsers MAY ignore it. The strict
  // reading refuses it, so that a client that sends one learns before the real service tells it.
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    throw invalid("The request body must not start with a byte order mark (RFC 8259 §8.1)");
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw invalid("The request body is not valid UTF-8");
  }
  let value: JsonValue;
  try {
    value = parseJson(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw invalid(`Malformed JSON: ${err.message}`);
    throw err;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value) || !isPlainRecord(value)) {
    throw invalid("The request body must be a JSON object");
  }
  return value;
}

const isPlainRecord = (value: object): value is JsonObject =>
  Object.getPrototypeOf(value) === Object.prototype;
