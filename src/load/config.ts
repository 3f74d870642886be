/**
 * Every setting of the load scripts, read from environment variables (`k6 run -e NAME=value`, or
 * the process environment, which is how `apicert load` passes credentials). Strict: a value that
 * is not what it should be stops the script with a message naming the variable, not a NaN.
 * Pure (k6 bundles it); vitest builds the same configuration from the fake's profile.
 */
import { minimalTurn } from '../../scenarios/v1/turns.ts';
import { taskScenarios } from '../../scenarios/v1/runs.ts';
import { missionScenarios } from '../../scenarios/v8/missions.ts';
import { canonicalJson } from '../util/json.ts';
import type { LoadScript } from './rules.ts';

export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {}

export interface EnvVar {
  name: string;
  /** What it holds; secrets are marked so nothing prints them. */
  about: string;
  secret?: boolean;
  default?: string;
}

/** The documented variables (README and `apicert load --help` are generated from the same list). */
export const ENV_VARS: readonly EnvVar[] = [
  { name: 'APICERT_BASE_URL', about: 'base URL of the target', default: 'http://127.0.0.1:8080' },
  { name: 'APICERT_V8_TOKEN', about: '/v8 token with missions:read and missions:write', secret: true },
  { name: 'APICERT_V8_RATE_LIMIT_TOKEN', about: '/v8 token of a principal on a tier the ramp can exhaust (default: APICERT_V8_TOKEN)', secret: true },
  { name: 'APICERT_V8_OTHER_PRINCIPAL_TOKEN', about: '/v8 token of another principal with missions:write (judges that the rate limit is per principal)', secret: true },
  { name: 'APICERT_V1_KEY', about: '/v1 key (service_sk_...) with runs:read and runs:write', secret: true },
  { name: 'APICERT_V1_RATE_LIMIT_KEY', about: '/v1 key of the primary principal on a tier the ramp can exhaust (default: APICERT_V1_KEY)', secret: true },
  { name: 'APICERT_V1_LIMITER_DOWN_KEY', about: '/v1 key whose rate limiter is unavailable (judges the fail-closed 503)', secret: true },
  { name: 'APICERT_MISSION_BODY', about: 'JSON create body of a mission that succeeds on this target', default: 'the reference fake\'s "succeeds" scenario' },
  { name: 'APICERT_V1_TASK_BODY', about: 'JSON task-mode execute body of a run that completes', default: 'the reference fake\'s "completes" scenario' },
  { name: 'APICERT_V1_OTHER_TASK_BODY', about: 'JSON task-mode execute body other than APICERT_V1_TASK_BODY that the target admits: the different request sent under a used key', default: 'the reference fake\'s "fails" scenario' },
  { name: 'APICERT_V1_TURN_BODY', about: 'JSON turn-mode execute body (its requestId is replaced per storm)', default: 'the smallest valid turn body' },
  { name: 'APICERT_ITERATIONS', about: 'iterations of the storm and fan-out scripts (shared by all VUs)', default: '3' },
  { name: 'APICERT_VUS', about: 'VUs of the storm and fan-out scripts', default: '1' },
  { name: 'APICERT_MAX_DURATION', about: 'time limit of every scenario (k6 duration: 500ms, 30s, 2m)', default: '60s' },
  { name: 'APICERT_STORM', about: 'concurrent requests per storm phase', default: '20' },
  { name: 'APICERT_READERS', about: 'concurrent readers of one stream', default: '25' },
  { name: 'APICERT_RESUMERS', about: 'readers that resume with Last-Event-ID per stream', default: '5' },
  { name: 'APICERT_STREAM_TIMEOUT', about: 'how long a reader waits for a stream to close', default: '30s' },
  { name: 'APICERT_RATE_START', about: 'arrival rate (requests/s) the rate-limit ramps start at', default: '5' },
  { name: 'APICERT_RATE_MAX', about: 'arrival rate (requests/s) the rate-limit ramps end at', default: '100' },
  { name: 'APICERT_RAMP', about: 'duration of a rate-limit ramp', default: '30s' },
  { name: 'APICERT_MAX_VUS', about: 'VUs a rate-limit ramp may use (also caps the other-principal probes: one per VU)', default: '20' },
  { name: 'APICERT_LIMITER_DOWN_REQUESTS', about: 'requests sent with APICERT_V1_LIMITER_DOWN_KEY', default: '5' },
  { name: 'APICERT_SUMMARY_OUT', about: 'where handleSummary writes the JSON summary', default: 'apicert-<script>.summary.json' },
  { name: 'APICERT_SUMMARY_STDOUT', about: 'set to 1 to also print the summary as one "apicert-load-summary:" line (k6-operator pods)' },
  { name: 'APICERT_HEADERS', about: 'JSON {"v8": {"name": "value"}, "v1": {...}}: extra request headers per surface (the profile\'s network.headers and --header)', secret: true },
  { name: 'APICERT_TLS_CERT', about: 'client certificate (PEM text) for mutual TLS, given to k6 as tlsAuth (network.tls.cert)', secret: true },
  { name: 'APICERT_TLS_KEY', about: 'the client certificate\'s private key (PEM text, unencrypted; network.tls.key)', secret: true },
  { name: 'APICERT_K6_MAX_MEMORY', about: 'MiB of resident memory k6 may use before `apicert load` stops it (its verdicts then inconclusive); read by apicert, not the scripts', default: '1024' },
];

