import assert from "node:assert/strict";
import {
  APPROVAL_KEY,
  ApprovalRounds,
  MemorySpentAnswers,
  UNVERIFIED_STATE,
} from "./_approval_round.ts";

const ARGS = { path: "notes/ask/d.txt" };
const PATTERNS = ["delete:notes/ask/d.txt"];

/** The call a host sends again with the user's `action` for the state it was given. */
function answered(state: unknown, action = "accept") {
  return {
    name: "delete_file",
    arguments: ARGS,
    requestState: state,
    inputResponses: { [APPROVAL_KEY]: { action } },
  };
}

async function ask(rounds: ApprovalRounds): Promise<unknown> {
  const round = await rounds.read("delete_file", { arguments: ARGS });
  return round.ask("Allow?", PATTERNS).requestState;
}

Deno.test("ApprovalRounds counts an approval once: the same state sent again is asked again", async () => {
  const rounds = new ApprovalRounds();
  const state = await ask(rounds);
  const first = await rounds.read("delete_file", answered(state));
  assert.equal(await first.answer(PATTERNS), "accept");
  const replay = await rounds.read("delete_file", answered(state));
  assert.equal(await replay.answer(PATTERNS), undefined);
  // A decline spends its state too.
  const other = await ask(rounds);
  const declined = await rounds.read("delete_file", answered(other, "decline"));
  assert.equal(await declined.answer(PATTERNS), "decline");
  const after = await rounds.read("delete_file", answered(other));
  assert.equal(await after.answer(PATTERNS), undefined);
});

Deno.test("ApprovalRounds asks again once an approval's lifetime is over", async () => {
  let now = 1_000_000;
  const rounds = new ApprovalRounds({ ttlMs: 300_000, now: () => now });
  const state = await ask(rounds);
  now += 300_000;
  const late = await rounds.read("delete_file", answered(state));
  assert.equal(await late.answer(PATTERNS), undefined);
  const fresh = await ask(rounds);
  now += 299_999;
  const inTime = await rounds.read("delete_file", answered(fresh));
  assert.equal(await inTime.answer(PATTERNS), "accept");
});

Deno.test("ApprovalRounds remembers a bounded number of spent nonces, forgetting only expired ones", async () => {
  let now = 0;
  const rounds = new ApprovalRounds({
    ttlMs: 100,
    now: () => now,
    maxSpent: 2,
  });
  const spend = async () => {
    const state = await ask(rounds);
    return await (await rounds.read("delete_file", answered(state))).answer(
      PATTERNS,
    );
  };
  assert.equal(await spend(), "accept");
  assert.equal(await spend(), "accept");
  // Full of live nonces: refused (asked again) rather than forgetting one.
  assert.equal(await spend(), undefined);
  now += 100;
  // The first two have expired and are forgotten; room again.
  assert.equal(await spend(), "accept");
});

Deno.test("ApprovalRound reads the session scope only from an answer to the gate's own state", async () => {
  const rounds = new ApprovalRounds();
  const state = await ask(rounds);
  const session = { action: "accept", content: { remember: "session" } };
  const answer = await rounds.read("delete_file", {
    ...answered(state),
    inputResponses: { [APPROVAL_KEY]: session },
  });
  assert.equal(await answer.answer(PATTERNS), "accept");
  assert.equal(answer.remembers, true);
  assert.equal(
    (await rounds.read("delete_file", answered(state))).remembers,
    false,
  );
  const forged = await rounds.read("delete_file", {
    ...answered("not the gate's"),
    inputResponses: { [APPROVAL_KEY]: session },
  });
  assert.equal(forged.remembers, false);
});

Deno.test("ApprovalRound asks with the form it is given", async () => {
  const rounds = new ApprovalRounds();
  const round = await rounds.read("delete_file", { arguments: ARGS });
  const schema = {
    type: "object",
    properties: { remember: { type: "string" } },
  };
  const asked = round.ask("Allow?", PATTERNS, { schema });
  const requests = asked.inputRequests as Record<
    string,
    { params: { requestedSchema: unknown } }
  >;
  assert.deepEqual(requests[APPROVAL_KEY].params.requestedSchema, schema);
});

