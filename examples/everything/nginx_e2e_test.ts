// Scale-out, with real parts: a redis-server, three everything servers
// started with `--redis`, and nginx in front of them from nginx.conf. Which
// instance nginx picks is its business, so where a test must reach one
// instance in particular it goes to that instance's own address.

import assert from "node:assert/strict";
import {
  haveRedis,
  INSTALL_HINT,
  installed,
  startRedis,
  type TestRedis,
} from "../../toolkit/redis/_test_redis.ts";
import { until } from "../../toolkit/testing/_until.ts";
import {
  call,
  type Instance,
  listen,
  type Nginx,
  rpc,
  sharedKey,
  startInstance,
  startNginx,
} from "./_scale_out_test_helpers.ts";

const ignore = !haveRedis() || !installed("nginx");
if (!ignore && !installed("nginx")) {
  console.error(`nginx is not installed: ${INSTALL_HINT}`);
}

const LEASE_MS = 1_500;

interface Cluster extends AsyncDisposable {
  redis: TestRedis;
  instances: Instance[];
  nginx: Nginx;
}

async function cluster(count: number): Promise<Cluster> {
  const redis = await startRedis();
  const key = sharedKey();
  const instances = await Promise.all(
    Array.from(
      { length: count },
      () => startInstance({ redis: redis.url, key, leaseMs: LEASE_MS }),
    ),
  );
  const nginx = await startNginx(instances.map((i) => i.origin));
  return {
    redis,
    instances,
    nginx,
    [Symbol.asyncDispose]: async () => {
      await nginx[Symbol.asyncDispose]();
      await Promise.all(instances.map((i) => i.stop()));
      await redis[Symbol.asyncDispose]();
    },
  };
}

function taskIdOf(result: Record<string, unknown>): string {
  assert.equal(result.resultType, "task", JSON.stringify(result));
  return result.taskId as string;
}

async function untilStatus(
  url: string,
  taskId: string,
  status: string,
  timeoutMs = 5_000,
): Promise<Record<string, unknown>> {
  let task: Record<string, unknown> = {};
  await until(`task ${taskId} ${status}`, async () => {
    task = await call(url, "tasks/get", { taskId });
    return task.status === status;
  }, { timeoutMs, intervalMs: 20 }).catch((error) => {
    throw new Error(`${error.message}; last: ${JSON.stringify(task)}`);
  });
  return task;
}

Deno.test({
  name:
    "Behind nginx with Redis: every instance's listen stream hears a list change made on another",
  ignore,
  fn: async () => {
    await using c = await cluster(3);
    const [a, b, third] = c.instances;
    await using onB = await listen(`${b.origin}/mcp`, {
      toolsListChanged: true,
    });
    await using viaNginx = await listen(c.nginx.url, {
      promptsListChanged: true,
    });
    await call(`${a.origin}/mcp`, "tools/call", {
      name: "test_trigger_tool_change",
      arguments: {},
    });
    await call(`${third.origin}/mcp`, "tools/call", {
      name: "test_trigger_prompt_change",
      arguments: {},
    });
    // One of a and third is not the instance nginx gave the stream to.
    await until(
      "both streams hear their change",
      () =>
        onB.heard.some((m) =>
          m.method === "notifications/tools/list_changed"
        ) &&
        viaNginx.heard.some((m) =>
          m.method === "notifications/prompts/list_changed"
        ),
    );
  },
});

