import assert from "node:assert/strict";
import { fileAccess } from "./file.ts";
import { ToolError } from "../result/result.ts";

Deno.test("fileAccess() answers a name over the file system's limit with a ToolError naming the argument, not the server's path", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.mkdir(`${root}/sub`);
    const files = fileAccess(root);
    const long = "x".repeat(300);
    for (
      const attempt of [
        () => files.write(long),
        () => files.write(`sub/${long}/a.txt`),
        () => files.delete(`${long}/a.txt`),
        () => files.read(long, { argument: "file" }),
      ]
    ) {
      await assert.rejects(attempt(), (error: Error) => {
        assert.ok(error instanceof ToolError, String(error));
        assert.match(
          error.message,
          /^(path|file): a name in it is too long for the file system: /,
        );
        assert.ok(!error.message.includes(root), error.message);
        return true;
      });
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
