/** Kept apart from journal.ts (which uses Node's Buffer) so the k6 scripts can bundle it. */

/** The media type of a header record, lower-cased, without parameters. */
export function mediaType(headers: Readonly<Record<string, string>>): string {
  return (headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
}
