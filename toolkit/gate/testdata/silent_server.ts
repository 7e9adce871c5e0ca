// A server that hangs: it reads what it is sent and never answers.

for await (const _ of Deno.stdin.readable) {
  // Nothing: a server stuck before its first answer.
}
