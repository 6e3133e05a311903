import { systemClock, type Clock } from "../model/clock.js";

export interface ClockState {
  now: Date;
  frozen: boolean;
  /** How far this clock stands from the one it follows, in ms (0 when it was never moved). */
  offsetMs: number;
}

/**
 * Where a clock was moved to, as persistence keeps it: running at an offset from the clock it follows,
 * or frozen at an instant. `null`: never moved, or moved back with `restore`.
 */
export type ClockSetting = { offsetMs: number } | { frozenAt: Date } | null;

/**
 * The reference's own clock, steered by the control surface: it follows a base clock (the system's,
 * or a test's ManualClock) at an offset, or stands still while frozen. Moving it never touches the
 * base, so two references in one process keep their own time.
 */
export class SteerableClock implements Clock {
  readonly #base: Clock;
  readonly #startOffsetMs: number;
  #offsetMs: number;
  /** The instant it shows while frozen; null while it runs. */
  #frozenAt: number | null = null;
  /** Whether it was moved since it started (or since `restore`). */
  #moved = false;
  #listener: (() => void) | undefined;

  /** `start`: the instant to show now (`--now`); the clock runs on from it. */
  constructor(base: Clock = systemClock, start?: Date) {
    this.#base = base;
    this.#startOffsetMs = start === undefined ? 0 : start.getTime() - base.now().getTime();
    this.#offsetMs = this.#startOffsetMs;
  }

  now(): Date {
    return new Date(this.#frozenAt ?? this.#base.now().getTime() + this.#offsetMs);
  }

  /** The instant it would show had it never been moved: its start, run on since (what `restore` gives). */
  started(): Date {
    return new Date(this.#base.now().getTime() + this.#startOffsetMs);
  }

  get frozen(): boolean {
    return this.#frozenAt !== null;
  }

  state(): ClockState {
    return {
      now: this.now(),
      frozen: this.frozen,
      offsetMs: this.now().getTime() - this.#base.now().getTime(),
    };
  }

  set(to: Date | string | number): void {
    const ms = new Date(to).getTime();
    if (Number.isNaN(ms)) throw new RangeError(`not an instant: ${String(to)}`);
    if (this.#frozenAt !== null) this.#frozenAt = ms;
    else this.#offsetMs = ms - this.#base.now().getTime();
    this.#changed(true);
  }

  advance(ms: number): void {
    if (!Number.isFinite(ms)) throw new RangeError(`not a duration: ${ms}`);
    if (this.#frozenAt !== null) this.#frozenAt += ms;
    else this.#offsetMs += ms;
    this.#changed(true);
  }

  /** Frozen, it shows the same instant until moved or thawed; thawed, it runs on from that instant. */
  setFrozen(frozen: boolean): void {
    if (frozen === this.frozen) return;
    if (frozen) {
      this.#frozenAt = this.now().getTime();
    } else {
      this.#offsetMs = (this.#frozenAt ?? 0) - this.#base.now().getTime();
      this.#frozenAt = null;
    }
    this.#changed(true);
  }

  /** Back to the time it started with (the base clock, or `--now` as if the clock had run since). */
  restore(): void {
    this.#frozenAt = null;
    this.#offsetMs = this.#startOffsetMs;
    this.#changed(false);
  }

  /** Tells `listener` of every move (persistence keeps the setting); `undefined` removes it. */
  observe(listener: (() => void) | undefined): void {
    this.#listener = listener;
  }

  setting(): ClockSetting {
    if (!this.#moved) return null;
    return this.#frozenAt !== null ? { frozenAt: new Date(this.#frozenAt) } : { offsetMs: this.#offsetMs };
  }

  /** Moves it to a setting read back from a data directory; `null` leaves it as it started. */
  applySetting(setting: ClockSetting): void {
    if (setting === null) {
      this.#frozenAt = null;
      this.#offsetMs = this.#startOffsetMs;
    } else if ("frozenAt" in setting) {
      this.#frozenAt = setting.frozenAt.getTime();
    } else {
      this.#frozenAt = null;
      this.#offsetMs = setting.offsetMs;
    }
    this.#moved = setting !== null;
  }

  #changed(moved: boolean): void {
    this.#moved = moved;
    this.#listener?.();
  }
}
