// Internal: the OAuth 2.0 Protected Resource Metadata document (RFC 9728)
// and where it is served. For a resource `https://host/mcp` the document's
// URL is `https://host/.well-known/oauth-protected-resource/mcp` (the
// well-known prefix goes between host and path); MCP clients try that one
// first and the root `/.well-known/oauth-protected-resource` after it, so
// both are served.

import { CODE, rpcError } from "./_response.ts";

/** The well-known prefix RFC 9728 registers. */
export const PRM_PREFIX = "/.well-known/oauth-protected-resource";

/** What the document lists. */
export interface ResourceMetadata {
  resource: string;
  authorizationServers: readonly string[];
  scopesSupported: readonly string[];
  resourceName: string | undefined;
}

/** The URL of the metadata document for `resource`, as `resource_metadata` names it. */
export function metadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === "/" ? "" : url.pathname;
  return `${url.origin}${PRM_PREFIX}${path}`;
}

/**
 * The paths the document is served at: the root one, the one for the
 * endpoint's own path, and, when the public resource URL has another path
 * (a proxy adds a prefix), the one for that.
 */
export function metadataPaths(
  path: string,
  resource: string | undefined,
): ReadonlySet<string> {
  const paths = new Set([PRM_PREFIX, PRM_PREFIX + (path === "/" ? "" : path)]);
  if (resource !== undefined) {
    paths.add(new URL(metadataUrl(resource)).pathname);
  }
  return paths;
}

/** The document's JSON, field names as RFC 9728 spells them. */
export function metadataDocument(
  metadata: ResourceMetadata,
): Record<string, unknown> {
  return {
    resource: metadata.resource,
    authorization_servers: [...metadata.authorizationServers],
    ...(metadata.scopesSupported.length === 0
      ? {}
      : { scopes_supported: [...metadata.scopesSupported] }),
    // Tokens in a query string or form body are refused (MCP requires the header).
    bearer_methods_supported: ["header"],
    ...(metadata.resourceName === undefined
      ? {}
      : { resource_name: metadata.resourceName }),
  };
}

/** Answers a request for the document: GET or HEAD, 405 otherwise. */
export function serveMetadata(
  request: Request,
  metadata: ResourceMetadata,
): Response {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return rpcError(
      405,
      CODE.TRANSPORT,
      "Method Not Allowed: the protected resource metadata is read with GET",
      { headers: { allow: "GET, HEAD" } },
    );
  }
  const body = JSON.stringify(metadataDocument(metadata));
  return new Response(request.method === "HEAD" ? null : body, {
    status: 200,
    headers: {
      "content-type": "application/json",
      // Short: a client should see a new authorization server soon.
      "cache-control": "public, max-age=300",
    },
  });
}
