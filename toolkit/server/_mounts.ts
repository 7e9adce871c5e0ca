// The servers mounted in one server (`server.mount(prefix, other)`): what
// its lists show of them, where a name or a URI is routed, and the name
// checks that keep every exposed name unique, from the mount on (a later
// registration anywhere in the tree is checked against the whole tree).
// A mount is another toolkit server (its Mounts) or a client connection to
// any server (a RemoteMount, whose new names are checked as its lists
// arrive). The naming rules themselves live in ../_util/mount_names.ts,
// which the gate's aggregate shares.

import {
  checkExposedName,
  checkNames,
  collisionError,
  joinName,
  type NameGroup,
  routeName,
  splitName,
} from "../_util/mount_names.ts";
import type { ListName } from "../client/types.ts";
import type { NameKind, RemoteMount } from "./_remote_mount.ts";
import type { CallPipeline } from "./_call.ts";
import type { RegisteredTool, ToolRegistry } from "./_registry.ts";
import type { PromptRegistry, PromptResult } from "./prompts.ts";
import type {
  Completer,
  ListedResource,
  Placed,
  RequestContext,
  ResourceRegistry,
} from "./resources.ts";
import type { ResourceContents } from "../result/result.ts";
import type { ListedTool } from "./tool.ts";

/** The lists that announce their changes. */
export type ListKind = "tools" | "resources" | "prompts";

/** Places of mounted lists: after a server's own resources and templates (2 ** 40 on). */
const MOUNT_PLACE = 2 ** 44;

/** One server's own registries. */
export interface OwnParts {
  tools: ToolRegistry;
  calls: CallPipeline;
  prompts: PromptRegistry;
  resources: ResourceRegistry;
}

/** What a server tells those it is mounted in. */
export interface MountHooks {
  /** Its list changed: the parent's lists change too (announced once per tick). */
  listChanged(list: ListKind): void;
  /** `resources/updated` for `uri`. */
  resourceUpdated(uri: string): void;
}

interface Mount extends NameGroup {
  /** Another toolkit server's, or a client connection. */
  readonly child: Mounts | RemoteMount;
  readonly place: number;
}

/** The exposed tools of a server, cached until its tools change. */
interface ToolView {
  list: ListedTool[];
  byMount: Map<Mount, ListedTool[]>;
  byName: Map<string, RegisteredTool>;
}

/** What can read a resource: a registry, or a mounted connection. */
interface Reader {
  read(uri: string, ctx: RequestContext): Promise<ResourceContents[]>;
}

/** A server's own registries and the servers mounted in it. */
export class Mounts {
  readonly label: string;
  readonly own: OwnParts;
  #hooks: MountHooks;
  #mounts: Mount[] = [];
  #parents: { parent: Mounts; mount: Mount }[] = [];
  #view: ToolView | undefined;

  constructor(label: string, own: OwnParts, hooks: MountHooks) {
    this.label = label;
    this.own = own;
    this.#hooks = hooks;
    own.tools.checkName = (name, action) =>
      this.#checkNew("tool", name, action);
    own.prompts.checkName = (name, action) =>
      this.#checkNew("prompt", name, action);
    own.calls.mounted = this;
  }

  /** Whether anything is mounted. */
  get any(): boolean {
    return this.#mounts.length > 0;
  }

  /**
   * Mounts `child` (a server's Mounts, or a client connection's
   * RemoteMount) under `prefix` (checked by the caller); throws on a
   * collision or a cycle.
   */
  mount(prefix: string, child: Mounts | RemoteMount): void {
    const action = `Cannot mount server ${child.label} as ${
      JSON.stringify(prefix)
    }`;
    if (child instanceof Mounts && this.#ancestors().has(child)) {
      throw new TypeError(`${action}: it would contain itself`);
    }
    const mount: Mount = {
      label: `mount ${JSON.stringify(prefix)} (server ${child.label})`,
      prefix,
      child,
      place: MOUNT_PLACE + this.#mounts.length,
      names: () => child.names("tool"),
    };
    for (const kind of ["tool", "prompt"] as const) {
      this.#check(kind, { ...mount, names: () => child.names(kind) }, action);
    }
    this.#mounts.push(mount);
    this.#view = undefined;
    if (child instanceof Mounts) {
      child.#parents.push({ parent: this, mount });
      return;
    }
    child.attach({
      refuse: (kind, name) => this.#refuse(mount, kind, name),
      changed: (list: ListName) => this.#hooks.listChanged(list),
    });
  }

