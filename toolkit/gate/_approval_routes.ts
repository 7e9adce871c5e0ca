// Internal: the approvals of a gate served over HTTP. One board for every
// session and for the 2026-07-28 callers, its page at `/approvals/<id>` on
// the gate's own listener, and the keyed digest that names an asked call
// on the board (so that a host's retry finds its approval) without holding
// anything of the call but who asked, the server, the tool and its
// canonical patterns.
//
// Who the page's viewer is comes from `identify`: the seam a sign-in
// fills. The gate has no sign-in of its own yet, so without one given
// (`StartGateOptions.approvers`) every viewer is unknown and the page
// answers 401: nobody can approve, and asked calls end at their expiry.

import {
  ApprovalBoard,
  type ApprovalStore,
  type Asker,
} from "./approvals/_board.ts";
import { RedisApprovalStore } from "./approvals/_redis_store.ts";
import { type Link, openLink } from "../redis/_link.ts";
import { approvalPage, type Viewer } from "./approvals/_page.ts";
import type { PolicySource } from "./policy/_policy_source.ts";
import { authOptionsOf } from "./policy/_auth.ts";
import type { JwksSource } from "../http/_jwt.ts";
import { type ApproverClient, ApproverSignIn } from "./_approver_sign_in.ts";
import { isApprover } from "./policy/_principals.ts";
import type { CallerClaims } from "./policy/_claims.ts";

/** The longest an approval may be given: the board's limit, a day. */
const MAX_TTL_MS = 24 * 60 * 60_000;

/** Who may see and decide approvals on the page. */
export interface ApproverIdentity {
  /** The viewer of a page request, from its sign-in; `undefined` when not signed in. */
  identify: (request: Request) => Promise<Viewer | undefined>;
  /** Whether the viewer may approve and deny. */
  isApprover: (viewer: Viewer) => boolean;
  /**
   * Whether an approver may decide a call they asked for themselves.
   *
   * @default {() => true}
   */
  decidesOwn?: () => boolean;
}

/** Options for {@linkcode ApprovalService}. */
export interface ApprovalServiceOptions {
  /** Who the page's viewers are; nobody is known without it. */
  identity?: ApproverIdentity;
  /** How long an approval may be given, in milliseconds. */
  ttlMs?: number;
  /**
   * Whether anybody can approve now (the policy names approvers, and
   * viewers can be identified): hosts are sent to the page only then.
   *
   * @default {() => identity !== undefined}
   */
  enabled?: () => boolean;
  /** The sign-in against the gate's issuer; `identity.identify` reads its cookie when absent. */
  signIn?: ApproverSignIn;
  /** Where approvals live. @default {new MemoryApprovalStore()} */
  store?: ApprovalStore;
  /** The keys of form tokens and call keys: the same on every instance of one board. @default {random ones} */
  keys?: ApprovalKeys;
}

/** The keys an HTTP gate's approvals use, each 32 bytes. */
export interface ApprovalKeys {
  /** The page's form tokens. */
  form: Uint8Array;
  /** The calls' keys on the board. */
  call: Uint8Array;
  /** The approvers' sign-in cookies. */
  signIn: Uint8Array;
  /** The `requestState` of 2026-07-28 approval rounds. */
  rounds: Uint8Array;
}

/**
 * The keys derived from `secret` (HMAC-SHA256 of each key's name), so that
 * instances sharing a secret share every key; random ones without it.
 */