Deno.test({
  name:
    "Behind nginx with Redis: a task made on one instance is polled, answered and cancelled through the others",
  ignore,
  fn: async () => {
    await using c = await cluster(3);
    const [a, b, third] = c.instances;
    const urls = [b, third].map((i) => `${i.origin}/mcp`);

    const asking = taskIdOf(
      await call(`${a.origin}/mcp`, "tools/call", {
        name: "confirm_delete",
        arguments: { filename: "notes.txt" },
      }),
    );
    await using heard = await listen(urls[0], { taskIds: [asking] });
    const waiting = await untilStatus(urls[1], asking, "input_required");
    const [key] = Object.keys(waiting.inputRequests as object);
    await call(urls[0], "tasks/update", {
      taskId: asking,
      inputResponses: {
        [key]: { action: "accept", content: { confirm: true } },
      },
    });
    const done = await untilStatus(c.nginx.url, asking, "completed");
    assert.deepEqual(done.result, {
      content: [{ type: "text", text: "Deleted notes.txt" }],
    });
    await until(
      "b's stream hears the completion made on a",
      () =>
        heard.heard.some((m) =>
          m.method === "notifications/tasks" &&
          (m.params as Record<string, unknown>).status === "completed"
        ),
    );

    const slow = taskIdOf(
      await call(`${a.origin}/mcp`, "tools/call", {
        name: "slow_compute",
        arguments: { seconds: 600 },
      }),
    );
    assert.equal(
      (await call(c.nginx.url, "tasks/get", { taskId: slow })).status,
      "working",
    );
    await call(urls[1], "tasks/cancel", { taskId: slow });
    for (const url of [...urls, `${a.origin}/mcp`, c.nginx.url]) {
      assert.equal(
        (await call(url, "tasks/get", { taskId: slow })).status,
        "cancelled",
      );
    }
    // The owner heard it without polling (its poll interval is 1 s, the
    // push comes first) and stopped the handler: a's log says nothing bad.
    assert.doesNotMatch(a.log(), /error/i);
  },
});

Deno.test({
  name:
    "Behind nginx with Redis: the task of a killed instance is failed within the lease",
  ignore,
  fn: async () => {
    await using c = await cluster(2);
    const [a] = c.instances;
    const taskId = taskIdOf(
      await call(`${a.origin}/mcp`, "tools/call", {
        name: "slow_compute",
        arguments: { seconds: 600 },
      }),
    );
    await a.kill();
    const killed = performance.now();
    // nginx takes the dead instance out and polls reach the living one.
    const failed = await untilStatus(
      c.nginx.url,
      taskId,
      "failed",
      LEASE_MS * 3,
    );
    const elapsed = performance.now() - killed;
    assert.ok(
      elapsed <= LEASE_MS * 1.5 + 500,
      `failed after ${elapsed.toFixed(0)} ms`,
    );
    assert.match(
      String(failed.statusMessage),
      /instance running this task stopped/,
    );
  },
});

Deno.test({
  name:
    "Behind nginx with Redis: a Redis restart mid-run loses no answered call",
  ignore,
  fn: async () => {
    await using c = await cluster(2);
    const created: string[] = [];
    const errors: string[] = [];
    let running = true;
    const load = (async () => {
      while (running) {
        const answer = await rpc(c.nginx.url, "tools/call", {
          name: "slow_compute",
          arguments: { seconds: 0.05 },
        });
        if (answer.result !== undefined) created.push(taskIdOf(answer.result));
        else errors.push(answer.error!.message);
        // A call that needs no Redis works all along.
        const greeting = await rpc(c.nginx.url, "tools/call", {
          name: "greet",
          arguments: { name: "Ada" },
        });
        assert.ok(greeting.result !== undefined, JSON.stringify(greeting));
      }
    })();
    await until("a few tasks", () => created.length >= 5);
    await c.redis.stop();
    await until("a refused call", () => errors.length > 0, {
      timeoutMs: 5_000,
    });
    await c.redis.start();
    const before = created.length;
    await until("tasks again", () => created.length > before + 5, {
      timeoutMs: 15_000,
    });
    running = false;
    await load;
    for (const message of errors) assert.match(message, /Redis is unavailable/);
    // Each instance reconnects on its own; nginx may send a poll to one
    // that has not yet, which answers "unavailable" until it has.
    for (const instance of c.instances) {
      await until(`${instance.origin} reconnected to Redis`, async () => {
        const answer = await rpc(`${instance.origin}/mcp`, "tasks/get", {
          taskId: created[0],
        });
        return answer.result !== undefined;
      }, { timeoutMs: 10_000, intervalMs: 20 });
    }
    // Every task whose creation was answered is there and ends.
    for (const taskId of created) {
      await untilStatus(c.nginx.url, taskId, "completed");
    }
  },
});
