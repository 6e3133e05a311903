import type { Decimal } from "decimal.js";
import { z } from "zod";
import { defaultSpec, type EnumName } from "../../spec/index.js";

/**
 * The records of §2 and the tokens of §5, one shape per kind, written once here. A shape names each
 * field and the kind of value it holds (an id, a text of at most N characters, an instant, an
 * amount…); each format that carries records says, in its `Leaves`, how it writes those kinds:
 *
 * - the domain (below): Date and Decimal, what the store keeps and the operations work on;
 * - the fixtures' files (src/store/fixtures/schemas.ts): strings checked strictly, ids by kind;
 * - the `--data` folder (src/store/persistence/format.ts): codecs, money as its exact text;
 * - the wire of §2 (src/serialization/resources.ts): instants at ms, money at 4 decimals, and no
 *   `organizationId` (an explicit `omit`).
 *
 * Types come from the schemas (`z.infer`). Formats differ only where their leaves say, or where an
 * explicit transform (`omit`, a field added) says, never by a field typed twice.
 */

/**
 * The enumerations of §2 and §5 come from the spec file (spec/accounting-api.json), never from a
 * constant here: these are the default file's, for what does not vary with a variant (the fixtures'
 * files, the token pages' scope list). A state serving a variant reads its own spec's.
 */
const DEFAULT = defaultSpec();
const asTuple = (values: readonly string[]): readonly [string, ...string[]] =>
  values as readonly [string, ...string[]];
export const CONTACT_TYPES = asTuple(DEFAULT.enums.contactTypes);
export type ContactType = string;

export const PRODUCT_TYPES = asTuple(DEFAULT.enums.productTypes);
export type ProductType = string;

export const INVOICE_STATUSES = asTuple(DEFAULT.enums.invoiceStatuses);
export type InvoiceStatus = string;

export const EXPENSE_STATUSES = asTuple(DEFAULT.enums.expenseStatuses);
export type ExpenseStatus = string;

/** §5 Scopes. The two "coming soon" scopes can be granted but no endpoint accepts them yet. */
export const SCOPES = asTuple(DEFAULT.enums.scopes);
export type Scope = string;

/** Plans decide API access (§7 "the organization's plan is insufficient", spec-gaps #25). */
export const PLANS = ["STARTER", "BUSINESS", "ENTERPRISE"] as const;
export type Plan = (typeof PLANS)[number];
export const planHasApiAccess = (plan: Plan): boolean => plan !== "STARTER";

/**
 * How long each text field may be, in code points (spec-gaps #16): §8's limits, and the fixtures' own
 * where §8 says nothing (a ledger account's code, an invoice's number, the descriptions, a token's name).
 */
export const TEXT_LIMITS = {
  organization: { name: 200 },
  account: { code: 20, name: 200 },
  contact: {
    ...DEFAULT.limits.contact,
    taxNumber: Math.max(DEFAULT.limits.contact.taxNumberTPS, DEFAULT.limits.contact.taxNumberTVQ),
  },
  product: DEFAULT.limits.product,
  invoice: { invoiceNumber: 50, description: 2000 },
  expense: { description: 2000 },
  token: { name: 100 },
} as const;

/** The kinds of record an id names (spec-gaps #3: `con_…`, opaque to clients). */
export type IdKind = "org" | "acc" | "con" | "prd" | "inv" | "exp" | "tok";

/**
 * How one format writes the kinds of value records hold. `Instant`, `Day` and `Money` are type
 * parameters, so that each format's types follow from its leaves.
 */