export async function approvalKeys(
  secret?: Uint8Array<ArrayBuffer>,
): Promise<ApprovalKeys> {
  const base = secret ?? crypto.getRandomValues(new Uint8Array(32));
  const key = await crypto.subtle.importKey(
    "raw",
    base,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const derive = async (name: string) =>
    new Uint8Array(
      await crypto.subtle.sign(
        "HMAC",
        key,
        new TextEncoder().encode(`forge-gate approvals ${name}`),
      ),
    );
  return {
    form: await derive("form"),
    call: await derive("call"),
    signIn: await derive("sign-in"),
    rounds: await derive("rounds"),
  };
}

/** The Redis key of the secret the instances sharing a board share. */
const SECRET_KEY = "forge-gate:approvals-secret";
const SHARED_SECRET = `redis.call('SET', KEYS[1], ARGV[1], 'NX')
return redis.call('GET', KEYS[1])`;

/**
 * Approvals in Redis at `url`, shared by every gate instance using it: the
 * store, and the secret their keys derive from, made by the first instance
 * and read by the others (whoever can read Redis can decide approvals
 * anyway).
 */
export async function redisApprovals(
  url: string,
  onError: (message: string) => void,
): Promise<
  { store: RedisApprovalStore; secret: Uint8Array<ArrayBuffer>; link: Link }
> {
  if (typeof url !== "string" || !/^rediss?:\/\//.test(url)) {
    throw new TypeError(
      `Cannot keep approvals in Redis: expected a redis:// or rediss:// URL, got ${
        JSON.stringify(url)
      }`,
    );
  }
  const link = await openLink(url, {
    timeoutMs: 1_000,
    connectTimeoutMs: 5_000,
    onError,
  });
  try {
    const fresh = crypto.getRandomValues(new Uint8Array(32));
    const stored = await link.eval(SHARED_SECRET, [SECRET_KEY], [
      btoa(String.fromCharCode(...fresh)),
    ]);
    const secret = Uint8Array.from(
      atob(String(stored)),
      (c) => c.charCodeAt(0),
    );
    if (secret.length < 32) {
      throw new Error(`${SECRET_KEY} holds fewer than 32 bytes`);
    }
    return {
      store: new RedisApprovalStore(link, { onError, ownsLink: true }),
      secret,
      // The gate's one link, which the flows use too; the store closes it.
      link,
    };
  } catch (error) {
    await link.close();
    throw error;
  }
}

/** The path prefix of the page. */
export const APPROVALS_PREFIX = "/approvals/";

/** The board, its page and the call keys of one HTTP gate. */
export class ApprovalService {
  readonly board: ApprovalBoard;
  /** Answers `GET`/`POST /approvals/<id>`. */
  readonly handler: (request: Request) => Promise<Response>;
  /** Whether hosts are sent to the page now: somebody can approve there. */
  readonly enabled: () => boolean;
  #origin: string | undefined;
  #key: Promise<CryptoKey>;

  constructor(options: ApprovalServiceOptions = {}) {
    this.board = new ApprovalBoard({
      ttlMs: options.ttlMs,
      ...(options.store === undefined ? {} : { store: options.store }),
    });
    const identity = options.identity;
    const signIn = options.signIn;
    this.enabled = options.enabled ?? (() => identity !== undefined);
    // The same keys on every instance that shares the board (Redis).
    const keys = options.keys;
    const page = approvalPage({
      board: this.board,
      identify: identity?.identify ??
        (signIn === undefined
          ? () => Promise.resolve(undefined)
          : (request) => signIn.identify(request)),
      isApprover: identity?.isApprover ?? (() => false),
      ...(identity?.decidesOwn === undefined
        ? {}
        : { decidesOwn: identity.decidesOwn }),
      key: keys?.form ?? crypto.getRandomValues(new Uint8Array(32)),
      ...(signIn === undefined
        ? {}
        : { signIn: (request: Request) => signIn.redirect(request) }),
    });
    this.handler = (request) =>
      signIn?.handles(new URL(request.url).pathname) === true
        ? signIn.handle(request)
        : page(request);
    this.#key = crypto.subtle.importKey(
      "raw",
      new Uint8Array(keys?.call ?? crypto.getRandomValues(new Uint8Array(32))),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
  }

  /**
   * Sets the origin hosts and browsers reach the gate at, once it listens:
   * its listener's, or that of its public resource URL.
   */
  listening(url: URL): void {
    this.#origin = url.origin;
  }

  /** The origin browsers reach the gate at. */
  origin(): string {
    if (this.#origin === undefined) {
      throw new Error("Cannot name the gate's origin: it is not listening");
    }
    return this.#origin;
  }

  /** The page's absolute URL for an approval's `path`. */
  pageUrl(path: string): string {
    if (this.#origin === undefined) {
      throw new Error(
        "Cannot name the approval page: the gate is not listening",
      );
    }
    return `${this.#origin}${path}`;
  }

  /**
   * The board's key of a call: a keyed digest of who asked (`caller`), the
   * server, the tool and its canonical patterns, in that order; never of
   * argument values beyond the targets the patterns name.
   */
  async callKey(
    caller: string,
    call: { server?: string; tool: string; patterns: readonly string[] },
  ): Promise<string> {
    const text = JSON.stringify([
      caller,
      call.server ?? null,
      call.tool,
      [...call.patterns],
    ]);
    const digest = await crypto.subtle.sign(
      "HMAC",
      await this.#key,
      new TextEncoder().encode(text),
    );
    return `call:${
      btoa(String.fromCharCode(...new Uint8Array(digest)))
        .replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")
    }`;
  }
}

/**
 * The approvals of a gate served over HTTP: viewers identified by
 * `identify` (nobody without it), approvers by the policy's `approvers:`
 * as in force when they look.
 */
export function approvalService(
  source: PolicySource,
  { identify, ttlMs, signIn, store, keys }: {
    identify: ApproverIdentity["identify"] | undefined;
    ttlMs: number;
    signIn?: ApproverSignIn;
    store?: ApprovalStore;
    keys?: ApprovalKeys;
  },
): ApprovalService {
  const viewer = identify ??
    (signIn === undefined
      ? undefined
      : (request: Request) => signIn.identify(request));
  return new ApprovalService({
    // Nobody could approve on a page nobody signs in to, nor without
    // approvers: the host is told the call cannot be asked, as before.
    enabled: () =>
      viewer !== undefined && source.current().file?.approvers !== undefined,
    identity: {
      identify: viewer ?? (() => Promise.resolve(undefined)),
      isApprover: (viewer) =>
        isApprover(source.current().file?.approvers, {
          sub: viewer.sub,
          groups: viewer.groups ?? [],
          scope: [],
          claims: {},
        }),
      decidesOwn: () =>
        source.current().file?.approvers?.selfApproval !== false,
    },
    ttlMs: Math.min(Math.max(1, Math.round(ttlMs)), MAX_TTL_MS),
    ...(signIn === undefined ? {} : { signIn }),
    ...(store === undefined ? {} : { store }),
    ...(keys === undefined ? {} : { keys }),
  });
}

/**
 * The approvers' sign-in against the policy's `auth:` issuer, as the
 * client `client`; `undefined` without either. `origin` is the gate's,
 * once it listens.
 */
export async function approverSignIn(
  source: PolicySource,
  { client, policyFile, origin, key }: {
    client: ApproverClient | undefined;
    policyFile: string | undefined;
    origin: () => string;
    /** The cookies' key: the same on every instance. */
    key?: Uint8Array;
  },
): Promise<ApproverSignIn | undefined> {
  const auth = source.current().file?.auth;
  if (auth === undefined || client === undefined) return undefined;
  const { jwks } = await authOptionsOf(auth, { policyFile });
  return new ApproverSignIn({
    issuer: auth.issuers[0],
    jwks: jwks as JwksSource,
    // The gate's resource URL, the audience of its callers' tokens.
    audience: () => auth.resource ?? `${origin()}/mcp`,
    client,
    origin,
    ...(key === undefined ? {} : { key }),
  });
}

/** What the gate knows of a session's (or a shared gate's) caller. */
export interface CallerOf {
  /** The claims of the caller's verified token, when the gate has `auth:`. */
  claims: CallerClaims | undefined;
  /** Whether many requests without a session share the gate (2026-07-28). */
  shared: boolean;
}

/** The approvals of one gate's caller: who asked, and whose retries count. */
export function callerApprovals(
  service: ApprovalService,
  { claims, shared }: CallerOf,
): CallerApprovals {
  const sub = claims?.sub;
  const name = typeof claims?.claims.name === "string"
    ? claims.claims.name
    : undefined;
  return {
    service,
    asker: {
      sub: sub ?? "anonymous",
      ...(name === undefined ? {} : { name }),
    },
    // Without a subject, a session's retries are its own; the callers of
    // a shared gate without tokens are one anonymous caller.
    caller: sub !== undefined
      ? `sub:${sub}`
      : shared
      ? "anonymous"
      : `session:${crypto.randomUUID()}`,
  };
}

/** One gate's caller, as its asked calls are opened on the board. */
export interface CallerApprovals {
  service: ApprovalService;
  /** Who asked, as the page shows it. */
  asker: Asker;
  /**
   * Whose retry finds the approval: the caller's subject when the gate
   * knows it, else the session (a caller without a session and without a
   * token is anonymous).
   */
  caller: string;
}
