// The everything server's skills hold up to what the sep-2640 conformance
// scenarios check: each entry's frontmatter is its SKILL.md's, every listed
// file reads back as its digest and size say, and a skill has a
// subdirectory for resources/directory/read to descend into.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { parse } from "@forge/toolkit/validate";
import { connect } from "@forge/toolkit/testing";
import { createEverythingServer } from "./server.ts";

interface Entry {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: { uri: string; digest: string; size: number }[];
}

Deno.test("the everything server's skills read back as their entries describe", async () => {
  await using client = await connect(createEverythingServer());
  const { skills } = await client.request("skills/list") as { skills: Entry[] };
  assert.deepEqual(skills.map((s) => s.uri), [
    "skill://pdf-processing/SKILL.md",
    "skill://acme/billing/refunds/SKILL.md",
  ]);
  for (const skill of skills) {
    for (const file of skill.resources) {
      const { contents } = await client.request("resources/read", {
        uri: file.uri,
      }) as { contents: { text: string; mimeType: string }[] };
      const bytes = new TextEncoder().encode(contents[0].text);
      assert.equal(bytes.byteLength, file.size, file.uri);
      assert.equal(
        `sha256:${createHash("sha256").update(bytes).digest("hex")}`,
        file.digest,
      );
      if (file.uri === skill.uri) {
        assert.equal(contents[0].mimeType, "text/markdown");
        const yaml = /^---\n([\s\S]*?)\n---\n/.exec(contents[0].text)![1];
        const parsed = parse(yaml, "yaml");
        assert.ok(parsed.ok);
        assert.deepEqual(parsed.value, skill.frontmatter);
      }
    }
  }
  const { resources } = await client.request("resources/directory/read", {
    uri: "skill://pdf-processing/templates",
  }) as { resources: { uri: string; mimeType: string }[] };
  assert.ok(
    resources.some((r) =>
      r.uri === "skill://pdf-processing/templates/regional" &&
      r.mimeType === "inode/directory"
    ),
  );
});
