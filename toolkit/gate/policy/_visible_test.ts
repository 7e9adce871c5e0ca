import assert from "node:assert/strict";
import { META_SUPPORTS_PERMISSION_PATTERNS } from "../../patterns/probe_meta.ts";
import { callerPolicySource } from "./_caller_source.ts";
import { claimsOf } from "./_claims.ts";
import { mappedVerdict } from "./_mapped_call.ts";
import {
  fixedPolicy,
  type PolicyInForce,
  policyInForce,
} from "./_policy_source.ts";
import { neverRuns, visibleTools } from "./_visible.ts";
import { parseGatePolicy } from "./policy_file.ts";

const DEFAULTS = { unprobed: "ask" as const, tools: new Map() };

function inForceOf(value: Record<string, unknown>): PolicyInForce {
  const file = parseGatePolicy(value);
  return { ...policyInForce(file, DEFAULTS), file };
}

const probed = (name: string) => ({
  name,
  _meta: { [META_SUPPORTS_PERMISSION_PATTERNS]: true },
});
const unprobed = (name: string, annotations?: Record<string, unknown>) => ({
  name,
  ...(annotations === undefined ? {} : { annotations }),
});
const names = (tools: readonly { name: string }[]) => tools.map((t) => t.name);

Deno.test("a tool denied by its tools entry is absent from the list, probed or not", () => {
  const inForce = inForceOf({
    deny: ["write:**", "write:/**"],
    tools: { run_shell: "deny", "admin_*": "deny", search: "allow" },
  });
  const listed = [
    probed("run_shell"),
    unprobed("admin_reset"),
    probed("admin_list"),
    probed("search"),
    // Probed: its patterns decide each call, even if the deny rules meet
    // every write; it may have calls that touch nothing.
    probed("write_file"),
  ];
  assert.deepEqual(names(visibleTools(inForce, listed)), [
    "search",
    "write_file",
  ]);
  assert.equal(
    neverRuns(inForce, "admin_reset", { probed: false }),
    "tools.admin_*",
  );
});

Deno.test("a tool without the probe is absent when its default is deny", async (t) => {
  await t.step("unprobed: deny, without annotations defaults", () => {
    const inForce = inForceOf({ unprobed: "deny", tools: { ok: "allow" } });
    assert.deepEqual(
      names(visibleTools(inForce, [unprobed("x"), unprobed("ok")])),
      ["ok"],
    );
    assert.equal(neverRuns(inForce, "x", { probed: false }), "unprobed");
  });
  await t.step("an annotation default decides before unprobed", () => {
    const inForce = inForceOf({
      unprobed: "deny",
      annotations: { readOnly: "allow", destructive: "deny" },
    });
    const listed = [
      unprobed("reader", { readOnlyHint: true }),
      unprobed("wiper", { destructiveHint: true }),
      // MCP's default: destructive unless it says otherwise.
      unprobed("silent"),
      // Neither read-only nor destructive: unprobed decides.
      unprobed("adder", { destructiveHint: false }),
    ];
    assert.deepEqual(names(visibleTools(inForce, listed)), ["reader"]);
    assert.equal(
      neverRuns(inForce, "wiper", {
        probed: false,
        annotations: { destructiveHint: true },
      }),
      "annotations.destructive",
    );
  });
  await t.step("unprobed: ask or allow keeps it", () => {
    const inForce = inForceOf({ unprobed: "ask" });
    assert.deepEqual(names(visibleTools(inForce, [unprobed("x")])), ["x"]);
  });
});

