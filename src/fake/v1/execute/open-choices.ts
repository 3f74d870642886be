/**
 * Legal choices of /v1 execute the description leaves open on the request side
 * (docs/legal-variation.md): each variant takes the other choice from the fake's default.
 */
import { isRecord } from '../../../util/json.ts';
import type { VariantSet } from '../../variants/index.ts';

/** What a turn body names that the fabric does not hold, or undefined. */
function unknownReference(body: Record<string, unknown>): string | undefined {
  if (Array.isArray(body.approvals) && body.approvals.length > 0) return 'approvals: no such approval receipt';
  for (const key of ['sessionId', 'conversationId', 'organizationId', 'modelPreference'] as const) if (body[key] !== undefined) return `${key}: not one this fabric holds`;
  if (isRecord(body.output) && body.output.schemaId !== undefined) return 'output.schemaId: no such schema';
  if (isRecord(body.tools) && [body.tools.allow, body.tools.deny].some((l) => Array.isArray(l) && l.length > 0)) return 'tools: no such tool';
  const messages = Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
  const ids = messages.map((m) => m.id);
  if (new Set(ids).size < ids.length) return 'messages: a message id is used twice';
  if (messages.some((m) => Array.isArray(m.parts) && m.parts.some((p) => isRecord(p) && p.type === 'file_reference'))) return 'messages.parts.fileId: no such file';
  return undefined;
}

/** The members of `task` the fake's task fixtures name (scenarios/v1/runs.ts). */
const TASK_MEMBERS = new Set(['scenario', 'instruction']);

/** What a task body's `task` names beyond the work this fabric takes, or undefined. */
function unknownTaskMember(body: Record<string, unknown>): string | undefined {
  if (!isRecord(body.task)) return undefined;
  const unknown = Object.keys(body.task).filter((k) => !TASK_MEMBERS.has(k));
  return unknown.length === 0 ? undefined : `task.${unknown.join(', task.')}: not a member of the work this fabric takes`;
}

/** Why a turn body is refused for naming state the fabric does not hold, or a task body for naming work it does not take; or undefined. */
export function executeRefusal(v: VariantSet, body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  // "Sub-field shapes of `task`, `context`, `policy` and `delivery`: not shown.": asked only of a task naming other members.
  if (body.mode === 'task') return unknownTaskMember(body) !== undefined && v.has('v1.execute/closed-task') ? unknownTaskMember(body) : undefined;
  if (!v.has('v1.execute/unknown-references-refused')) return undefined;
  return unknownReference(body);
}
