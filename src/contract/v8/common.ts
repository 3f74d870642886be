import { z } from 'zod';

export const CONTRACT_HEADER = 'x-service-contract-version';
export const CONTRACT_VERSION = 'service-integration-gateway-v8.1';

/** "16-128 characters, only alphanumerics and `.`, `_`, `:`, `-`" */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._:-]{16,128}$/;
export const idempotencyKey = z.string().regex(IDEMPOTENCY_KEY_PATTERN);

/** traceId and skillId: "1-256 chars, pattern `^[A-Za-z0-9][A-Za-z0-9._:-]*$`" */
export const pathIdentifier = z.string().min(1).max(256).regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/);

export const HEALTH_STATES = ['healthy', 'degraded', 'unavailable', 'quarantined'] as const;
export const healthState = z.enum(HEALTH_STATES);

/** ISO 8601 in UTC: the seed says "ISO 8601 UTC", so a `Z` or `+00:00` suffix. */
export const isoUtc = z.iso.datetime({ offset: true }).refine((v) => /(Z|[+-]00:?00)$/.test(v), 'not UTC');

/**
 * "(timestamp)": the seed names no format, so an ISO 8601 date-time or an epoch number both
 * count; the checks record which one a target uses.
 */
export const timestamp = z.union([z.iso.datetime({ offset: true }), z.number().nonnegative()]);

/** "a number 0-1" for evidence and coverage scores. */
export const unitScore = z.number().min(0).max(1);
