/**
 * Starts a new server project from `template/`:
 *
 * ```sh
 * deno run --allow-read --allow-write path/to/forge-toolkit/template/init/main.ts ~/my-server
 * ```
 *
 * The copy imports `jsr:@forge/toolkit` as a published project would, and
 * its deno.json `links` that import to this clone, so it works before the
 * package is published, offline or behind a proxy that does not reach JSR.
 * With `--published` the link is left out and the copy resolves the package
 * from JSR. An existing, non-empty target is refused: nothing is overwritten.
 *
 * @module
 */

const TEMPLATE = new URL("../", import.meta.url);
const CLONE = new URL("../../", import.meta.url);

/** Options for {@linkcode initProject}. */
export interface InitOptions {
  /**
   * Resolve `@forge/toolkit` from JSR instead of linking this clone.
   *
   * @default {false}
   */
  published?: boolean;
}

/**
 * Copies the template to `target` (created if missing; refused if it holds
 * anything) and, unless `published`, links `@forge/toolkit` to this clone.
 *
 * @example
 * ```ts ignore
 * import { initProject } from "./main.ts";
 *
 * await initProject(await Deno.makeTempDir() + "/my-server");
 * ```
 *
 * @returns The files written, relative to `target`.
 */
export async function initProject(
  target: string,
  options: InitOptions = {},
): Promise<string[]> {
  if (typeof target !== "string" || target === "") {
    throw new TypeError(
      `Cannot create project: expected a target directory, got ${
        JSON.stringify(target)
      }`,
    );
  }
  await Deno.mkdir(target, { recursive: true });
  for await (const entry of Deno.readDir(target)) {
    throw new Error(
      `Cannot create project: ${target} is not empty (it holds ${entry.name}): choose a new or empty directory`,
    );
  }
  const written: string[] = [];
  for await (const entry of Deno.readDir(TEMPLATE)) {
    if (!entry.isFile) continue;
    const from = new URL(entry.name, TEMPLATE);
    const to = `${target}/${entry.name}`;
    if (entry.name === "deno.json") {
      const config = JSON.parse(await Deno.readTextFile(from));
      if (!options.published) config.links = [decodeURI(CLONE.pathname)];
      await Deno.writeTextFile(to, JSON.stringify(config, null, 2) + "\n", {
        createNew: true,
      });
    } else {
      await Deno.writeFile(to, await Deno.readFile(from), { createNew: true });
    }
    written.push(entry.name);
  }
  return written.sort();
}

const USAGE =
  `Usage: deno run --allow-read --allow-write template/init/main.ts [--published] <directory>

Copies template/ to <directory> (created if missing; refused if not empty).

  --published  resolve @forge/toolkit from JSR instead of linking this clone
  -h, --help   print this text`;

if (import.meta.main) {
  if (Deno.args.includes("--help") || Deno.args.includes("-h")) {
    console.log(USAGE);
    Deno.exit(0);
  }
  const unknown = Deno.args.find((a) =>
    a.startsWith("-") && a !== "--published"
  );
  if (unknown !== undefined) {
    console.error(`Unknown option: ${unknown}\n\n${USAGE}`);
    Deno.exit(2);
  }
  const args = Deno.args.filter((a) => a !== "--published");
  if (args.length !== 1) {
    console.error(USAGE);
    Deno.exit(2);
  }
  try {
    const files = await initProject(args[0], {
      published: Deno.args.includes("--published"),
    });
    console.error(`Created ${args[0]}: ${files.join(", ")}`);
    console.error(`Next: cd ${args[0]} && deno task test`);
  } catch (error) {
    console.error((error as Error).message);
    Deno.exit(1);
  }
}
