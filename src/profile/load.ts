import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { didYouMean } from '../util/suggest.ts';
import { profileJsonSchema } from './json-schema.ts';
import { resolveNetworkPaths } from './network.ts';
import { profileSchema, V8_SCOPES, type Profile, type ProfileInput } from './schema.ts';
import { fileReason } from '../util/file-reason.ts';

/** A profile problem the user can fix; the CLI exits 2 with this message. */
export class ProfileError extends Error {
  override readonly name = 'ProfileError';
}

/** Replaces `${NAME}` with the environment variable; a missing one is an error that names it. */
export function expandEnv(value: unknown, env: NodeJS.ProcessEnv, where = 'profile'): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      const found = env[name];
      if (found === undefined) {
        throw new ProfileError(`${where} refers to \${${name}}, but the environment variable ${name} is not set: export it or remove the reference.`);
      }
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => expandEnv(item, env, `${where}[${i}]`));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandEnv(v, env, `${where}.${k}`)]));
  }
  return value;
}

/** What `apicert profile init` writes where a deployment's own value belongs. */
export const PLACEHOLDER = 'FILL-IN';

/**
 * Where a profile still holds a placeholder: `FILL-IN` from `apicert profile init`, or the `...`
 * of a sample copied from the docs (`{ ... }` in YAML is a mapping with the key `...`). Such a
 * profile would certify something nobody chose, so it is refused before anything is sent.
 */
export function placeholdersIn(value: unknown, path = ''): string[] {
  if (typeof value === 'string') return value.includes(PLACEHOLDER) || value.trim() === '...' ? [path || '(root)'] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => placeholdersIn(item, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => (k.trim() === '...' || k.includes(PLACEHOLDER) ? [path ? `${path}.${k}` : k] : placeholdersIn(v, path ? `${path}.${k}` : k)));
  }
  return [];
}

/** The keys the profile's schema knows at a path, for "did you mean" on an unknown key. */
function knownKeysAt(path: readonly PropertyKey[]): string[] {
  let node = profileJsonSchema() as JsonSchemaNode | undefined;
  for (const part of path) {
    node = objectOf(node);
    if (!node) return [];
    node = typeof part === 'number' ? (node.items as JsonSchemaNode | undefined) : (node.properties?.[String(part)] ?? (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined));
  }
  return Object.keys(objectOf(node)?.properties ?? {});
}

interface JsonSchemaNode {
  properties?: Record<string, JsonSchemaNode>;
  additionalProperties?: JsonSchemaNode | boolean;
  items?: JsonSchemaNode;
  anyOf?: JsonSchemaNode[];
  oneOf?: JsonSchemaNode[];
}

function objectOf(node: JsonSchemaNode | undefined): JsonSchemaNode | undefined {
  if (!node) return undefined;
  if (node.properties || node.items || node.additionalProperties) return node;
  return [...(node.anyOf ?? []), ...(node.oneOf ?? [])].map(objectOf).find(Boolean);
}

function issueLine(issue: z.core.$ZodIssue): string {
  const where = issue.path.join('.') || '(root)';
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeysAt(issue.path);
    return `  - ${where}: unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"${didYouMean(k, known)}`).join(', ')}`;
  }
  return `  - ${where}: ${issue.message}`;
}

function refuseUnfilled(input: unknown, source: string): void {
  const unfilled = placeholdersIn(input);
  if (unfilled.length === 0) return;
  throw new ProfileError(`${source} still holds placeholders (${PLACEHOLDER} or ...) at: ${unfilled.slice(0, 8).join(', ')}${unfilled.length > 8 ? ` (+${unfilled.length - 8} more)` : ''}: replace each with this deployment's value (the comments "apicert profile init" writes say what each is), or delete the entry to leave its rules untestable.`);
}

export function parseProfile(input: unknown, source: string): Profile {
  refuseUnfilled(input, source);
  const result = profileSchema.safeParse(input);
  if (!result.success) {
    const lines = result.error.issues.map(issueLine);
    throw new ProfileError(`${source} is not a valid target profile:\n${lines.join('\n')}\nSee README.md, "Certifying a real deployment" (docs/profile.md has every field).`);
  }
  return result.data;
}

