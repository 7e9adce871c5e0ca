/**
 * The everything server's skills (the MCP skills extension, SEP-2640), for
 * the `sep-2640-*` conformance scenarios: `pdf-processing`, whose files sit
 * in subdirectories so `resources/directory/read` has a directory to
 * descend into, and `refunds` under the organisational prefix
 * `acme/billing`.
 *
 * @module
 */

import type { ToolServer } from "@forge/toolkit";
import { defineSkill } from "@forge/toolkit/skills";

const PDF_SKILL_MD = `---
name: pdf-processing
description: Extract, fill, and assemble PDF documents
license: Apache-2.0
metadata:
  version: "2.1.0"
---

# PDF processing

1. To fill a form, read \`references/FORMS.md\` first.
2. To assemble a document, pick the matching template from \`templates/\`
   (regional variants are in \`templates/regional/\`).
`;

const REFUNDS_SKILL_MD = `---
name: refunds
description: Process customer refund requests per company policy
---

Check the order against \`examples/email.md\` before answering the customer.
`;

/** Registers the example skills. */
export function registerSkills(server: ToolServer): void {
  server.skill(defineSkill({
    files: {
      "SKILL.md": PDF_SKILL_MD,
      "references/FORMS.md":
        "# Form fields\n\nFill every field marked required; leave the rest empty.\n",
      "templates/invoice.md": "# Invoice\n\nNumber: {number}\nTotal: {total}\n",
      "templates/regional/eu-invoice.md":
        "# Invoice (EU)\n\nNumber: {number}\nVAT: {vat}\nTotal: {total}\n",
    },
    cache: { ttlMs: 300_000, cacheScope: "public" },
  }));
  server.skill(defineSkill({
    prefix: "acme/billing",
    files: {
      "SKILL.md": REFUNDS_SKILL_MD,
      "examples/email.md":
        "Dear customer,\n\nYour refund of {amount} is on its way.\n",
    },
  }));
}