export interface LoadConfig {
  baseUrl: string;
  v8Token?: string;
  v8RateToken?: string;
  v8OtherToken?: string;
  v1Key?: string;
  v1RateKey?: string;
  v1LimiterDownKey?: string;
  missionBody: unknown;
  taskBody: unknown;
  otherTaskBody: unknown;
  turnBody: Record<string, unknown>;
  iterations: number;
  vus: number;
  maxDuration: string;
  storm: number;
  readers: number;
  resumers: number;
  streamTimeoutMs: number;
  rateStart: number;
  rateMax: number;
  ramp: string;
  maxVus: number;
  limiterDownRequests: number;
}

function defaultOf(name: string): string {
  return ENV_VARS.find((v) => v.name === name)?.default ?? '';
}

function text(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function whole(env: Env, name: string, min: number, max: number): number {
  const raw = text(env, name) ?? defaultOf(name);
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new ConfigError(`${name}=${raw} is not a whole number from ${min} to ${max}: for example -e ${name}=${defaultOf(name)}`);
  return Number(raw);
}

/**
 * The memory cap `apicert load` holds k6 to (MiB of resident memory): k6 buffers each response body
 * whole, and no k6 option caps a body's size, so a target flooding its event streams grows k6 by
 * readers x stream bytes received within APICERT_STREAM_TIMEOUT. 1024 by default: k6 v0.48.0 (Babel)
 * holds 330-420 MiB on the default settings against the fake (v1.3.0 about 50), so 512 left little room.
 */
export function k6MemoryCapMiB(env: Env): number {
  return whole(env, 'APICERT_K6_MAX_MEMORY', 64, 1_048_576);
}

const DURATION = /^(\d+(ms|s|m|h))+$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function durationMs(value: string): number {
  let total = 0;
  for (const m of value.matchAll(/(\d+)(ms|s|m|h)/g)) total += Number(m[1]) * UNIT_MS[m[2]!]!;
  return total;
}

function duration(env: Env, name: string, maxMs: number): string {
  const raw = text(env, name) ?? defaultOf(name);
  if (!DURATION.test(raw) || durationMs(raw) === 0 || durationMs(raw) > maxMs) throw new ConfigError(`${name}=${raw} is not a k6 duration up to ${maxMs / 60_000} minutes: for example -e ${name}=${defaultOf(name)}`);
  return raw;
}

function json(env: Env, name: string, fallback: unknown): unknown {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigError('not an object');
    return value;
  } catch {
    throw new ConfigError(`${name} is not a JSON object: give the request body, for example -e ${name}='{"...": ...}'`);
  }
}

