// Flips the link LINK between two targets, A and B, as fast as it can,
// each flip atomic (a new link renamed over it), until its stdin closes.
// Prints "flipping" once the first flip is done, so a test waits on that.

const [link, a, b] = Deno.args;
let stop = false;
(async () => {
  for await (const _ of Deno.stdin.readable) {
    // Nothing is sent; EOF ends the loop.
  }
  stop = true;
})();
let flips = 0;
const aside = `${link}.next`;
while (!stop) {
  Deno.symlinkSync(flips % 2 === 0 ? b : a, aside);
  Deno.renameSync(aside, link);
  if (flips++ === 0) console.log("flipping");
  // Lets the stdin reader see EOF now and then.
  if (flips % 64 === 0) await new Promise((resolve) => setTimeout(resolve, 0));
}
console.log(`flips: ${flips}`);
