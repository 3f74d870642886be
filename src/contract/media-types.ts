/** Media types the seeds name, as plain data (the k6 scripts bundle what imports them and cannot bundle zod). */

/** Both surfaces' failures: "`application/problem+json` (RFC 9457)". */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
