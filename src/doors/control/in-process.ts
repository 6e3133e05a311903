import type { Sandboxes } from "../../store/sandboxes.js";
import type { ReferenceState } from "../../store/state.js";
import { sandboxOf } from "./sandbox-access.js";
import {
  CONTROL_TABLE,
  SHORTHANDS,
  type ArgsOf,
  type ControlOperation,
  type ControlScope,
  type InProcessStateMethods,
  type ResultOf,
  type SandboxOperationId,
} from "./table.js";
import type { SandboxCreatedView } from "./wire.js";

/**
 * The control surface in process: the rows of the table (table.ts) as methods, under the names the
 * HTTP client has, answering at once (a promise for `waitForRequest`). The input is validated by the
 * row, as over HTTP; only the transport differs.
 */

/** The operations that manage sandboxes, in process: a sandbox is made as a `SandboxControl`. */
export type InProcessSandboxMethods = {
  [K in SandboxOperationId]: (
    ...args: ArgsOf<K>
  ) => ResultOf<K> extends SandboxCreatedView ? SandboxControl : ResultOf<K>;
};

/** Runs a row on a scope: the method's arguments as the door reads its input, then the row itself. */
const run = (scope: ControlScope, operation: ControlOperation, args: unknown[]): unknown =>
  operation.run(scope, operation.inputOf(...args));

/** Puts a method named `name` on `prototype`. */
function install(prototype: object, name: string, method: (...args: never[]) => unknown): void {
  Object.defineProperty(method, "name", { value: name });
  Object.defineProperty(prototype, name, { value: method, writable: true, configurable: true });
}

// The methods are declared by the interface and put on the prototype by the static block, from the
// table: no method is written twice.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface StateControl extends InProcessStateMethods {
  /** Resolves once the changes made so far are kept (with `--data`; at once without). */
  durable(): Promise<void>;
}

/** The operations on one state: the default one (`Control`) or a sandbox's (`SandboxControl`). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export abstract class StateControl {
  /** What the operations act on, found at each call (a sandbox, while it lives). */
  protected abstract scope(): ControlScope;

  static {
    for (const [name, operation] of Object.entries(CONTROL_TABLE)) {
      if (operation.on !== "state") continue;
      install(this.prototype, name, function (this: StateControl, ...args: unknown[]) {
        return run(this.scope(), operation, args);
      });
    }
    for (const [name, { of, field }] of Object.entries(SHORTHANDS)) {
      install(this.prototype, name, function (this: StateControl, value: unknown) {
        return run(this.scope(), CONTROL_TABLE[of], [{ [field]: value }]);
      });
    }
    install(this.prototype, "durable", function (this: StateControl) {
      return this.scope().state.durable();
    });
  }
}

/** `reference.control`: the default state's operations, and the sandboxes'. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface Control extends InProcessSandboxMethods {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class Control extends StateControl {
  readonly #scope: ControlScope;

  constructor(state: ReferenceState, sandboxes: Sandboxes) {
    super();
    this.#scope = { state, sandboxes, sandbox: undefined };
  }

  protected scope(): ControlScope {
    return this.#scope;
  }

  static {
    for (const [name, operation] of Object.entries(CONTROL_TABLE)) {
      if (operation.on !== "sandboxes") continue;
      install(this.prototype, name, function (this: Control, ...args: unknown[]) {
        const scope = this.scope();
        const answer = run(scope, operation, args);
        return name === "createSandbox"
          ? new SandboxControl(scope.sandboxes, (answer as SandboxCreatedView).id)
          : answer;
      });
    }
  }
}

/**
 * A sandbox in process (`reference.control.createSandbox()`, `reference.sandbox()`): the operations on
 * its state alone, its id, its tokens by label and its manifest. After `delete()`, every operation is
 * refused as the HTTP surface refuses it (not_found).
 */
export class SandboxControl extends StateControl {
  readonly id: string;
  /** The fixture tokens of this sandbox, in the format of fixtures/tokens.json. */
  readonly manifest: SandboxCreatedView["manifest"];
  /** Each fixture token's clear value, by label (`tokens["lumiere-full"]`). */
  readonly tokens: Readonly<Record<string, string>>;
  /** Fixture organization id → this sandbox's id for it. */
  readonly organizations: Readonly<Record<string, string>>;
  readonly #sandboxes: Sandboxes;

  constructor(sandboxes: Sandboxes, id: string) {
    super();
    const sandbox = sandboxOf(sandboxes, id);
    this.#sandboxes = sandboxes;
    this.id = id;
    this.manifest = sandbox.state.manifest;
    this.tokens = Object.fromEntries(sandbox.state.manifest.tokens.map((t) => [t.label, t.token]));
    this.organizations = sandbox.organizations;
  }

  // The sandbox is found by id at each call, never held: a deleted sandbox is freed.
  protected scope(): ControlScope {
    const sandbox = sandboxOf(this.#sandboxes, this.id);
    return { state: sandbox.state, sandboxes: this.#sandboxes, sandbox };
  }

  /** The sandbox's state itself (its store, tokens, clock), for a test that reads it directly. */
  get state(): ReferenceState {
    return sandboxOf(this.#sandboxes, this.id).state;
  }

  /** Ends the sandbox: its tokens are refused at once. False when it had ended already. */
  delete(): boolean {
    return this.#sandboxes.delete(this.id);
  }
}