export interface Leaves<Instant extends z.ZodType, Day extends z.ZodType, Money extends z.ZodType> {
  /** A record's own id. */
  id(kind: IdKind): z.ZodType<string, string>;
  /** A reference to a record of another kind (an organization, a contact, a ledger account). */
  ref(kind: IdKind): z.ZodType<string, string>;
  /** Text of at most `max` code points. */
  text(max: number): z.ZodType<string, string>;
  /** An e-mail address (spec-gaps #18). */
  email: z.ZodType<string, string>;
  /** An instant (§2: UTC, milliseconds). */
  instant: Instant;
  /** An invoice's or an expense's date: its midnight instant (§2). */
  day: Day;
  /** An amount (§2: decimal, never a binary float). */
  money: Money;
  /** A value of one of the spec's enumerations (the default file's unless a format says otherwise). */
  choice?: ((name: EnumName) => z.ZodType<string, string>) | undefined;
}

/** A value of the enumeration `name`, as the leaves say (the default spec's list when they say nothing). */
const choice = <I extends z.ZodType, D extends z.ZodType, M extends z.ZodType>(
  l: Leaves<I, D, M>,
  name: EnumName,
): z.ZodType<string, string> => l.choice?.(name) ?? z.enum(DEFAULT.enums[name]);

export const organizationShape = <I extends z.ZodType, D extends z.ZodType, M extends z.ZodType>(
  l: Leaves<I, D, M>,
) => ({
  id: l.id("org"),
  name: l.text(TEXT_LIMITS.organization.name),
  plan: z.enum(PLANS),
});

export const accountShape = <I extends z.ZodType, D extends z.ZodType, M extends z.ZodType>(
  l: Leaves<I, D, M>,
) => ({
  id: l.id("acc"),
  organizationId: l.ref("org"),
  code: l.text(TEXT_LIMITS.account.code),
  name: l.text(TEXT_LIMITS.account.name),
});

export const contactShape = <I extends z.ZodType, D extends z.ZodType, M extends z.ZodType>(
  l: Leaves<I, D, M>,
) => ({
  id: l.id("con"),
  organizationId: l.ref("org"),
  type: choice(l, "contactTypes"),
  name: l.text(TEXT_LIMITS.contact.name),
  email: l.email.nullable(),
  phone: l.text(TEXT_LIMITS.contact.phone).nullable(),
  address: l.text(TEXT_LIMITS.contact.address).nullable(),
  taxNumberTPS: l.text(TEXT_LIMITS.contact.taxNumber).nullable(),
  taxNumberTVQ: l.text(TEXT_LIMITS.contact.taxNumber).nullable(),
  createdAt: l.instant,
  updatedAt: l.instant,
});

export const productShape = <I extends z.ZodType, D extends z.ZodType, M extends z.ZodType>(
  l: Leaves<I, D, M>,
) => ({
  id: l.id("prd"),
  organizationId: l.ref("org"),
  sku: l.text(TEXT_LIMITS.product.sku),
  name: l.text(TEXT_LIMITS.product.name),
  description: l.text(TEXT_LIMITS.product.description).nullable(),
  type: choice(l, "productTypes"),
  unitPrice: l.money,
  taxable: z.boolean(),
  createdAt: l.instant,
  updatedAt: l.instant,
});

/** Invoices and expenses keep a snapshot of their contact, as an issued document does. */
export const invoiceShape = <I extends z.ZodType, D extends z.ZodType, M extends z.ZodType>(
  l: Leaves<I, D, M>,
) => ({
  id: l.id("inv"),
  organizationId: l.ref("org"),
  invoiceNumber: l.text(TEXT_LIMITS.invoice.invoiceNumber),
  date: l.day,
  dueDate: l.day,
  status: choice(l, "invoiceStatuses"),
  subtotal: l.money,
  tps: l.money,
  tvq: l.money,
  total: l.money,
  description: l.text(TEXT_LIMITS.invoice.description),
  contact: z.strictObject({
    id: l.ref("con"),
    name: l.text(TEXT_LIMITS.contact.name),
    email: l.email.nullable(),
  }),
  createdAt: l.instant,
});

