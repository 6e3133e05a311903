import type { Request, Response } from "express";
import { describe, expect, it } from "vitest";
import { PageSessions, SESSION_CAPACITY, SESSION_COOKIE } from "./session.js";

/** A request through the sessions' middleware, with the session cookie it carries (if any). */
function visit(sessions: PageSessions, cookie?: string): { req: Request; set: string | undefined } {
  const req = { cookies: cookie === undefined ? {} : { [SESSION_COOKIE]: cookie } } as unknown as Request;
  let set: string | undefined;
  const res = {
    cookie: (_name: string, value: string) => {
      set = value;
    },
  } as unknown as Response;
  sessions.middleware()(req, res, () => {});
  return { req, set };
}

describe("page sessions", () => {
  it("give a new browser a random session id, and keep a well-formed one", () => {
    const sessions = new PageSessions();
    const first = visit(sessions);
    expect(first.set).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(sessions.id(first.req)).toBe(first.set);
    const again = visit(sessions, first.set);
    expect(again.set).toBeUndefined();
    expect(sessions.id(again.req)).toBe(first.set);
  });

  it.each(["short", "x".repeat(33), "a b".repeat(11)])("replace a malformed session id (%j)", (bad) => {
    const sessions = new PageSessions();
    const { req, set } = visit(sessions, bad);
    expect(set).toBeDefined();
    expect(sessions.id(req)).toBe(set);
  });

  it("hand a created token over once, to its own session only", () => {
    const sessions = new PageSessions();
    const mine = visit(sessions);
    const theirs = visit(sessions);
    sessions.setCreated(mine.req, { tokenId: "tok_1", secret: "acct_secret" });
    sessions.setNotice(mine.req, "Created");
    expect(sessions.takeCreated(theirs.req)).toBeUndefined();
    const later = visit(sessions, mine.set);
    expect(sessions.takeCreated(later.req)).toEqual({ tokenId: "tok_1", secret: "acct_secret" });
    expect(sessions.takeCreated(later.req)).toBeUndefined();
    expect(sessions.takeNotice(later.req)).toBe("Created");
    expect(sessions.takeNotice(later.req)).toBeUndefined();
  });

  it(`forget the oldest waiting token beyond ${SESSION_CAPACITY} sessions`, () => {
    const sessions = new PageSessions();
    const visits = Array.from({ length: SESSION_CAPACITY + 1 }, () => visit(sessions));
    visits.forEach((v, i) => sessions.setCreated(v.req, { tokenId: `tok_${i}`, secret: "s" }));
    expect(sessions.takeCreated(visits[0]?.req as Request)).toBeUndefined();
    expect(sessions.takeCreated(visits[1]?.req as Request)?.tokenId).toBe("tok_1");
    expect(sessions.takeCreated(visits[SESSION_CAPACITY]?.req as Request)?.tokenId).toBe(
      `tok_${SESSION_CAPACITY}`,
    );
  });
});
