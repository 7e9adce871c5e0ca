// A floor for the time from stdin EOF to exit: a Deno program that reads
// stdin to its end, does nothing with it, and exits (bench/exit.ts).
const buffer = new Uint8Array(64 * 1024);
while (await Deno.stdin.read(buffer) !== null) {
  // Nothing to do with the bytes.
}
Deno.exit(0);
