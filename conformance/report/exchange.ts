import { prepareRequest } from "../engine/client.js";
import type { HttpExchange, ShownExchange } from "../types.js";
import type { MaskedToken } from "./curl.js";

/**
 * A failure's exchange as reports show it (ShownExchange): the request as the client sent it (its
 * Origin and Content-Type included), the answer's status, headers and body, each body cut to
 * BODY_MAX characters, and every manifest token masked, in the URL, a header or a body.
 */

const BODY_MAX = 2000;

/** `text`, cut to `max` code points with a note of how much was left out. */
export function trimmed(text: string, max = BODY_MAX): string {
  const chars = [...text];
  return chars.length <= max
    ? text
    : `${chars.slice(0, max).join("")}… (${chars.length - max} more characters)`;
}

function masker(tokens: readonly MaskedToken[]): (text: string) => string {
  // Longest first: a secret that prefixes another must not split it.
  const secrets = [...tokens].filter((t) => t.token !== "").sort((a, b) => b.token.length - a.token.length);
  return (text) => secrets.reduce((out, t) => out.split(t.token).join(`<token ${t.label}>`), text);
}

export function showExchange(
  ex: HttpExchange,
  options: { origin?: string | undefined; tokens: readonly MaskedToken[] },
): ShownExchange {
  const mask = masker(options.tokens);
  const prepared = prepareRequest("", ex.request, { origin: options.origin });
  const derived = prepared.derived;
  const headers = prepared.headers.map(([name, value]): [string, string] =>
    derived !== undefined && name.toLowerCase() === "authorization"
      ? // A near miss of a token: said as the shell the curl line rebuilds it with, $T the token.
        [name, `${derived.shell.replace(/\$\{?T\b\}?/g, `<token ${derived.token.label}>`)}`]
      : [name, mask(value)],
  );
  const body =
    prepared.body === undefined
      ? undefined
      : (() => {
          try {
            return trimmed(mask(new TextDecoder("utf-8", { fatal: true }).decode(prepared.body)));
          } catch {
            return `(${prepared.body.length} bytes, not UTF-8)`;
          }
        })();
  return {
    request: {
      method: prepared.method,
      target: mask(prepared.url),
      headers,
      ...(body === undefined ? {} : { body }),
    },
    response: {
      status: ex.status,
      headers: Object.entries(ex.headers).map(([n, v]): [string, string] => [n, mask(v)]),
      body: trimmed(mask(ex.text)),
    },
  };
}

/** The exchange as an HTTP transcript: request line, headers, body; then the status, headers, body. */
export function exchangeText(shown: ShownExchange): string {
  const { request, response } = shown;
  const lines = [`${request.method} ${request.target}`, ...request.headers.map(([n, v]) => `${n}: ${v}`)];
  if (request.body !== undefined) lines.push("", request.body);
  lines.push("", `HTTP ${response.status}`, ...response.headers.map(([n, v]) => `${n}: ${v}`));
  if (response.body !== "") lines.push("", response.body);
  return lines.join("\n");
}
