/** The files under /assets/ that belong to the pages; any other /assets/ path is left to the other doors. */
const ASSETS = new Set(["/assets/pages.css", "/assets/pages.js"]);

/** The paths the pages answer, with their own 404 page; every other path is left to the other doors. */
export const isPagePath = (path: string): boolean =>
  path === "/" || path === "/settings" || path.startsWith("/settings/") || ASSETS.has(path);
