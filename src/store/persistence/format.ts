import { crc32 } from "node:zlib";
import { Decimal } from "decimal.js";
import { z } from "zod";
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
};

export const OrganizationData = z.strictObject(organizationShape(DISK));
export const AccountData = z.strictObject(accountShape(DISK));
export const ContactData = z.strictObject(contactShape(DISK));
export const ProductData = z.strictObject(productShape(DISK));
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
