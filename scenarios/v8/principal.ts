/**
 * The two principals of the reference fake. The embedded profile labels its credentials with the
 * same names, so the fake's ownership of skills, traces and memory lines up with the profile.
 */
export const PRIMARY_PRINCIPAL = 'principal-a';
export const SECOND_PRINCIPAL = 'principal-b';
/** A principal on a low rate-limit tier: the fake limits its mission creates per window, so a bounded burst reaches 429. */
export const RATE_PROBE_PRINCIPAL = 'principal-rate-probe';
