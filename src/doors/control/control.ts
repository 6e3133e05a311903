import type { z } from "zod";
import type { JournalFilter } from "../../store/journal.js";
import type { Sandboxes } from "../../store/sandboxes.js";
import type { ReferenceState } from "../../store/state.js";
import { journalEntries, OPERATIONS } from "./runs.js";
import { newSandbox, sandboxOf, sandboxView } from "./sandbox-runs.js";
import type { ClockInput, FaultInput, LatencyInput, RecordsInput, ResetInput } from "./schemas.js";
import type {
  ClearedView,
  ClockView,
  ControlDescription,
  FaultView,
  JournalEntryView,
  LatencyView,
  RecordsView,
  ResetView,
  SandboxCreatedView,
} from "./wire.js";

/** What `waitForRequest` looks for, in process. */
export interface WaitFilter {
  method?: string | undefined;
  path?: string | undefined;
  status?: number | undefined;
  /** A seq already seen: only later requests. */
  after?: number | undefined;
  /** Real time, 5 000 by default, at most 60 000. */
  timeoutMs?: number | undefined;
}

/**
 * The control surface in process (`reference.control`): each operation of the table, typed for the
 * test that calls it, on the reference's state.
 */
export class Control {
  readonly #stateOf: () => ReferenceState;

  /** Over `state`, or over whatever state `state()` gives at each call (a sandbox, while it lives). */
  constructor(state: ReferenceState | (() => ReferenceState)) {
    this.#stateOf = typeof state === "function" ? state : () => state;
  }

  get #state(): ReferenceState {
    return this.#stateOf();
  }

  describe(): ControlDescription {
    return OPERATIONS.describe.run(this.#state);
  }

  /** Everything back to the fixtures, the clock as it started included, or one organization's part. */
  reset(input: z.input<typeof ResetInput> = {}): ResetView {
    return OPERATIONS.reset.run(this.#state, input);
  }

  clock(): ClockView {
    return OPERATIONS.clock.run(this.#state);
  }

  setClock(input: z.input<typeof ClockInput>): ClockView {
    return OPERATIONS.setClock.run(this.#state, input);
  }

  restoreClock(): ClockView {
    return OPERATIONS.restoreClock.run(this.#state);
  }

  addFault(input: z.input<typeof FaultInput>): FaultView {
    return OPERATIONS.addFault.run(this.#state, input);
  }

  faults(): FaultView[] {
    return OPERATIONS.faults.run(this.#state);
  }

  clearFaults(): ClearedView {
    return OPERATIONS.clearFaults.run(this.#state);
  }

  /** Disarms one fault (one that holds until cleared, say); 404 when it is gone already. */
  clearFault(id: string): ClearedView {
    return OPERATIONS.clearFault.run(this.#state, { id });
  }

  journal(filter: JournalFilter = {}): JournalEntryView[] {
    return journalEntries(this.#state, filter);
  }

  /**
   * The oldest request of the journal matching `filter` (`after`: a seq already seen), at once or as
   * soon as one is answered; refused (not_found) after `timeoutMs` (5 000 by default) without one.
   */
  waitForRequest(filter: WaitFilter = {}): Promise<JournalEntryView> {
    // Read as the query string is: the same rules whichever way the filter came.
    const query = Object.fromEntries(
      Object.entries(filter).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])),
    );
    return OPERATIONS.waitForRequest.run(this.#state, query);
  }

  clearJournal(): ClearedView {
    return OPERATIONS.clearJournal.run(this.#state);
  }

  /**
   * Adds records in the fixtures' format (ids, createdAt and updatedAt may be left out), checked by
   * the fixtures' rules: all of them, or none and an `ApiError` naming the record and field.
   */
  addRecords(input: z.input<typeof RecordsInput>): RecordsView {
    return OPERATIONS.addRecords.run(this.#state, input);
  }

  latency(): LatencyView {
    return OPERATIONS.latency.run(this.#state);
  }

  /** The delay before every API answer of this state: `{ minMs, maxMs }`, `{ minMs: 0 }` for none. */
  setLatency(input: z.input<typeof LatencyInput>): LatencyView {
    return OPERATIONS.setLatency.run(this.#state, input);
  }

  restoreLatency(): LatencyView {
    return OPERATIONS.restoreLatency.run(this.#state);
  }

  /** Resolves once the changes made so far are kept (with `--data`; at once without). */
  durable(): Promise<void> {
    return this.#state.durable();
  }
}

/**
 * A sandbox in process (`reference.sandbox()`): the control surface's operations on its state alone,
 * its id, its tokens by label and its manifest. After `delete()`, every operation is refused as the
 * HTTP surface refuses it (not_found).
 */
export class SandboxControl extends Control {
  readonly id: string;
  /** The fixture tokens of this sandbox, in the format of fixtures/tokens.json. */
  readonly manifest: SandboxCreatedView["manifest"];
  /** Each fixture token's clear value, by label (`tokens["lumiere-full"]`). */
  readonly tokens: Readonly<Record<string, string>>;
  /** Fixture organization id → this sandbox's id for it. */
  readonly organizations: Readonly<Record<string, string>>;
  readonly #sandboxes: Sandboxes;

  constructor(sandboxes: Sandboxes, options: { now?: Date | undefined } = {}) {
    const sandbox = newSandbox(sandboxes, options.now);
    const id = sandbox.id;
    // The state is found by id at each call, never held: a deleted sandbox is freed.
    super(() => sandboxOf(sandboxes, id).state);
    this.#sandboxes = sandboxes;
    this.id = sandbox.id;
    this.manifest = sandbox.state.manifest;
    this.tokens = Object.fromEntries(sandbox.state.manifest.tokens.map((t) => [t.label, t.token]));
    this.organizations = sandbox.organizations;
  }

  /** The sandbox's state itself (its store, tokens, clock), for a test that reads it directly. */
  get state(): ReferenceState {
    return sandboxOf(this.#sandboxes, this.id).state;
  }

  override describe(): ControlDescription {
    const sandbox = sandboxOf(this.#sandboxes, this.id);
    return { ...super.describe(), sandbox: sandboxView(this.#sandboxes, sandbox) };
  }

  /** Ends the sandbox: its tokens are refused at once. False when it had ended already. */
  delete(): boolean {
    return this.#sandboxes.delete(this.id);
  }
}
