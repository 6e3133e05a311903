/**
 * What a browser build gets for `accounting-api-reference/msw` (the "browser" export condition: Vite
 * in Storybook or Vitest's browser mode, `setupWorker`). The reference runs on Express and Node's
 * http, crypto and fs, which no browser has; rather than a bundler's error deep inside them, this.
 */
throw new Error(
  "accounting-api-reference/msw runs in Node only (msw's setupServer: Vitest or Jest under jsdom). " +
    "In a browser (setupWorker, Storybook, Vitest browser mode), start the server " +
    "(npx accounting-reference) and point the app at it: the API answers any origin (CORS). " +
    "Under Jest, use the jest-fixed-jsdom environment, which resolves Node's exports.",
);
