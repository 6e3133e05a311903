/** The files under /assets/ that belong to the pages; any other /assets/ path is left to the other doors. */
const ASSETS = new Set(["/assets/pages.css", "/assets/pages.js", "/assets/favicon.svg"]);

/**
 * The paths the pages answer, with their own 404 page; every other path is left to the other doors.
 * `/favicon.ico` is theirs too: a browser asks for it on its own, and the API would answer 401.
 */
export const isPagePath = (path: string): boolean =>
  path === "/" ||
  path === "/favicon.ico" ||
  path === "/settings" ||
  path.startsWith("/settings/") ||
  ASSETS.has(path);
