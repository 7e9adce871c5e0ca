// The curl session of docs/http.md ("Try it with curl") replayed with fetch
// against the server the page starts, on a free port, so that the commands
// and the answers the page shows cannot drift from the server. No curl is
// needed: the test reads each command's flags and sends the same request.

import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const PAGE = new URL("docs/http.md", ROOT);
const SECTION = "## Try it with curl";

interface Block {
  lang: string;
  body: string;
}

/** The fenced blocks of the page's "Try it" section, in order. */
async function tryItBlocks(): Promise<Block[]> {
  const page = await Deno.readTextFile(PAGE);
  const start = page.indexOf(`\n${SECTION}\n`);
  assert.notEqual(start, -1, `docs/http.md has no "${SECTION}" section`);
  const end = page.indexOf("\n## ", start + 1);
  const section = page.slice(start, end === -1 ? undefined : end);
  const blocks: Block[] = [];
  for (const match of section.matchAll(/```(\w*)\n([\s\S]*?)```/g)) {
    blocks.push({ lang: match[1], body: match[2] });
  }
  return blocks;
}

/** Shell lines with their `\` continuations joined, comments left out. */
function commands(body: string): string[] {
  return body.replace(/\\\n\s*/g, "").split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}

/** Shell words: single quotes literal, double quotes expand `$NAME`. */
function words(line: string, vars: Record<string, string>): string[] {
  const out: string[] = [];
  const pattern = /'([^']*)'|"([^"]*)"|(\S+)/g;
  for (const [, single, double, bare] of line.matchAll(pattern)) {
    const expand = (text: string) =>
      text.replace(/\$(\w+)/g, (_, name) => {
        assert.ok(name in vars, `$${name} is used before it is set`);
        return vars[name];
      });
    out.push(single ?? expand(double ?? bare));
  }
  return out;
}

interface Curl {
  url: string;
  headers: Headers;
  body: string;
  writeOut?: string;
  dumpHeaders: boolean;
}

function parseCurl(args: string[]): Curl {
  const curl: Curl = {
    url: "",
    headers: new Headers(),
    body: "",
    dumpHeaders: false,
  };
  for (let i = 1; i < args.length; i++) {
    const arg = args[i];
    if (arg === "-s") continue;
    if (arg === "-H") {
      const header = args[++i];
      const colon = header.indexOf(":");
      curl.headers.set(header.slice(0, colon), header.slice(colon + 1).trim());
    } else if (arg === "-d") curl.body = args[++i];
    else if (arg === "-w") curl.writeOut = args[++i];
    else if (arg === "-D") {
      i++;
      curl.dumpHeaders = true;
    } else if (!arg.startsWith("-")) curl.url = arg;
    else throw new Error(`The test does not know curl's ${arg}`);
  }
  assert.ok(curl.url !== "" && curl.body !== "", args.join(" "));
  return curl;
}

/** The page's shown output as a pattern: `…` stands for anything. */
function shown(text: string): RegExp {
  const lines = text.trimEnd().split("\n").map((line) =>
    line.trimEnd().split("…").map((part) =>
      part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    ).join("[\\s\\S]*?")
  );
  return new RegExp(`^${lines.join("\\n")}$`);
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

Deno.test("docs/http.md: the curl session answers as the page shows", async () => {
  const blocks = await tryItBlocks();
  const [start, ...rest] = blocks;
  const [launch] = commands(start.body);
  const argv = words(launch, {});
  assert.deepEqual(argv.slice(0, 3), ["deno", "run", "-A"], launch);
  const address = argv.at(-1)!;
  assert.equal(address, "127.0.0.1:8080", launch);
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: [...argv.slice(1, -1), `127.0.0.1:${port}`],
    cwd: ROOT,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let seen = "";
    while (!seen.includes("listening on")) {
      const { value, done } = await stderr.read();
      assert.ok(!done, `the server exited before it listened: ${seen}`);
      seen += value;
    }
    assert.match(
      start.body,
      new RegExp(`# ${seen.trim()}`.replace(
        String(port),
        "8080",
      )),
    );

    const vars: Record<string, string> = {};
    let lastHeaders: Headers | undefined;
    let replayed = 0;
    for (let i = 0; i < rest.length; i++) {
      if (rest[i].lang !== "sh") continue;
      let output = "";
      for (const line of commands(rest[i].body)) {
        if (line.startsWith("SESSION=")) {
          assert.match(
            line,
            /^SESSION=\$\(.*headers\.txt.*mcp-session-id.*\)$/,
          );
          assert.ok(lastHeaders !== undefined, "no headers were saved");
          vars.SESSION = lastHeaders.get("mcp-session-id") ?? "";
          assert.notEqual(vars.SESSION, "", "initialize gave no session id");
          continue;
        }
        const curl = parseCurl(words(line, vars));
        const response = await fetch(curl.url.replace(":8080", `:${port}`), {
          method: "POST",
          headers: curl.headers,
          body: curl.body,
        });
        if (curl.dumpHeaders) lastHeaders = response.headers;
        output += await response.text();
        if (curl.writeOut !== undefined) {
          output += curl.writeOut.replace(
            "%{http_code}",
            String(response.status),
          )
            .replace("\\n", "\n");
        }
        replayed++;
      }
      const next = rest[i + 1];
      if (next?.lang === "text") {
        const actual = output.trimEnd().split("\n").map((l) => l.trimEnd())
          .join("\n");
        assert.match(actual, shown(next.body), rest[i].body);
      }
    }
    assert.equal(replayed, 5, "initialize, initialized, list, call, 2026");
  } finally {
    child.kill("SIGTERM");
    await stderr.cancel();
    await child.status;
  }
});
