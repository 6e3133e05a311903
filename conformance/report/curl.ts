import type { DerivedSecret } from "../types.js";

/**
 * The curl commands reports show: each request of a failure as a POSIX-shell command that replays it
 * byte for byte, every manifest token a shell variable named in a trailing comment (reports are
 * shared, secrets are not). The client renders one per exchange as it sends it (client.ts).
 */

/** A manifest token as the client needs it: its secret, to mask, and its label, to say which one. */
export interface MaskedToken {
  token: string;
  label: string;
}

/** What goes on the wire, before masking. */
export interface PreparedRequest {
  method: string;
  url: string;
  /** In the order given, names as the check spelled them. */
  headers: Array<[string, string]>;
  body: Uint8Array | undefined;
  /** The Authorization value, when it is made from a manifest token: curl derives it from the token. */
  derived?: DerivedSecret | undefined;
}

/** Bodies longer than this are piped in, with long runs of one character generated rather than spelled. */
const INLINE_BODY_MAX = 2048;
const RUN_MIN = 64;

/**
 * A POSIX-shell command that replays the request with curl. Every manifest token in it (header, query,
 * body) is a shell variable, `$TOKEN`, named in a trailing comment: reports are shared, secrets are not.
 */
export function renderCurl(request: PreparedRequest, tokens: readonly MaskedToken[]): string {
  const vars = new Vars(tokens);
  const command = curlCommand(request, vars);
  return vars.comment() === "" ? command : `${command} ${vars.comment()}`;
}

/**
 * The commands that replay a sequence of requests in order, one per line, the tokens as shell
 * variables named once for the whole sequence (a trailing comment line says which is which).
 */
export function renderCurlSequence(
  requests: readonly PreparedRequest[],
  tokens: readonly MaskedToken[],
): string {
  const vars = new Vars(tokens);
  const lines = requests.map((r) => curlCommand(r, vars));
  return [...lines, ...(vars.comment() === "" ? [] : [vars.comment()])].join("\n");
}

function curlCommand(request: PreparedRequest, vars: Vars): string {
  const args = ["curl", "-sS", "-i"];
  if (/[[\]{}]/.test(request.url)) args.push("-g");
  if (/\/\.\.?(\/|\?|$)/.test(request.url)) args.push("--path-as-is");
  const method = request.method.toUpperCase();
  if (method === "HEAD") args.push("-I");
  else if (method !== "GET" || request.body !== undefined) args.push("-X", shellWord(request.method, vars));
  args.push(shellWord(request.url, vars));
  for (const [name, value] of request.headers) {
    const derived = request.derived;
    if (derived !== undefined && name.toLowerCase() === "authorization") {
      args.push("-H", derivedWord(`${name}: `, derived, vars));
      continue;
    }
    // curl drops a header given as `Name:` and sends an empty one given as `Name;`.
    args.push("-H", shellWord(value === "" ? `${name};` : `${name}: ${value}`, vars));
  }
  let producer: string | undefined;
  if (request.body !== undefined) {
    // Without this curl would add its own `application/x-www-form-urlencoded`.
    if (!request.headers.some(([n]) => n.toLowerCase() === "content-type"))
      args.push("-H", "'Content-Type:'");
    const text = decodeUtf8(request.body);
    if (text !== undefined && !text.includes("\0") && text.length <= INLINE_BODY_MAX) {
      args.push("--data-binary", shellWord(text, vars));
    } else {
      const parts = text === undefined ? [printfBytes(request.body)] : bodyProducers(text, vars);
      producer = parts.length === 1 ? parts[0] : `{ ${parts.join("; ")}; }`;
      args.push("--data-binary", "@-");
    }
  }
  const command = args.join(" ");
  return producer === undefined ? command : `${producer} | ${command}`;
}

/** The shell variables standing for the tokens a command mentions, in order of first use. */
class Vars {
  readonly #tokens: readonly MaskedToken[];
  readonly #used = new Map<string, { name: string; label: string }>();

  constructor(tokens: readonly MaskedToken[]) {
    // Longest first: a secret that prefixes another must not split it.
    this.#tokens = [...tokens].filter((t) => t.token !== "").sort((a, b) => b.token.length - a.token.length);
  }

