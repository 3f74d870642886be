/**
 * A full garbage collection when the process is above its soft memory limit, for code that has just
 * dropped a large text. Node makes the text of a body of a megabyte or more an external string,
 * which V8 frees only in a full collection, and V8 starts one for such memory only after some
 * 64 MiB of it has gathered: against a target whose every answer fills the body cap, that garbage
 * alone was a fifth of the 300 MiB apicert promises to stay under. Collecting only above the limit,
 * and raising the limit to what a collection could not free, keeps ordinary runs untouched and
 * collections few. Needs `gc` (the launcher passes --expose-gc); without it V8's own timing stands.
 */
const SOFT_LIMIT = 160 * 1024 * 1024;
/** What may gather again after a collection before the next one. */
const HEADROOM = 32 * 1024 * 1024;

let limit = SOFT_LIMIT;

export function reclaimAboveLimit(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined || process.memoryUsage.rss() < limit) return;
  gc();
  limit = Math.max(SOFT_LIMIT, process.memoryUsage.rss() + HEADROOM);
}
