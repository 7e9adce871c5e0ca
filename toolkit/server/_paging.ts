// Cursor pagination of the list methods. A cursor names the place of the
// next item: its registration's sequence number and its index within that
// registration's items (a resource template lists many). Places survive
// changes between pages: a removed entry does not shift the rest, an added
// one appears at the end. Cursors are opaque to clients (base64url JSON) and
// name the method they belong to, so one list's cursor is refused by another.

import { ProtocolError, RPC_ERROR } from "../jsonrpc/errors.ts";
import { jsonType } from "../_util/json_type.ts";
import type { Placed } from "./resources.ts";

/** One page of a list, and the cursor of the next when there is more. */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

interface Position {
  seq: number;
  index: number;
}

/**
 * The page of `placed` (sorted by place) that starts at `cursor`, at most
 * `pageSize` items (`undefined`: all). A cursor that is not one this server
 * issued for `method` is -32602.
 */
export async function paginate<T>(
  method: string,
  placed: Placed<T>[],
  cursor: unknown,
  pageSize: number | undefined,
): Promise<Page<T>> {
  const from = cursor === undefined ? undefined : decodeCursor(method, cursor);
  const limit = pageSize ?? Infinity;
  const items: T[] = [];
  for (const entry of placed) {
    if (from !== undefined && entry.seq < from.seq) continue;
    const all = await entry.items();
    let index = from !== undefined && entry.seq === from.seq ? from.index : 0;
    for (; index < all.length; index++) {
      if (items.length === limit) {
        return { items, nextCursor: encodeCursor(method, entry.seq, index) };
      }
      items.push(all[index]);
    }
  }
  return { items };
}

/** Checks the `cursor` param of a list method: absent, or a string. */
export function cursorParam(
  params: Record<string, unknown>,
  method: string,
): string | undefined {
  const cursor = params.cursor;
  if (cursor === undefined || typeof cursor === "string") return cursor;
  throw new ProtocolError(
    RPC_ERROR.INVALID_PARAMS,
    `Invalid params for ${method}: cursor: expected string, got ${
      jsonType(cursor)
    }`,
  );
}

function encodeCursor(method: string, seq: number, index: number): string {
  const json = JSON.stringify({ m: method, s: seq, i: index });
  return btoa(json).replaceAll("+", "-").replaceAll("/", "_").replace(
    /=+$/,
    "",
  );
}

function decodeCursor(method: string, cursor: unknown): Position {
  let decoded: unknown;
  if (typeof cursor === "string") {
    try {
      const base64 = cursor.replaceAll("-", "+").replaceAll("_", "/");
      decoded = JSON.parse(atob(base64));
    } catch {
      decoded = undefined;
    }
  }
  const position = decoded as { m?: unknown; s?: unknown; i?: unknown };
  if (
    position?.m !== method || !Number.isSafeInteger(position.s) ||
    !Number.isSafeInteger(position.i) || (position.i as number) < 0
  ) {
    throw new ProtocolError(
      RPC_ERROR.INVALID_PARAMS,
      `Invalid cursor for ${method}: expected the nextCursor of an earlier ${method} answer, got ${
        JSON.stringify(cursor)
      }`,
    );
  }
  return { seq: position.s as number, index: position.i as number };
}
