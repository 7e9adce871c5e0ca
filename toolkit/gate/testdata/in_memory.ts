// A gate's two sides in one process, for fast tests of the relay and the
// gatekeeper: each side is one end of a messageChannel(), so the messages
// pass as parsed objects, with no process and no JSON text in between. The
// server is scripted: it answers initialize and tools/list itself, and each
// other request as the test's script says (or leaves it to the test).

import {
  messageChannel,
  type MessageTransport,
} from "../../jsonrpc/_message_channel.ts";
import type { JsonRpcMessage } from "../../jsonrpc/types.ts";
import type { ServerProcess } from "../upstream/_server_process.ts";

// deno-lint-ignore no-explicit-any
export type Message = Record<string, any>;

/** The probe's flag in a call's `_meta`. */
export const PROBE_FLAG = "forge.permission_patterns";

/** One end of a channel, seen from the test: what arrived, in order, and waits on it. */
export class Peer {
  /** Every message this end received, in order. */
  readonly received: Message[] = [];
  /** Resolves once the other end closed. */
  readonly ended: Promise<void>;
  #end: MessageTransport;
  #waiters = new Set<() => void>();
  #next = 0;

  /** Starts `end`; `each` is told of each message as it arrives. */
  constructor(end: MessageTransport, each?: (message: Message) => void) {
    this.#end = end;
    let ended!: () => void;
    this.ended = new Promise((resolve) => ended = resolve);
    end.onmessage = (message) => {
      this.received.push(message);
      each?.(message);
      for (const check of [...this.#waiters]) check();
    };
    end.onend = () => ended();
    end.start();
  }

  /** Sends `message` to the other end. */
  send(message: Message): Promise<void> {
    return this.#end.send(message as JsonRpcMessage);
  }

  /** Closes this end: the other one sees its end. */
  close(): Promise<void> {
    return this.#end.close();
  }

  /** Resolves with the first message received (ever) that `match` picks. */
  waitFor(match: (message: Message) => boolean): Promise<Message> {
    return new Promise((resolve) => {
      const check = () => {
        const found = this.received.find(match);
        if (found === undefined) return;
        this.#waiters.delete(check);
        resolve(found);
      };
      this.#waiters.add(check);
      check();
    });
  }

  /** Resolves with the next message in order that has not been taken yet. */
  next(): Promise<Message> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.#next >= this.received.length) return;
        this.#waiters.delete(check);
        resolve(this.received[this.#next++]);
      };
      this.#waiters.add(check);
      check();
    });
  }

  /** The answers (not requests) received under `id`, by exact id. */
  answersTo(id: unknown): Message[] {
    return this.received.filter((m) => m.method === undefined && m.id === id);
  }
}

/** What a {@linkcode fakeServer} does with a request. */
export type Script = (
  request: Message,
) => Record<string, unknown> | undefined;

/** Options for {@linkcode fakeServer}. */
export interface FakeServerOptions {
  /** The tools its `tools/list` answers with. */
  tools?: Message[];
  /**
   * The result of each other request; `undefined` leaves it unanswered
   * (the test answers it with `answer`, or never).
   */
  script?: Script;
}

/** A tool that says it has the probe. */
export function probedTool(name: string): Message {
  return {
    name,
    inputSchema: { type: "object" },
    _meta: { "forge.supports_permission_patterns": true },
  };
}

/** A tool without the probe. */
export function plainTool(name: string): Message {
  return { name, inputSchema: { type: "object" } };
}

/** The result a probe answers with: the patterns a call would touch. */
export function probeResult(patterns: string[]): Record<string, unknown> {
  return {
    content: [{ type: "text", text: patterns.join("\n") }],
    _meta: { "forge.patterns": patterns },
  };
}

/** Whether `message` is a probe (a `tools/call` with the probe's flag). */
export function isProbe(message: Message): boolean {
  return message.method === "tools/call" &&
    message.params?._meta?.[PROBE_FLAG] === true;
}

/** Whether `message` is a real call of `tool` (not its probe). */
export function isCallOf(tool: string): (message: Message) => boolean {
  return (message) =>
    message.method === "tools/call" && message.params?.name === tool &&
    !isProbe(message);
}

/**
 * A scripted MCP server behind a {@linkcode ServerProcess} whose transport
 * is one end of a message channel: `closeStdin()` ends its side and it
 * exits with status 0.
 */
export function fakeServer(options: FakeServerOptions = {}) {
  const [gateEnd, serverEnd] = messageChannel();
  let exit!: (status: Deno.CommandStatus) => void;
  const status = new Promise<Deno.CommandStatus>((resolve) => exit = resolve);
  const answer = (id: unknown, result: Record<string, unknown>) =>
    serverEnd.send({ jsonrpc: "2.0", id, result } as JsonRpcMessage);
  const peer = new Peer(serverEnd, (request) => {
    if (request.method === undefined || request.id === undefined) return;
    if (request.method === "initialize") {
      answer(request.id, {
        protocolVersion: request.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "fake", version: "1" },
      });
    } else if (request.method === "tools/list") {
      answer(request.id, { tools: options.tools ?? [] });
    } else {
      const result = options.script?.(request);
      if (result !== undefined) answer(request.id, result);
    }
  });
  const child: ServerProcess = {
    pid: 0,
    transport: gateEnd,
    closeStdin() {
      serverEnd.close();
      exit({ success: true, code: 0, signal: null });
      return Promise.resolve();
    },
    status,
    kill(signal) {
      serverEnd.close();
      exit({ success: false, code: 143, signal });
    },
    dispose() {},
  };
  return {
    child,
    /** What the gate sent the server, and waits on it. */
    peer,
    /** Sends the server's answer (or any message) to the gate. */
    send: (message: Message) => peer.send(message),
    /** The server dies: its side ends, and it exits with `code`. */
    crash(code = 3) {
      serverEnd.close();
      exit({ success: false, code, signal: null });
    },
  };
}

/** A host on one end of a message channel; `transport` is the gate's end. */
export function memoryHost() {
  const [gateEnd, hostEnd] = messageChannel();
  const peer = new Peer(hostEnd);
  let nextId = 1000;
  return {
    transport: gateEnd,
    peer,
    /** Sends a request and resolves with its answer. */
    async request(
      method: string,
      params: Record<string, unknown> = {},
      id: number | string = nextId++,
    ): Promise<Message> {
      await peer.send({ jsonrpc: "2.0", id, method, params });
      return await peer.waitFor((m) => m.method === undefined && m.id === id);
    },
    /** Sends a `tools/call` under `id` without waiting for its answer. */
    call: (id: number | string, name: string, args: Message = {}) =>
      peer.send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name, arguments: args },
      }),
    /** The answer under `id`. */
    answer: (id: unknown) =>
      peer.waitFor((m) => m.method === undefined && m.id === id),
  };
}
