// Start-up cost of the SDK's low-level Server, which the toolkit builds on
// (Protocol plus ajv for elicitation): this import, then the raw loop
// answers initialize.
import "@modelcontextprotocol/sdk/server";
import "../raw_echo.ts";
