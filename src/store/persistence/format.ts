import { crc32 } from "node:zlib";
import { Decimal } from "decimal.js";
import { z } from "zod";
import type { Spec } from "../../../spec/index.js";
import {
  accountShape,
  contactShape,
  expenseShape,
  invoiceShape,
  organizationShape,
  productShape,
  tokenShape,
} from "../../model/records.js";

/**
 * The on-disk format of `--data DIR`, version 1: what is written and how it is read back. Every file
 * is validated with these schemas at load, so that a file written by another version or damaged by
 * hand stops the start with a reason instead of serving something half-read.
 *
 * Each record is one line: `<crc32 of the JSON, 8 hex digits> <JSON>\n`. The checksum tells a record
 * cut short by a crash (the last line only) from one damaged afterwards (anywhere: refused).
 */

export const FORMAT_VERSION = 1;
export const SNAPSHOT_FILE = "state.json";
export const LOCK_FILE = "lock";
export const journalFile = (generation: number): string => `journal-${generation}.log`;
export const JOURNAL_FILE_RE = /^journal-(\d+)\.log$/;

// --- leaf codecs -----------------------------------------------------------------------------------

/**
 * An instant as `toISOString` writes it, and nothing else: the round trip is checked, so years past
 * 9999 (a clock advanced far) survive and a date that would read back differently is refused.
 */
const instant = z.codec(z.string(), z.date(), {
  // One Date per instant read, checked and kept: the check is the hottest line of a start.
  decode: (s, ctx) => {
    const d = new Date(s);
    if (Number.isNaN(d.getTime()) || d.toISOString() !== s) {
      ctx.issues.push({ code: "custom", message: "expected an instant as toISOString writes it", input: s });
    }
    return d;
  },
  encode: (d) => d.toISOString(),
});

/** Money as its exact decimal text: never a binary float, never rounded (`toFixed()` without digits). */
const decimal = z.codec(
  z.string().regex(/^-?\d+(\.\d+)?$/, "expected a decimal string"),
  z.instanceof(Decimal),
  { decode: (s) => new Decimal(s), encode: (d) => d.toFixed() },
);

const id = z.string().min(1);

// --- records ---------------------------------------------------------------------------------------

/**
 * How the folder writes each kind of value: plain strings, instants and money through the codecs
 * above. The records' shapes are the model's (src/model/records.ts); nothing is typed twice.
 */
const DISK = {
  id: () => id,
  ref: () => id,
  text: () => z.string(),
  email: z.string(),
  instant,
  day: instant,
  money: decimal,
  // Whatever the spec the folder was written under allowed (a variant's added value included): the
  // folder remembers that spec, and refuses to open under one whose enumerations or fields differ.
  choice: () => z.string(),
};

export const OrganizationData = z.strictObject(organizationShape(DISK));
export const AccountData = z.strictObject(accountShape(DISK));
/**
 * The values of a spec variant's added fields: JSON's own, a decimal as `{ "decimal": "<exact text>" }`
 * so that it reads back as a decimal, never a float. Absent on records that have none.
 */
const addedValue = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.codec(z.strictObject({ decimal: z.string().regex(/^-?\d+(\.\d+)?$/) }), z.instanceof(Decimal), {
    decode: ({ decimal }) => new Decimal(decimal),
    encode: (d) => ({ decimal: d.toFixed() }),
  }),
]);
const added = { added: z.record(z.string(), addedValue).optional() };

export const ContactData = z.strictObject(Object.assign(contactShape(DISK), added));
export const ProductData = z.strictObject(Object.assign(productShape(DISK), added));
export const InvoiceData = z.strictObject(invoiceShape(DISK));
export const ExpenseData = z.strictObject(expenseShape(DISK));
/** A token as the registry keeps it: its SHA-256 in hex, never the token in clear. */
export const TokenData = z.strictObject(tokenShape(DISK));

/**
 * A clock moved through the control surface: running at an offset from the clock it follows, or
 * frozen at an instant. `null` in a snapshot: never moved (it shows the time the server starts with).
 */
export const ClockSetting = z.union([
  z.strictObject({ offsetMs: z.int() }),
  z.strictObject({ frozenAt: instant }),
]);

// --- the journal -----------------------------------------------------------------------------------

/** One change, as the state applies it again at load. Tokens are written whole (created, revoked, used). */
export const Change = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("organization"), data: OrganizationData }),
  z.strictObject({ type: z.literal("account"), data: AccountData }),
  z.strictObject({ type: z.literal("contact"), data: ContactData }),
  z.strictObject({ type: z.literal("product"), data: ProductData }),
  z.strictObject({ type: z.literal("invoice"), data: InvoiceData }),
  z.strictObject({ type: z.literal("expense"), data: ExpenseData }),
  z.strictObject({ type: z.literal("token"), data: TokenData }),
  z.strictObject({ type: z.literal("clock"), data: ClockSetting.nullable() }),
]);
export type Change = z.output<typeof Change>;