/**
 * A parser's complaint without the text it complains about: the `yaml` package follows its first
 * line with the neighbouring lines of the file, and V8's JSON errors quote the input, both of which
 * may hold a token written inline. The first line says where (line and column, or position).
 */
export function parseErrorLine(error: unknown): string {
  const first = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.trim();
  // V8: `Unexpected token 's', ..."{"token": sk_l"... is not valid JSON`: keep what comes before the quote.
  return first.replace(/,\s*(?:\.\.\.)?".*$/, '').replace(/:$/, '');
}

/** A profile file's text as data; a syntax error is said by its first line only, never with the file's text. */
export function parseProfileText(text: string, path: string): unknown {
  try {
    return path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ProfileError(`${path} is neither valid YAML nor JSON: ${parseErrorLine(error)}`);
  }
}

/**
 * Where a profile, as written, holds a secret inline instead of `${VAR}`: a credential's token or a
 * header value (network.headers, receiver.headers). Paths only: the values are never named.
 */
export function inlineSecretsIn(raw: unknown): string[] {
  const literal = (value: unknown) => typeof value === 'string' && value.length > 0 && !/\$\{[A-Za-z_][A-Za-z0-9_]*\}/.test(value);
  const at = (value: unknown, key: string): unknown => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined);
  const out: string[] = [];
  const credentials = at(raw, 'credentials');
  if (Array.isArray(credentials)) credentials.forEach((c, i) => literal(at(c, 'token')) && out.push(`credentials[${i}].token`));
  const headerValues = (headers: unknown, path: string) => {
    if (headers && typeof headers === 'object' && !Array.isArray(headers)) for (const [name, value] of Object.entries(headers)) if (literal(value)) out.push(`${path}.${name}`);
  };
  const network = at(at(raw, 'network'), 'headers');
  for (const surface of ['v8', 'v1', 'mcp']) headerValues(at(network, surface), `network.headers.${surface}`);
  headerValues(at(at(raw, 'receiver'), 'headers'), 'receiver.headers');
  return out;
}

/** Loopback: the fake's own profile (`apicert fake`) or a container on this host, whose tokens are throwaway. */
export function isLoopbackUrl(url: string | undefined): boolean {
  const host = url ? URL.parse(url)?.hostname : undefined;
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host ?? '');
}

/** The one-line warning for secrets written inline, naming the fields (never the values). */
export function inlineSecretsWarning(source: string, fields: readonly string[]): string {
  return `${source} writes ${fields.length === 1 ? 'a secret' : `${fields.length} secrets`} inline (${fields.slice(0, 4).join(', ')}${fields.length > 4 ? `, +${fields.length - 4} more` : ''}): a file is copied, committed and shown in logs; write \${VAR} there and export the value (docs/profile.md, "Secrets in a profile")`;
}

export interface LoadOverrides {
  /** Replaces the profile's target (certify --image knows it only once the container runs). */
  target?: string;
  /** The environment variable the path came from (APICERT_PROFILE), said when the file cannot be read: no flag named it. */
  namedBy?: string;
  /** Where a warning about the file goes (a secret written inline); stderr when not given. */
  onWarning?: (line: string) => void;
}

