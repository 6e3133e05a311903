import { performance } from "node:perf_hooks";
import type { Request, Response } from "express";
import { answerFor, prepareErrorAnswer } from "../../http/errors.js";
import { errorBody } from "../../model/errors.js";
import { JSON_CONTENT_TYPE, jsonBytes } from "../../serialization/envelope.js";
import type { Credentials } from "./credentials.js";

/**
 * One API request and its answer, from the credential step on: what the journal records of it when
 * the response closes, and the one way the API door writes an answer (`send`), so that the journal
 * keeps the answer's body where it is written and a fault that cuts a body does so in one place.
 * Its fields are what happened to the request so far: each is null until it has.
 */
export class Exchange {
  readonly req: Request;
  readonly res: Response;
  /** What the credential step established: the state that answers, the token, the rate-limit key. */
  readonly who: Credentials;
  readonly #log: (line: string) => void;
  readonly #arrived: Date;
  readonly #started = performance.now();
  /** Answered as a pre-flight: the journal then names no token (none was counted). */
  #preflight = false;
  /**
   * The one hook through which a fault changes an answer on its way out (`truncated_body`, set by
   * `cutShort`): `send` then writes the status, the headers and the whole body's length, then half
   * the body, and closes the connection. Faults that replace an answer (an error of §7, a page
   * beyond the spec) send it like any other answer; `drop` sends nothing.
   */
  #cut = false;
  /** The fault that took this request. */
  fault: string | null = null;
  /** The body's bytes as read (null: none was read). */
  requestBody: Uint8Array | null = null;
  /** The answer's body as sent, or as far as it was sent (null: none, a pre-flight, a drop, a HEAD). */
  #responseBody: Uint8Array | null = null;

  constructor(who: Credentials, req: Request, res: Response, log: (line: string) => void) {
    this.who = who;
    this.req = req;
    this.res = res;
    this.#log = log;
    this.#arrived = who.state.clock.now();
    // The answer's Date is the state's own time, the time its createdAt and expiries are on: a clock
    // moved by the control surface (or a sandbox's) moves it too.
    res.setHeader("Date", this.#arrived.toUTCString());
    // A response emits "close" once, when it is over: after "finish" when it was sent in full, alone
    // when the connection went first (a dropped request); one listener tells both apart.
    res.once("close", () => this.#record());
  }

  /** The pre-flight was answered (by CORS): nothing else happens to this request. */
  answeredAsPreflight(): void {
    this.#preflight = true;
  }

  /** `truncated_body`: this request's answer goes out cut short (see `#cut`). */
  cutShort(): void {
    this.#cut = true;
  }

  /** Writes the answer: the one place the API door does, errors and injected pages included. */
  send(status: number, contentType: string, body: Uint8Array): void {
    const { req, res } = this;
    res.statusCode = status;
    res.setHeader("Content-Type", contentType);
    res.setHeader("Content-Length", body.length);
    if (this.#cut) {
      // The status, the headers and the whole body's length, then half of it, then the connection goes.
      const half =
        req.method === "HEAD" ? body.subarray(0, 0) : body.subarray(0, Math.floor(body.length / 2));
      this.#responseBody = half;
      res.write(half, () => res.socket?.destroy());
      return;
    }
    if (req.method === "HEAD") {
      res.end();
      return;
    }
    this.#responseBody = body;
    res.end(body);
  }

  /** Answers an error in §7's envelope (an error not the client's as a bare 500, logged). */
  fail(err: unknown): void {
    const apiError = answerFor(err, this.req, this.#log);
    if (prepareErrorAnswer(this.req, this.res)) {
      // The answering state's spec says with which status and code (spec `errors`).
      const table = this.who.state.spec.errors;
      this.send(apiError.answer(table).status, JSON_CONTENT_TYPE, jsonBytes(errorBody(apiError, table)));
    }
  }

  /** Into the journal of the state that answered, once the response is over. */
  #record(): void {
    const { req, res, who } = this;
    const token = this.#preflight ? undefined : who.presented.token;
    const url = req.originalUrl;
    const q = url.indexOf("?");
    who.state.journal.record({
      time: this.#arrived,
      method: req.method,
      path: req.path,
      query: q < 0 ? "" : url.slice(q + 1),
      status: res.writableFinished ? res.statusCode : null,
      token: token?.name ?? null,
      organization: token?.organizationId ?? null,
      durationMs: Math.round((performance.now() - this.#started) * 10) / 10,
      fault: this.fault,
      requestBody: this.requestBody,
      responseBody: this.#responseBody,
    });
  }
}
