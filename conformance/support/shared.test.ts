import { describe, expect, it } from "vitest";
import { Memo, Once } from "./shared.js";

describe("shared data", () => {
  it("makes each key's value once, whoever asks first, and hands the same promise to every asker", async () => {
    const memo = new Memo<string, number>();
    let made = 0;
    const make = () => Promise.resolve((made += 1));
    const [a, b] = await Promise.all([memo.get("x", make), memo.get("x", make)]);
    expect([a, b, await memo.get("y", make)]).toEqual([1, 1, 2]);
    expect(made).toBe(2);
  });

  it("forgets a failure, so that the next check asking tries again", async () => {
    const once = new Once<string>();
    await expect(once.get(() => Promise.reject(new Error("skipped")))).rejects.toThrow("skipped");
    expect(await once.get(() => Promise.resolve("made"))).toBe("made");
    expect(await once.get(() => Promise.resolve("again"))).toBe("made");
  });
});
