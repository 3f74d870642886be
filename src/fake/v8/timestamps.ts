/** "ISO 8601 UTC" written another legal way: a `+00:00` offset and microseconds instead of `Z` (used by variants). */
export function utcWithOffset(iso: string): string {
  const at = new Date(iso).toISOString();
  return `${at.slice(0, 19)}.${at.slice(20, 23)}000+00:00`;
}

/** The same instant written in another zone, `+HH:00` (operation times are "ISO 8601", not necessarily UTC). */
export function inZone(iso: string, hours: number): string {
  const shifted = new Date(Date.parse(iso) + hours * 3_600_000).toISOString();
  return `${shifted.slice(0, 23)}+${String(hours).padStart(2, '0')}:00`;
}

/**
 * The same instant in ISO 8601 basic format (`20260101T000000,123Z`), as many libraries write it
 * (PHP's DATE_ISO8601, Java's `yyyyMMdd'T'HHmmss`): a comma before the fraction, `Z` or `±hhmm`.
 */
export function basicFormat(iso: string, hours = 0): string {
  const at = new Date(Date.parse(iso) + hours * 3_600_000).toISOString();
  const digits = `${at.slice(0, 10).replaceAll('-', '')}T${at.slice(11, 19).replaceAll(':', '')},${at.slice(20, 23)}`;
  return hours === 0 ? `${digits}Z` : `${digits}${hours < 0 ? '-' : '+'}${String(Math.abs(hours)).padStart(2, '0')}00`;
}
