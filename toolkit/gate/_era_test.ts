import assert from "node:assert/strict";
import {
  asksForms,
  eraCapabilities,
  eraMeta,
  isStateless,
  refusal,
} from "./_era.ts";

const VERSION = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

Deno.test("eraMeta() keeps only the reserved keys, and nothing for an older request", () => {
  assert.equal(eraMeta(undefined), undefined);
  assert.equal(eraMeta({ progressToken: 1 }), undefined);
  const era = eraMeta({
    progressToken: 1,
    [VERSION]: "2026-07-28",
    [CAPABILITIES]: { elicitation: {} },
  });
  assert.deepEqual(era, {
    [VERSION]: "2026-07-28",
    [CAPABILITIES]: { elicitation: {} },
  });
  assert.equal(isStateless(era), true);
  assert.equal(isStateless({ [CAPABILITIES]: {} }), false);
  assert.deepEqual(eraCapabilities(era), { elicitation: {} });
});

Deno.test("asksForms() needs elicitation in form mode", () => {
  assert.equal(asksForms({ elicitation: {} }), true);
  assert.equal(asksForms({ elicitation: { form: {} } }), true);
  assert.equal(asksForms({ elicitation: { url: {} } }), false);
  assert.equal(asksForms({ elicitation: true }), false);
  assert.equal(asksForms({}), false);
  assert.equal(asksForms(undefined), false);
});

Deno.test("refusal() is an isError result, complete for a 2026-07-28 request", () => {
  assert.deepEqual(refusal("no", undefined), {
    content: [{ type: "text", text: "no" }],
    isError: true,
  });
  assert.equal(
    refusal("no", { [VERSION]: "2026-07-28" }).resultType,
    "complete",
  );
});
