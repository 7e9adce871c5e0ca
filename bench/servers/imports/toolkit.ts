// Start-up cost of the toolkit's main entry (everything it imports, no
// tool registered): this import, then the raw loop answers initialize.
import "@forge/toolkit";
import "../raw_echo.ts";
