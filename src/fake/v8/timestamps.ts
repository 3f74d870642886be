/** "ISO 8601 UTC" written another legal way: a `+00:00` offset and microseconds instead of `Z` (used by variants). */
export function utcWithOffset(iso: string): string {
  const at = new Date(iso).toISOString();
  return `${at.slice(0, 19)}.${at.slice(20, 23)}000+00:00`;
}
