// Start-up cost of the SDK's types.js (zod schemas of every protocol
// message): this import, then the raw loop answers initialize.
import "@modelcontextprotocol/sdk/types.js";
import "../raw_echo.ts";
