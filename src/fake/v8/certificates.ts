import { worldCertificates } from '../../../scenarios/v8/certificates.ts';
import type { WorldCertificate } from '../../contract/v8/certificates.ts';
import type { FakeContext } from '../context.ts';
import type { Route, RouteRequest } from '../http.ts';
import { withExtraProperties } from '../support/extra-properties.ts';
import type { ReadSurface } from './read-surface.ts';
import { utcWithOffset } from './timestamps.ts';

/** "Ed25519 signature": the fake writes it base64url; the variants hex or padded standard base64. */
function signature(fake: FakeContext, base64url: string): string {
  const bytes = Buffer.from(base64url, 'base64url');
  if (fake.variants.has('v8.certificates/hex-signature')) return bytes.toString('hex');
  if (fake.variants.has('v8.certificates/base64-signature')) return bytes.toString('base64');
  return base64url;
}

/** A certificate as served, in the variant's formats where one is on. */
function shown(fake: FakeContext, c: WorldCertificate): Record<string, unknown> {
  const out: Record<string, unknown> = { ...c, signature: signature(fake, c.signature) };
  if (fake.variants.has('v8.certificates/other-formats')) {
    Object.assign(out, {
      certificateId: `urn:apicert:certificate/${c.domain}/${c.certificateId}`,
      head: `sha256:${c.head}`,
      horizon: utcWithOffset(c.horizon),
      expiresAt: utcWithOffset(c.expiresAt),
      issuedAt: utcWithOffset(c.issuedAt),
    });
  }
  return out;
}

/** GET /v8/world-model/certificates, in the `{certificates: [...]}` wrapper. */
export function certificatesRoutes(surface: ReadSurface): Route[] {
  const { fake } = surface;
  const faults = fake.faults;

  function certificates(r: RouteRequest): void {
    const caller = surface.authorize(r, 'certificates', 'world:read');
    if (!caller) return;
    const list = worldCertificates.map((c, i) => {
      const out = shown(fake, c);
      if (i === 0 && faults.has('v8.certificates.shape/health-stale')) out.healthState = 'stale';
      if (i === 0 && faults.has('v8.certificates.shape/expires-at-date-only')) out.expiresAt = c.expiresAt.slice(0, 10);
      return out;
    });
    const body = fake.variants.has('v8.certificates/array-payload') ? list : { certificates: list };
    surface.listing(r, fake.variants.has('v8.certificates/extra-properties') ? withExtraProperties(body) : body);
  }

  return [{ method: 'GET', pattern: /^\/v8\/world-model\/certificates$/, handler: certificates }];
}
