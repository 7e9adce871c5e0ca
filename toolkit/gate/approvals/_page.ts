// Internal: the approval page, `/approvals/<id>`, plain HTML without
// JavaScript. GET shows the asked call (server, tool, canonical patterns,
// who asked, state, expiry) to the caller who asked and to approvers, and
// to an approver, while it is pending, a form with Approve and Deny. POST
// is that form: refused (403) unless it comes from the page's own origin
// (Sec-Fetch-Site, Origin) and carries the token the page gave this viewer
// (_csrf.ts), and unless the viewer is an approver who may decide it (one
// who asked for the call only when `decidesOwn` says so).
//
// Who the viewer is comes from `identify`, the seam the gate's sign-in
// fills (the same OAuth issuer as its callers); whether they may approve
// from `isApprover` (the policy's `approvers:`). An id that is malformed,
// unknown, or of a call this viewer may not see answers the same 404, so
// the page says nothing of which ids exist. Every string shown is escaped;
// the content security policy lets the page load nothing and be framed
// by nothing.

import type { Approval, ApprovalBoard } from "./_board.ts";
import { isApprovalId } from "./_board.ts";
import { FormTokens } from "./_csrf.ts";

/** Who is looking at the page: the claims of their sign-in. */
export interface Viewer {
  /** The subject of their token. */
  sub: string;
  /** Their groups, as the issuer's claim names them. */
  groups?: readonly string[];
  /** A name to show, if the token has one. */
  name?: string;
}

/** Options for {@linkcode approvalPage}. */
export interface ApprovalPageOptions {
  /** The board the page shows and decides. */
  board: ApprovalBoard;
  /** Who made the request, from its sign-in; `undefined` when not signed in. */
  identify: (request: Request) => Promise<Viewer | undefined>;
  /** Whether the viewer may approve and deny (the policy's `approvers:`). */
  isApprover: (viewer: Viewer) => boolean;
  /**
   * Whether an approver may decide a call they asked for themselves (the
   * policy's `approvers.selfApproval`); read at each view and post.
   *
   * @default {() => true}
   */
  decidesOwn?: () => boolean;
  /** The key of the form tokens, at least 32 bytes; every instance behind one load balancer uses the same. */
  key: Uint8Array;
  /**
   * The origins the page is served at, as browsers see them
   * (`https://gate.example`). Behind a proxy, give the public one.
   *
   * @default {the request URL's origin}
   */
  origins?: readonly string[];
  /**
   * What a GET without a sign-in is answered: the redirect to the sign-in,
   * once the gate has one.
   *
   * @default {a 401 page that says to sign in}
   */
  signIn?: (request: Request) => Response | Promise<Response>;
}

/** What an approver who asked for the call is told, where approvers may not decide their own. */
const OWN_CALL =
  "You asked for this call: another approver must decide it (approvers: selfApproval: false).";

/** The longest form body the page reads. */
const MAX_FORM_BYTES = 4096;
const PATH = /^\/approvals\/([^/]*)$/;

const STYLE = "body{font:16px/1.5 system-ui,sans-serif;margin:2rem auto;" +
  "max-width:40rem;padding:0 1rem}dt{font-weight:600}dd{margin:0 0 .75rem}" +
  "code{overflow-wrap:anywhere}button{font:inherit;margin-right:1rem;" +
  "padding:.4rem 1.2rem}";

let styleHash: Promise<string> | undefined;

/** The style's digest, for the content security policy (nothing inline runs but it). */
function styleSource(): Promise<string> {
  return styleHash ??= crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(STYLE),
  ).then((digest) =>
    `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`
  );
}

