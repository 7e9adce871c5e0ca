import assert from "node:assert/strict";
import { bearerAuth } from "./bearer_auth.ts";
import {
  connectClient,
  errorOf,
  INITIALIZE,
  post,
  start,
} from "./_test_helpers.ts";

Deno.test("bearer auth answers 401 with WWW-Authenticate unless the token is right", async (t) => {
  const token = "s3cret-token_value.~+/==";
  await using http = start({ auth: { token, realm: "tests" } });

  await t.step("no token", async () => {
    const response = await post(http.url, INITIALIZE);
    assert.equal(response.status, 401);
    assert.equal(
      response.headers.get("www-authenticate"),
      'Bearer realm="tests"',
    );
    await response.body?.cancel();
  });
  await t.step("a wrong token, also one that shares a prefix", async () => {
    for (const wrong of ["nope", token.slice(0, -1), `${token}x`]) {
      const response = await post(http.url, INITIALIZE, {
        authorization: `Bearer ${wrong}`,
      });
      assert.equal(response.status, 401);
      assert.equal(
        response.headers.get("www-authenticate"),
        'Bearer realm="tests", error="invalid_token"',
      );
      assert.ok(!(await response.text()).includes(wrong));
    }
  });
  await t.step("another scheme", async () => {
    const response = await post(http.url, INITIALIZE, {
      authorization: `Basic ${btoa("user:pass")}`,
    });
    assert.equal(response.status, 401);
    await response.body?.cancel();
  });
  await t.step("the right token, with any case of the scheme", async () => {
    const { client } = await connectClient(http.url, {
      authorization: `bearer ${token}`,
    });
    const result = await client.callTool({
      name: "echo",
      arguments: { text: "in" },
    });
    assert.deepEqual(result.content, [{ type: "text", text: "in" }]);
    await client.close();
  });
});

Deno.test("bearer auth with a verify callback, which never sees the token logged", async () => {
  const seen: string[] = [];
  const logged: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) =>
    logged.push(args.map(String).join(" "));
  try {
    await using http = start({
      auth: {
        verify: (token) => {
          seen.push(token);
          if (token === "explode-now") throw new Error("backend down");
          return token === "letmein";
        },
      },
    });
    const good = await post(http.url, INITIALIZE, {
      authorization: "Bearer letmein",
    });
    assert.equal(good.status, 200);
    await good.body?.cancel();
    const bad = await post(http.url, INITIALIZE, {
      authorization: "Bearer wrongpass",
    });
    assert.equal(bad.status, 401);
    await bad.body?.cancel();
    const broken = await post(http.url, INITIALIZE, {
      authorization: "Bearer explode-now",
    });
    assert.equal(broken.status, 500);
    assert.match((await errorOf(broken)).message, /could not be verified/);
  } finally {
    console.error = original;
  }
  assert.deepEqual(seen, ["letmein", "wrongpass", "explode-now"]);
  assert.ok(logged.some((line) => line.includes("backend down")));
  for (const secret of ["letmein", "wrongpass", "explode-now"]) {
    assert.ok(
      !logged.some((line) => line.includes(secret)),
      `token ${secret} was logged`,
    );
  }
});
Deno.test("bearerAuth() alone: the request goes on without its token, body intact", async () => {
  const auth = bearerAuth({ token: "abc123" });
  let seen: Request | undefined;
  const response = await auth(
    new Request("http://localhost/", {
      method: "POST",
      headers: { authorization: "Bearer abc123", "x-other": "kept" },
      body: "payload",
    }),
    async (request) => {
      seen = request;
      return new Response(await request.text());
    },
  );
  assert.equal(await response.text(), "payload");
  assert.equal(seen?.headers.get("authorization"), null);
  assert.equal(seen?.headers.get("x-other"), "kept");
  assert.equal(seen?.method, "POST");
  const refused = await auth(
    new Request("http://localhost/", {
      headers: { authorization: "Bearer abc12" },
    }),
    () => Promise.reject(new Error("next must not run")),
  );
  assert.equal(refused.status, 401);
  await refused.body?.cancel();
  assert.throws(
    () => bearerAuth(null as unknown as { token: string }),
    /auth must be \{ token \} or \{ verify \}, got null/,
  );
});
