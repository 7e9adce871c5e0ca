// The handle behind a Registration: it refuses changes to a removed entry,
// lets the registry apply each change, and announces those that change a
// list.

import type { Registration } from "./registration.ts";

/** What a registry does for one entry's handle; each returns whether anything changed. */
export interface RegistrySlotOps<D> {
  setEnabled(enabled: boolean): boolean;
  update(patch: Partial<D>): void;
  remove(): boolean;
  readonly enabled: boolean;
  readonly removed: boolean;
  /** What the handle names in its errors, such as `tool "send"`. */
  readonly label: string;
}

/** The handle over a registry slot: changes go through, then `changed()` announces them. */
export class RegistrationHandle<D> implements Registration<D> {
  #slot: RegistrySlotOps<D>;
  #changed: () => void;

  constructor(slot: RegistrySlotOps<D>, changed: () => void) {
    this.#slot = slot;
    this.#changed = changed;
  }

  get enabled(): boolean {
    return this.#slot.enabled;
  }

  get removed(): boolean {
    return this.#slot.removed;
  }

  enable(): void {
    this.#live("enable");
    if (this.#slot.setEnabled(true)) this.#changed();
  }

  disable(): void {
    this.#live("disable");
    if (this.#slot.setEnabled(false)) this.#changed();
  }

  update(patch: Partial<D>): void {
    this.#live("update");
    if (typeof patch !== "object" || patch === null || Array.isArray(patch)) {
      throw new TypeError(
        `Cannot update ${this.#slot.label}: expected a patch object, got ${
          patch === null
            ? "null"
            : Array.isArray(patch)
            ? "array"
            : typeof patch
        }`,
      );
    }
    this.#slot.update(patch);
    // A disabled entry is in no list: its change is news once it is enabled.
    if (this.#slot.enabled) this.#changed();
  }

  remove(): void {
    if (this.#slot.remove()) this.#changed();
  }

  #live(action: string): void {
    if (this.#slot.removed) {
      throw new TypeError(
        `Cannot ${action} ${this.#slot.label}: it was removed`,
      );
    }
  }
}
