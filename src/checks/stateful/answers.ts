/** An answer as a model keeps it: enough to tell whether a replay returned the original response. */
import type { ProbeResponse } from '../../rule/index.ts';

export interface Answer {
  status: number;
  text: string;
  json: unknown;
}

export function answer(res: ProbeResponse): Answer {
  return { status: res.status, text: res.text, json: res.json };
}

export function summary(a: Answer): string {
  const body = a.text.length === 0 ? 'empty body' : a.text.length > 160 ? `${a.text.slice(0, 160)}…` : a.text;
  return `${a.status} (${body})`;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).sort(([x], [y]) => x.localeCompare(y)).map(([k, v]) => [k, canonical(v)]));
  return value;
}

/** Same status and the same JSON (key order aside), or the same text when there is no JSON. */
export function sameAnswer(a: Answer, b: Answer): boolean {
  if (a.status !== b.status) return false;
  if (a.json !== undefined || b.json !== undefined) return JSON.stringify(canonical(a.json)) === JSON.stringify(canonical(b.json));
  return a.text === b.text;
}

/** Only an accepted request is replayed: a refusal carries its own requestId, so two refusals differ. */
export function accepted(entry: { answer: Answer }): boolean {
  return entry.answer.status >= 200 && entry.answer.status < 300;
}