export const expenseShape = <I extends z.ZodType, D extends z.ZodType, M extends z.ZodType>(
  l: Leaves<I, D, M>,
) => ({
  id: l.id("exp"),
  organizationId: l.ref("org"),
  date: l.day,
  status: choice(l, "expenseStatuses"),
  amount: l.money,
  tps: l.money,
  tvq: l.money,
  total: l.money,
  description: l.text(TEXT_LIMITS.expense.description),
  contact: z.strictObject({ id: l.ref("con"), name: l.text(TEXT_LIMITS.contact.name) }),
  account: z.strictObject({
    id: l.ref("acc"),
    code: l.text(TEXT_LIMITS.account.code),
    name: l.text(TEXT_LIMITS.account.name),
  }),
  createdAt: l.instant,
});

/**
 * An API token as the registry keeps it (§2 "API token", §5): the SHA-256 of the token in hex,
 * never the token; `hint` is the prefix and its last 4 characters.
 */
export const tokenShape = <I extends z.ZodType, D extends z.ZodType, M extends z.ZodType>(
  l: Leaves<I, D, M>,
) => ({
  id: l.id("tok"),
  name: l.text(TEXT_LIMITS.token.name),
  organizationId: l.ref("org"),
  /** Sorted in SCOPES order, no duplicates. */
  scopes: z.array(choice(l, "scopes")),
  createdAt: l.instant,
  expiresAt: l.instant.nullable(),
  revokedAt: l.instant.nullable(),
  lastUsedAt: l.instant.nullable(),
  requestCount: z.int().nonnegative(),
  hash: z.string().regex(/^[0-9a-f]{64}$/, "expected a SHA-256 in hex"),
  /** prefix + "_…" + the last 4 chars: enough to recognise a token, far too little to guess it. */
  hint: z.string(),
});

/**
 * The domain's records: the shapes over Date and Decimal, as types only. Nothing checks a record
 * against them at run time (each way in checks its own input), so no schema is built for them: zod
 * builds an object schema in about a millisecond, which every start would pay.
 */
type DomainOf<Shape extends (...args: never[]) => z.ZodRawShape> = z.infer<z.ZodObject<ReturnType<Shape>>>;
type Money = z.ZodCustom<Decimal, Decimal>;

export type Organization = DomainOf<typeof organizationShape<z.ZodDate, z.ZodDate, Money>>;
export type LedgerAccount = DomainOf<typeof accountShape<z.ZodDate, z.ZodDate, Money>>;
/**
 * The values of the fields a spec variant adds to a resource (`fields.contact.<name>`), by name: a
 * string, a JSON number, a boolean, or a decimal kept exactly. A field not sent is absent.
 */
export type AddedValue = string | number | boolean | Decimal;
export type AddedValues = Readonly<Record<string, AddedValue>>;
interface WithAdded {
  /** What a variant's added fields hold; absent on records that have none (the fixtures'). */
  added?: AddedValues | undefined;
}
export type Contact = DomainOf<typeof contactShape<z.ZodDate, z.ZodDate, Money>> & WithAdded;
export type Product = DomainOf<typeof productShape<z.ZodDate, z.ZodDate, Money>> & WithAdded;
export type Invoice = DomainOf<typeof invoiceShape<z.ZodDate, z.ZodDate, Money>>;
export type Expense = DomainOf<typeof expenseShape<z.ZodDate, z.ZodDate, Money>>;
/** A token's whole record, hash included: what `--data` keeps and a snapshot restores. */
export type TokenData = DomainOf<typeof tokenShape<z.ZodDate, z.ZodDate, Money>>;

declare const STORED: unique symbol;

/**
 * A record as a state holds it: frozen when it is stored and never changed afterwards, so that what
 * is derived from it alone (its served bytes, src/serialization/envelope.ts) may be kept beside it
 * for as long as it lives. Only `stored` makes one: the type says which records the serializers may
 * cache, where `Object.isFrozen` used to.
 */
export type Stored<T extends object> = Readonly<T> & { readonly [STORED]: true };

/** Freezes a record as the store keeps it. */
export const stored = <T extends object>(record: T): Stored<T> => Object.freeze(record) as Stored<T>;
