// Keeps stdout for JSON-RPC while a stdio server runs: everything the
// console would print there goes to stderr instead.

/**
 * Sends everything the console would print on stdout to stderr, so that
 * stdout carries JSON-RPC only; returns the undo. Deno prints `count`,
 * `table`, `dir` and the timers without going through `console.log`, so
 * those are replaced too.
 */
export function redirectConsole(): () => void {
  const c = console as unknown as Record<string, unknown>;
  const saved = Object.fromEntries(STDOUT_METHODS.map((m) => [m, c[m]]));
  const print = console.error.bind(console);
  const counts = new Map<string, number>();
  const timers = new Map<string, number>();
  const elapsed = (label: string) => {
    const start = timers.get(label);
    return start === undefined
      ? `Timer "${label}" does not exist`
      : `${label}: ${(performance.now() - start).toFixed(3)}ms`;
  };
  Object.assign(console, {
    log: print,
    info: print,
    debug: print,
    dirxml: print,
    dir: (item: unknown, options?: Deno.InspectOptions) =>
      print(Deno.inspect(item, options)),
    table: (data: unknown) => print(Deno.inspect(data)),
    count: (label = "default") => {
      const n = (counts.get(label) ?? 0) + 1;
      counts.set(label, n);
      print(`${label}: ${n}`);
    },
    countReset: (label = "default") => counts.delete(label),
    time: (label = "default") => timers.set(label, performance.now()),
    timeLog: (label = "default", ...data: unknown[]) =>
      print(elapsed(label), ...data),
    timeEnd: (label = "default") => {
      print(elapsed(label));
      timers.delete(label);
    },
  });
  return () => Object.assign(console, saved);
}

const STDOUT_METHODS = [
  "log",
  "info",
  "debug",
  "dirxml",
  "dir",
  "table",
  "count",
  "countReset",
  "time",
  "timeLog",
  "timeEnd",
] as const;