/** The settings alone, never a credential: what a k6 script reads at init (`k6 archive` runs without the secrets). */
export function loadSettings(env: Env): LoadConfig {
  const baseUrl = (text(env, 'APICERT_BASE_URL') ?? defaultOf('APICERT_BASE_URL')).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/\s]+/.test(baseUrl)) throw new ConfigError(`APICERT_BASE_URL=${baseUrl} is not an http(s) URL`);
  const config: LoadConfig = {
    baseUrl,
    missionBody: json(env, 'APICERT_MISSION_BODY', missionScenarios.succeeds.request),
    taskBody: json(env, 'APICERT_V1_TASK_BODY', taskScenarios.completes.request),
    otherTaskBody: json(env, 'APICERT_V1_OTHER_TASK_BODY', taskScenarios.fails.request),
    turnBody: json(env, 'APICERT_V1_TURN_BODY', minimalTurn) as Record<string, unknown>,
    iterations: whole(env, 'APICERT_ITERATIONS', 1, 10_000),
    vus: whole(env, 'APICERT_VUS', 1, 1_000),
    maxDuration: duration(env, 'APICERT_MAX_DURATION', 3_600_000),
    storm: whole(env, 'APICERT_STORM', 2, 1_000),
    readers: whole(env, 'APICERT_READERS', 1, 20_000),
    resumers: whole(env, 'APICERT_RESUMERS', 0, 1_000),
    streamTimeoutMs: durationMs(duration(env, 'APICERT_STREAM_TIMEOUT', 600_000)),
    rateStart: whole(env, 'APICERT_RATE_START', 1, 100_000),
    rateMax: whole(env, 'APICERT_RATE_MAX', 1, 100_000),
    ramp: duration(env, 'APICERT_RAMP', 3_600_000),
    maxVus: whole(env, 'APICERT_MAX_VUS', 1, 10_000),
    limiterDownRequests: whole(env, 'APICERT_LIMITER_DOWN_REQUESTS', 1, 1_000),
  };
  if (config.rateMax < config.rateStart) throw new ConfigError(`APICERT_RATE_MAX=${config.rateMax} is below APICERT_RATE_START=${config.rateStart}`);
  return config;
}

/** Settings and the credentials given, read when the test runs. */
export function loadConfig(env: Env): LoadConfig {
  const config = loadSettings(env);
  const v1Key = text(env, 'APICERT_V1_KEY');
  const v8Token = text(env, 'APICERT_V8_TOKEN');
  const optional: Array<[keyof LoadConfig, string | undefined]> = [
    ['v8Token', v8Token],
    ['v8RateToken', text(env, 'APICERT_V8_RATE_LIMIT_TOKEN') ?? v8Token],
    ['v8OtherToken', text(env, 'APICERT_V8_OTHER_PRINCIPAL_TOKEN')],
    ['v1Key', v1Key],
    ['v1RateKey', text(env, 'APICERT_V1_RATE_LIMIT_KEY') ?? v1Key],
    ['v1LimiterDownKey', text(env, 'APICERT_V1_LIMITER_DOWN_KEY')],
  ];
  for (const [field, value] of optional) if (value !== undefined) (config as unknown as Record<string, unknown>)[field] = value;
  return config;
}

/** The credential each script cannot run without; without it every rule of the script is untestable. */
export const SCRIPT_NEEDS: Record<LoadScript, { env: string; field: 'v8Token' | 'v8RateToken' | 'v1Key' | 'v1RateKey' }> = {
  'v8-idempotency-storm': { env: 'APICERT_V8_TOKEN', field: 'v8Token' },
  'v8-stream-fanout': { env: 'APICERT_V8_TOKEN', field: 'v8Token' },
  'v8-rate-limit': { env: 'APICERT_V8_RATE_LIMIT_TOKEN', field: 'v8RateToken' },
  'v1-idempotency-storm': { env: 'APICERT_V1_KEY', field: 'v1Key' },
  'v1-events-fanout': { env: 'APICERT_V1_KEY', field: 'v1Key' },
  'v1-rate-limit': { env: 'APICERT_V1_RATE_LIMIT_KEY', field: 'v1RateKey' },
};

/** The credential a script runs with; a message saying what to set when it is missing. */
export function credentialOf(script: LoadScript, config: LoadConfig): string {
  const need = SCRIPT_NEEDS[script];
  const value = config[need.field];
  if (!value) throw new ConfigError(`${script} needs ${need.env} (${ENV_VARS.find((v) => v.name === need.env)?.about}): pass it in the environment or with -e ${need.env}=...`);
  return value;
}

