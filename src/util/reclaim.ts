/**
 * A full garbage collection when the process is above its soft memory limit. Node makes the text of
 * a body of a megabyte or more an external string, which V8 frees only in a full collection, and V8
 * starts one for such memory only after some 64 MiB of it has gathered: against a target whose every
 * answer fills the body cap, that garbage alone was a fifth of the 300 MiB apicert promises to stay
 * under. A run below the limit never collects; above it, only after such an answer and between the
 * reports. Needs `gc` (the launcher passes --expose-gc); without it V8's own timing stands.
 */
const SOFT_LIMIT = 144 * 1024 * 1024;
/** What may gather again after a collection before the next one, so that collections stay few. */
const HEADROOM = 16 * 1024 * 1024;

let limit = SOFT_LIMIT;

/** After dropping a large text: collects above the limit, then raises the limit to what the collection left plus some headroom. */
export function reclaimAboveLimit(): void {
  if (collectAbove(limit)) limit = Math.max(SOFT_LIMIT, process.memoryUsage.rss() + HEADROOM);
}

/** Between phases (the rules, then each report): collects whenever above the soft limit itself. */
export function reclaimBetweenPhases(): void {
  collectAbove(SOFT_LIMIT);
}

function collectAbove(bytes: number): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined || process.memoryUsage.rss() < bytes) return false;
  gc();
  return true;
}
