// Start-up cost of the toolkit's main entry (everything it imports, no
// tool registered): this import, then the raw loop answers initialize.
import "../../../mod.ts";
import "../raw_echo.ts";
