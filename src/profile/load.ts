import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { resolveNetworkPaths } from './network.ts';
import { profileSchema, V8_SCOPES, type Profile, type ProfileInput } from './schema.ts';

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

export function parseProfile(input: unknown, source: string): Profile {
  const result = profileSchema.safeParse(input);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  - ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new ProfileError(`${source} is not a valid target profile:\n${lines.join('\n')}\nSee README.md, "Certifying a real deployment".`);
  }
  return result.data;
}

/** `overrides.target` replaces the profile's target (certify --image knows it only once the container runs). */
export async function loadProfileFile(path: string, env: NodeJS.ProcessEnv = process.env, overrides: { target?: string } = {}): Promise<Profile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ProfileError(`cannot read profile ${path}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ProfileError(`${path} is neither valid YAML nor JSON: ${(error as Error).message}`);
  }
  const expanded = expandEnv(raw, env, path);
  const withTarget = overrides.target !== undefined && expanded && typeof expanded === 'object' && !Array.isArray(expanded) ? { ...expanded, target: overrides.target } : expanded;
  const profile = parseProfile(withTarget, path);
  if (!profile.network) return profile;
  return { ...profile, network: resolveNetworkPaths(profile.network, dirname(path)) };
}

/**
 * `--target URL` without a profile: credentials come from environment variables, and every rule
 * that needs a fixture or a second credential is reported untestable.
 */
export function profileFromEnv(target: string, env: NodeJS.ProcessEnv = process.env): Profile {
  const credentials: ProfileInput['credentials'] = [];
  const v8 = env.APICERT_V8_TOKEN;
  if (v8) credentials.push({ name: 'v8-full', token: v8, surfaces: ['v8'], scopes: [...V8_SCOPES] });
  const expired = env.APICERT_V8_EXPIRED_TOKEN;
  if (expired) credentials.push({ name: 'v8-expired', token: expired, surfaces: ['v8'], scopes: [...V8_SCOPES], expired: true });
  const other = env.APICERT_V8_OTHER_PRINCIPAL_TOKEN;
  if (other) credentials.push({ name: 'v8-other-principal', token: other, surfaces: ['v8'], scopes: [...V8_SCOPES], principal: 'other' });
  const v1 = env.APICERT_V1_KEY;
  if (v1) credentials.push({ name: 'v1-full', token: v1, surfaces: ['v1'], scopes: ['runs:read', 'runs:write'] });
  const mcp = env.APICERT_MCP_TOKEN;
  if (mcp) credentials.push({ name: 'mcp', token: mcp, surfaces: ['mcp'] });
  try {
    return parseProfile({ target, credentials }, '--target');
  } catch (error) {
    if (error instanceof ProfileError) throw error;
    throw new ProfileError(`--target ${target}: ${(error as z.ZodError).message}`);
  }
}
