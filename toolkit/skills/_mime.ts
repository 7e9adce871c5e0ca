// The MIME type of a skill file from its extension, for files whose author
// gave none. Text types are served as `text`, everything else as `blob`.

const TYPES: Record<string, string> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  csv: "text/csv",
  html: "text/html",
  htm: "text/html",
  css: "text/css",
  xml: "application/xml",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  js: "text/javascript",
  mjs: "text/javascript",
  ts: "text/x-typescript",
  py: "text/x-python",
  sh: "text/x-shellscript",
  rb: "text/x-ruby",
  go: "text/x-go",
  rs: "text/x-rust",
  sql: "application/sql",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
  zip: "application/zip",
};

/** The type a file of this path is served with; unknown extensions are bytes. */
export function mimeTypeOf(path: string): string {
  const dot = path.lastIndexOf(".");
  const slash = path.lastIndexOf("/");
  if (dot <= slash + 1) return "application/octet-stream";
  return TYPES[path.slice(dot + 1).toLowerCase()] ?? "application/octet-stream";
}

/** Whether content of this type is text, so served as `text` when it is UTF-8. */
export function isTextType(mimeType: string): boolean {
  const base = mimeType.split(";")[0].trim().toLowerCase();
  return base.startsWith("text/") || base === "image/svg+xml" ||
    /^application\/(?:json|xml|yaml|toml|sql|javascript)$/.test(base) ||
    base.endsWith("+json") || base.endsWith("+xml");
}
