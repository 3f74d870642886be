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

/**
 * An ISO 8601 date and time of day with its zone designator (calendar date, `T`): basic
 * (`20260101T000000Z`) or extended (`2026-01-01T00:00:00Z`) format, never mixed in one value (ISO
 * 8601-1 requires one format throughout); reduced precision (`T00:00Z`, `T00Z`); a decimal fraction
 * of the lowest-order component with `.` or `,`; `Z`, `±hh`, `±hh:mm` (extended) or `±hhmm` (basic).
 * RFC 3339 5.6, citing ISO 8601: "the "T" and "Z" characters ... may alternatively be lower case".
 */
const EXTENDED = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2})(?::(\d{2})(?::(\d{2}))?)?(?:[.,](\d+))?(?:([Zz])|([+-])(\d{2})(?::(\d{2}))?)$/;
const BASIC = /^(\d{4})(\d{2})(\d{2})[Tt](\d{2})(?:(\d{2})(\d{2})?)?(?:[.,](\d+))?(?:([Zz])|([+-])(\d{2})(\d{2})?)$/;

/** The instant and zone offset (minutes) of an ISO 8601 date-time with a zone designator, or undefined. */
export function isoDateTime(value: string): { ms: number; offsetMinutes: number } | undefined {
  const m = EXTENDED.exec(value) ?? BASIC.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour] = [m[1], m[2], m[3], m[4]].map(Number) as [number, number, number, number];
  const minute = m[5] === undefined ? undefined : Number(m[5]);
  const second = m[6] === undefined ? undefined : Number(m[6]);
  const fraction = m[7] === undefined ? 0 : Number(`0.${m[7]}`);
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  // 24:00 is the end of the day (ISO 8601-1); 60 seconds a leap second.
  if (hour > 24 || (hour === 24 && ((minute ?? 0) > 0 || (second ?? 0) > 0 || fraction > 0)) || (minute ?? 0) > 59 || (second ?? 0) > 60) return undefined;
  const offH = m[10] === undefined ? 0 : Number(m[10]);
  const offM = m[11] === undefined ? 0 : Number(m[11]);
  if (offH > 23 || offM > 59) return undefined;
  const offsetMinutes = m[8] !== undefined ? 0 : (m[9] === '-' ? -1 : 1) * (offH * 60 + offM);
  // The fraction belongs to the lowest-order component written.
  const unitMs = second !== undefined ? 1_000 : minute !== undefined ? 60_000 : 3_600_000;
  const ms = Date.UTC(year, month - 1, day, hour, minute ?? 0, second ?? 0) + Math.round(fraction * unitMs) - offsetMinutes * 60_000;
  return Number.isFinite(ms) ? { ms, offsetMinutes } : undefined;
}

/** The instant an ISO 8601 date-time names, in milliseconds since the epoch (what `Date.parse` cannot read of the basic format). */
export function isoInstant(value: string): number | undefined {
  return isoDateTime(value)?.ms;
}

/** "ISO 8601 UTC": `Z`, or a zero offset (`+00:00`, `+0000`, `+00`), in either format. */
export const isoUtc = z.string().refine((v) => isoDateTime(v)?.offsetMinutes === 0, 'not an ISO 8601 UTC date-time');

/** "(ISO 8601)" without "UTC": a date-time with any zone designator. */
export const isoDateTimeString = z.string().refine((v) => isoDateTime(v) !== undefined, 'not an ISO 8601 date-time');

/**
 * "(timestamp)": the seed names no format, so an ISO 8601 date-time or an epoch number both
 * count; the checks record which one a target uses.
 */
export const timestamp = z.union([isoDateTimeString, z.number().nonnegative()]);

/** "a number 0-1" for evidence and coverage scores. */
export const unitScore = z.number().min(0).max(1);
