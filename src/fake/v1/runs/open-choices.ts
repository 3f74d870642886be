/**
 * Legal choices of /v1 runs the description leaves open on the request side
 * (docs/legal-variation.md): each variant takes the other choice from the fake's default.
 */
import { isRecord } from '../../../util/json.ts';
import type { VariantSet } from '../../variants/index.ts';

/** The fabric's own run id format, enforced under `v1.runs/run-id-validated`. */
const RUN_ID_FORMAT = /^run_[0-9a-f]{24}$/;
const TEXT_MAX = 4096;

function badText(value: unknown): boolean {
  return typeof value === 'string' && (value.trim() === '' || value.length > TEXT_MAX);
}

/** Why a run's path refuses the request whatever its method, or undefined. */
export function runPathRefusal(v: VariantSet, runId: string): string | undefined {
  if (v.has('v1.runs/run-id-validated') && !RUN_ID_FORMAT.test(decodeURIComponent(runId))) return 'A run id is run_ followed by 24 hex digits.';
  return undefined;
}

/** Why an approve body is refused, or undefined. */
export function approveRefusal(v: VariantSet, body: unknown): string | undefined {
  if (isRecord(body) && v.has('v1.runs/approve-text-bounds') && (badText(body.action_digest) || badText(body.decision))) return 'action_digest and decision must be non-blank and at most 4096 characters.';
  return undefined;
}
