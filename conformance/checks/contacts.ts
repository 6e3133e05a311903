import { failureKey } from "../failures.js";
import type { Check, CheckContext, HttpExchange } from "../types.js";
import {
  expectDataObject,
  expectRejected,
  expectStatus,
  fail,
  is2xx,
  outcome,
  isEnvelopeProblem,
  readErrorEnvelope,
  snippet,
  type JsonObject,
} from "../support/assert.js";
import {
  CLEAR_INVALID_EMAILS,
  codePointLength,
  contactBodyArb,
  contactRuleBreakExamples,
  invalidContactBodyArb,
  padTo,
  describeInvalid,
} from "../support/arbitraries.js";
import {
  createdContact,
  dataObject,
  fullToken,
  requireCreated,
  requireListed,
  tokenHolding,
  type ContactVariant,
} from "../support/data.js";
import { checkProperty, writeRuns } from "../support/property.js";
import { updatedAtCheck } from "../support/rows.js";
import { memoSlot, onceSlot } from "../support/shared.js";
import {
  contactCreationProblems,
  listedContactProblems,
  problemsKey,
  problemsText,
} from "../support/shapes.js";
import { SECTION, clauseRange } from "../spec/clauses.js";

/** POST /api/v1/contacts: §2's creation response, §4's body table, §8's lengths. */

interface ListedContact {
  item: JsonObject;
  sent: JsonObject;
  /** The list read that found it. */
  exchange: HttpExchange;
  created: HttpExchange;
}

interface AstralExperiment {
  /** 200 code points, many astral: more than 200 UTF-16 units. */
  atMax: HttpExchange;
  atMaxName: string;
  /** 201 code points, many astral. */
  overMax: HttpExchange;
  /** Exactly 200 UTF-16 units (fewer code points): sent only when `atMax` is refused. */
  utf16Max?: HttpExchange;
}

interface ContactBlankExperiment {
  empty: HttpExchange;
  spaces: HttpExchange;
}

/** Each reference contact as organization 0's list shows it. */
const LISTED = memoSlot<ContactVariant, ListedContact>("contacts as listed");
/** contacts.astral-length and contacts.reference-astral. */
const ASTRAL_EXPERIMENT = onceSlot<AstralExperiment>("the astral names");
/** contacts.blank-strings and contacts.reference-blank. */
const BLANK = onceSlot<ContactBlankExperiment>("the blank names");
/** contacts.unknown-field and contacts.reference-unknown-field. */
const UNKNOWN_FIELD = onceSlot<HttpExchange>("an unknown field");

const postContact = (ctx: CheckContext, json: unknown): Promise<HttpExchange> =>
  ctx.http.send({ method: "POST", path: ctx.spec.LISTS.contacts.path, auth: fullToken(ctx), json });

/** The run's reference contact, as organization 0's list shows it; read once. */
function listedItem(ctx: CheckContext, variant: ContactVariant): Promise<ListedContact> {
  return ctx.shared.get(LISTED).get(variant, async () => {
    const { body, exchange } = await createdContact(ctx, variant);
    requireCreated(ctx, exchange, `the ${variant} contact`, "contacts.create-response");
    const id = dataObject(exchange)?.id;
    const match = (item: JsonObject): boolean =>
      id === undefined ? item.name === body.name : item.id === id;
    const listed = await requireListed(ctx, "contacts", match, `The ${variant} contact`, exchange);
    return { ...listed, sent: body, created: exchange };
  });
}

/**
 * §8: a value accepted at its boundary is kept whole. The contact is created (201), its creation
 * answer echoes name and phone (spec-gaps #5), and the list shows every field as sent; a failure
 * replays the creation and the read.
 */