  /**
   * Why a name a mounted connection newly lists cannot be exposed (it
   * would collide with a name of the tree, or break the name rule), or
   * `undefined` when it can.
   */
  #refuse(mount: Mount, kind: NameKind, name: string): string | undefined {
    const action = `Cannot list the new ${kind} ${
      JSON.stringify(name)
    } of server ${mount.child.label}`;
    try {
      this.#checkOne(joinName(mount.prefix, name), {
        label: mount.label,
        name,
      }, { kind, action });
    } catch (error) {
      if (error instanceof TypeError) return error.message;
      throw error;
    }
    return undefined;
  }

  /** Every server above this one. */
  #ancestors(): Set<Mounts> {
    const seen = new Set<Mounts>([this]);
    const todo: Mounts[] = [this];
    for (let at = todo.pop(); at !== undefined; at = todo.pop()) {
      for (const { parent } of at.#parents) {
        if (!seen.has(parent)) seen.add(parent), todo.push(parent);
      }
    }
    return seen;
  }

  /** One of this server's lists changed: forget the cache, tell the parents. */
  changed(list: ListKind): void {
    if (list === "tools") this.#view = undefined;
    for (const { parent } of this.#parents) parent.#hooks.listChanged(list);
  }

  /** A resource of this server changed: its parents' subscribers hear it too. */
  resourceUpdated(uri: string): void {
    for (const { parent } of this.#parents) parent.#hooks.resourceUpdated(uri);
  }

  /** Every name of `kind` this server exposes, enabled or not, mounted ones prefixed. */
  names(kind: NameKind): string[] {
    const own = kind === "tool" ? this.own.tools : this.own.prompts;
    const names = [...own.allNames()];
    for (const mount of this.#mounts) {
      for (const name of mount.child.names(kind)) {
        names.push(joinName(mount.prefix, name));
      }
    }
    return names;
  }

  /** Whether this server or one mounted in it registered `kind` (resources, prompts, completions). */
  offers(kind: "resources" | "prompts" | "completions"): boolean {
    const { resources, prompts } = this.own;
    const here = kind === "resources"
      ? resources.size > 0
      : kind === "prompts"
      ? prompts.size > 0
      : resources.completes || prompts.completes;
    return here || this.#mounts.some((m) => m.child.offers(kind));
  }

  /**
   * A new own name (the registry has refused its own duplicates): checked
   * against the mounts here, then as it would be named in every server
   * above; one lookup per level, so registering stays cheap.
   */
  #checkNew(kind: NameKind, name: string, action: string): void {
    if (!this.any && this.#parents.length === 0) return;
    this.#checkOne(name, { label: `server ${this.label}`, name }, {
      kind,
      action,
    });
  }

  #checkOne(
    exposed: string,
    side: { label: string; name: string },
    options: { kind: NameKind; action: string },
  ): void {
    checkExposedName(exposed, side, options);
    const held = this.#holder(options.kind, exposed);
    if (held !== undefined) {
      throw collisionError({ exposed, first: held, second: side }, options);
    }
    for (const { parent, mount } of this.#parents) {
      parent.#checkOne(
        joinName(mount.prefix, exposed),
        side.label === `server ${this.label}`
          ? { label: mount.label, name: side.name }
          : { label: `${side.label} in ${mount.label}`, name: side.name },
        options,
      );
    }
  }

  /** Who exposes `name` here (listed or not), and its own name for it. */
  #holder(
    kind: NameKind,
    name: string,
  ): { label: string; name: string } | undefined {
    const own = kind === "tool" ? this.own.tools : this.own.prompts;
    if (own.hasName(name)) return { label: `server ${this.label}`, name };
    for (const mount of this.#mounts) {
      const inner = splitName(mount.prefix, name);
      if (inner === undefined) continue;
      const { child } = mount;
      if (!(child instanceof Mounts)) {
        if (child.has(kind, inner)) return { label: mount.label, name: inner };
        continue;
      }
      const held = child.#holder(kind, inner);
      if (held === undefined) continue;
      return held.label === `server ${child.label}`
        ? { label: mount.label, name: held.name }
        : { label: `${held.label} in ${mount.label}`, name: held.name };
    }
    return undefined;
  }

  /** Checks `added` against every name of `kind` here, then in every parent, prefixed as it would be there. */
  #check(kind: NameKind, added: NameGroup, action: string): void {
    const own = kind === "tool" ? this.own.tools : this.own.prompts;
    checkNames([
      {
        label: `server ${this.label}`,
        prefix: "",
        names: () => own.allNames(),
      },
      ...this.#mounts.map((m) => ({
        label: m.label,
        prefix: m.prefix,
        names: () => m.child.names(kind),
      })),
      added,
    ], { kind, action });
    for (const { parent, mount } of this.#parents) {
      parent.#check(kind, {
        label: added.label === `server ${this.label}`
          ? mount.label
          : `${added.label} in ${mount.label}`,
        prefix: added.prefix === ""
          ? mount.prefix
          : joinName(mount.prefix, added.prefix),
        names: added.names,
      }, action);
    }
  }

  // --- tools ---

  /** The mounted tools by exposed name, listed without `execution`: they run to completion. */
  #tools(): ToolView {
    if (this.#view !== undefined) return this.#view;
    const list: ListedTool[] = [];
    const byMount = new Map<Mount, ListedTool[]>();
    const byName = new Map<string, RegisteredTool>();
    for (const mount of this.#mounts) {
      const { child } = mount;
      const own = child instanceof Mounts
        ? child.listTools(false)
        : child.listTools();
      const listed = own.map((tool) => {
        const name = joinName(mount.prefix, tool.name);
        const entry = { ...tool, name };
        byName.set(
          name,
          delegated(
            entry,
            child instanceof Mounts
              ? (connection, params, extra) =>
                child.own.calls.runMounted(connection, tool.name, params, extra)
              : (_connection, params, extra) =>
                child.callTool(tool.name, params, extra),
          ),
        );
        return entry;
      });
      list.push(...listed);
      byMount.set(mount, listed);
    }
    return this.#view = { list, byMount, byName };
  }

  /** `tools/list`: this server's own tools, then each mount's, prefixed. */
  listTools(tasks: boolean): ListedTool[] {
    const own = this.own.tools.list(tasks);
    return this.any ? [...own, ...this.#tools().list] : own;
  }

  /** `tools/list` with places, for paging: one place per mount. */
  toolPlaces(tasks: boolean): Placed<ListedTool>[] {
    const placed: Placed<ListedTool>[] = this.own.tools.entries(tasks).map((
      { seq, item },
    ) => ({ seq, items: () => [item] }));
    for (const mount of this.#mounts) {
      placed.push({
        seq: mount.place,
        items: () => this.#tools().byMount.get(mount) ?? [],
      });
    }
    return placed;
  }

  /** The mounted tool exposed as `name`, as the call pipeline runs it. */
  mountedTool(name: string): RegisteredTool | undefined {
    return this.any ? this.#tools().byName.get(name) : undefined;
  }

  /** The enabled mounted tools' exposed names (for did-you-mean). */
  mountedToolNames(): string[] {
    return this.any ? [...this.#tools().byName.keys()] : [];
  }

  // --- prompts ---

  /** `prompts/list` with places: own prompts, then each mount's, prefixed. */
  promptPlaces(): Placed<Record<string, unknown>>[] {
    const placed: Placed<Record<string, unknown>>[] = this.own.prompts
      .entries().map(({ seq, item }) => ({ seq, items: () => [item] }));
    for (const mount of this.#mounts) {
      placed.push({
        seq: mount.place,
        items: async () => {
          const { child } = mount;
          const own: Record<string, unknown>[] = [];
          if (child instanceof Mounts) {
            for (const entry of child.promptPlaces()) {
              own.push(...await entry.items());
            }
          } else own.push(...child.prompts());
          return own.map((item) => ({
            ...item,
            name: joinName(mount.prefix, item.name as string),
          }));
        },
      });
    }
    return placed;
  }

  /** The server that has the enabled prompt exposed as `name`, and its own name for it. */
  #promptOwner(
    name: string,
  ): { owner: Mounts | RemoteMount; name: string } | undefined {
    if (this.own.prompts.has(name)) return { owner: this, name };
    let found: { owner: Mounts | RemoteMount; name: string } | undefined;
    routeName(this.#mounts, name, (mount: Mount, inner: string) => {
      const { child } = mount;
      found = child instanceof Mounts
        ? child.#promptOwner(inner)
        : child.has("prompt", inner)
        ? { owner: child, name: inner }
        : undefined;
      return found !== undefined;
    });
    return found;
  }

  /** `prompts/get`, routed to the server that has the prompt. */
  getPrompt(
    name: string,
    args: Record<string, unknown> | undefined,
    ctx: RequestContext,
  ): Promise<PromptResult> {
    const found = this.#promptOwner(name);
    // Unknown: this server's own answer (-32602).
    if (found === undefined) return this.own.prompts.get(name, args, ctx);
    const { owner } = found;
    return owner instanceof Mounts
      ? owner.own.prompts.get(found.name, args, ctx)
      : owner.getPrompt(found.name, args, ctx);
  }

  /** The completer of a prompt's argument; `null` for an unknown prompt. */
  promptCompleter(
    name: string,
    argument: string,
  ): Completer | undefined | null {
    const found = this.#promptOwner(name);
    if (found === undefined) return null;
    const { owner } = found;
    return owner instanceof Mounts
      ? owner.own.prompts.completer(found.name, argument)
      : owner.promptCompleter(found.name, argument);
  }

  // --- resources: URIs are kept, so each is routed to whoever can read it ---

  /** `resources/list` with places: own resources, then each mount's. */
  resourcePlaces(ctx: RequestContext): Placed<ListedResource>[] {
    const placed = this.own.resources.placed(ctx);
    for (const mount of this.#mounts) {
      placed.push({
        seq: mount.place,
        items: async () => {
          const { child } = mount;
          if (!(child instanceof Mounts)) return child.resources();
          const items: ListedResource[] = [];
          for (const entry of child.resourcePlaces(ctx)) {
            items.push(...await entry.items());
          }
          return items;
        },
      });
    }
    return placed;
  }

  /** `resources/templates/list` with places. */
  templatePlaces(): Placed<Record<string, unknown>>[] {
    const placed: Placed<Record<string, unknown>>[] = this.own.resources
      .templateEntries().map(({ seq, item }) => ({ seq, items: () => [item] }));
    for (const mount of this.#mounts) {
      placed.push({
        seq: mount.place,
        items: async () => {
          const { child } = mount;
          if (!(child instanceof Mounts)) return child.templates();
          const items: Record<string, unknown>[] = [];
          for (const entry of child.templatePlaces()) {
            items.push(...await entry.items());
          }
          return items;
        },
      });
    }
    return placed;
  }

  /** What can read `uri`: this server's registry first, then each mount's in order. */
  #reader(uri: string): Reader | undefined {
    if (this.own.resources.has(uri)) return this.own.resources;
    for (const { child } of this.#mounts) {
      const reader = child instanceof Mounts
        ? child.#reader(uri)
        : child.canRead(uri)
        ? child
        : undefined;
      if (reader !== undefined) return reader;
    }
    return undefined;
  }

  /** `resources/read`, routed; an unknown URI is this server's own answer. */
  readResource(uri: string, ctx: RequestContext): Promise<ResourceContents[]> {
    return (this.#reader(uri) ?? this.own.resources).read(uri, ctx);
  }

  /** The completer of a template's variable; `null` for an unknown template. */
  templateCompleter(
    uriTemplate: string,
    variable: string,
  ): Completer | undefined | null {
    const here = this.own.resources.completer(uriTemplate, variable);
    if (here !== null) return here;
    for (const mount of this.#mounts) {
      const there = mount.child.templateCompleter(uriTemplate, variable);
      if (there !== null) return there;
    }
    return null;
  }
}

/**
 * A mounted tool as the parent's pipeline sees it: listed under its exposed
 * name; the parent's layers run, then `run` hands the call to the child
 * server's own pipeline (its layers, probe guard, decoding and limits), or
 * forwards it to the connected server.
 */
function delegated(
  listed: ListedTool,
  run: NonNullable<RegisteredTool["delegate"]>,
): RegisteredTool {
  return {
    def: {
      name: listed.name,
      description: listed.description ?? "",
      handler: () => {
        throw new Error("A mounted tool runs in its own server");
      },
    },
    listed,
    sessionListed: listed,
    schema: undefined,
    output: undefined,
    task: undefined,
    delegate: run,
  };
}
