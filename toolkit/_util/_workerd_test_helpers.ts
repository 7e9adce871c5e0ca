// Test helper: Cloudflare Workers, as the toolkit sees it (`navigator.userAgent`).

/** Runs `body` where `navigator.userAgent` says Cloudflare Workers. */
export async function asWorkerd(
  body: () => Promise<void> | void,
): Promise<void> {
  const saved = Object.getOwnPropertyDescriptor(globalThis, "navigator");
  Object.defineProperty(globalThis, "navigator", {
    value: { userAgent: "Cloudflare-Workers" },
    configurable: true,
  });
  try {
    await body();
  } finally {
    if (saved === undefined) {
      delete (globalThis as { navigator?: unknown }).navigator;
    } else Object.defineProperty(globalThis, "navigator", saved);
  }
}