/** Rules a script cannot judge with this configuration, and what would make them testable. */
export function untestableRules(script: LoadScript, config: LoadConfig): Record<string, string> {
  const out: Record<string, string> = {};
  if (script === 'v1-rate-limit' && !config.v1LimiterDownKey) out['load.v1.rate-limit.unavailable-503'] = 'no APICERT_V1_LIMITER_DOWN_KEY (fixtures.v1.limiterUnavailableCredential): give a key whose rate limiter is unavailable';
  if (script === 'v1-idempotency-storm' && canonicalJson(config.otherTaskBody) === canonicalJson(config.taskBody)) {
    out['load.v1.idempotency.storm-conflict'] = 'APICERT_V1_OTHER_TASK_BODY (fixtures.v1.tasks.fails) is the same request as APICERT_V1_TASK_BODY: give another task body the target admits';
  }
  if (script === 'v8-rate-limit' && !config.v8OtherToken) out['load.v8.rate-limit.per-principal'] = 'no APICERT_V8_OTHER_PRINCIPAL_TOKEN: give a token of a second principal';
  return out;
}

/** The arrival rate a linear ramp from rateStart to rateMax over `ramp` has reached after `elapsedMs`. */
export function rampRate(config: LoadConfig, elapsedMs: number): number {
  const share = Math.min(1, Math.max(0, elapsedMs / durationMs(config.ramp)));
  return Math.round(config.rateStart + (config.rateMax - config.rateStart) * share);
}

export type SurfaceHeaders = Partial<Record<'v8' | 'v1' | 'mcp', Record<string, string>>>;

/** RFC 9110 token characters, and values without CR, LF or NUL: what the profile's network.headers allows. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** APICERT_HEADERS, read when the test runs (its values are secrets, like the credentials); the message never repeats a value. */
export function extraHeaders(env: Env): SurfaceHeaders {
  const raw = text(env, 'APICERT_HEADERS');
  if (raw === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ConfigError('APICERT_HEADERS is not JSON: give {"v8": {"x-name": "value"}, "v1": {...}, "mcp": {...}}');
  }
  const out: SurfaceHeaders = {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigError('APICERT_HEADERS is not a JSON object of surfaces (v8, v1, mcp)');
  for (const [surface, headers] of Object.entries(value as Record<string, unknown>)) {
    if (surface !== 'v8' && surface !== 'v1' && surface !== 'mcp') throw new ConfigError(`APICERT_HEADERS: unknown surface "${surface}": use v8, v1 or mcp`);
    if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) throw new ConfigError(`APICERT_HEADERS.${surface} is not an object of header names and values`);
    const own: Record<string, string> = {};
    for (const [name, v] of Object.entries(headers as Record<string, unknown>)) {
      if (!HEADER_NAME.test(name) || typeof v !== 'string' || v === '' || /[\r\n\0]/.test(v)) throw new ConfigError(`APICERT_HEADERS.${surface}: header ${HEADER_NAME.test(name) ? name : '(name)'} needs a token name and a non-empty value without CR, LF or NUL`);
      own[name.toLowerCase()] = v;
    }
    out[surface] = own;
  }
  return out;
}

/** The surface a request URL belongs to, as src/profile/network.ts decides it (no URL class in k6). */
export function surfaceOfUrl(url: string): 'v8' | 'v1' | 'mcp' {
  const path = url.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/, '');
  if (/^\/v8(\/|$|\?)/.test(path)) return 'v8';
  if (/^\/v1(\/|$|\?)/.test(path)) return 'v1';
  return 'mcp';
}

/** The client certificate for k6's tlsAuth (APICERT_TLS_CERT and APICERT_TLS_KEY, PEM text), both or neither. */
export function clientCertificate(env: Env): { cert: string; key: string } | undefined {
  const cert = text(env, 'APICERT_TLS_CERT');
  const key = text(env, 'APICERT_TLS_KEY');
  if (cert === undefined && key === undefined) return undefined;
  if (cert === undefined || key === undefined) throw new ConfigError(`mutual TLS needs both APICERT_TLS_CERT and APICERT_TLS_KEY (PEM text): ${cert === undefined ? 'APICERT_TLS_CERT' : 'APICERT_TLS_KEY'} is missing`);
  if (!/-----BEGIN [A-Z0-9 ]+-----/.test(cert) || !/-----BEGIN [A-Z0-9 ]+-----/.test(key)) throw new ConfigError('APICERT_TLS_CERT and APICERT_TLS_KEY hold PEM text (a "-----BEGIN" line), not file paths');
  return { cert: `${cert}\n`, key: `${key}\n` };
}
