// Internal, for tests: a headless Chromium (Debian `chromium`) driven over
// the DevTools protocol on a websocket, with its own profile directory,
// stopped by its pid. Enough to load a page, click what is on it, and read
// it back, as a person with a browser would; without the package the tests
// that need it are ignored, with the line that installs it.

import { installed } from "../../redis/_test_redis.ts";

/** The line that installs what the browser tests need. */
export const CHROMIUM_HINT = "apt-get update && apt-get install -y chromium";

/** Whether chromium is here; if not, says how to get it. */
export function haveChromium(): boolean {
  const here = installed("chromium");
  if (!here) {
    console.error(
      `chromium is not installed: the browser tests are ignored. Install it with: ${CHROMIUM_HINT}`,
    );
  }
  return here;
}

interface Pending {
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

/** One tab of a headless Chromium. */
export interface Tab {
  /** Sends a DevTools command to the tab. */
  send(
    method: string,
    params?: Record<string, unknown>,
  ): Promise<Record<string, unknown>>;
  /** The value of a JavaScript expression in the page (DevTools', not the page's own script). */
  evaluate(expression: string): Promise<unknown>;
  /** Resolves at the next event `method` of the tab; call before what causes it. */
  next(method: string): Promise<Record<string, unknown>>;
  /** Navigates and resolves when the page has loaded. */
  load(url: string): Promise<void>;
  /** Scrolls the element `selector` into view and clicks its middle with the mouse. */
  click(selector: string): Promise<void>;
}

/** A running browser. */
export interface Browser extends AsyncDisposable {
  /** Opens a tab. */
  tab(): Promise<Tab>;
}

/** Starts headless Chromium; resolves once its DevTools socket is open. */
export async function startChromium(): Promise<Browser> {
  const profile = await Deno.makeTempDir({ prefix: "forge_chromium_" });
  const child = new Deno.Command("chromium", {
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--no-default-browser-check",
      "--disable-extensions",
      "--remote-debugging-address=127.0.0.1",
      "--remote-debugging-port=0",
      `--user-data-dir=${profile}`,
      "about:blank",
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stop = async () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    await child.status;
    await Deno.remove(profile, { recursive: true }).catch(() => {});
  };
  let log = "";
  const listening = Promise.withResolvers<string>();
  (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      log += decoder.decode(chunk, { stream: true });
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(log);
      if (match) listening.resolve(match[1]);
    }
    listening.reject(new Error(`chromium exited:\n${log}`));
  })();
  let socket: WebSocket;
  try {
    socket = new WebSocket(await listening.promise);
    await new Promise((resolve, reject) => {
      socket.onopen = resolve;
      socket.onerror = () => reject(new Error("Cannot open DevTools socket"));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  let nextId = 1;
  const pending = new Map<number, Pending>();
  const waiters: {
    method: string;
    sessionId?: string;
    resolve: (params: Record<string, unknown>) => void;
  }[] = [];
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (typeof message.id === "number") {
      const call = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) {
        call?.reject(new Error(`DevTools: ${JSON.stringify(message.error)}`));
      } else call?.resolve(message.result ?? {});
      return;
    }
    const index = waiters.findIndex((waiter) =>
      waiter.method === message.method && waiter.sessionId === message.sessionId
    );
    if (index !== -1) waiters.splice(index, 1)[0].resolve(message.params);
  };
  const send = (
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
  ) => {
    const id = nextId++;
    const { promise, resolve, reject } = Promise.withResolvers<
      Record<string, unknown>
    >();
    pending.set(id, { resolve, reject });
    socket.send(
      JSON.stringify({
        id,
        method,
        params,
        ...(sessionId ? { sessionId } : {}),
      }),
    );
    return promise;
  };
  return {
    tab: async () => {
      const { targetId } = await send("Target.createTarget", {
        url: "about:blank",
      });
      const { sessionId } = await send("Target.attachToTarget", {
        targetId,
        flatten: true,
      }) as { sessionId: string };
      const tab: Tab = {
        send: (method, params) => send(method, params, sessionId),
        next: (method) =>
          new Promise((resolve) =>
            waiters.push({ method, sessionId, resolve })
          ),
        evaluate: async (expression) => {
          const { result, exceptionDetails } = await tab.send(
            "Runtime.evaluate",
            { expression, returnByValue: true },
          ) as { result: { value?: unknown }; exceptionDetails?: unknown };
          if (exceptionDetails !== undefined) {
            throw new Error(
              `${expression}: ${JSON.stringify(exceptionDetails)}`,
            );
          }
          return result.value;
        },
        load: async (url) => {
          const loaded = tab.next("Page.loadEventFired");
          await tab.send("Page.navigate", { url });
          await loaded;
        },
        click: async (selector) => {
          const box = await tab.evaluate(
            `(() => { const e = document.querySelector(${
              JSON.stringify(selector)
            }); e.scrollIntoView({ block: "center" }); const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`,
          ) as [number, number];
          for (const type of ["mousePressed", "mouseReleased"]) {
            await tab.send("Input.dispatchMouseEvent", {
              type,
              x: box[0],
              y: box[1],
              button: "left",
              clickCount: 1,
            });
          }
        },
      };
      await tab.send("Page.enable");
      await tab.send("Runtime.enable");
      return tab;
    },
    [Symbol.asyncDispose]: async () => {
      socket.close();
      await stop();
    },
  };
}
