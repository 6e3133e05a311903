import { randomBytes } from "node:crypto";
import { join } from "node:path";
import cookieParser from "cookie-parser";
import { doubleCsrf } from "csrf-csrf";
import express, { type ErrorRequestHandler, type Request, type Response, type Router } from "express";
import type { JSX } from "hono/jsx/jsx-runtime";
import { TokenError } from "../../store/token-rules.js";
import type { Organization } from "../../model/records.js";
import { ApiError } from "../../model/errors.js";
import type { LocalOnlyOptions } from "../../http/local-only.js";
import { packageRoot } from "../../store/fixtures/paths.js";
import type { ReferenceState } from "../../store/state.js";
import {
  EMPTY_VALUES,
  earliestExpiryDate,
  isRevokeConfirmed,
  parseNewToken,
  parseOrganizationChoice,
  type FieldErrors,
  type NewTokenValues,
} from "./forms.js";
import { pageGuard, securityHeaders } from "./guard.js";
import { renderPage, sentence, type PageContext } from "./layout.js";
import { ErrorPage, LandingPage } from "./other-pages.js";
import { COOKIE_OPTIONS, CSRF_COOKIE, ORGANIZATION_COOKIE, PageSessions, cookieValue } from "./session.js";
import {
  CREATED_PATH,
  CreatedTokenPage,
  NEW_TOKEN_PATH,
  ORGANIZATION_PATH,
  RevokePage,
  TOKENS_PATH,
  TokenListPage,
  revokePath,
} from "./token-pages.js";
import { NewTokenPage } from "./new-token-page.js";

export interface PagesDoorOptions extends LocalOnlyOptions {
  log: (line: string) => void;
  /** Whether the control surface is open, for the landing page to say so. */
  control?: boolean;
}

/** The organization cookie outlives the browser session: the fake's "stay signed in". */
const ORGANIZATION_MAX_AGE_MS = 30 * 86_400_000;

/** The pages' stylesheet and script: shipped with the package under its sources' path. */
const assetsDir = (): string => join(packageRoot(), "src", "doors", "pages", "assets");

/**
 * The web interface of §5 (API tokens: create, show once, revoke, usage) and a landing page,
 * server-rendered HTML over the same reference state as the API. Forms work without JavaScript
 * (POST, then a 303 to a page); a small script adds a copy button and a confirmation dialog.
 * Mounted behind `pagesDoorOnFirstVisit`, which hands it only the paths of `isPagePath`.
 */
