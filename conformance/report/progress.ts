import type { CheckResult, KitClock } from "../types.js";

/**
 * A run is never silent. Against a rate-limited target it can take minutes, most of them waiting: on a
 * terminal, one live line (checks done of the total, requests sent, the check running, and any wait
 * with its reason and the time left), rewritten in place; without one (a CI log), a plain line at least
 * every PLAIN_EVERY_MS while the run goes, and one as soon as a long wait begins, saying why.
 *
 * Time is the run's clock, so that the kit's own tests see the lines a long wait prints without
 * waiting: a wait is slept in slices, the line told between them.
 */

export const PLAIN_EVERY_MS = 10_000;
/** A wait at least this long is announced as it begins in a CI log. */
const ANNOUNCE_MS = 5_000;
/** On a terminal the countdown moves every second. */
const TERMINAL_SLICE_MS = 1_000;

export interface ProgressOptions {
  /** Where the lines go (stderr). */
  write(text: string): void;
  /** A terminal: one line rewritten in place. Otherwise plain lines. */
  terminal: boolean;
  /** Terminal width, to keep the live line on one row. */
  columns?: number | undefined;
  clock: KitClock;
}

interface Wait {
  until: number;
  reason: string;
}

export class RunProgress {
  readonly #o: ProgressOptions;
  #total = 0;
  #done = 0;
  #failed = 0;
  #requests = 0;
  #current: string | undefined;
  #wait: Wait | undefined;
  #lastPlain: number;
  #shown = false;

  constructor(options: ProgressOptions) {
    this.#o = options;
    this.#lastPlain = options.clock.now();
  }

  /** The run begins with `total` checks. */
  start(total: number): void {
    this.#total = total;
    this.#lastPlain = this.#o.clock.now();
    this.#render();
  }

  checkStarted(id: string): void {
    this.#current = id;
    this.#tick();
  }

  checkDone(result: CheckResult): void {
    this.#done += 1;
    if (result.outcome === "fail") this.#failed += 1;
    this.#current = undefined;
    this.#tick();
  }

  requestSent(): void {
    this.#requests += 1;
    this.#tick();
  }

  /**
   * Sleeps `ms` on the run's clock, saying why: in slices on a terminal (a countdown) and of at most
   * PLAIN_EVERY_MS in a log, so that a line comes at least that often.
   */
  async wait(ms: number, reason: string): Promise<void> {
    const clock = this.#o.clock;
    const until = clock.now() + ms;
    this.#wait = { until, reason };
    if (!this.#o.terminal && ms >= ANNOUNCE_MS) this.#plain();
    else this.#tick();
    try {
      for (let left = ms; left > 0; left = until - clock.now()) {
        const slice = this.#o.terminal ? TERMINAL_SLICE_MS : PLAIN_EVERY_MS - (clock.now() - this.#lastPlain);
        await clock.sleep(Math.max(1, Math.min(left, slice)));
        this.#tick();
      }
    } finally {
      this.#wait = undefined;
    }
  }

  /** The run is over: the live line is cleared, so that what follows starts on a clean row. */
  finish(): void {
    if (this.#o.terminal && this.#shown) this.#o.write("\r\x1b[2K");
    this.#shown = false;
  }

  /** The state in one line: `[12/120 checks, 1 failed] 312 requests · waiting 42 s: …`. */
  line(): string {
    const failed = this.#failed === 0 ? "" : `, ${this.#failed} failed`;
    const head = `[${this.#done}/${this.#total} checks${failed}] ${this.#requests} request${this.#requests === 1 ? "" : "s"}`;
    const wait = this.#wait;
    if (wait !== undefined) {
      const left = Math.max(0, Math.ceil((wait.until - this.#o.clock.now()) / 1000));
      return `${head} · waiting ${left} s: ${wait.reason}`;
    }
    return this.#current === undefined ? head : `${head} · ${this.#current}`;
  }

  #tick(): void {
    if (this.#o.terminal) this.#render();
    else if (this.#o.clock.now() - this.#lastPlain >= PLAIN_EVERY_MS) this.#plain();
  }

  #render(): void {
    if (!this.#o.terminal) return;
    // A terminal that does not say its width (0, as under `script`) gets a common one.
    const columns = (this.#o.columns ?? 0) >= 20 ? (this.#o.columns ?? 100) : 100;
    const text = this.line();
    const fitted = text.length < columns ? text : `${text.slice(0, Math.max(0, columns - 2))}…`;
    this.#o.write(`\r\x1b[2K${fitted}`);
    this.#shown = true;
  }

  #plain(): void {
    this.#lastPlain = this.#o.clock.now();
    this.#o.write(`conformance: ${this.line()}\n`);
  }
}

/**
 * The run's clock with its waits told to the progress: what the pacer, the client and the checks
 * sleep goes through `progress.wait`, with their reason (or the running check's).
 */
export function watchedClock(
  clock: KitClock,
  progress: RunProgress,
  current: () => string | undefined,
): KitClock {
  return {
    now: () => clock.now(),
    sleep: (ms, reason) => progress.wait(ms, reason ?? `${current() ?? "the run"} waits`),
  };
}
