// Internal: the part of the SDK's WebStandardStreamableHTTPServerTransport
// that http/sessions.ts uses, declared here because the SDK's package map
// sends Deno to a `*.js.d.ts` that does not exist, leaving every `.js`
// subpath import untyped (typescript-sdk#2701). Checked against SDK 1.32.2's
// dist/esm/server/webStandardStreamableHttp.d.ts.

import type {
  JsonRpcMessage,
  McpTransport,
  TransportSendOptions,
} from "../jsonrpc/types.ts";

export interface SdkEventStore {
  storeEvent(streamId: string, message: unknown): Promise<string>;
  getStreamIdForEventId?(eventId: string): Promise<string | undefined>;
  replayEventsAfter(
    lastEventId: string,
    options: { send: (eventId: string, message: never) => Promise<void> },
  ): Promise<string>;
}

export interface SdkTransportOptions {
  /** Undefined: stateless, no session id is issued. */
  sessionIdGenerator?: () => string;
  onsessioninitialized?: (sessionId: string) => void | Promise<void>;
  onsessionclosed?: (sessionId: string) => void | Promise<void>;
  enableJsonResponse?: boolean;
  eventStore?: SdkEventStore;
  retryInterval?: number;
}

export interface SdkAuthInfo {
  token: string;
  clientId: string;
  scopes: string[];
  expiresAt?: number;
  resource?: URL;
  extra?: Record<string, unknown>;
}

export interface SdkHandleRequestOptions {
  parsedBody?: unknown;
  authInfo?: SdkAuthInfo;
}

export declare class WebStandardStreamableHTTPServerTransport
  implements McpTransport {
  constructor(options?: SdkTransportOptions);
  sessionId?: string;
  /** Not the SDK's: McpTransport's flag, set by sessions.ts and read by the server. */
  stateless?: boolean;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (
    message: JsonRpcMessage,
    extra?: Record<string, unknown>,
  ) => void;
  start(): Promise<void>;
  send(
    message: JsonRpcMessage,
    options?: TransportSendOptions,
  ): Promise<void>;
  close(): Promise<void>;
  handleRequest(
    request: Request,
    options?: SdkHandleRequestOptions,
  ): Promise<Response>;
}