Deno.test("ApprovalRounds counts a URL round's answer only as a visit to its page", async (t) => {
  const rounds = new ApprovalRounds();
  const page = {
    id: "a".repeat(43),
    url: `https://gate.example/approvals/${"a".repeat(43)}`,
  };
  const round = await rounds.read("delete_file", { arguments: ARGS });
  const asked = round.askUrl(page, "Approve on the page", PATTERNS);
  const request =
    (asked.inputRequests as Record<string, Record<string, unknown>>)[
      APPROVAL_KEY
    ];
  assert.deepEqual(request, {
    method: "elicitation/create",
    params: {
      mode: "url",
      message: "Approve on the page",
      elicitationId: page.id,
      url: page.url,
    },
  });
  await t.step("its accept is no form approval", async () => {
    const form = await rounds.read(
      "delete_file",
      answered(asked.requestState),
    );
    assert.equal(await form.answer(PATTERNS), undefined);
  });
  await t.step("it names its approval, once", async () => {
    const url = await rounds.read("delete_file", answered(asked.requestState));
    assert.deepEqual(await url.answerUrl(PATTERNS), {
      action: "accept",
      approval: page.id,
    });
    const replay = await rounds.read(
      "delete_file",
      answered(asked.requestState),
    );
    assert.equal(await replay.answerUrl(PATTERNS), undefined);
  });
  await t.step("other patterns or arguments are another call", async () => {
    const state = (await rounds.read("delete_file", { arguments: ARGS }))
      .askUrl(page, "Approve", PATTERNS).requestState;
    const other = await rounds.read("delete_file", {
      ...answered(state),
      arguments: { path: "notes/ask/e.txt" },
    });
    assert.equal(await other.answerUrl(PATTERNS), undefined);
    const wider = await rounds.read("delete_file", answered(state));
    assert.equal(await wider.answerUrl(["delete:notes/**"]), undefined);
  });
  await t.step("a form round's accept names no page", async () => {
    const state = await ask(rounds);
    const form = await rounds.read("delete_file", answered(state));
    assert.equal(await form.answerUrl(PATTERNS), undefined);
  });
});

Deno.test("ApprovalRounds sharing a key and spent nonces count an answer once, on either", async () => {
  const key = crypto.getRandomValues(new Uint8Array(32));
  const spent = new MemorySpentAnswers();
  const a = new ApprovalRounds({ key, spent, bound: "ada" });
  const b = new ApprovalRounds({ key, spent, bound: "ada" });
  const state = await ask(a);
  const there = await b.read("delete_file", answered(state));
  assert.equal(there.refused, undefined);
  assert.equal(await there.answer(PATTERNS), "accept");
  const back = await a.read("delete_file", answered(state));
  assert.equal(await back.answer(PATTERNS), undefined);
});

Deno.test("ApprovalRound refuses an answer to the gate's question whose state it cannot verify", async (t) => {
  const key = crypto.getRandomValues(new Uint8Array(32));
  const ours = new ApprovalRounds({ key, bound: "ada" });
  await t.step("a state of another caller", async () => {
    const state = await ask(new ApprovalRounds({ key, bound: "bob" }));
    const round = await ours.read("delete_file", answered(state));
    assert.equal(round.refused, UNVERIFIED_STATE);
    assert.equal(await round.answer(PATTERNS), undefined);
  });
  await t.step("a state of another deployment's key", async () => {
    const state = await ask(new ApprovalRounds({ bound: "ada" }));
    const round = await ours.read("delete_file", answered(state));
    assert.match(String(round.refused), /another deployment/);
  });
  await t.step("an altered state", async () => {
    const state = String(await ask(ours));
    const round = await ours.read(
      "delete_file",
      answered(`${state.slice(0, -2)}AA`),
    );
    assert.equal(round.refused, UNVERIFIED_STATE);
  });
  await t.step("a server's own round still goes on to it", async () => {
    const own = await ours.read("delete_file", {
      name: "delete_file",
      arguments: ARGS,
      requestState: "the server's",
      inputResponses: { confirm: { action: "accept" } },
    });
    assert.equal(own.refused, undefined);
    assert.equal(own.params.requestState, "the server's");
  });
});