Deno.test("a templated tool is absent only when deny rules cover every pattern its templates give", async (t) => {
  const root = await Deno.makeTempDir();
  try {
    const tools = {
      write_file: { patterns: ["write:{path}"] },
      run: { patterns: ["exec:{command}"] },
      fetch: { patterns: ["net:{url}"] },
      remember: { patterns: ["x-memory:{key}"] },
      copy: { patterns: ["read:{from}", "write:{to}"] },
    };
    const visible = (deny: string[]) =>
      names(
        visibleTools(
          inForceOf({ roots: [root], tools, deny }),
          Object.keys(tools).map((name) => unprobed(name)),
        ),
      );
    await t.step("a rule of the verb for every target hides it", () => {
      assert.deepEqual(visible(["exec:**", "net:**", "x-memory:*"]), [
        "write_file",
        "copy",
      ]);
    });
    await t.step(
      "files need both the paths under the root and outside it",
      () => {
        assert.deepEqual(visible(["write:**"]), Object.keys(tools));
        assert.deepEqual(visible(["write:**", "write:/**"]), [
          "run",
          "fetch",
          "remember",
          "copy",
        ]);
        assert.deepEqual(visible(["write:{**,/**}"]), [
          "run",
          "fetch",
          "remember",
          "copy",
        ]);
      },
    );
    await t.step("every template of the tool, not one of them", () => {
      assert.ok(visible(["write:**", "write:/**"]).includes("copy"));
      assert.ok(
        !visible(["write:**", "write:/**", "read:**", "read:/**"]).includes(
          "copy",
        ),
      );
    });
    await t.step("a narrower rule keeps it: some call may run", () => {
      assert.deepEqual(
        visible([
          "write:src/**",
          "write:/*/**",
          "exec:rm **",
          "net:https://**",
          "x-memory:secret*",
        ]),
        Object.keys(tools),
      );
    });
    await t.step(
      "what it hides is refused whatever the arguments",
      async () => {
        const inForce = inForceOf({
          roots: [root],
          tools,
          deny: ["write:**", "write:/**"],
          allow: ["write:**"],
        });
        assert.equal(
          neverRuns(inForce, "write_file", { probed: false }),
          "write:**, write:/**",
        );
        for (
          const args of [
            { path: "a.txt" },
            { path: "." },
            { path: "/etc/passwd" },
            { path: `${root}/../outside` },
            {},
            { path: 7 },
          ]
        ) {
          const mapped = await mappedVerdict("write_file", args, inForce, {
            listed: true,
          });
          assert.ok(
            "refused" in mapped || mapped.verdict.decision === "deny",
            JSON.stringify(args),
          );
        }
      },
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a fixed policy without a file hides by tools and unprobed only", () => {
  const inForce = fixedPolicy({
    policy: parseGatePolicy({ deny: ["exec:**"] }).policy,
    unprobed: "deny",
    tools: new Map([["search", "allow"]]),
  }).current();
  assert.deepEqual(
    names(visibleTools(inForce, [unprobed("search"), unprobed("other")])),
    ["search"],
  );
});

Deno.test("two callers see different tool lists", () => {
  const file = parseGatePolicy({
    unprobed: "ask",
    tools: { deploy: "deny" },
    principals: [
      { match: { groups: ["ops"] }, tools: { deploy: "ask" } },
      { match: { groups: ["interns"] }, unprobed: "deny" },
    ],
  });
  const source = fixedPolicy({
    policy: file.policy,
    unprobed: "ask",
    tools: new Map(),
  });
  const withFile = {
    ...source,
    current: () => ({ ...policyInForce(file, DEFAULTS), file }),
  };
  const listed = [probed("deploy"), unprobed("notes")];
  const seen = (groups: string[]) =>
    names(visibleTools(
      callerPolicySource(
        withFile,
        claimsOf({ subject: "u", scopes: [], claims: { groups } }),
        { defaults: DEFAULTS },
      ).current(),
      listed,
    ));
  assert.deepEqual(seen(["ops"]), ["deploy", "notes"]);
  assert.deepEqual(seen([]), ["notes"]);
  assert.deepEqual(seen(["interns"]), []);
  // Anything that is not a tool object is left for the host to judge.
  assert.deepEqual(
    visibleTools(
      callerPolicySource(withFile, undefined, { defaults: DEFAULTS })
        .current(),
      [null, { title: "x" }],
    ),
    [null, { title: "x" }],
  );
});