export async function loadProfileFile(path: string, env: NodeJS.ProcessEnv = process.env, overrides: LoadOverrides = {}): Promise<Profile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    // The code, not Node's sentence (which repeats the path), and what to give instead.
    const reason = fileReason((error as NodeJS.ErrnoException).code) ?? (error as Error).message;
    const { namedBy } = overrides;
    if (namedBy) throw new ProfileError(`cannot read profile ${path}, which the environment variable ${namedBy} names: ${reason}: set ${namedBy} to the path of a profile file (YAML or JSON), such as one "apicert profile init" writes, or unset it`);
    throw new ProfileError(`cannot read profile ${path}: ${reason}: give the path of a profile file (YAML or JSON), such as one "apicert profile init" writes`);
  }
  const raw = parseProfileText(text, path);
  // Before ${VAR} expansion: a template's placeholders are the first thing to say, not its unset variables.
  refuseUnfilled(raw, path);
  const expanded = expandEnv(raw, env, path);
  const withTarget = overrides.target !== undefined && expanded && typeof expanded === 'object' && !Array.isArray(expanded) ? { ...expanded, target: overrides.target } : expanded;
  const profile = parseProfile(withTarget, path);
  // Said once the file is known to be a profile; the receiver's headers are certify-receiver's to say.
  const inline = inlineSecretsIn(raw).filter((field) => !field.startsWith('receiver.'));
  if (inline.length > 0 && !isLoopbackUrl(profile.target)) (overrides.onWarning ?? ((line) => console.error(`apicert: warning: ${line}`)))(inlineSecretsWarning(path, inline));
  if (!profile.network) return profile;
  return { ...profile, network: resolveNetworkPaths(profile.network, dirname(path)) };
}

/**
 * What a `--target` credential variable cannot hold, said by the variable's name (never its value):
 * a placeholder copied from a sample, or blanks and line breaks, which no bearer token holds
 * (RFC 6750, section 2.1: b64token) and which would be sent and refused as if the target were wrong.
 */
function envTokenProblem(name: string, value: string): string | undefined {
  if (placeholdersIn(value).length > 0) return `${name} holds a placeholder (${PLACEHOLDER} or ...), not a token: export this deployment's token in it, or unset it to leave the rules that need it untestable`;
  if (value.trim() === '') return `${name} is set but blank: export this deployment's token in it, or unset it to leave the rules that need it untestable`;
  if (/[\s\x00-\x1f\x7f]/.test(value)) return `${name} holds spaces or line breaks, which no bearer token does (RFC 6750, section 2.1): export the token alone, without "Bearer " before it or a line break after it`;
  return undefined;
}

/**
 * `--target URL` without a profile: credentials come from environment variables, and every rule
 * that needs a fixture or a second credential is reported untestable. A variable set to the empty
 * string counts as unset (an unset CI secret); one that holds no token is an error naming it.
 */
export function profileFromEnv(target: string, env: NodeJS.ProcessEnv = process.env): Profile {
  const credentials: ProfileInput['credentials'] = [];
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name];
    if (!value) return undefined;
    const problem = envTokenProblem(name, value);
    if (problem) problems.push(problem);
    return problem ? undefined : value;
  };
  const v8 = read('APICERT_V8_TOKEN');
  if (v8) credentials.push({ name: 'v8-full', token: v8, surfaces: ['v8'], scopes: [...V8_SCOPES] });
  const expired = read('APICERT_V8_EXPIRED_TOKEN');
  if (expired) credentials.push({ name: 'v8-expired', token: expired, surfaces: ['v8'], scopes: [...V8_SCOPES], expired: true });
  const other = read('APICERT_V8_OTHER_PRINCIPAL_TOKEN');
  if (other) credentials.push({ name: 'v8-other-principal', token: other, surfaces: ['v8'], scopes: [...V8_SCOPES], principal: 'other' });
  const v1 = read('APICERT_V1_KEY');
  if (v1) credentials.push({ name: 'v1-full', token: v1, surfaces: ['v1'], scopes: ['runs:read', 'runs:write'] });
  const mcp = read('APICERT_MCP_TOKEN');
  if (mcp) credentials.push({ name: 'mcp', token: mcp, surfaces: ['mcp'] });
  const where = '--target reads its credentials from the environment; "apicert help env" lists the variables';
  if (problems.length === 1) throw new ProfileError(`${problems[0]} (${where})`);
  if (problems.length > 1) throw new ProfileError(`${problems.length} variables hold no token (${where}):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  try {
    return parseProfile({ target, credentials }, '--target');
  } catch (error) {
    if (error instanceof ProfileError) throw error;
    // Not echoed: a target that failed to parse may still carry a key in its query.
    throw new ProfileError(`--target: ${(error as z.ZodError).message}`);
  }
}
