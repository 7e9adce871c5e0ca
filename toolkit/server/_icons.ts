// Checks the `icons` of a definition at registration, so a bad icon is a
// TypeError at start-up rather than a broken image in a client.

import { isRecord, jsonType } from "../_util/json_type.ts";
import type { Icon } from "./icon.ts";

const SIZE = /^(?:[1-9][0-9]*x[1-9][0-9]*|any)$/;

/**
 * A checked copy of `icons` (`undefined` stays `undefined`); throws a
 * TypeError that starts with `action` and names the icon and field.
 */
export function checkIcons(
  icons: unknown,
  action: string,
): Icon[] | undefined {
  if (icons === undefined) return undefined;
  if (!Array.isArray(icons)) {
    throw new TypeError(
      `${action}: icons: expected an array of { src }, got ${jsonType(icons)}`,
    );
  }
  return icons.map((icon, i) => checkIcon(icon, `${action}: icons[${i}]`));
}

function checkIcon(icon: unknown, where: string): Icon {
  if (!isRecord(icon)) {
    throw new TypeError(`${where}: expected { src }, got ${jsonType(icon)}`);
  }
  const { src, mimeType, sizes, theme } = icon;
  if (typeof src !== "string") {
    throw new TypeError(
      `${where}.src: expected a string, got ${jsonType(src)}`,
    );
  }
  const scheme = URL.canParse(src) ? new URL(src).protocol : undefined;
  if (scheme !== "https:" && scheme !== "data:") {
    throw new TypeError(
      `${where}.src: expected an https: URL or a data: URI, got ${
        JSON.stringify(src.length > 80 ? `${src.slice(0, 80)}…` : src)
      }`,
    );
  }
  if (mimeType !== undefined && typeof mimeType !== "string") {
    throw new TypeError(
      `${where}.mimeType: expected a string such as "image/png", got ${
        jsonType(mimeType)
      }`,
    );
  }
  if (
    sizes !== undefined &&
    !(Array.isArray(sizes) &&
      sizes.every((s) => typeof s === "string" && SIZE.test(s)))
  ) {
    throw new TypeError(
      `${where}.sizes: expected an array of "WxH" or "any", such as ["48x48"], got ${
        JSON.stringify(sizes)
      }`,
    );
  }
  if (theme !== undefined && theme !== "light" && theme !== "dark") {
    throw new TypeError(
      `${where}.theme: expected "light" or "dark", got ${
        JSON.stringify(theme)
      }`,
    );
  }
  return {
    ...icon,
    ...(sizes === undefined ? {} : { sizes: [...sizes as string[]] }),
  } as Icon;
}
