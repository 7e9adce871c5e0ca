import assert from "node:assert/strict";
import { ApprovalBoard, type ApprovalEntry } from "./_board.ts";
import { FormTokens } from "./_csrf.ts";
import { approvalPage, type Viewer } from "./_page.ts";

const ORIGIN = "https://gate.example";
const KEY = crypto.getRandomValues(new Uint8Array(32));
/** Who each test session is: the stand-in for the gate's sign-in. */
const VIEWERS: Record<string, Viewer> = {
  sam: { sub: "sam", groups: ["security"] },
  kim: { sub: "kim", groups: ["security"] },
  alice: { sub: "alice", groups: ["dev"] },
  mallory: { sub: "mallory", groups: ["dev"] },
};
const ENTRY: ApprovalEntry = {
  server: "files",
  tool: "write_file",
  patterns: ["write:/srv/notes/a.md"],
  askedBy: { sub: "alice", name: "Alice" },
};

function setup(
  board = new ApprovalBoard(),
  options: { decidesOwn?: () => boolean } = {},
) {
  const page = approvalPage({
    board,
    ...options,
    // The test's sign-in: a header names the session's viewer.
    identify: (request) =>
      Promise.resolve(VIEWERS[request.headers.get("x-test-viewer") ?? ""]),
    isApprover: (viewer) => viewer.groups?.includes("security") ?? false,
    key: KEY,
  });
  const get = (path: string, viewer?: string) =>
    page(
      new Request(`${ORIGIN}${path}`, {
        headers: viewer ? { "x-test-viewer": viewer } : {},
      }),
    );
  const post = (
    path: string,
    form: Record<string, string>,
    options: { viewer?: string; headers?: Record<string, string> } = {},
  ) =>
    page(
      new Request(`${ORIGIN}${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          ...(options.viewer ? { "x-test-viewer": options.viewer } : {}),
          ...(options.headers ?? {
            origin: ORIGIN,
            "sec-fetch-site": "same-origin",
          }),
        },
        body: new URLSearchParams(form),
      }),
    );
  return { board, page, get, post };
}

/** The form token in a page, as a browser would send it back. */
function tokenIn(html: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(html);
  assert.ok(match, "the page has a form token");
  return match[1];
}

Deno.test("approval page: what it shows, and to whom", async (t) => {
  await t.step(
    "an approver sees the call, its patterns, who asked, and the buttons",
    async () => {
      const { board, get } = setup();
      const { path } = await board.open(ENTRY);
      const response = await get(path, "sam");
      assert.equal(response.status, 200);
      const html = await response.text();
      for (
        const part of [
          "<code>files</code>",
          "<code>write_file</code>",
          "<code>write:/srv/notes/a.md</code>",
          "Alice (alice)",
          'data-state="pending"',
          'value="approve"',
          'value="deny"',
          '<form method="post">',
        ]
      ) assert.ok(html.includes(part), part);
      assert.ok(!/<script/i.test(html));
      const csp = response.headers.get("content-security-policy") ?? "";
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.match(csp, /form-action 'self'/);
      assert.equal(response.headers.get("cache-control"), "no-store");
      assert.equal(response.headers.get("x-frame-options"), "DENY");
      assert.equal(response.headers.get("x-content-type-options"), "nosniff");
      assert.equal(response.headers.get("referrer-policy"), "same-origin");
    },
  );

  await t.step("hostile names are shown as text", async () => {
    const { board, get } = setup();
    const { path } = await board.open({
      server: "</code><script>alert('server')</script>",
      tool: "<script>alert(1)</script>",
      patterns: [`write:/x"><img src=x onerror=alert(2)>`],
      askedBy: { sub: "alice", name: "<b onmouseover='x'>Alice</b>" },
    });
    const html = await (await get(path, "sam")).text();
    assert.ok(!/<script|<img|<b /i.test(html), html);
    assert.ok(html.includes("&#60;script&#62;alert(1)&#60;/script&#62;"));
    assert.ok(
      html.includes("write:/x&#34;&#62;&#60;img src=x onerror=alert(2)&#62;"),
    );
    assert.ok(html.includes("&#60;b onmouseover=&#39;x&#39;&#62;Alice"));
  });

  await t.step(
    "the caller who asked sees the call without buttons",
    async () => {
      const { board, get } = setup();
      const { path } = await board.open(ENTRY);
      const response = await get(path, "alice");
      assert.equal(response.status, 200);
      const html = await response.text();
      assert.ok(html.includes("<code>write_file</code>"));
      assert.ok(!html.includes("<form") && !html.includes("csrf"));
    },
  );

  await t.step(
    "anyone else gets the 404 of an id that does not exist",
    async () => {
      const { board, get } = setup();
      const { path } = await board.open(ENTRY);
      const theirs = await get(path, "mallory");
      const none = await get(`/approvals/${"A".repeat(43)}`, "sam");
      const malformed = await get("/approvals/..%2Fx", "sam");
      assert.equal(theirs.status, 404);
      assert.equal(none.status, 404);
      assert.equal(malformed.status, 404);
      const body = await theirs.text();
      assert.equal(await none.text(), body);
      assert.equal(await malformed.text(), body);
      assert.ok(!body.includes("write_file"));
    },
  );

  await t.step(
    "a viewer not signed in is asked to sign in, and told nothing",
    async () => {
      const { board, get } = setup();
      const { path } = await board.open(ENTRY);
      const response = await get(path);
      assert.equal(response.status, 401);
      assert.ok(!(await response.text()).includes("write_file"));
    },
  );

  await t.step(
    "a decided approval shows who decided, without buttons",
    async () => {
      const { board, get } = setup();
      const { id, path } = await board.open(ENTRY);
      await board.decide(id, "kim", "deny");
      const html = await (await get(path, "sam")).text();
      assert.ok(html.includes('data-state="denied"'));
      assert.ok(html.includes("Denied by kim"));
      assert.ok(!html.includes("<form"));
    },
  );

  await t.step("another method is not allowed", async () => {
    const { board, page } = setup();
    const { path } = await board.open(ENTRY);
    const response = await page(
      new Request(`${ORIGIN}${path}`, { method: "PUT" }),
    );
    assert.equal(response.status, 405);
    assert.equal(response.headers.get("allow"), "GET, HEAD, POST");
  });
});

