/** Settings every apicert k6 script reads from the environment (`k6 run -e NAME=value`). */
import { missionScenarios } from '../../scenarios/v8/missions.ts';

export const BASE_URL = (__ENV.APICERT_BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');

/** A v8 token with missions:read and missions:write; never printed. */
export const TOKEN = __ENV.APICERT_V8_TOKEN ?? '';

/** A create body that succeeds on this deployment; defaults to the reference fake's scenario. */
export const MISSION_BODY: unknown = __ENV.APICERT_MISSION_BODY ? JSON.parse(__ENV.APICERT_MISSION_BODY) : missionScenarios.succeeds.request;

/** Loops stop by themselves: at most this many iterations and this long. */
export const ITERATIONS = Number(__ENV.APICERT_ITERATIONS ?? 5);
export const MAX_DURATION = __ENV.APICERT_MAX_DURATION ?? '60s';

export function authHeaders(extra: Record<string, string> = {}): Record<string, string> {
  if (!TOKEN) throw new Error('set APICERT_V8_TOKEN (k6 run -e APICERT_V8_TOKEN=...) to a token with missions:read and missions:write');
  return { Authorization: `Bearer ${TOKEN}`, ...extra };
}

/** A fresh Idempotency-Key of the allowed characters. */
export function newKey(prefix: string): string {
  return `${prefix}-${__VU}-${__ITER}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

export function bodyText(body: unknown): string {
  return typeof body === 'string' ? body : '';
}
