import { Decimal } from "decimal.js";
import type { Check, CheckContext } from "../types.js";
import { expectedMoney } from "../support/arbitraries.js";
import {
  coverageChecks,
  formMaker,
  keptOrTrimmed,
  nothing,
  padWith,
  runBodies,
  sameText,
  show,
  trimReading,
  type BodyForm,
  type CoverageInput,
  type FormLevel,
  type FormOutcome,
} from "../support/coverage.js";
import { SECTION, clauseRange } from "../spec/clauses.js";

/**
 * The coverage phase (support/coverage.ts), its bodies: Content-Type, and every field of §4's contact
 * and product body tables with §8's limits, each in its legal forms and their illegal neighbours.
 * DECISIONS.md says, form by form, why a form is a MUST or open.
 */

/** Content-Type: the media type's parameters and case (RFC 9110 §8.3.1); spec-gaps #13 for the rest. */
const contentTypeInput: CoverageInput = {
  id: "coverage.content-type",
  section: SECTION.endpoints,
  clause: "§4.2",
  gap: 13,
  writes: true,
  rule: "A POST with Content-Type application/json in another legal form (a charset parameter, upper case) is taken; another media type gets 400 or 415, or is taken (spec-gaps #13)",
  openRule:
    "What a quoted charset, a space before the semicolon, an extra parameter, another charset and other JSON media types get",
  run(ctx: CheckContext): Promise<FormOutcome[]> {
    const contact = formMaker(ctx, "contacts");
    const product = formMaker(ctx, "products");
    const taken = (type: string): BodyForm =>
      contact(
        `sent as ${type}`,
        "MUST",
        "accept",
        "type",
        { value: ctx.spec.SAMPLE.contactType },
        { contentType: type },
      );
    const open = (type: string): BodyForm =>
      contact(
        `sent as ${type}`,
        "PROBE",
        "open",
        "type",
        { value: ctx.spec.SAMPLE.contactType },
        { contentType: type, alsoRefusedWith: 415 },
      );
    return runBodies(ctx, [
      taken("application/json; charset=utf-8"),
      taken("application/json;charset=UTF-8"),
      taken("Application/JSON"),
      product(
        "sent as application/json; charset=utf-8",
        "MUST",
        "accept",
        "unitPrice",
        { json: "10" },
        {
          contentType: "application/json; charset=utf-8",
          stored: "10.0000",
        },
      ),
      open('application/json; charset="utf-8"'),
      open("application/json ; charset=utf-8"),
      open("application/json; charset=utf-8; version=1"),
      open("application/json; charset=iso-8859-1"),
      open("application/vnd.api+json"),
      open("text/json"),
      open("application/jsonx"),
    ]);
  },
};

