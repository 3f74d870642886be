/** Kept apart from journal.ts (which uses Node's Buffer) so the k6 scripts can bundle it. */

/** The media type of a header record, lower-cased, without parameters. */
export function mediaType(headers: Readonly<Record<string, string>>): string {
  return mediaTypeOf(headers['content-type']);
}

/** The media type of a Content-Type value, lower-cased, without parameters ('' for none). */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

/**
 * The charset a Content-Type names when it is not UTF-8 (lower-cased), else undefined. RFC 8259 §11
 * defines no charset for application/json ("Adding one really has no effect on compliant
 * recipients") and §8.1 has JSON exchanged between systems "MUST be encoded using UTF-8": a body
 * labelled with another encoding may be read as if unlabelled or refused, and both readings are held open.
 */
export function otherCharset(contentType: string | undefined): string | undefined {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  return charset === undefined || charset === 'utf-8' || charset === 'utf8' ? undefined : charset;
}
