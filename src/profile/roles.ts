/**
 * Credential roles: what a rule asks of the profile's credentials, by what they hold rather than
 * by their names, so any profile's naming works. The runner resolves roles while a check runs and
 * the planner resolves the same strings before anything is sent: one definition for both.
 *
 * A role is `<surface>:<kind>[:<scopes joined by +>]`, for example `v8:primary`,
 * `v8:holding:missions:read+missions:write`, `v8:lacking:missions:write`,
 * `v8:other-principal:missions:read`, `v8:expired`, `v1:key`, `v1:other-tenant`,
 * `v1:registrar`, `v1:holding-only:runs:read`.
 */
import type { Credential, Profile } from './schema.ts';

type Surface = Credential['surfaces'][number];

export interface RoleResolution {
  credential?: Credential;
  /** Why no credential fits, and what to add to the profile. */
  missing?: string;
}

const V1_FULL = ['runs:read', 'runs:write'];

function usable(profile: Profile, surface: Surface): Credential[] {
  // The /v8 rate-limit probe is burst to its limit: it is never an ordinary caller.
  const probe = surface === 'v8' ? profile.fixtures.v8.rateLimitCredential : undefined;
  return profile.credentials.filter((c) => c.surfaces.includes(surface) && !c.expired && c.name !== probe);
}

/** /v1 keys named as special rate-limit tiers are never the ordinary caller. */
function v1Ordinary(profile: Profile): Credential[] {
  const f = profile.fixtures.v1;
  const special = new Set([f.rateLimitCredential, f.limiterUnavailableCredential].filter((n): n is string => n !== undefined));
  return usable(profile, 'v1').filter((c) => !special.has(c.name));
}

const holds = (c: Credential, scopes: readonly string[]) => scopes.every((s) => c.scopes.includes(s));

function primary(profile: Profile, surface: Surface): Credential | undefined {
  // A /v1 rate-limit key may list more scopes than the ordinary ones (a scope usage asks for): still never the ordinary caller.
  const ordinary = surface === 'v1' ? v1Ordinary(profile) : [];
  const candidates = ordinary.length > 0 ? ordinary : usable(profile, surface);
  return candidates.find((c) => c.name === 'full') ?? [...candidates].sort((a, b) => b.scopes.length - a.scopes.length)[0];
}

function v1Key(profile: Profile): Credential | undefined {
  return v1Ordinary(profile).find((c) => holds(c, V1_FULL));
}

/** The embedded fake's `webhooks-*` keys are preferred: they have a tenant of their own. */
function preferWebhooks(candidates: Credential[]): Credential | undefined {
  return candidates.find((c) => c.name.startsWith('webhooks-')) ?? candidates[0];
}

const RESOLVERS: Record<string, (profile: Profile, surface: Surface, scopes: string[]) => RoleResolution> = {
  primary: (profile, surface) => {
    const credential = primary(profile, surface);
    return credential ? { credential } : { missing: `the profile has no unexpired credential for ${surface}: add one under credentials (surfaces: [${surface}])` };
  },
  holding: (profile, surface, scopes) => {
    const first = primary(profile, surface);
    const credential = first && usable(profile, surface).find((c) => c.principal === first.principal && holds(c, scopes));
    return credential ? { credential } : { missing: `the profile has no ${surface} credential holding ${scopes.join(', ')}` };
  },
  lacking: (profile, surface, [scope]) => {
    const credential = usable(profile, surface)
      .filter((c) => !c.scopes.includes(scope!))
      .sort((a, b) => b.scopes.length - a.scopes.length)[0];
    return credential ? { credential } : { missing: `the profile has no unexpired ${surface} credential without the scope ${scope}: add one (scopes listing everything but ${scope})` };
  },
  'other-principal': (profile, surface, scopes) => {
    const first = primary(profile, surface);
    const credential = first && usable(profile, surface).find((c) => c.principal !== first.principal && holds(c, scopes));
    return credential ? { credential } : { missing: `the profile has no ${surface} credential of a second principal holding ${scopes.join(', ')}: add one with a different "principal"` };
  },
  expired: (profile, surface) => {
    const credential = profile.credentials.find((c) => c.surfaces.includes(surface) && c.expired);
    return credential ? { credential } : { missing: `the profile has no expired ${surface} token: add one with "expired: true"` };
  },
  key: (profile) => {
    const credential = v1Key(profile);
    return credential ? { credential } : { missing: 'the profile has no unexpired v1 credential holding runs:read and runs:write: add one (surfaces: [v1])' };
  },
  'other-tenant': (profile) => {
    const first = v1Key(profile);
    const credential = first?.tenant === undefined ? undefined : v1Ordinary(profile).find((c) => c.tenant !== undefined && c.tenant !== first.tenant && holds(c, V1_FULL));
    return credential
      ? { credential }
      : { missing: 'the profile has no v1 credential of another tenant holding runs:read and runs:write: label the primary key with "tenant" and add one with a different "tenant"' };
  },
  registrar: (profile) => {
    const credential = preferWebhooks(usable(profile, 'v1').filter((c) => holds(c, V1_FULL)));
    return credential ? { credential } : { missing: 'the profile has no unexpired v1 credential holding runs:read and runs:write: add one (surfaces: [v1])' };
  },
  'holding-only': (profile, _surface, [scope]) => {
    const other = scope === 'runs:read' ? 'runs:write' : 'runs:read';
    const credential = preferWebhooks(usable(profile, 'v1').filter((c) => c.scopes.includes(scope!) && !c.scopes.includes(other)));
    return credential ? { credential } : { missing: `the profile has no unexpired v1 credential holding ${scope} without ${other}: add one (surfaces: [v1], scopes: [${scope}])` };
  },
};

/** Splits `v8:holding:missions:read+missions:write` into its surface, kind and scopes. */
export function parseRole(role: string): { surface: Surface; kind: string; scopes: string[] } {
  const [surface, kind, ...rest] = role.split(':');
  if ((surface !== 'v8' && surface !== 'v1' && surface !== 'mcp') || !kind || !(kind in RESOLVERS)) {
    throw new Error(`unknown credential role "${role}": expected <v8|v1|mcp>:<${Object.keys(RESOLVERS).join('|')}>[:scopes]`);
  }
  const scopes = rest.length ? rest.join(':').split('+') : [];
  return { surface, kind, scopes };
}

export function resolveRole(profile: Profile, role: string): RoleResolution {
  const { surface, kind, scopes } = parseRole(role);
  return RESOLVERS[kind]!(profile, surface, scopes);
}

export function roleName(surface: Surface, kind: string, scopes: readonly string[] = []): string {
  return scopes.length ? `${surface}:${kind}:${scopes.join('+')}` : `${surface}:${kind}`;
}
