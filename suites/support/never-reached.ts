/**
 * Variants the clean run never reaches, and why: the fake asks for them only on a path no rule takes.
 * Every other variant must be taken (the fake bent for it) in its run, or that run proved nothing;
 * read by the variant runs (variant-runs.ts) and the recorded-variant runs (suites/passive/record.ts).
 */
export const NEVER_REACHED: Readonly<Record<string, string>> = {
  'mcp.lifecycle/initialized-required': 'no rule sends a request other than ping before notifications/initialized; the variant stands guard against one that would',
  'mcp.jsonrpc/long-id-refused': 'only the deep catalogue sends an id over 1,024 characters; suites/catalogue/audit-70.test.ts runs it at deep depth',
  'mcp.lifecycle/reinitialize-new-session': 'only the deep catalogue sends an initialize within a session; suites/mcp/server-ended-sessions.test.ts runs it at deep depth',
  'mcp.jsonrpc/lenient-json': 'only the deep catalogue sends near-JSON (a trailing comma); suites/catalogue/audit-70.test.ts runs it at deep depth',
  'v1.errors/overloaded-500-under-burst': "certify's bursts stop at the first 429 and never send five more refusals in a window; apicert load's ramp reaches it (suites/load/audit-125.test.ts)",
  'v8.contract/header-limit-431': 'only the deep catalogue sends a head past 8 KiB (a 16 KiB header); suites/v8/head-forms-variants.test.ts runs it at deep depth',
  'v8.contract/conditional-304': 'only the deep catalogue sends If-None-Match (default depth sends the Range case of header.conditional); suites/v8/head-forms-variants.test.ts runs it at deep depth',
  'v8.missions/events-accept-required': 'every read of a mission event stream sends Accept: text/event-stream (the probe client sets it); the variant stands guard against one that would not',
};
