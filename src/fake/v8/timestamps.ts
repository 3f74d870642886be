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