Deno.test("approval page: the form decides only for an approver, from the page", async (t) => {
  await t.step("an approver's post from the page decides, once", async () => {
    const { board, get, post } = setup();
    const { id, path } = await board.open(ENTRY);
    const held = board.wait(id);
    const token = tokenIn(await (await get(path, "sam")).text());
    // kim opened the page too, and decides after sam.
    const kimToken = tokenIn(await (await get(path, "kim")).text());
    const response = await post(path, { csrf: token, decision: "approve" }, {
      viewer: "sam",
    });
    assert.equal(response.status, 303);
    assert.equal(response.headers.get("location"), id);
    assert.equal(await held, "approved");
    assert.equal((await board.get(id))?.decidedBy, "sam");
    const again = await post(path, { csrf: kimToken, decision: "deny" }, {
      viewer: "kim",
    });
    assert.equal(again.status, 409);
    assert.ok((await again.text()).includes("Approved by sam"));
    assert.equal((await board.get(id))?.state, "approved");
  });

  await t.step("a deny decides denied", async () => {
    const { board, get, post } = setup();
    const { id, path } = await board.open(ENTRY);
    const token = tokenIn(await (await get(path, "kim")).text());
    const response = await post(path, { csrf: token, decision: "deny" }, {
      viewer: "kim",
    });
    assert.equal(response.status, 303);
    assert.equal(await board.wait(id), "denied");
  });

  await t.step("a post after the expiry is refused", async () => {
    let now = Date.now();
    const { board, get, post } = setup(new ApprovalBoard({ now: () => now }));
    const { id, path, expires } = await board.open(ENTRY);
    const token = tokenIn(await (await get(path, "sam")).text());
    now = expires;
    const response = await post(path, { csrf: token, decision: "approve" }, {
      viewer: "sam",
    });
    assert.equal(response.status, 409);
    assert.equal((await board.get(id))?.state, "expired");
  });

  // Each attack below is made with a valid approver session (the browser
  // sends its cookie along) unless it says otherwise, and leaves the call
  // pending.
  const attacks: {
    name: string;
    form: (token: string, id: string) => Promise<Record<string, string>>;
    viewer?: string;
    headers?: Record<string, string>;
  }[] = [
    {
      name: "a post from another origin",
      form: (token) => Promise.resolve({ csrf: token, decision: "approve" }),
      headers: {
        origin: "https://evil.example",
        "sec-fetch-site": "cross-site",
      },
    },
    {
      name: "a post from a sibling site of the same site",
      form: (token) => Promise.resolve({ csrf: token, decision: "approve" }),
      headers: {
        origin: "https://wiki.gate.example",
        "sec-fetch-site": "same-site",
      },
    },
    {
      name: "a post with an evil Origin and no Sec-Fetch-Site",
      form: (token) => Promise.resolve({ csrf: token, decision: "approve" }),
      headers: { origin: "https://evil.example" },
    },
    {
      name: "a post with Origin null",
      form: (token) => Promise.resolve({ csrf: token, decision: "approve" }),
      headers: { origin: "null" },
    },
    {
      name: "a same-origin post without a token",
      form: () => Promise.resolve({ decision: "approve" }),
    },
    {
      name: "a post with a made-up token",
      form: () =>
        Promise.resolve({ csrf: "A".repeat(43), decision: "approve" }),
    },
    {
      name: "a post with the token of another approver",
      form: (_token, id) =>
        new FormTokens(KEY).token("kim", id).then((csrf) => ({
          csrf,
          decision: "approve",
        })),
    },
    {
      name: "a post with the token of another approval",
      form: () =>
        new FormTokens(KEY).token("sam", "B".repeat(43)).then((csrf) => ({
          csrf,
          decision: "approve",
        })),
    },
    {
      name: "a post with a token signed under another key",
      form: (_token, id) =>
        new FormTokens(crypto.getRandomValues(new Uint8Array(32)))
          .token("sam", id).then((csrf) => ({ csrf, decision: "approve" })),
    },
    {
      name: "a post by the caller who asked, with a token made for them",
      form: (_token, id) =>
        new FormTokens(KEY).token("alice", id).then((csrf) => ({
          csrf,
          decision: "approve",
        })),
      viewer: "alice",
    },
    {
      name: "a post without a sign-in",
      form: (token) => Promise.resolve({ csrf: token, decision: "approve" }),
      viewer: "",
    },
  ];
  for (const attack of attacks) {
    await t.step(`${attack.name} is refused 403`, async () => {
      const { board, get, post } = setup();
      const { id, path } = await board.open(ENTRY);
      const token = tokenIn(await (await get(path, "sam")).text());
      const response = await post(path, await attack.form(token, id), {
        viewer: attack.viewer ?? "sam",
        headers: attack.headers,
      });
      assert.equal(response.status, 403);
      assert.equal((await board.get(id))?.state, "pending");
    });
  }

  await t.step("a form too large is refused", async () => {
    const { board, get, post } = setup();
    const { id, path } = await board.open(ENTRY);
    const token = tokenIn(await (await get(path, "sam")).text());
    const response = await post(path, {
      csrf: token,
      decision: "approve",
      pad: "x".repeat(10_000),
    }, { viewer: "sam" });
    assert.equal(response.status, 413);
    assert.equal((await board.get(id))?.state, "pending");
  });

  await t.step("a key shorter than 32 bytes is refused", () => {
    assert.throws(
      () =>
        approvalPage({
          board: new ApprovalBoard(),
          identify: () => Promise.resolve(undefined),
          isApprover: () => false,
          key: new Uint8Array(16),
        }),
      RangeError,
    );
  });
});

