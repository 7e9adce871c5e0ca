// The raw loop with zod loaded and a schema alive, as a server that validates
// with zod would have them: separates what zod costs in memory from what the
// toolkit costs (bench/memory.ts).
import { z } from "zod";

export const ECHO_INPUT = z.object({ text: z.string() });

// Started only once the schema exists (the loop runs at the top level).
await import("./raw_echo.ts");