/** Every field of §4's contact body table, §8's lengths (spec-gaps #16–#18). */
const contactFieldsInput: CoverageInput = {
  id: "coverage.contact-fields",
  section: SECTION.endpoints,
  clause: [...clauseRange("§4 Contacts body", 1, 7), "§8.3", "§8.4", "§8.5", "§2 Contact.4"],
  gap: 16,
  writes: true,
  rule: "Every contact field in its legal forms (each type, one character, the maximum with spaces, CJK, an emoji, quotes and markup, JSON escapes, e-mails with dots, plus, subdomains and capitals, phones with punctuation) is taken and read back as sent; illegal neighbours (a type that begins like one, one character past a limit with spaces, past it once outer spaces are stripped, an e-mail followed by junk, a second address or @) are refused and not stored",
  openRule:
    "What a contact gets for forms the spec leaves open: outer white space (a line break after an e-mail included), lower-case or padded types, a line break, an apostrophe in an e-mail, non-ASCII in a phone or tax number, null for an optional field",
  run(ctx: CheckContext): Promise<FormOutcome[]> {
    const f = formMaker(ctx, "contacts");
    const max = ctx.spec.MAX.contactName;
    const name = (
      what: string,
      level: FormLevel,
      expect: BodyForm["expect"],
      make: (tag: string) => string,
      extra: Parameters<typeof f>[5] = {},
    ): BodyForm => f(`name ${what}`, level, expect, "name", undefined, { tagged: make, ...extra });
    const padded201 = (tag: string): string => ` ${padWith(`${tag} `, max + 1, "x")} `;
    const atMaxSpace = (tag: string): string => `${padWith(tag, max, "x")} `;
    const email = (
      what: string,
      level: FormLevel,
      expect: BodyForm["expect"],
      value: string,
      extra: Parameters<typeof f>[5] = {},
    ): BodyForm => f(`email ${what}`, level, expect, "email", { value }, extra);
    const phone50 = padWith("+1 514 555 0199", ctx.spec.MAX.contactPhone, " 99");
    // Every type of the spec is accepted (the first is sent by every other form); its near misses refused.
    const { contactType: one, otherContactType: other } = ctx.spec.SAMPLE;
    return runBodies(ctx, [
      ...ctx.spec.CONTACT_TYPES.filter((t) => t !== one).map((t) =>
        f(`type ${t}`, "MUST", "accept", "type", { value: t }),
      ),
      f(`type ${one}X`, "MUST", "refuse", "type", { value: `${one}X` }),
      f(`type ${one.slice(0, -1)}`, "MUST", "refuse", "type", { value: one.slice(0, -1) }),
      f(`type ${one},${other}`, "MUST", "refuse", "type", { value: `${one},${other}` }),
      f(
        `type ${one.toLowerCase()}`,
        "PROBE",
        "open",
        "type",
        { value: one.toLowerCase() },
        { keeps: (v) => v === one, reading: (v) => show(v) },
      ),
      f(
        `type ' ${one}'`,
        "PROBE",
        "open",
        "type",
        { value: ` ${one}` },
        { keeps: (v) => v === one, reading: (v) => show(v) },
      ),
      name("of one character", "MUST", "accept", () => "x"),
      name(`of ${max} characters with spaces`, "MUST", "accept", (tag) => padWith(`${tag} `, max, "ab cd ")),
      name(`of ${max} CJK characters`, "MUST", "accept", (tag) => padWith(`${tag} `, max, "日本語")),
      name("with an emoji", "MUST", "accept", (tag) => `${tag} 🎉 party`),
      name(
        "with quotes, markup and a backslash",
        "MUST",
        "accept",
        (tag) => `${tag} O'Brien "Bob" <b>&amp; \\ /`,
      ),
      f("name written with JSON escapes", "MUST", "accept", "name", undefined, {
        tagged: (tag) => `${tag} é日🎉`,
        escaped: true,
      }),
      name(`of ${max + 1} characters with spaces`, "MUST", "refuse", (tag) =>
        padWith(`${tag} `, max + 1, "ab cd "),
      ),
      name(`of ${max + 1} CJK characters`, "MUST", "refuse", (tag) => padWith(`${tag} `, max + 1, "日本語")),
      name(
        `of ${max + 1} characters between spaces (past the limit once they are stripped)`,
        "MUST",
        "refuse",
        padded201,
      ),
      name(`of ${max} characters and a space`, "PROBE", "open", atMaxSpace, {
        keeps: keptOrTrimmed(max),
        reading: trimReading,
      }),
      name("between spaces", "PROBE", "open", (tag) => `  ${tag}  `, {
        keeps: keptOrTrimmed(),
        reading: trimReading,
      }),
      name("with a line break", "PROBE", "open", (tag) => `${tag}\nsecond line`, { keeps: sameText }),
      email("with dots, plus and a subdomain", "MUST", "accept", "first.last+tag@mail.example.co.uk"),
      email("with digits and a hyphen in the domain", "MUST", "accept", "a@my-host1.example"),
      email("in capitals", "MUST", "accept", "First.Last@Example.COM", {
        keeps: (v) => typeof v === "string" && v.toLowerCase() === "first.last@example.com",
        reading: (v) => (v === "First.Last@Example.COM" ? "as sent" : show(v)),
      }),
      email("followed by junk", "MUST", "refuse", "a@example.com junk"),
      email("followed by a second address", "MUST", "refuse", "a@example.com,b@example.com"),
      email("followed by a second @", "MUST", "refuse", "a@example.com@example.com"),
      email("with two @", "MUST", "refuse", "a@@example.com"),
      // "" is no address (§2, §4: valid e-mail format): §7's 400, never stored (issue 29).
      email("empty", "MUST", "refuse", ""),
      email("with an empty domain label", "MUST", "refuse", "a@example..com"),
      // Outer white space, a line break included: refused, or trimmed away (never kept in the address).
      ...[" a@example.com", "a@example.com ", "a@example.com\n"].map((value) =>
        email(`${JSON.stringify(value)} (outer space)`, "PROBE", "open", value, {
          keeps: (v) => v === "a@example.com",
          reading: trimReading,
        }),
      ),
      email("with an apostrophe", "PROBE", "open", "o'brien@example.com"),
      f("phone with punctuation and an extension", "MUST", "accept", "phone", {
        value: "+1 (514) 555-0199 ext. 12",
      }),
      f(`phone of ${ctx.spec.MAX.contactPhone} characters with spaces`, "MUST", "accept", "phone", {
        value: phone50,
      }),
      f(`phone of ${ctx.spec.MAX.contactPhone + 1} characters with spaces`, "MUST", "refuse", "phone", {
        value: `${phone50}9`,
      }),
      f(`phone of ${ctx.spec.MAX.contactPhone + 1} characters between spaces`, "MUST", "refuse", "phone", {
        value: ` ${phone50}9 `,
      }),
      f("phone with non-ASCII", "PROBE", "open", "phone", { value: "+1 514 555 0199 poste 12 é" }),
      f(
        `address of ${ctx.spec.MAX.contactAddress} characters with accents and spaces`,
        "MUST",
        "accept",
        "address",
        {
          value: padWith(`${ctx.marker} `, ctx.spec.MAX.contactAddress, "rue Éloi "),
        },
      ),
      f("address with an apostrophe, a comma and #", "MUST", "accept", "address", {
        value: "1234 rue de l'Église, app. #5, Montréal (Québec) H2X 3K8",
      }),
      f(
        `address of ${ctx.spec.MAX.contactAddress + 1} characters with accents`,
        "MUST",
        "refuse",
        "address",
        {
          value: padWith(`${ctx.marker} `, ctx.spec.MAX.contactAddress + 1, "rue Éloi "),
        },
      ),
      f(
        "address on two lines",
        "PROBE",
        "open",
        "address",
        { value: "1234 rue Saint-Denis\nMontréal (Québec)" },
        { keeps: sameText },
      ),
      f("taxNumberTPS with a space", "MUST", "accept", "taxNumberTPS", { value: "123456789 RT0001" }),
      f(
        `taxNumberTVQ of ${ctx.spec.MAX.contactTaxNumberTVQ + 1} characters between spaces`,
        "MUST",
        "refuse",
        "taxNumberTVQ",
        {
          value: ` ${padWith("1234567890TQ", ctx.spec.MAX.contactTaxNumberTVQ + 1, "0")} `,
        },
      ),
      f("taxNumberTPS with non-ASCII", "PROBE", "open", "taxNumberTPS", { value: "123456789RT0001 é" }),
      ...(["email", "phone", "address"] as const).map((field) =>
        f(
          `${field} null`,
          "PROBE",
          "open",
          field,
          { value: null },
          { keeps: nothing, reading: (v) => (nothing(v) ? "as nothing" : show(v)) },
        ),
      ),
    ]);
  },
};

