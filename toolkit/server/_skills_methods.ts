// The skills extension's methods (SEP-2640) for the method table:
// skills/list, skills/get and resources/directory/read. A session that was
// not offered the extension gets -32601 for each, as for any method it does
// not have; an unknown skill or a URI that is no directory is -32602.

import { jsonType } from "../_util/json_type.ts";
import { ProtocolError, RPC_ERROR } from "../jsonrpc/errors.ts";
import { combinedHints, type SkillCatalog } from "./_skill_catalog.ts";
import { SKILLS_EXTENSION } from "../skills/skill.ts";
import type { Connection } from "./_connection.ts";
import { cursorParam, paginate } from "./_paging.ts";
import type { RequestHandler } from "./_session_types.ts";

/** The extension's methods and their handlers. */
export function skillRoutes(
  catalog: SkillCatalog,
  pageSize: number | undefined,
): [string, RequestHandler<Connection>][] {
  const offered = (
    method: string,
    handler: RequestHandler<Connection>,
  ): [string, RequestHandler<Connection>] => [
    method,
    (params, extra, connection) => {
      const extensions = connection.capabilities.extensions as
        | Record<string, unknown>
        | undefined;
      if (extensions?.[SKILLS_EXTENSION] === undefined) {
        throw new ProtocolError(
          RPC_ERROR.METHOD_NOT_FOUND,
          `Method not found: ${method}`,
        );
      }
      return handler(params, extra, connection);
    },
  ];
  return [
    offered("skills/list", async (params) => {
      const { placed, skills } = catalog.placed();
      const page = await paginate(
        "skills/list",
        placed,
        cursorParam(params, "skills/list"),
        pageSize,
      );
      return {
        skills: page.items,
        ...(page.nextCursor === undefined
          ? {}
          : { nextCursor: page.nextCursor }),
        ...combinedHints(skills),
      };
    }),
    offered("skills/get", (params) => {
      const uri = uriParam(params, "skills/get");
      const skill = catalog.get(uri);
      if (skill === undefined) {
        throw new ProtocolError(
          RPC_ERROR.INVALID_PARAMS,
          `No skill is served at ${uri}: expected the URI of a SKILL.md that skills/list names`,
          { data: { uri } },
        );
      }
      return { skill: skill.entry(), ...skill.cache };
    }),
    offered("resources/directory/read", async (params) => {
      const method = "resources/directory/read";
      const uri = uriParam(params, method);
      const directory = catalog.directory(uri);
      if (directory === undefined) {
        throw new ProtocolError(
          RPC_ERROR.INVALID_PARAMS,
          `${uri} is not a directory resource of this server: expected a skill's root, such as skill://name, or a directory in it`,
          { data: { uri } },
        );
      }
      const page = await paginate(
        method,
        directory.children.map((child, seq) => ({
          seq,
          items: () => [child],
        })),
        cursorParam(params, method),
        pageSize,
      );
      return {
        resources: page.items,
        ...(page.nextCursor === undefined
          ? {}
          : { nextCursor: page.nextCursor }),
        // Every page, as the other results of the extension: the 2026-07-28
        // clients refuse a directory page without them.
        ...directory.cache,
      };
    }),
  ];
}

function uriParam(params: Record<string, unknown>, method: string): string {
  const uri = params.uri;
  if (typeof uri !== "string") {
    throw new ProtocolError(
      RPC_ERROR.INVALID_PARAMS,
      `Invalid params for ${method}: uri: expected string, got ${
        uri === undefined ? "nothing" : jsonType(uri)
      }`,
    );
  }
  return uri;
}
