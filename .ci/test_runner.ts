// `deno task test` through this: deno's dot reporter prints one line per
// test (about 2 000 for this repository), so a passing run would not fit
// on a screen. This runs `deno test` with the arguments given, counts the
// dots on one line (redrawn in a terminal, left out in a log), passes every
// other line through (failures, their errors, the closing
// `ok | N passed | N failed` summary) and exits with deno's own status.

// deno-lint-ignore no-control-regex -- the dots come wrapped in colour codes
const DOT_LINE = /^(?:\x1b\[[0-9;]*m)*[.!](?:\x1b\[[0-9;]*m)*$/;

const child = new Deno.Command(Deno.execPath(), {
  args: ["test", ...Deno.args],
  stdout: "piped",
  stderr: "inherit",
}).spawn();

const encoder = new TextEncoder();
const terminal = Deno.stdout.isTerminal();
let dots = 0;
let failedDots = 0;
let progressShown = false;

async function write(text: string): Promise<void> {
  const bytes = encoder.encode(text);
  for (let done = 0; done < bytes.length;) {
    done += await Deno.stdout.write(bytes.subarray(done));
  }
}

async function line(text: string): Promise<void> {
  if (DOT_LINE.test(text)) {
    dots++;
    if (text.includes("!")) failedDots++;
    if (terminal) {
      await write(
        `\r${dots} tests run${failedDots ? `, ${failedDots} failed` : ""}`,
      );
      progressShown = true;
    }
    return;
  }
  if (progressShown) {
    await write("\n");
    progressShown = false;
  }
  await write(text + "\n");
}

const decoder = new TextDecoder();
let rest = "";
for await (const chunk of child.stdout) {
  rest += decoder.decode(chunk, { stream: true });
  const lines = rest.split("\n");
  rest = lines.pop()!;
  for (const text of lines) await line(text);
}
rest += decoder.decode();
if (rest !== "") await line(rest);
if (progressShown) await write("\n");
Deno.exit((await child.status).code);
