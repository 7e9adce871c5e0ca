// Start-up cost of zod alone (every server here imports it for its
// schema): this import, then the raw loop answers initialize.
import "zod";
import "../raw_echo.ts";