/** Text for HTML, in an element or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function time(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
}

async function respond(
  status: number,
  title: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
  return new Response(html, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy":
        `default-src 'none'; style-src ${await styleSource()}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
      // The URL holds the approval's id: no other site is told it. Not
      // `no-referrer`, under which a browser sends `Origin: null` with the
      // page's own form.
      "referrer-policy": "same-origin",
      "cross-origin-opener-policy": "same-origin",
      "cross-origin-resource-policy": "same-origin",
      ...headers,
    },
  });
}

function notFound(): Promise<Response> {
  return respond(
    404,
    "Not found",
    "<h1>Not found</h1>\n<p>There is no approval here for you.</p>",
  );
}

function forbidden(why: string): Promise<Response> {
  return respond(
    403,
    "Refused",
    `<h1>Refused</h1>\n<p>${escapeHtml(why)}</p>`,
  );
}

function who(approval: Approval): string {
  const { sub, name } = approval.askedBy;
  return name === undefined || name === sub
    ? escapeHtml(sub)
    : `${escapeHtml(name)} (${escapeHtml(sub)})`;
}

function stateLine(approval: Approval): string {
  switch (approval.state) {
    case "pending":
      return "Waiting for an approver";
    case "expired":
      return `Expired at ${time(approval.expires)}: the call was refused`;
    default:
      return `${approval.state === "approved" ? "Approved" : "Denied"} by ${
        escapeHtml(approval.decidedBy ?? "")
      } at ${time(approval.decided ?? approval.created)}`;
  }
}

/** The page's body for `approval`; the form only when `token` is given. */
function render(approval: Approval, token: string | undefined): string {
  const patterns = approval.patterns.length === 0
    ? "<dd>None named (the tool is decided by its name)</dd>"
    : `<dd><ul>\n${
      approval.patterns.map((p) => `<li><code>${escapeHtml(p)}</code></li>`)
        .join("\n")
    }\n</ul></dd>`;
  const rows = [
    ...(approval.server === undefined ? [] : [
      `<dt>Server</dt><dd><code>${escapeHtml(approval.server)}</code></dd>`,
    ]),
    `<dt>Tool</dt><dd><code>${escapeHtml(approval.tool)}</code></dd>`,
    `<dt>What it touches</dt>${patterns}`,
    `<dt>Asked by</dt><dd>${who(approval)}</dd>`,
    `<dt>Asked at</dt><dd>${time(approval.created)}</dd>`,
    `<dt>State</dt><dd id="state" data-state="${approval.state}">${
      stateLine(approval)
    }</dd>`,
    ...(approval.state === "pending"
      ? [`<dt>Expires</dt><dd>${time(approval.expires)}</dd>`]
      : []),
  ];
  const form = token === undefined || approval.state !== "pending" ? "" : `
<form method="post">
<input type="hidden" name="csrf" value="${escapeHtml(token)}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`;
  return `<h1>A call waits for approval</h1>
<dl>
${rows.join("\n")}
</dl>${form}`;
}

/** Why a post comes from another site, or `undefined` when it may be the page's own. */
function crossSite(
  request: Request,
  origins: readonly string[] | undefined,
): string | undefined {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin") {
    return `The form was sent from another site (Sec-Fetch-Site: ${site}).`;
  }
  const origin = request.headers.get("origin");
  const allowed = origins ?? [new URL(request.url).origin];
  if (origin !== null && !allowed.includes(origin)) {
    return "The form was sent from another origin.";
  }
  return undefined;
}

/** The form's fields, or `undefined` when the body is not a small form. */
async function readForm(
  request: Request,
): Promise<URLSearchParams | "too large" | undefined> {
  const type = request.headers.get("content-type")?.split(";")[0].trim()
    .toLowerCase();
  if (type !== "application/x-www-form-urlencoded" || request.body === null) {
    return undefined;
  }
  const declared = Number(request.headers.get("content-length"));
  if (declared > MAX_FORM_BYTES) return "too large";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_FORM_BYTES) {
      await reader.cancel();
      return "too large";
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return new URLSearchParams(new TextDecoder().decode(bytes));
}

/**
 * The handler of `GET` and `POST /approvals/<id>`: the page an approver
 * approves or denies an asked call on. Give it the requests whose path
 * starts with `/approvals/`; it answers 404 to other paths.
 *
 * @example
 * ```ts ignore
 * const page = approvalPage({
 *   board,
 *   identify: (request) => signedIn(request), // the gate's sign-in
 *   isApprover: (viewer) => viewer.groups?.includes("security") ?? false,
 *   key: sharedKey, // 32 bytes, the same on every instance
 * });
 * Deno.serve((request) =>
 *   new URL(request.url).pathname.startsWith("/approvals/")
 *     ? page(request)
 *     : mcp(request)
 * );
 * ```
 */
