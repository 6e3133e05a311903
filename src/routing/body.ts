import express, { type RequestHandler } from "express";
import { ApiError } from "../errors.js";
import { JsonSyntaxError, parseJson, type JsonValue } from "../validation/json.js";
import { headerCount } from "./headers.js";

declare module "express-serve-static-core" {
  interface Locals {
    /** The request body, parsed losslessly (numbers keep their text). */
    json?: JsonValue;
  }
}

const invalid = (message: string) => new ApiError("invalid_request", message);

/**
 * §4: POST bodies are JSON sent as `application/json`. Anything else is 400 invalid_request, the
 * one code §7 has for a malformed payload (spec-gaps #13, #14, #15): a wrong or missing media type,
 * a charset other than UTF-8, bytes that are not UTF-8, a body over the cap, JSON that does not
 * parse, and JSON that is not an object.
 */
export function jsonBody(limitBytes: number): RequestHandler[] {
  const checkMediaType: RequestHandler = (req, _res, next) => {
    // One value only (RFC 9110 §8.3); Node keeps the first of several without a word.
    if (headerCount(req, "content-type") > 1) {
      next(invalid("Several Content-Type headers: send exactly one"));
      return;
    }
    const [mediaType = "", ...params] = (req.headers["content-type"] ?? "").split(";");
    if (mediaType.trim().toLowerCase() !== "application/json") {
      next(invalid("Content-Type must be application/json"));
      return;
    }
    for (const param of params) {
      const [name = "", value = ""] = param.split("=").map((s) => s.trim().toLowerCase());
      if (name === "charset" && value.replace(/^"|"$/g, "") !== "utf-8") {
        next(invalid("The request body must be UTF-8 (charset=utf-8)"));
        return;
      }
    }
    next();
  };

  // `inflate: false`: a compressed body is refused rather than expanded past the cap.
  const readRaw = express.raw({ type: () => true, limit: limitBytes, inflate: false });

  const parse: RequestHandler = (req, res, next) => {
    const bytes: unknown = req.body;
    if (!(bytes instanceof Buffer) || bytes.length === 0) {
      next(invalid("The request body is empty: a JSON object is expected"));
      return;
    }
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      next(invalid("The request body is not valid UTF-8"));
      return;
    }
    try {
      const value = parseJson(text);
      if (typeof value !== "object" || value === null || Array.isArray(value) || !isPlainRecord(value)) {
        next(invalid("The request body must be a JSON object"));
        return;
      }
      res.locals.json = value;
      next();
    } catch (err) {
      if (err instanceof JsonSyntaxError) {
        next(invalid(`Malformed JSON: ${err.message}`));
        return;
      }
      next(err);
    }
  };

  return [checkMediaType, readRaw, parse];
}

const isPlainRecord = (value: object): boolean => Object.getPrototypeOf(value) === Object.prototype;