/** `seq` numbers every change since the directory was created, so that a gap or a replay shows. */
export const JournalEntry = z.strictObject({ seq: z.int().positive(), change: Change });

export const JournalHeader = z.strictObject({
  format: z.literal("accounting-reference-journal"),
  version: z.literal(FORMAT_VERSION),
  generation: z.int().nonnegative(),
});

// --- the snapshot ----------------------------------------------------------------------------------

export const StateImage = z.strictObject({
  organizations: z.array(OrganizationData),
  accounts: z.array(AccountData),
  contacts: z.array(ContactData),
  products: z.array(ProductData),
  invoices: z.array(InvoiceData),
  expenses: z.array(ExpenseData),
  tokens: z.array(TokenData),
  clock: ClockSetting.nullable(),
});
/** The whole state in domain types: what a snapshot holds and what the state restores from. */
export type StateImage = z.output<typeof StateImage>;

/**
 * The spec a folder was written under, as far as its records depend on it: the enumerations their
 * values come from and the fields added to them (issue 26).
 */
export const SpecMark = z.strictObject({
  title: z.string(),
  enums: z.record(z.string(), z.array(z.string())),
  fields: z.strictObject({
    contact: z.record(z.string(), z.unknown()),
    product: z.record(z.string(), z.unknown()),
  }),
});
export type SpecMark = z.output<typeof SpecMark>;

/** A spec's mark, as a snapshot keeps it. */
export const markOf = (spec: Spec): SpecMark => ({
  title: spec.title,
  enums: { ...spec.enums },
  fields: { contact: { ...spec.fields.contact }, product: { ...spec.fields.product } },
});

/**
 * Why a folder written under `kept` cannot be opened under `now`, or undefined when it can: its
 * added fields differ (records would lose or lack them), or an enumeration lost a value its records
 * may hold. A value added to an enumeration changes no record: that opens.
 */
export function specMismatch(kept: SpecMark, now: SpecMark): string | undefined {
  const problems: string[] = [];
  for (const resource of ["contact", "product"] as const) {
    const a = JSON.stringify(kept.fields[resource]);
    const b = JSON.stringify(now.fields[resource]);
    if (a !== b) problems.push(`fields.${resource} was ${a}, is ${b}`);
  }
  for (const [name, values] of Object.entries(kept.enums)) {
    const lost = values.filter((v) => !(now.enums[name] ?? []).includes(v));
    if (lost.length > 0) problems.push(`enums.${name} no longer has ${lost.join(", ")}`);
  }
  return problems.length === 0 ? undefined : problems.join("; ");
}

export const Snapshot = z.strictObject({
  format: z.literal("accounting-reference-state"),
  version: z.literal(FORMAT_VERSION),
  /** The journal that follows it is `journal-<generation>.log`. */
  generation: z.int().nonnegative(),
  /** The last change it includes; the journal's first entry is `seq + 1`. */
  seq: z.int().nonnegative(),
  writtenAt: instant,
  tokenPrefix: z.string(),
  /** Where the state was last seeded from (first start, or a reset), and those files' SHA-256. */
  fixtures: z.strictObject({ dir: z.string(), sha256: z.string() }),
  /** What of the spec it was written under gives its records their meaning; absent: the default file. */
  spec: z.optional(SpecMark),
  state: StateImage,
});
export type Snapshot = z.output<typeof Snapshot>;

/** Only `format` and `version`, read first, so that another version is named as such, not as damage. */
export const Versioned = z.object({ format: z.string(), version: z.unknown() });

// --- framing ---------------------------------------------------------------------------------------

const hex8 = (n: number) => n.toString(16).padStart(8, "0");

/** One line: checksum, space, JSON, newline. */
export function frame(json: string): string {
  return `${hex8(crc32(json))} ${json}\n`;
}

export type Unframed = { ok: true; json: string } | { ok: false; reason: string };

/** A line without its newline, checked against its checksum. */
export function unframe(line: string): Unframed {
  const m = /^([0-9a-f]{8}) /.exec(line);
  if (m === null) return { ok: false, reason: "no checksum at the start of the line" };
  const json = line.slice(9);
  const actual = hex8(crc32(json));
  if (actual !== m[1])
    return { ok: false, reason: `checksum ${m[1]} does not match the content (${actual})` };
  return { ok: true, json };
}