/** unitPrice as JSON text: its 4-decimal reading (§2), when a number reads as one. */
const money = (text: string): string => expectedMoney(text);

/** §2's form of an amount: a decimal string with four decimal places. */
const FOUR_DECIMALS = /^-?\d+\.\d{4}$/;

/** Whether a 4-decimal string is the value of `json` to within one unit of its fourth decimal. */
const near = (text: string, json: string): boolean =>
  new Decimal(text).minus(new Decimal(json)).abs().lte(new Decimal("0.0001"));

/** Every field of §4's product body table, §8's lengths, §2's money (spec-gaps #16, #17, #19). */
const productFieldsInput: CoverageInput = {
  id: "coverage.product-fields",
  section: SECTION.endpoints,
  clause: [...clauseRange("§4 Products body", 1, 6), "§8.6", "§8.7", "§8.8", "§8.9", "§2 Product.6"],
  gap: 19,
  writes: true,
  rule: 'Every product field in its legal forms (a sku at its maximum with - and _, names with spaces, markup and an emoji, a description of 2000 characters on several lines, each type, taxable false, unitPrice at realistic sizes up to 999999.9999 with 0 to 4 decimals) is taken and read back exactly; illegal neighbours (one past a limit with spaces or once outer spaces are stripped, a type that begins like one, a negative or non-numeric price, a taxable of 0 or "false") are refused and not stored; a sku or name at its maximum and a space is refused or trimmed, never kept one past the maximum',
  openRule:
    "What a product gets for forms the spec leaves open: a sku or name at its maximum and a space (refused, or trimmed to the maximum: kept at one past it fails), a sku with dots, slashes, spaces or non-ASCII, lower-case or padded types, unitPrice in exponent form, past 15 significant digits or above 1 000 000, -0, a null taxable",
  run(ctx: CheckContext): Promise<FormOutcome[]> {
    const f = formMaker(ctx, "products");
    const price = (
      what: string,
      level: FormLevel,
      expect: BodyForm["expect"],
      json: string,
      extra: Parameters<typeof f>[5] = {},
    ): BodyForm =>
      f(
        `unitPrice ${what}`,
        level,
        expect,
        "unitPrice",
        { json },
        { stored: expect === "refuse" ? undefined : money(json), ...extra },
      );
    const exact = (json: string): Parameters<typeof f>[5] => ({
      keeps: (v) => v === money(json),
      reading: (v) => (v === money(json) ? "exactly" : show(v)),
    });
    // §2: a decimal string with four decimals, within a unit of the fourth decimal of the value sent.
    const fourDecimals = (json: string): Parameters<typeof f>[5] => ({
      keeps: (v) => typeof v === "string" && FOUR_DECIMALS.test(v) && near(v, json),
      reading: (v) => (v === money(json) ? "rounded to 4 decimals" : show(v)),
    });
    const sku = (
      what: string,
      level: FormLevel,
      expect: BodyForm["expect"],
      make: (tag: string) => string,
    ): BodyForm => f(`sku ${what}`, level, expect, "sku", undefined, { tagged: make });
    return runBodies(ctx, [
      sku(`of ${ctx.spec.MAX.productSku} characters with - and _`, "MUST", "accept", (tag) =>
        padWith(`${tag}-`, ctx.spec.MAX.productSku, "Ab_9-"),
      ),
      sku(`of ${ctx.spec.MAX.productSku + 1} characters with - and _`, "MUST", "refuse", (tag) =>
        padWith(`${tag}-`, ctx.spec.MAX.productSku + 1, "Ab_9-"),
      ),
      sku(
        `of ${ctx.spec.MAX.productSku + 1} characters between spaces`,
        "MUST",
        "refuse",
        (tag) => ` ${padWith(`${tag}-`, ctx.spec.MAX.productSku + 1, "s")} `,
      ),
      // The maximum and a space: refused, or trimmed to the maximum; kept at 101 characters it breaks §8.
      f(`sku of ${ctx.spec.MAX.productSku} characters and a space`, "PROBE", "open", "sku", undefined, {
        tagged: (tag) => `${padWith(`${tag}-`, ctx.spec.MAX.productSku, "s")} `,
        keeps: keptOrTrimmed(ctx.spec.MAX.productSku),
        reading: trimReading,
      }),
      sku("with a dot and a slash", "PROBE", "open", (tag) => `${tag}/A.1`),
      sku("with a space", "PROBE", "open", (tag) => `${tag} A 1`),
      sku("with non-ASCII", "PROBE", "open", (tag) => `${tag}-É`),
      f(`name of ${ctx.spec.MAX.productName} characters with spaces`, "MUST", "accept", "name", {
        value: padWith(`${ctx.marker} `, ctx.spec.MAX.productName, "ab cd "),
      }),
      f("name with quotes, markup and an emoji", "MUST", "accept", "name", {
        value: `${ctx.marker} <i>"Pro"</i> & co 🎉`,
      }),
      f(`name of ${ctx.spec.MAX.productName + 1} characters between spaces`, "MUST", "refuse", "name", {
        value: ` ${padWith(`${ctx.marker} `, ctx.spec.MAX.productName + 1, "x")} `,
      }),
      f(
        `name of ${ctx.spec.MAX.productName} characters and a space`,
        "PROBE",
        "open",
        "name",
        { value: `${padWith(`${ctx.marker} `, ctx.spec.MAX.productName, "x")} ` },
        { keeps: keptOrTrimmed(ctx.spec.MAX.productName), reading: trimReading },
      ),
      f(
        `description of ${ctx.spec.MAX.productDescription} characters on several lines`,
        "MUST",
        "accept",
        "description",
        {
          value: padWith(`${ctx.marker}\n`, ctx.spec.MAX.productDescription, "Ligne é.\n"),
        },
      ),
      f(
        `description of ${ctx.spec.MAX.productDescription + 1} characters on several lines`,
        "MUST",
        "refuse",
        "description",
        {
          value: padWith(`${ctx.marker}\n`, ctx.spec.MAX.productDescription + 1, "Ligne é.\n"),
        },
      ),
      // Every type but the default (§4: the first), which a body without type gets.
      ...ctx.spec.PRODUCT_TYPES.filter((t) => t !== ctx.spec.SAMPLE.productType).map((t) =>
        f(`type ${t}`, "MUST", "accept", "type", { value: t }),
      ),
      f(`type ${ctx.spec.SAMPLE.productType}X`, "MUST", "refuse", "type", {
        value: `${ctx.spec.SAMPLE.productType}X`,
      }),
      f(`type ${ctx.spec.SAMPLE.otherProductType.slice(0, -1)}`, "MUST", "refuse", "type", {
        value: ctx.spec.SAMPLE.otherProductType.slice(0, -1),
      }),
      f(
        `type ${ctx.spec.SAMPLE.otherProductType.toLowerCase()}`,
        "PROBE",
        "open",
        "type",
        { value: ctx.spec.SAMPLE.otherProductType.toLowerCase() },
        { keeps: (v) => v === ctx.spec.SAMPLE.otherProductType, reading: (v) => show(v) },
      ),
      f(
        `type ' ${ctx.spec.SAMPLE.productType}'`,
        "PROBE",
        "open",
        "type",
        { value: ` ${ctx.spec.SAMPLE.productType}` },
        { keeps: (v) => v === ctx.spec.SAMPLE.productType, reading: (v) => show(v) },
      ),
      f("taxable false", "MUST", "accept", "taxable", { value: false }),
      f("taxable 0", "MUST", "refuse", "taxable", { value: 0 }),
      f('taxable "false"', "MUST", "refuse", "taxable", { value: "false" }),
      f(
        "taxable null",
        "PROBE",
        "open",
        "taxable",
        { value: null },
        { keeps: (v) => v === true, reading: (v) => show(v) },
      ),
      ...[
        "0",
        "0.0",
        "0.00",
        "1.0",
        "0.01",
        "0.1",
        "7",
        "9.99",
        "19.95",
        "49.5",
        "99999.99",
        "123456.7891",
        "999999.9999",
        "0.0001",
      ].map((json) => price(json, "MUST", "accept", json)),
      ...["1234567.89", "99999999999.9999", "100000000000000000000"].map((json) =>
        price(`${json} (above 1 000 000)`, "PROBE", "open", json, exact(json)),
      ),
      // Exponents large and small (issue 29: 1e21 was stored and served as "1e+21"): taken or not is
      // open, but what is stored reads back as §2's decimal string of the value sent.
      ...["1e2", "1E2", "2.5e-3", "1.5E+1", "5e2", "2E+3", "1e21", "1e309"].map((json) =>
        price(`${json} (exponent form)`, "PROBE", "open", json, exact(json)),
      ),
      // More than 4 decimals: refused, or rounded to a 4-decimal string (spec-gaps #19).
      ...["1e-5", "5E-7"].map((json) =>
        price(`${json} (exponent form, past 4 decimals)`, "PROBE", "open", json, fourDecimals(json)),
      ),
      ...["1234567890.123456", "123456789012.3456", "0.1234567890123456789"].map((json) =>
        price(`${json} (past 15 significant digits)`, "PROBE", "open", json, fourDecimals(json)),
      ),
      price("-0", "PROBE", "open", "-0", {
        keeps: (v) => v === "0.0000" || v === "-0.0000",
        reading: (v) => show(v),
      }),
      ...["-0.0001", "-1e-4", "-5"].map((json) => price(json, "MUST", "refuse", json)),
      ...['"10abc"', '"12,50"', '"NaN"', '"Infinity"', '"-1"'].map((json) =>
        price(`${json} (a string that is no price)`, "MUST", "refuse", json),
      ),
    ]);
  },
};

/** The coverage phase's bodies, in the order they run (after the queries: their records come last). */
export const coverageBodyChecks: readonly Check[] = [
  contentTypeInput,
  contactFieldsInput,
  productFieldsInput,
].flatMap(coverageChecks);
