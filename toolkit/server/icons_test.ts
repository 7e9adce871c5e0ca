import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createServer, text } from "../../mod.ts";
import type { Icon } from "./mod.ts";
import { connect } from "../testing/testing.ts";

const PNG: Icon = {
  src: "https://example.com/icon.png",
  mimeType: "image/png",
  sizes: ["48x48", "96x96"],
  theme: "light",
};
const SVG: Icon = {
  src: "data:image/svg+xml;base64,PHN2Zy8+",
  sizes: ["any"],
  theme: "dark",
};
const ICONS = [PNG, SVG];

function iconServer() {
  const server = createServer({
    name: "s",
    version: "1",
    description: "A server with icons",
    websiteUrl: "https://example.com",
    icons: ICONS,
  });
  server.tool({
    name: "t",
    description: "T",
    icons: ICONS,
    handler: () => text(""),
  });
  server.resource({
    uri: "config://app",
    name: "app",
    icons: [PNG],
    read: (uri) => ({ uri: uri.href, text: "" }),
  });
  server.resourceTemplate({
    uriTemplate: "notes://{id}",
    name: "note",
    icons: [SVG],
    read: (uri) => ({ uri: uri.href, text: "" }),
  });
  server.prompt({
    name: "p",
    icons: ICONS,
    handler: () => ({ messages: [] }),
  });
  return server;
}

Deno.test("icons reach the client on every list and in serverInfo", async () => {
  await using client = await connect(iconServer());
  assert.deepEqual(client.initializeResult.serverInfo, {
    name: "s",
    version: "1",
    description: "A server with icons",
    websiteUrl: "https://example.com",
    icons: ICONS,
  });
  assert.deepEqual((await client.listTools())[0].icons, ICONS);
  const { resources } = await client.request("resources/list");
  assert.deepEqual((resources as { icons: Icon[] }[])[0].icons, [PNG]);
  const { resourceTemplates } = await client.request(
    "resources/templates/list",
  );
  assert.deepEqual((resourceTemplates as { icons: Icon[] }[])[0].icons, [SVG]);
  const { prompts } = await client.request("prompts/list");
  assert.deepEqual((prompts as { icons: Icon[] }[])[0].icons, ICONS);
});

Deno.test("the SDK client accepts the icons as the 2025-11-25 schema has them", async () => {
  const server = iconServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "sdk", version: "1" });
  await client.connect(clientSide);
  try {
    assert.deepEqual(client.getServerVersion()?.icons, ICONS);
    // Each list is parsed by the SDK's schemas, which would reject a bad icon.
    assert.deepEqual((await client.listTools()).tools[0].icons, ICONS);
    assert.deepEqual((await client.listResources()).resources[0].icons, [PNG]);
    assert.deepEqual(
      (await client.listResourceTemplates()).resourceTemplates[0].icons,
      [SVG],
    );
    assert.deepEqual((await client.listPrompts()).prompts[0].icons, ICONS);
  } finally {
    await client.close();
  }
});

Deno.test("a bad icon is a TypeError at registration, naming the icon and field", async (t) => {
  const cases: [unknown, RegExp][] = [
    [
      [{ src: "http://example.com/i.png" }],
      /icons\[0\]\.src: expected an https: URL or a data: URI, got "http:\/\/example\.com\/i\.png"$/,
    ],
    [
      [{ src: "javascript:alert(1)" }],
      /icons\[0\]\.src: expected an https: URL or a data: URI/,
    ],
    [[{ src: "not a url" }], /icons\[0\]\.src: expected an https: URL/],
    [
      [PNG, { mimeType: "image/png" }],
      /icons\[1\]\.src: expected a string, got undefined$/,
    ],
    [
      [{ ...PNG, sizes: ["big"] }],
      /icons\[0\]\.sizes: expected an array of "WxH" or "any", such as \["48x48"\], got \["big"\]$/,
    ],
    [[{ ...PNG, sizes: "48x48" }], /icons\[0\]\.sizes: expected an array/],
    [
      [{ ...PNG, theme: "blue" }],
      /icons\[0\]\.theme: expected "light" or "dark", got "blue"$/,
    ],
    [
      [{ ...PNG, mimeType: 7 }],
      /icons\[0\]\.mimeType: expected a string such as "image\/png", got number$/,
    ],
    [[null], /icons\[0\]: expected \{ src \}, got null$/],
    [PNG, /icons: expected an array of \{ src \}, got object$/],
  ];
  const server = createServer({ name: "s", version: "1" });
  const register: Record<string, (icons: unknown) => unknown> = {
    "server.tool()": (icons) =>
      server.tool({
        name: "t",
        description: "T",
        icons: icons as Icon[],
        handler: () => text(""),
      }),
    "server.resource()": (icons) =>
      server.resource({
        uri: "config://x",
        name: "x",
        icons: icons as Icon[],
        read: (uri) => ({ uri: uri.href, text: "" }),
      }),
    "server.resourceTemplate()": (icons) =>
      server.resourceTemplate({
        uriTemplate: "x://{id}",
        name: "x",
        icons: icons as Icon[],
        read: (uri) => ({ uri: uri.href, text: "" }),
      }),
    "server.prompt()": (icons) =>
      server.prompt({
        name: "x",
        icons: icons as Icon[],
        handler: () => ({ messages: [] }),
      }),
    "createServer()": (icons) =>
      createServer({ name: "s", version: "1", icons: icons as Icon[] }),
  };
  for (const [what, call] of Object.entries(register)) {
    await t.step(what, () => {
      for (const [icons, message] of cases) {
        assert.throws(() => call(icons), { name: "TypeError", message });
      }
    });
  }
  await t.step(
    "update() checks icons too, and a refused patch changes nothing",
    async () => {
      const tool = server.tool({
        name: "ok",
        description: "Ok",
        icons: [PNG],
        handler: () => text(""),
      });
      assert.throws(() => tool.update({ icons: [{ src: "ftp://x/i.png" }] }), {
        name: "TypeError",
        message:
          /^Cannot update tool "ok": icons\[0\]\.src: expected an https: URL/,
      });
      await using client = await connect(server);
      assert.deepEqual(
        (await client.listTools()).find((t) => t.name === "ok")?.icons,
        [PNG],
      );
    },
  );
  await t.step("a websiteUrl that is not a URL is a TypeError", () => {
    assert.throws(
      () => createServer({ name: "s", version: "1", websiteUrl: "example" }),
      {
        name: "TypeError",
        message:
          'Cannot create server: websiteUrl: expected an absolute URL, got "example"',
      },
    );
  });
});
