import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { main } from "../cli.js";
import { loadDefaultCatalogue } from "../index.js";
import { kitIdentity } from "../kit.js";
import { CLAUSES } from "../spec/clauses.js";
import { STANCES, stanceAnchor, stanceOf } from "../spec/stance.js";
import { renderStanceDocument } from "./stance-document.js";

const COMMITTED = new URL("../../docs/kit-stance.md", import.meta.url);
const CLAUSE_DOCUMENT = new URL("../../docs/conformance-clauses.md", import.meta.url);

describe("the kit's stance document", () => {
  it("has a row for every spec-gaps number a clause or a check of the catalogue cites", async () => {
    const catalogue = await loadDefaultCatalogue();
    const cited = new Set([
      ...CLAUSES.flatMap((c) => (c.gap === undefined ? [] : [c.gap])),
      ...catalogue.flatMap((c) => (c.gap === undefined ? [] : [c.gap])),
    ]);
    expect([...cited].filter((gap) => stanceOf(gap) === undefined)).toEqual([]);
    expect(STANCES.map((s) => s.gap)).toEqual(STANCES.map((_, i) => i + 1));
  });

  it("says where each point is open: every clause tied to a row is named in it", () => {
    for (const c of CLAUSES.filter((x) => x.gap !== undefined)) {
      expect(stanceOf(c.gap ?? 0)?.where, `${c.id} → #${c.gap}`).toContain(c.id);
    }
  });

  it("is committed as docs/kit-stance.md, current (npm run clauses writes it), with an anchor per row", async () => {
    const committed = await readFile(COMMITTED, "utf8");
    expect(committed).toBe(renderStanceDocument(await loadDefaultCatalogue(), kitIdentity()));
    for (const s of STANCES) expect(committed).toContain(`<a id="${stanceAnchor(s.gap)}"></a>#${s.gap} `);
  });

  it("is where the clause document's stance links lead: each names a row that exists", async () => {
    const clauses = await readFile(CLAUSE_DOCUMENT, "utf8");
    const stance = await readFile(COMMITTED, "utf8");
    const links = [...clauses.matchAll(/\]\(kit-stance\.md#([^)]+)\)/g)].map((m) => m[1]);
    expect(links.length).toBeGreaterThan(30);
    for (const anchor of new Set(links)) expect(stance, anchor).toContain(`<a id="${anchor}"></a>`);
    expect(clauses).not.toMatch(/spec-gaps #\d/);
  });

  it("is what `conformance --list --format stance` prints", async () => {
    let stdout = "";
    const code = await main(["node", "conformance", "--list", "--format", "stance"], {
      stdout: (t) => void (stdout += t),
      stderr: () => {},
      setExitCode: () => {},
    });
    expect(code).toBe(0);
    expect(stdout).toBe(await readFile(COMMITTED, "utf8"));
  });
});
