// YAML 1.2 through js-yaml: multi-document, duplicate keys refused, and
// alias expansion bounded before any value is built.

import {
  constructFromEvents,
  CORE_SCHEMA,
  EVENT_ID,
  mergeTag,
  parseEvents,
  YAMLException,
} from "js-yaml";
import { Locator } from "./position.ts";
import type { Parsed } from "./parsed.ts";

const SCHEMA = CORE_SCHEMA.withTags(mergeTag);

/** Nesting deeper than this is refused (js-yaml's parser recurses). */
export const YAML_MAX_DEPTH = 256;
/**
 * A document whose aliases would expand to more nodes than this is refused,
 * which stops "billion laughs" documents without expanding them.
 */
export const YAML_MAX_ALIAS_NODES = 100_000;

/** Parses every document of a YAML stream; the value is the array of them. */
export function parseYaml(text: string): Parsed {
  const locator = new Locator(text);
  try {
    const events = parseEvents(text, { maxDepth: YAML_MAX_DEPTH });
    const problem = checkAliasExpansion(text, events);
    if (problem !== undefined) {
      return {
        ok: false,
        diagnostics: [locator.diagnostic(problem.offset, problem.message)],
      };
    }
    const value = constructFromEvents(events, {
      source: text,
      schema: SCHEMA,
    });
    return { ok: true, value, diagnostics: [] };
  } catch (error) {
    if (error instanceof YAMLException && error.mark !== undefined) {
      return {
        ok: false,
        diagnostics: [locator.diagnostic(error.mark.position, error.reason)],
      };
    }
    throw error;
  }
}

type YamlEvent = ReturnType<typeof parseEvents>[number];

interface Frame {
  nodes: number;
  anchor: string | undefined;
}

// Counts, per document, the nodes aliases would add if expanded. Anchors
// remember the expanded size of their node, so the count is linear in the
// number of events however deep the aliasing goes.
function checkAliasExpansion(
  text: string,
  events: YamlEvent[],
): { offset: number; message: string } | undefined {
  const sizes = new Map<string, number>();
  const open = new Set<string>();
  const frames: Frame[] = [];
  let aliasNodes = 0;
  for (const event of events) {
    switch (event.type) {
      case EVENT_ID.DOCUMENT:
        sizes.clear();
        open.clear();
        aliasNodes = 0;
        frames.push({ nodes: 0, anchor: undefined });
        break;
      case EVENT_ID.SEQUENCE:
      case EVENT_ID.MAPPING: {
        const anchor = event.anchorStart === -1
          ? undefined
          : text.slice(event.anchorStart, event.anchorEnd);
        if (anchor !== undefined) open.add(anchor);
        frames.push({ nodes: 1, anchor });
        break;
      }
      case EVENT_ID.SCALAR: {
        if (event.anchorStart !== -1) {
          sizes.set(text.slice(event.anchorStart, event.anchorEnd), 1);
        }
        frames[frames.length - 1].nodes += 1;
        break;
      }
      case EVENT_ID.ALIAS: {
        const name = text.slice(event.anchorStart, event.anchorEnd);
        if (open.has(name)) {
          return {
            offset: event.anchorStart - 1,
            message:
              `Recursive alias "*${name}": the node refers to itself, so its value would be infinite`,
          };
        }
        const size = sizes.get(name);
        if (size === undefined) {
          return {
            offset: event.anchorStart - 1,
            message:
              `Unknown alias "*${name}": expected an anchor "&${name}" earlier in the document`,
          };
        }
        aliasNodes += size;
        if (aliasNodes > YAML_MAX_ALIAS_NODES) {
          return {
            offset: event.anchorStart - 1,
            message:
              `Aliases expand to more than ${YAML_MAX_ALIAS_NODES} nodes: refused as an alias bomb ("billion laughs"); expected fewer or smaller aliased nodes`,
          };
        }
        frames[frames.length - 1].nodes += size;
        break;
      }
      case EVENT_ID.POP: {
        const frame = frames.pop()!;
        if (frame.anchor !== undefined) {
          open.delete(frame.anchor);
          sizes.set(frame.anchor, frame.nodes);
        }
        if (frames.length > 0) frames[frames.length - 1].nodes += frame.nodes;
        break;
      }
    }
  }
  return undefined;
}
