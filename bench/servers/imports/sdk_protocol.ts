// Start-up cost of the SDK's Protocol class (types.js plus request and
// response bookkeeping): this import, then the raw loop answers initialize.
import "@modelcontextprotocol/sdk/shared/protocol.js";
import "../raw_echo.ts";
