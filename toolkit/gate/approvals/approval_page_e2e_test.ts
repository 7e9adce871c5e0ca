// The approval page in a real browser (headless Chromium over DevTools),
// served by one "instance" while another holds the call, both on a real
// redis-server: a person clicks Approve, without any JavaScript on the
// page, and the call held elsewhere is released; a form another site
// submits in the same browser is refused.

import assert from "node:assert/strict";
import { haveRedis, startRedis } from "../../redis/_test_redis.ts";
import { until } from "../../testing/_until.ts";
import { ApprovalBoard, type ApprovalEntry } from "./_board.ts";
import { approvalPage, type Viewer } from "./_page.ts";
import { connectApprovalStore } from "./_redis_store.ts";
import { haveChromium, startChromium } from "./_test_chromium.ts";

const ignore = !haveRedis() || !haveChromium();
const quiet = { onError: () => {} };
const VIEWERS: Record<string, Viewer> = {
  sam: { sub: "sam", groups: ["security"] },
  alice: { sub: "alice", groups: ["dev"] },
};
const ENTRY: ApprovalEntry = {
  server: "files",
  tool: "<script>document.title='owned'</script>write_file",
  patterns: ["write:/srv/notes/a.md"],
  askedBy: { sub: "alice", name: "Alice" },
};

function serve(handler: (request: Request) => Response | Promise<Response>) {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    handler,
  );
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** A gate instance's page, with a stand-in sign-in: `/login?as=<sub>&next=<path>` sets a cookie. */
function gateInstance(board: ApprovalBoard, key: Uint8Array) {
  const page = approvalPage({
    board,
    identify: (request) => {
      const cookie = request.headers.get("cookie") ?? "";
      const sub = /(?:^|;\s*)viewer=(\w+)/.exec(cookie)?.[1] ?? "";
      return Promise.resolve(VIEWERS[sub]);
    },
    isApprover: (viewer) => viewer.groups?.includes("security") ?? false,
    key,
  });
  return serve((request) => {
    const url = new URL(request.url);
    if (url.pathname === "/login") {
      return new Response(null, {
        status: 303,
        headers: {
          "set-cookie": `viewer=${
            url.searchParams.get("as")
          }; Path=/; HttpOnly; SameSite=Lax`,
          location: url.searchParams.get("next") ?? "/",
        },
      });
    }
    return page(request);
  });
}

Deno.test({
  name:
    "approval page in Chromium: Approve on one instance releases the call held on the other; another site's post is refused",
  ignore,
  fn: async (t) => {
    await using redis = await startRedis();
    await using one = await connectApprovalStore(redis.url, quiet);
    await using two = await connectApprovalStore(redis.url, quiet);
    const pageBoard = new ApprovalBoard({ store: one });
    const holdingBoard = new ApprovalBoard({ store: two });
    const key = crypto.getRandomValues(new Uint8Array(32));
    await using gate = gateInstance(pageBoard, key);
    await using browser = await startChromium();
    const tab = await browser.tab();
    const state = () =>
      tab.evaluate("document.querySelector('#state').dataset.state");

    await t.step(
      "the caller who asked sees the call and no buttons",
      async () => {
        const { path } = await holdingBoard.open(ENTRY);
        await tab.load(`${gate.origin}/login?as=alice&next=${path}`);
        assert.equal(await tab.evaluate("location.pathname"), path);
        assert.equal(await state(), "pending");
        assert.equal(
          await tab.evaluate("document.querySelectorAll('button').length"),
          0,
        );
      },
    );

    await t.step(
      "an approver's click approves, and the held call goes on",
      async () => {
        const { id, path } = await holdingBoard.open(ENTRY);
        const held = holdingBoard.wait(id);
        await tab.load(`${gate.origin}/login?as=sam&next=${path}`);
        assert.equal(await state(), "pending");
        // The hostile tool name is text, not a script that ran.
        assert.notEqual(await tab.evaluate("document.title"), "owned");
        assert.ok(
          String(await tab.evaluate("document.body.innerText")).includes(
            "<script>document.title='owned'</script>write_file",
          ),
        );
        const submitted = tab.next("Page.loadEventFired");
        await tab.click("button[value=approve]");
        await submitted;
        assert.equal(await held, "approved");
        assert.equal(await tab.evaluate("location.pathname"), path);
        assert.equal(await state(), "approved");
        assert.equal((await holdingBoard.get(id))?.decidedBy, "sam");
        // The held call runs on it; nothing else can.
        assert.equal(await holdingBoard.redeem(id), true);
        assert.equal(await pageBoard.redeem(id), false);
      },
    );

    await t.step(
      "a form another site submits with the approver's cookie and token is refused",
      async () => {
        const { id, path } = await holdingBoard.open(ENTRY);
        await tab.load(`${gate.origin}${path}`);
        // The worst case: the attacker even knows the page's token.
        const token = String(
          await tab.evaluate("document.querySelector('[name=csrf]').value"),
        );
        const target = `${gate.origin}${path}`;
        // Another port of the same host: the same site, so the browser sends
        // the SameSite=Lax cookie along; only the origin checks stand.
        await using evil = serve(() =>
          new Response(
            `<!doctype html><form id="f" method="post" action="${target}">` +
              `<input name="csrf" value="${token}">` +
              `<input name="decision" value="approve"></form>` +
              `<script>document.getElementById("f").submit()</script>`,
            { headers: { "content-type": "text/html" } },
          )
        );
        await tab.send("Page.navigate", { url: `${evil.origin}/` });
        await until(
          "the other site's form lands on the gate",
          async () =>
            // Asked while the tab navigates, DevTools refuses: not there yet.
            await tab.evaluate("location.href + ' ' + document.readyState")
              .catch(() => "") === `${target} complete`,
        );
        const text = String(await tab.evaluate("document.body.innerText"));
        assert.match(text, /Refused/);
        assert.match(text, /Sec-Fetch-Site: same-site/);
        assert.equal((await holdingBoard.get(id))?.state, "pending");
        // The approver's own page still works.
        await tab.load(target);
        const submitted = tab.next("Page.loadEventFired");
        await tab.click("button[value=deny]");
        await submitted;
        assert.equal(await holdingBoard.wait(id), "denied");
      },
    );
  },
});
