import assert from "node:assert/strict";
import { connectClient, start } from "./_test_helpers.ts";

/** A raw HTTP/1.1 GET with the given Host header: fetch() sets Host from the URL. */
async function getWithHost(url: URL, host: string): Promise<string> {
  const connection = await Deno.connect({
    hostname: url.hostname,
    port: Number(url.port),
  });
  await connection.write(
    new TextEncoder().encode(
      `GET ${url.pathname} HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n\r\n`,
    ),
  );
  return await new Response(connection.readable).text();
}

Deno.test("serveHttp() serves pages beside MCP, behind the host guard", async (t) => {
  const seen: string[] = [];
  await using http = start({
    pages: {
      prefix: "/pages/",
      handler: (request) => {
        seen.push(new URL(request.url).pathname);
        return Promise.resolve(new Response("a page"));
      },
    },
  });
  await t.step("a path under the prefix goes to the pages", async () => {
    const response = await fetch(new URL("/pages/one", http.url));
    assert.equal(await response.text(), "a page");
    assert.deepEqual(seen, ["/pages/one"]);
  });
  await t.step("MCP is served as before", async () => {
    const { client } = await connectClient(http.url);
    assert.ok((await client.listTools()).tools.length > 0);
    await client.close();
    const other = await fetch(new URL("/pagesx", http.url));
    await other.body?.cancel();
    assert.equal(other.status, 404);
    assert.deepEqual(seen, ["/pages/one"]);
  });
  await t.step("a rebound host name is refused before the pages", async () => {
    const answer = await getWithHost(
      new URL("/pages/two", http.url),
      "evil.example",
    );
    assert.match(answer, /^HTTP\/1\.1 403/);
    assert.deepEqual(seen, ["/pages/one"]);
  });
});