export function pagesDoor(state: ReferenceState, options: PagesDoorOptions): Router {
  const sessions = new PageSessions();
  // A fresh secret per server: a restart invalidates open forms, which then say so.
  const secret = randomBytes(32).toString("hex");
  const csrf = doubleCsrf({
    getSecret: () => secret,
    getSessionIdentifier: (req) => sessions.id(req),
    cookieName: CSRF_COOKIE,
    cookieOptions: COOKIE_OPTIONS,
    getCsrfTokenFromRequest: (req) => {
      const body: unknown = req.body;
      if (typeof body !== "object" || body === null) return undefined;
      const token: unknown = (body as Record<string, unknown>)._csrf;
      return typeof token === "string" ? token : undefined;
    },
  });

  const door = express.Router({ strict: true, caseSensitive: true });
  door.use(securityHeaders, pageGuard(options));
  door.use(
    "/assets",
    express.static(assetsDir(), {
      index: false,
      redirect: false,
      etag: false,
      lastModified: false,
      cacheControl: false,
      dotfiles: "ignore",
    }),
  );
  door.get("/favicon.ico", (_req, res) => {
    res.sendFile(join(assetsDir(), "favicon.ico"), { headers: { "Content-Type": "image/x-icon" } });
  });
  door.use(cookieParser(), sessions.middleware());
  door.use(express.urlencoded({ extended: false, limit: "16kb", parameterLimit: 64 }));
  door.use(csrf.doubleCsrfProtection);

  const context = (req: Request, res: Response): PageContext => ({
    csrfToken: csrf.generateCsrfToken(req, res),
    now: state.clock.now(),
    notice: sessions.takeNotice(req),
  });
  const send = async (res: Response, status: number, page: JSX.Element) => {
    const html = await renderPage(page);
    res.status(status).type("html").send(html);
  };
  /** The "signed-in" organization: the cookie's, when it names one the store knows. */
  const signedIn = (req: Request): Organization | undefined => {
    const id = cookieValue(req, ORGANIZATION_COOKIE);
    return id === undefined ? undefined : state.store.organization(id);
  };
  /** A token of the signed-in organization, or a 404: another organization's tokens are not there. */
  const ownToken = (req: Request) => {
    const organization = signedIn(req);
    const id = req.params.id;
    const token = organization === undefined || typeof id !== "string" ? undefined : state.tokens.get(id);
    if (organization === undefined || token === undefined || token.organizationId !== organization.id) {
      throw new ApiError("notFound", "There is no such token in the organization you are signed in as.");
    }
    return { organization, token };
  };
  const seeOther = (res: Response, path: string) => res.redirect(303, path);

  door.get("/", async (req, res) => {
    await send(
      res,
      200,
      <LandingPage
        context={context(req, res)}
        baseUrl={`${req.protocol}://${req.headers.host ?? "127.0.0.1"}`}
        organizations={state.store.organizations()}
        tokenPrefix={state.tokens.prefix}
        control={options.control === true}
      />,
    );
  });

  door.get("/settings", (_req, res) => seeOther(res, TOKENS_PATH));

  door.get(TOKENS_PATH, async (req, res) => {
    const selected = signedIn(req);
    const model = {
      organizations: state.store.organizations(),
      selected,
      tokens: selected === undefined ? [] : state.tokens.list(selected.id),
    };
    await send(res, 200, <TokenListPage context={context(req, res)} model={model} />);
  });

  door.post(ORGANIZATION_PATH, (req, res) => {
    const id = parseOrganizationChoice(req.body);
    const organization = id === undefined ? undefined : state.store.organization(id);
    if (organization === undefined) {
      sessions.setNotice(req, "Choose one of the organizations in the list.");
    } else {
      res.cookie(ORGANIZATION_COOKIE, organization.id, {
        ...COOKIE_OPTIONS,
        maxAge: ORGANIZATION_MAX_AGE_MS,
      });
      sessions.setNotice(req, sentence(`Signed in as ${organization.name}`));
    }
    seeOther(res, TOKENS_PATH);
  });

  const newTokenForm = async (
    req: Request,
    res: Response,
    organization: Organization,
    values: NewTokenValues,
    errors: FieldErrors,
  ) => {
    const ctx = context(req, res);
    await send(
      res,
      Object.keys(errors).length === 0 ? 200 : 400,
      <NewTokenPage
        context={ctx}
        organization={organization}
        values={values}
        errors={errors}
        earliestExpiry={earliestExpiryDate(ctx.now)}
      />,
    );
  };

  door.get(NEW_TOKEN_PATH, async (req, res) => {
    const organization = signedIn(req);
    if (organization === undefined) {
      sessions.setNotice(req, "Choose the organization the token is for first.");
      seeOther(res, TOKENS_PATH);
      return;
    }
    await newTokenForm(req, res, organization, EMPTY_VALUES, {});
  });

  door.post(TOKENS_PATH, async (req, res) => {
    const organization = signedIn(req);
    if (organization === undefined) {
      sessions.setNotice(req, "Choose the organization the token is for first; no token was created.");
      seeOther(res, TOKENS_PATH);
      return;
    }
    const parsed = parseNewToken(req.body, state.clock.now());
    if (!parsed.ok) {
      await newTokenForm(req, res, organization, parsed.values, parsed.errors);
      return;
    }
    let created;
    try {
      created = state.tokens.create({ organizationId: organization.id, ...parsed.input });
    } catch (err) {
      if (!(err instanceof TokenError) || err.reason !== "invalid") throw err;
      const field = err.field === "expiresAt" ? "expiresOn" : err.field === "scopes" ? "scopes" : "name";
      await newTokenForm(req, res, organization, parsed.values, { [field]: err.message });
      return;
    }
    // With --data, the token is shown only once it is kept: a token shown and then lost is worse.
    await state.durable();
    sessions.setCreated(req, { tokenId: created.view.id, secret: created.token });
    seeOther(res, CREATED_PATH);
  });

  door.get(CREATED_PATH, async (req, res) => {
    const created = sessions.takeCreated(req);
    const token = created === undefined ? undefined : state.tokens.get(created.tokenId);
    const organization = token === undefined ? undefined : state.store.organization(token.organizationId);
    if (created === undefined || token === undefined || organization === undefined) {
      // Shown once (§5.3): a reload or the back button lands on the list, without it.
      seeOther(res, TOKENS_PATH);
      return;
    }
    await send(
      res,
      200,
      <CreatedTokenPage
        context={context(req, res)}
        organization={organization}
        token={token}
        secret={created.secret}
      />,
    );
  });

  door.get(`${TOKENS_PATH}/:id/revoke`, async (req, res) => {
    const { organization, token } = ownToken(req);
    await send(
      res,
      200,
      <RevokePage context={context(req, res)} organization={organization} token={token} />,
    );
  });

  door.post(`${TOKENS_PATH}/:id/revoke`, async (req, res) => {
    const { token } = ownToken(req);
    if (!isRevokeConfirmed(req.body)) {
      seeOther(res, revokePath(token.id));
      return;
    }
    if (token.status !== "Active") {
      sessions.setNotice(req, `“${token.name}” is already ${token.status}; nothing changed.`);
    } else {
      state.tokens.revoke(token.id);
      // "Revoked" is said only once a restart cannot bring the token back (--data).
      await state.durable();
      sessions.setNotice(
        req,
        `“${token.name}” is revoked: every API request with it now gets 401 unauthorized.`,
      );
    }
    seeOther(res, TOKENS_PATH);
  });

  door.use((req, _res, next) => {
    next(new ApiError("notFound", `There is no page ${req.method} ${req.path}.`));
  });
  door.use(pageErrors(state, csrf.invalidCsrfTokenError, options.log));
  return door;
}

/** Errors as pages: the pages' own refusals and 404s, a stale or foreign form, and a bare 500. */
function pageErrors(
  state: ReferenceState,
  csrfError: unknown,
  log: (line: string) => void,
): ErrorRequestHandler {
  return async (err: unknown, req, res, _next) => {
    let status: number;
    let message: string;
    if (err === csrfError) {
      status = 403;
      message =
        "This form was sent from another site, or it is out of date (the server restarted, or the page is old). Nothing changed: reload the page and try again.";
    } else if (err instanceof ApiError && err.status < 500) {
      status = err.status;
      message = err.message;
    } else if (isClientBodyError(err)) {
      status = 400;
      message = "The form could not be read. Nothing changed.";
    } else {
      log(
        `internal error on ${req.method} ${req.path}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
      );
      status = 500;
      message = "Internal server error. Nothing was shown of it here; the server's log has the details.";
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const context: PageContext = { csrfToken: "", now: state.clock.now() };
    const html = await renderPage(<ErrorPage context={context} status={status} message={message} />);
    res.status(status).type("html").send(html);
  };
}

/** body-parser's errors carry a 4xx `status`: a form too large, or not decodable. */
function isClientBodyError(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const status: unknown = (err as { status?: unknown }).status;
  return typeof status === "number" && status >= 400 && status < 500;
}
