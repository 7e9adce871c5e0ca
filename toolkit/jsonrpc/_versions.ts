// Internal: the protocol revisions the toolkit speaks and the reserved
// `_meta` keys of the stateless one, shared by the server (which answers
// them) and the HTTP transport (which routes a request by its
// MCP-Protocol-Version header), so the two cannot disagree.

/** The stateless revision: no `initialize`, everything per request in `_meta`. */
export const STATELESS_PROTOCOL_VERSION = "2026-07-28";

/** Revisions served per request, without `initialize`, newest first. */
export const STATELESS_PROTOCOL_VERSIONS: readonly string[] = [
  STATELESS_PROTOCOL_VERSION,
];

/** Revisions served in a session opened by `initialize`, newest first. */
export const SESSION_PROTOCOL_VERSIONS: readonly string[] = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
];

/** The reserved `_meta` keys of 2026-07-28. */
export const META = {
  PROTOCOL_VERSION: "io.modelcontextprotocol/protocolVersion",
  CLIENT_CAPABILITIES: "io.modelcontextprotocol/clientCapabilities",
  CLIENT_INFO: "io.modelcontextprotocol/clientInfo",
  LOG_LEVEL: "io.modelcontextprotocol/logLevel",
  SERVER_INFO: "io.modelcontextprotocol/serverInfo",
  SUBSCRIPTION_ID: "io.modelcontextprotocol/subscriptionId",
} as const;