Deno.test("approval page: with selfApproval false, who asked for a call does not decide it", async (t) => {
  // sam, an approver, asked for this call himself.
  const OWN: ApprovalEntry = { ...ENTRY, askedBy: { sub: "sam" } };
  let selfApproval = false;
  const setupOwn = () => setup(undefined, { decidesOwn: () => selfApproval });

  await t.step("his page shows the call, no buttons, and why", async () => {
    const { board, get } = setupOwn();
    const { path } = await board.open(OWN);
    const html = await (await get(path, "sam")).text();
    assert.ok(html.includes("<code>write_file</code>"), html);
    assert.ok(!html.includes('name="csrf"'), html);
    assert.ok(html.includes("another approver must decide it"), html);
  });

  await t.step(
    "his post is refused, even with a form token the page once gave him",
    async () => {
      const { board, post } = setupOwn();
      const { id, path } = await board.open(OWN);
      // A token from before a reload set selfApproval: false.
      const token = await new FormTokens(KEY).token("sam", id);
      const response = await post(path, { csrf: token, decision: "approve" }, {
        viewer: "sam",
      });
      assert.equal(response.status, 403);
      assert.match(await response.text(), /another approver must decide it/);
      assert.equal((await board.get(id))?.state, "pending");
    },
  );

  await t.step("another approver decides it", async () => {
    const { board, get, post } = setupOwn();
    const { id, path } = await board.open(OWN);
    const token = tokenIn(await (await get(path, "kim")).text());
    const response = await post(path, { csrf: token, decision: "approve" }, {
      viewer: "kim",
    });
    assert.equal(response.status, 303);
    assert.equal(await board.wait(id), "approved");
  });

  await t.step(
    "read at each post: a reload that allows it lets him",
    async () => {
      const { board, get, post } = setupOwn();
      const { id, path } = await board.open(OWN);
      selfApproval = true;
      const token = tokenIn(await (await get(path, "sam")).text());
      const response = await post(path, { csrf: token, decision: "deny" }, {
        viewer: "sam",
      });
      assert.equal(response.status, 303);
      assert.equal(await board.wait(id), "denied");
      selfApproval = false;
    },
  );
});
