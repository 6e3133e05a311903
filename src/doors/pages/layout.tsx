import type { Child } from "hono/jsx";
import type { JSX } from "hono/jsx/jsx-runtime";

/**
 * The pages are JSX components rendered to a string on the server by hono/jsx: every text and
 * attribute value is escaped by default, and the compiler checks each page's data. No page uses
 * `raw` or `dangerouslySetInnerHTML` (a test keeps it so).
 */

export interface PageContext {
  /** The CSRF token every form of the page carries (and the revoke dialog's script reads); "" on error pages. */
  csrfToken: string;
  /** The reference's clock, which the control surface may have moved. */
  now: Date;
  /** A one-time message from the previous POST ("Token revoked"). */
  notice?: string | undefined;
}

/** `2026-11-20 12:00 UTC`: the reference's times are UTC, and so are the pages'. */
export const formatInstant = (instant: Date): string =>
  `${instant.toISOString().slice(0, 16).replace("T", " ")} UTC`;

export function Time({ instant }: { instant: Date }) {
  return <time datetime={instant.toISOString()}>{formatInstant(instant)}</time>;
}

/** Text ended by a full stop, unless it ends with one already (a name such as "Studio Lumière inc."). */
export const sentence = (text: string): string => (/[.!?…]$/.test(text) ? text : `${text}.`);

/** The CSRF token as a form field. */
export function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}

export type Section = "home" | "tokens" | "none";

export function Layout(props: { title: string; context: PageContext; section: Section; children: Child }) {
  const { title, context, section, children } = props;
  const current = (s: Section) => (s === section ? ("page" as const) : undefined);
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {context.csrfToken === "" ? null : <meta name="csrf-token" content={context.csrfToken} />}
        <title>{`${title} · Accounting API reference`}</title>
        <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/assets/pages.css" />
        <script src="/assets/pages.js" defer />
      </head>
      <body>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="site-header">
          <a class="site-name" href="/">
            Accounting API reference
          </a>
          <nav aria-label="Main">
            <ul>
              <li>
                <a href="/" aria-current={current("home")}>
                  Home
                </a>
              </li>
              <li>
                <a href="/settings/api-tokens" aria-current={current("tokens")}>
                  API tokens
                </a>
              </li>
              <li>
                <a href="/docs">Docs</a>
              </li>
            </ul>
          </nav>
        </header>
        <main id="main" tabindex={-1}>
          {context.notice === undefined ? null : (
            <p class="notice" role="status">
              {context.notice}
            </p>
          )}
          {children}
        </main>
        <footer class="site-footer">
          <p>
            A reference server with fake data. Server time: <Time instant={context.now} /> (the control
            surface can move it).
          </p>
        </footer>
      </body>
    </html>
  );
}

/** A page as the HTML document sent; the pages' components are synchronous, the type allows otherwise. */
export async function renderPage(page: JSX.Element): Promise<string> {
  const html = await (await page).toString();
  return `<!doctype html>${html}`;
}