async function expectKeptIntact(
  ctx: CheckContext,
  body: JsonObject,
  what: string,
  /** What `what` names, without the run's values: the failure's key. */
  kind: string,
): Promise<void> {
  const created = await postContact(ctx, body);
  expectStatus(created, 201, `${what} must be accepted (§8)`);
  const answered = contactCreationProblems(ctx.spec, body, expectDataObject(created));
  if (answered.length > 0) {
    fail(`${what}: the creation answer does not echo what was sent`, {
      key: failureKey(kind, "creation answer", problemsKey(answered)),
      expected: "name and phone (and any field answered) as sent",
      actual: problemsText(answered),
      exchange: created,
    });
  }
  const id = dataObject(created)?.id;
  const { item, exchange } = await requireListed(
    ctx,
    "contacts",
    (i) => (id === undefined ? i.name === body.name : i.id === id),
    `The contact (${what})`,
    created,
  );
  const listed = listedContactProblems(ctx.spec, body, item);
  if (listed.length > 0) {
    fail(`${what}: accepted, but not kept intact (§8)`, {
      key: failureKey(kind, "listed", problemsKey(listed)),
      expected: "every field read back as sent",
      actual: listed.map((p) => snippet(p.text, 300)).join("; "),
      exchange,
      evidence: [created, exchange],
    });
  }
}

// ---- experiments shared by a PROBE and its REFERENCE ----------------------------------------------------

/** Astral characters are two UTF-16 units and four UTF-8 bytes, one code point. */
const ASTRAL = "\u{1D400}";

/** "é" precomposed: outside ASCII, yet one code point, one UTF-16 unit and one grapheme. */
const BMP = "\u00E9";

function astralExperiment(ctx: CheckContext): Promise<AstralExperiment> {
  return ctx.shared.get(ASTRAL_EXPERIMENT).get(async () => {
    const prefix = `${ctx.marker} astral `;
    const atMaxName = padTo(prefix, ctx.spec.MAX.contactName, ASTRAL);
    const atMax = await postContact(ctx, { type: ctx.spec.SAMPLE.contactType, name: atMaxName });
    const overMax = await postContact(ctx, {
      type: ctx.spec.SAMPLE.contactType,
      name: padTo(prefix, ctx.spec.MAX.contactName + 1, ASTRAL),
    });
    if (is2xx(atMax)) return { atMax, atMaxName, overMax };
    const room = ctx.spec.MAX.contactName - prefix.length;
    const utf16Name = prefix + ASTRAL.repeat(Math.floor(room / 2)) + "x".repeat(room % 2);
    return {
      atMax,
      atMaxName,
      overMax,
      utf16Max: await postContact(ctx, { type: ctx.spec.SAMPLE.contactType, name: utf16Name }),
    };
  });
}

function blankExperiment(ctx: CheckContext): Promise<ContactBlankExperiment> {
  // A blank name cannot carry the marker: the address does, so that an accepted record can be found.
  const address = `${ctx.marker} blank-name probe`;
  return ctx.shared.get(BLANK).get(async () => ({
    empty: await postContact(ctx, { type: ctx.spec.SAMPLE.contactType, name: "", address }),
    spaces: await postContact(ctx, { type: ctx.spec.SAMPLE.contactType, name: "   ", address }),
  }));
}

const unknownFieldExperiment = (ctx: CheckContext): Promise<HttpExchange> =>
  ctx.shared.get(UNKNOWN_FIELD).get(() =>
    postContact(ctx, {
      type: ctx.spec.SAMPLE.contactType,
      name: `${ctx.marker} unknown field`,
      emial: "typo@example.com",
    }),
  );

/** spec-gaps #18: what no single reading settles. */
const BORDERLINE_EMAILS: ReadonlyArray<[string, string]> = [
  ['"john doe"@example.com', "quoted local part"],
  ["user@[192.0.2.1]", "IP literal"],
  ["user@exämple.com", "IDN domain"],
  ["üser@example.com", "non-ASCII local part"],
  ["user@localhost", "dotless domain"],
  ["a..b@example.com", "consecutive dots"],
  [".a@example.com", "leading dot"],
  [`${"x".repeat(65)}@example.com`, "65-character local part"],
];

/**
 * Whether `read` is the mailbox `sent` names: the local part as sent (RFC 5321 §2.4 makes it
 * case-sensitive), the domain in any case (RFC 4343: domain names are not).
 */
function sameMailbox(sent: string, read: unknown): boolean {
  if (typeof read !== "string") return false;
  const split = (a: string): [string, string] => [
    a.slice(0, a.lastIndexOf("@")),
    a.slice(a.lastIndexOf("@") + 1),
  ];
  const [local, domain] = split(sent);
  const [readLocal, readDomain] = split(read);
  return readLocal === local && readDomain.toLowerCase() === domain.toLowerCase();
}