  /** `text` cut into literal pieces and variable names. */
  split(text: string): Array<{ literal: string } | { variable: string }> {
    const out: Array<{ literal: string } | { variable: string }> = [];
    let rest = text;
    while (rest !== "") {
      let best: { at: number; token: MaskedToken } | undefined;
      for (const t of this.#tokens) {
        const at = rest.indexOf(t.token);
        if (at !== -1 && (best === undefined || at < best.at)) best = { at, token: t };
      }
      if (best === undefined) {
        out.push({ literal: rest });
        break;
      }
      if (best.at > 0) out.push({ literal: rest.slice(0, best.at) });
      out.push({ variable: this.#name(best.token) });
      rest = rest.slice(best.at + best.token.token.length);
    }
    return out;
  }

  /** The variable that stands for a token, named as `split` names it. */
  nameOf(token: MaskedToken): string {
    return this.#name(token);
  }

  comment(): string {
    if (this.#used.size === 0) return "";
    const names = [...this.#used.values()].map((v) => `$${v.name} = manifest token "${v.label}"`);
    return `# ${names.join(", ").replace(/[\r\n]/g, " ")}`;
  }

  #name(token: MaskedToken): string {
    let entry = this.#used.get(token.token);
    if (entry === undefined) {
      const n = this.#used.size;
      entry = { name: n === 0 ? "TOKEN" : `TOKEN_${n + 1}`, label: token.label };
      this.#used.set(token.token, entry);
    }
    return entry.name;
  }
}

/** One shell word for `text`, tokens as variables; double quotes when that stays plain, else pieces. */
function shellWord(text: string, vars: Vars): string {
  const pieces = vars.split(text);
  if (!pieces.some((p) => "variable" in p)) return singleQuote(text);
  const plain = pieces.every((p) => "variable" in p || /^[^"\\$`!\n\r]*$/.test(p.literal));
  if (plain) {
    return `"${pieces.map((p) => ("variable" in p ? `\${${p.variable}}` : p.literal)).join("")}"`;
  }
  return pieces.map((p) => ("variable" in p ? `"\${${p.variable}}"` : singleQuote(p.literal))).join("");
}

/**
 * A header made from a manifest token, as one double-quoted shell word: `$T` in the secret's shell
 * form becomes the token's variable, so that the command rebuilds the value without spelling it.
 */
function derivedWord(head: string, derived: DerivedSecret, vars: Vars): string {
  const name = vars.nameOf({ token: derived.token.token, label: derived.token.label });
  const shell = derived.shell
    .replace(/\$\{T(?=[^A-Za-z0-9_])/g, `\${${name}`)
    .replace(/\$T(?![A-Za-z0-9_])/g, `$${name}`);
  return `"${head.replace(/["\\$`]/g, "\\$&")}${shell}"`;
}

/** POSIX single quotes keep every byte but the quote itself, which is closed, escaped and reopened. */
export function singleQuote(text: string): string {
  if (/^[A-Za-z0-9_\-./:=@%+,]+$/.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** printf/head/tr producers for a long text body: long runs of one ASCII character are generated. */
function bodyProducers(text: string, vars: Vars): string[] {
  const out: string[] = [];
  const run = new RegExp(`([\\x01-\\x7f])\\1{${RUN_MIN - 1},}`, "g");
  let last = 0;
  for (const m of text.matchAll(run)) {
    const at = m.index;
    if (at > last) out.push(printfText(text.slice(last, at), vars));
    const octal = (m[1] ?? " ").charCodeAt(0).toString(8).padStart(3, "0");
    out.push(`head -c ${m[0].length} /dev/zero | tr '\\000' '\\${octal}'`);
    last = at + m[0].length;
  }
  if (last < text.length) out.push(printfText(text.slice(last), vars));
  return out;
}

function printfText(text: string, vars: Vars): string {
  if (text.includes("\0")) return printfBytes(new TextEncoder().encode(text));
  return `printf '%s' ${shellWord(text, vars)}`;
}

/** Any bytes, through printf's octal escapes: what a shell word cannot hold (NUL, invalid UTF-8). */
function printfBytes(bytes: Uint8Array): string {
  let format = "";
  for (const [i, b] of bytes.entries()) {
    // %, \ and ' would be read by printf or the shell; a leading - as an option.
    const printable =
      b >= 0x20 && b < 0x7f && b !== 0x25 && b !== 0x5c && b !== 0x27 && !(i === 0 && b === 0x2d);
    format += printable ? String.fromCharCode(b) : `\\${b.toString(8).padStart(3, "0")}`;
  }
  return `printf '${format}'`;
}