export function approvalPage(
  options: ApprovalPageOptions,
): (request: Request) => Promise<Response> {
  const { board, identify, isApprover, origins, signIn } = options;
  const decidesOwn = options.decidesOwn ?? (() => true);
  // Four eyes, when the policy asks for them: who asked for a call does
  // not decide it.
  const ownCall = (approval: Approval, viewer: Viewer) =>
    approval.askedBy.sub === viewer.sub && !decidesOwn();
  if (typeof identify !== "function" || typeof isApprover !== "function") {
    throw new TypeError(
      "Cannot serve the approval page: identify and isApprover must be functions",
    );
  }
  const tokens = new FormTokens(options.key);

  async function show(request: Request, id: string): Promise<Response> {
    const viewer = await identify(request);
    if (viewer === undefined) {
      if (signIn !== undefined) return signIn(request);
      return respond(
        401,
        "Sign in",
        "<h1>Sign in</h1>\n<p>Sign in to see this approval.</p>",
      );
    }
    const approval = await board.get(id);
    const approver = isApprover(viewer);
    if (
      approval === undefined ||
      (!approver && approval.askedBy.sub !== viewer.sub)
    ) {
      return notFound();
    }
    const own = approver && ownCall(approval, viewer);
    const token = approver && !own
      ? await tokens.token(viewer.sub, id)
      : undefined;
    return respond(
      200,
      `Approval: ${approval.tool}`,
      render(approval, token) +
        (own && approval.state === "pending" ? `\n<p>${OWN_CALL}</p>` : ""),
    );
  }

  async function post(request: Request, id: string): Promise<Response> {
    const foreign = crossSite(request, origins);
    if (foreign !== undefined) return forbidden(foreign);
    const viewer = await identify(request);
    if (viewer === undefined) return forbidden("Sign in to decide.");
    if (!isApprover(viewer)) {
      return forbidden("You are not an approver of this gate.");
    }
    const form = await readForm(request);
    if (form === "too large") {
      return respond(413, "Too large", "<h1>The form is too large</h1>");
    }
    if (
      form === undefined ||
      !(await tokens.check(form.get("csrf"), viewer.sub, id))
    ) {
      return forbidden(
        "The form's token is missing or not this page's: open the page again.",
      );
    }
    const verdict = form.get("decision");
    if (verdict !== "approve" && verdict !== "deny") {
      return respond(
        400,
        "Bad request",
        "<h1>Bad request</h1>\n<p>Choose Approve or Deny.</p>",
      );
    }
    const asked = await board.get(id);
    if (asked !== undefined && ownCall(asked, viewer)) {
      return forbidden(OWN_CALL);
    }
    const result = await board.decide(id, viewer.sub, verdict);
    if (result.ok) {
      // Back to the page (the id alone, relative, works under any prefix).
      return new Response(null, {
        status: 303,
        headers: { location: id, "cache-control": "no-store" },
      });
    }
    if (result.approval === undefined) return notFound();
    return respond(
      409,
      `Approval: ${result.approval.tool}`,
      `<p><strong>${
        result.reason === "expired"
          ? "Too late: the approval expired."
          : "Someone decided first."
      }</strong></p>\n${render(result.approval, undefined)}`,
    );
  }

  return (request: Request): Promise<Response> => {
    const match = PATH.exec(new URL(request.url).pathname);
    if (match === null || !isApprovalId(match[1])) return notFound();
    const id = match[1];
    switch (request.method) {
      case "GET":
      case "HEAD":
        return show(request, id);
      case "POST":
        return post(request, id);
      default:
        return respond(
          405,
          "Method not allowed",
          "<h1>Method not allowed</h1>",
          { allow: "GET, HEAD, POST" },
        );
    }
  };
}
