import { join } from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

/**
 * The rules of eslint.config.js that hold the API door to its shape (run by `npm test` over the real
 * tree) refuse what they say they refuse: each case is a snippet linted as if it were the named file,
 * with the real configuration.
 */
const eslint = new ESLint({ cwd: join(import.meta.dirname, "..") });

async function messagesOf(filePath: string, code: string, rule = "no-restricted-syntax"): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === rule).map((m) => m.message);
}

const PATCHED = "No response is patched per request: write the answer through the door's own writer.";
const SPREAD = "No object spread on the per-request path: write the object as a literal (or make it once).";
const CREDENTIALS = "Only the credential step (src/doors/api/credentials.ts) reads the Authorization header.";
const IDENTIFY = "Only the credential step (src/doors/api/credentials.ts) identifies the caller.";

describe("the lint rules of the request path", () => {
  it.each([
    [
      "an assignment to res.end",
      "src/doors/api/x.ts",
      "export const f = (res: { end: unknown }) => { res.end = () => 1; };",
    ],
    [
      "an assignment to res.write",
      "src/edge/x.ts",
      "export const f = (res: { write: unknown }) => { res.write = () => 1; };",
    ],
    [
      "Object.defineProperty of end",
      "src/doors/pages/x.ts",
      'export const f = (res: object) => Object.defineProperty(res, "end", { value: () => 1 });',
    ],
    [
      "Object.assign of writeHead",
      "src/doors/control/x.ts",
      "export const f = (res: object) => Object.assign(res, { writeHead: () => 1 });",
    ],
  ])("refuse %s", async (_case, file, code) => {
    expect(await messagesOf(file, code)).toContain(PATCHED);
  });

  it.each([
    [
      "req.headers.authorization",
      "export const f = (req: { headers: { authorization?: string } }) => req.headers.authorization;",
    ],
    ["the header by name", 'export const f = (h: (n: string) => string) => h("Authorization");'],
    ["the raw header lines", "export const f = (req: { rawHeaders: string[] }) => req.rawHeaders;"],
  ])(
    "refuse reading the Authorization header in the API door outside its credential step: %s",
    async (_case, code) => {
      // Anywhere on the API's path: the door, the edge, auth, the store it reads.
      for (const file of [
        "src/doors/api/x.ts",
        "src/edge/fast-path.ts",
        "src/auth/x.ts",
        "src/store/tokens.ts",
      ]) {
        expect(await messagesOf(file, code), file).toContain(CREDENTIALS);
      }
      expect(await messagesOf("src/doors/api/credentials.ts", code)).toEqual([]);
    },
  );

  it("leave a list that names the header alone (CORS's allowed headers)", async () => {
    const code = 'export const ALLOWED = ["Authorization", "Content-Type"] as const;';
    expect(await messagesOf("src/http/cors.ts", code)).toEqual([]);
  });

  it("refuse calling identify anywhere but the credential step", async () => {
    const code = 'import { identify } from "../../auth/authenticate.js";\nexport const f = identify;';
    const rule = "no-restricted-imports";
    expect(await messagesOf("src/doors/api/auth.ts", code, rule)).toEqual([
      expect.stringContaining(IDENTIFY),
    ]);
    expect(await messagesOf("src/edge/x.ts", code.replace("../../", "../"), rule)).toEqual([
      expect.stringContaining(IDENTIFY),
    ]);
    expect(await messagesOf("src/doors/api/credentials.ts", code, rule)).toEqual([]);
  });

  it("refuse an object spread on the per-request path, and leave it alone elsewhere", async () => {
    const code = "export const f = (a: object) => ({ ...a, b: 1 });";
    expect(await messagesOf("src/doors/api/x.ts", code)).toContain(SPREAD);
    expect(await messagesOf("src/store/journal.ts", code)).toContain(SPREAD);
    expect(await messagesOf("src/store/sandboxes.ts", code)).toEqual([]);
  });
});