export const contactChecks: readonly Check[] = [
  {
    id: "contacts.create-response",
    section: SECTION.resources,
    clause: ["§2 Contact.11", "§4.6"],
    level: "MUST",
    rule: "A contact creation answers 201 with id, type, name, createdAt, and email and phone as sent",
    gap: 5,
    writes: true,
    async run(ctx) {
      for (const variant of ["minimal", "full"] as const) {
        const { body, exchange } = await createdContact(ctx, variant);
        const rule = `POST ${ctx.spec.LISTS.contacts.path} (${variant} body) must answer 201 with the created contact`;
        expectStatus(exchange, 201, rule);
        const problems = contactCreationProblems(ctx.spec, body, expectDataObject(exchange, rule));
        if (problems.length > 0) {
          fail(rule, {
            key: failureKey(`${variant} contact`, problemsKey(problems)),
            expected: "id, type, name, createdAt, and email/phone as sent",
            actual: problemsText(problems),
            exchange,
          });
        }
      }
    },
  },
  {
    id: "contacts.created-listed",
    section: SECTION.endpoints,
    clause: ["§4.5", "§4.6"],
    level: "MUST",
    rule: "A created contact is then listed with every field as sent",
    gap: 4,
    writes: true,
    async run(ctx) {
      for (const variant of ["minimal", "full"] as const) {
        const { item, sent, exchange, created } = await listedItem(ctx, variant);
        const problems = listedContactProblems(ctx.spec, sent, item);
        if (problems.length > 0) {
          fail(`The ${variant} contact is listed otherwise than it was sent`, {
            key: failureKey(`${variant} contact`, problemsKey(problems)),
            expected: "every field as sent, the others as §2 describes them",
            actual: problemsText(problems),
            exchange,
            evidence: [created, exchange],
          });
        }
      }
    },
  },
  updatedAtCheck("contact", ["§2 Contact.9", "§2 Contact.10"], (ctx) => listedItem(ctx, "full")),

  {
    id: "contacts.reference-response",
    section: SECTION.resources,
    clause: "§2 Contact.11",
    level: "REFERENCE",
    rule: "A contact creation answers exactly id, type, name, email, phone, createdAt; email and phone only when sent",
    gap: 5,
    writes: true,
    async run(ctx) {
      const expected = {
        minimal: ["createdAt", "id", "name", "type"],
        full: ["createdAt", "email", "id", "name", "phone", "type"],
      };
      for (const variant of ["minimal", "full"] as const) {
        const { exchange } = await createdContact(ctx, variant);
        const keys = Object.keys(expectDataObject(exchange)).sort();
        if (JSON.stringify(keys) !== JSON.stringify(expected[variant])) {
          fail(`The ${variant} contact's creation answer has other fields`, {
            key: failureKey(`${variant} contact`, keys.join(", ")),
            expected: expected[variant].join(", "),
            actual: keys.join(", "),
            exchange,
          });
        }
      }
    },
  },
  {
    id: "contacts.valid-bodies",
    section: SECTION.endpoints,
    clause: ["§4.6", ...clauseRange("§4 Contacts body", 1, 7)],
    level: "MUST",
    rule: "Any valid contact body is created: 201, with id, type, name, createdAt, and email and phone as sent",
    gap: 5,
    writes: true,
    async run(ctx) {
      await checkProperty(ctx, {
        rule: "A valid contact body must be created with 201 and echoed (§4, spec-gaps #5)",
        arb: contactBodyArb(ctx.spec, ctx.marker),
        numRuns: writeRuns(ctx),
        predicate: async (body) => {
          const ex = await postContact(ctx, body);
          expectStatus(ex, 201, `POST ${ctx.spec.LISTS.contacts.path}`);
          const problems = contactCreationProblems(ctx.spec, body, expectDataObject(ex));
          if (problems.length > 0) {
            fail("the creation answer departs from what was sent", {
              key: failureKey("creation answer", problemsKey(problems)),
              expected: "id, type, name, createdAt, and email/phone as sent",
              actual: problemsText(problems),
              exchange: ex,
            });
          }
        },
      });
    },
  },
  {
    id: "contacts.invalid-bodies",
    section: SECTION.endpoints,
    clause: [...clauseRange("§4 Contacts body", 1, 7), "§7.4", "§8.3", "§8.4", "§8.5"],
    level: "MUST",
    rule: "Every contact body breaking one rule of §4 (required, type, enum, length, e-mail; each field × each rule, in every run, random ones on top) gets 400 invalid_request",
    async run(ctx) {
      await checkProperty(ctx, {
        rule: "An invalid contact body must be refused with 400 invalid_request (§4, §7)",
        arb: invalidContactBodyArb(ctx.spec, ctx.marker),
        // Every break runs as a fixed example, and the coverage phase sends each field's neighbours:
        // as many random draws on top as a writing property makes.
        numRuns: writeRuns(ctx),
        // Every single-rule break, whatever the seed: a random draw would meet each only by luck.
        examples: contactRuleBreakExamples(ctx.spec, ctx.marker),
        show: describeInvalid,
        classOf: (v) => `${v.field} ${v.rule}`,
        predicate: async ({ body }) => {
          const auth = tokenHolding(ctx, ctx.spec.file.endpoints.createContact.scope);
          const ex = await ctx.http.send({
            method: "POST",
            path: ctx.spec.LISTS.contacts.path,
            auth,
            json: body,
          });
          expectRejected(ctx.spec, ex, "the body must be refused");
        },
      });
    },
  },
  {
    id: "contacts.length-boundaries",
    section: SECTION.limits,
    clause: ["§8.3", "§8.4", "§8.5"],
    level: "MUST",
    rule: 'Name 200, phone 50, address 500, tax numbers 50 ASCII characters, and a name of 200 "é", are accepted and read back intact (creation answer and list); 201 "é" are refused (one ASCII character more: contacts.invalid-bodies)',
    gap: 16,
    writes: true,
    async run(ctx) {
      const fields = {
        name: { max: ctx.spec.MAX.contactName, prefix: `${ctx.marker} max `, fill: "x" },
        phone: { max: ctx.spec.MAX.contactPhone, prefix: "+1 514 555 0199 ", fill: "9" },
        address: { max: ctx.spec.MAX.contactAddress, prefix: `${ctx.marker} `, fill: "a" },
        taxNumberTPS: { max: ctx.spec.MAX.contactTaxNumberTPS, prefix: "123456789RT", fill: "0" },
        taxNumberTVQ: { max: ctx.spec.MAX.contactTaxNumberTVQ, prefix: "1234567890TQ", fill: "0" },
      };
      const atMax: JsonObject = { type: ctx.spec.SAMPLE.contactType };
      for (const [f, { max, prefix, fill }] of Object.entries(fields)) atMax[f] = padTo(prefix, max, fill);
      await expectKeptIntact(ctx, atMax, "Every field at its maximum length", "every field at its maximum");
      // Non-ASCII in the Basic Multilingual Plane: "é" (U+00E9) is one code point, one UTF-16 unit and
      // one grapheme, so every reading of "character" (spec-gaps #16) agrees; only a byte count differs.
      const bmpAt = padTo(`${ctx.marker} `, ctx.spec.MAX.contactName, BMP);
      await expectKeptIntact(
        ctx,
        { type: ctx.spec.SAMPLE.contactType, name: bmpAt },
        `A name of ${ctx.spec.MAX.contactName} characters, mostly "${BMP}" (${Buffer.byteLength(bmpAt)} UTF-8 bytes)`,
        `name of ${ctx.spec.MAX.contactName} mostly "${BMP}"`,
      );
      expectRejected(
        ctx.spec,
        await postContact(ctx, {
          type: ctx.spec.SAMPLE.contactType,
          name: padTo(`${ctx.marker} `, ctx.spec.MAX.contactName + 1, BMP),
        }),
        `A name of ${ctx.spec.MAX.contactName + 1} characters, mostly "${BMP}", must be refused`,
      );
    },
  },
  {
    id: "contacts.astral-length",
    section: SECTION.limits,
    clause: "§8.3",
    level: "PROBE",
    rule: "How the name's 200-character limit counts astral characters (code points, UTF-16 units or bytes)",
    gap: 16,
    writes: true,
    async run(ctx) {
      const e = await astralExperiment(ctx);
      const units = e.atMaxName.length;
      if (is2xx(e.atMax)) {
        const echoed =
          dataObject(e.atMax)?.name === e.atMaxName ? "read back unchanged" : "NOT read back unchanged";
        ctx.observe(
          `counts code points; 200 ${echoed}`,
          `A name of 200 code points (${units} UTF-16 units) is accepted and ${echoed}: the limit counts code points.`,
        );
        ctx.observe(
          `201 code points: ${outcome(e.overMax)}`,
          `A name of 201 code points, astral characters included, is ${outcome(e.overMax)}.`,
        );
      } else if (e.utf16Max !== undefined && is2xx(e.utf16Max)) {
        ctx.observe(
          `counts UTF-16 units; 200 code points: ${outcome(e.atMax)}`,
          `A name of 200 code points (${units} UTF-16 units) is ${outcome(e.atMax)}, one of 200 UTF-16 units accepted: the limit counts UTF-16 units.`,
        );
      } else {
        ctx.observe(
          "counts bytes or something else",
          `Names of 200 code points (${units} UTF-16 units) and of 200 UTF-16 units are both refused: the limit counts bytes or something else.`,
        );
      }
    },
  },
  {
    id: "contacts.reference-astral",
    section: SECTION.limits,
    clause: "§8.3",
    level: "REFERENCE",
    rule: "Lengths count Unicode code points: 200 astral-heavy code points pass, 201 do not",
    gap: 16,
    writes: true,
    async run(ctx) {
      const e = await astralExperiment(ctx);
      expectStatus(
        e.atMax,
        201,
        `A name of 200 code points (${codePointLength(e.atMaxName)} counted, ${e.atMaxName.length} UTF-16 units) must be accepted`,
      );
      expectRejected(ctx.spec, e.overMax, "A name of 201 code points must be refused");
    },
  },
  {
    id: "contacts.blank-strings",
    section: SECTION.endpoints,
    clause: "§4 Contacts body.2",
    level: "PROBE",
    rule: "What a blank or whitespace-only contact name gets",
    gap: 17,
    writes: true,
    async run(ctx) {
      const e = await blankExperiment(ctx);
      ctx.observe(
        `empty: ${outcome(e.empty)}; spaces: ${outcome(e.spaces)}`,
        `An empty contact name is ${outcome(e.empty)}; a name of three spaces is ${outcome(e.spaces)}.`,
      );
    },
  },
  {
    id: "contacts.reference-blank",
    section: SECTION.endpoints,
    clause: "§4 Contacts body.2",
    level: "REFERENCE",
    rule: "A blank or whitespace-only contact name gets 400 invalid_request",
    gap: 17,
    writes: true,
    async run(ctx) {
      const e = await blankExperiment(ctx);
      expectRejected(ctx.spec, e.empty, "An empty name must be refused");
      expectRejected(ctx.spec, e.spaces, "A whitespace-only name must be refused");
    },
  },
  {
    id: "contacts.email-clear-cases",
    section: SECTION.resources,
    clause: ["§2 Contact.4", "§4 Contacts body.3"],
    level: "MUST",
    rule: "a@example.com is accepted as an e-mail; not-an-email, a@, @b.c and a b@c.d get 400",
    gap: 18,
    writes: true,
    async run(ctx) {
      const name = `${ctx.marker} email`;
      const ok = await postContact(ctx, { type: ctx.spec.SAMPLE.contactType, name, email: "a@example.com" });
      expectStatus(ok, 201, "The e-mail a@example.com must be accepted (§2)");
      for (const email of CLEAR_INVALID_EMAILS) {
        expectRejected(
          ctx.spec,
          await postContact(ctx, { type: ctx.spec.SAMPLE.contactType, name, email }),
          `The e-mail ${JSON.stringify(email)} must be refused (§2)`,
        );
      }
    },
  },
  {
    id: "contacts.email-borderline",
    section: SECTION.resources,
    clause: ["§2 Contact.4", "§4 Contacts body.3"],
    level: "PROBE",
    rule: "Which borderline e-mail addresses are taken (quoted, IP literal, IDN, dotless, dots, long local part)",
    gap: 18,
    writes: true,
    async run(ctx) {
      const taken: Array<{ what: string; shown: string }> = [];
      const refused: Array<{ what: string; shown: string }> = [];
      for (const [email, what] of BORDERLINE_EMAILS) {
        const ex = await postContact(ctx, {
          type: ctx.spec.SAMPLE.contactType,
          name: `${ctx.marker} email ${what}`,
          email,
        });
        (is2xx(ex) ? taken : refused).push({
          what,
          shown: `${what} (${email.length > 30 ? `${email.slice(0, 12)}…` : email})`,
        });
      }
      const list = (cases: ReadonlyArray<{ what: string }>): string =>
        cases.map((c) => c.what).join(", ") || "none";
      ctx.observe(
        `accepted: ${list(taken)}; refused: ${list(refused)}`,
        `Borderline e-mails accepted: ${taken.map((c) => c.shown).join(", ") || "none"}; refused: ${refused.map((c) => c.shown).join(", ") || "none"}.`,
      );
    },
  },
  {
    id: "contacts.email-local-part",
    section: SECTION.resources,
    clause: ["§2 Contact.4", "§4 Contacts body.3"],
    level: "SHOULD",
    rule: "An e-mail address reads back with its local part exactly as sent, capitals included (RFC 5321 §2.4: the local part is case-sensitive); the domain may come back in lower case",
    gap: 18,
    writes: true,
    async run(ctx) {
      const email = "Jean.Tremblay@Example.COM";
      const body = { type: ctx.spec.SAMPLE.contactType, name: `${ctx.marker} e-mail in capitals`, email };
      const created = await postContact(ctx, body);
      requireCreated(ctx, created, "A contact with capitals in its e-mail", "coverage.contact-fields");
      const id = dataObject(created)?.id;
      const listed = await requireListed(
        ctx,
        "contacts",
        (i) => (id === undefined ? i.name === body.name : i.id === id),
        "The contact with capitals in its e-mail",
        created,
      );
      const reads: ReadonlyArray<[string, unknown, HttpExchange]> = [
        ["creation answer", dataObject(created)?.email, created],
        ["list", listed.item.email, listed.exchange],
      ];
      for (const [where, value, ex] of reads) {
        // An echo left out is contacts.create-response's to judge.
        if (where === "creation answer" && value === undefined) continue;
        if (!sameMailbox(email, value)) {
          fail(`The e-mail ${email} reads back as another address (${where})`, {
            key: failureKey("e-mail local part not as sent", where),
            expected: `${email}, the domain in any case`,
            actual: `email ${JSON.stringify(value)}`,
            exchange: ex,
            evidence: ex === created ? [created] : [created, ex],
          });
        }
      }
    },
  },
  {
    id: "contacts.unknown-field",
    section: SECTION.endpoints,
    clause: "§4.6",
    level: "PROBE",
    rule: "What an unknown field in a contact body gets (emial, a typo of email)",
    gap: 12,
    writes: true,
    async run(ctx) {
      const ex = await unknownFieldExperiment(ctx);
      const read = readErrorEnvelope(ex.json);
      const named = !isEnvelopeProblem(read) && read.details !== undefined && "emial" in read.details;
      ctx.observe(
        `emial: ${outcome(ex)}${named ? ", named in details" : ""}`,
        `A contact body with an unknown field "emial" is ${outcome(ex)}${named ? ", details naming it" : ""}.`,
      );
    },
  },
  {
    id: "contacts.reference-unknown-field",
    section: SECTION.endpoints,
    clause: "§4.6",
    level: "REFERENCE",
    rule: "An unknown field in a body gets 400 invalid_request, details naming it",
    gap: 12,
    writes: true,
    async run(ctx) {
      const ex = await unknownFieldExperiment(ctx);
      const { details } = expectRejected(ctx.spec, ex, "A body with an unknown field must be refused");
      if (details === undefined || !("emial" in details)) {
        fail("The refusal must name the unknown field in error.details", {
          key: "unknown field not named in details",
          expected: 'error.details with a key "emial"',
          actual: snippet(ex.text),
          exchange: ex,
        });
      }
    },
  },
];
