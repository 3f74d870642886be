/** Endpoints: GET /v8/world-model/certificates; Resources: world certificate. */
import { z } from 'zod';
import { type CheckContext, section } from '../../../rule/index.ts';
import { worldCertificate, certificatesResponse } from '../../../contract/v8/certificates.ts';
import { isoInstant } from '../../../contract/v8/common.ts';
import { judgeListingForms, judgeListingItems, judgeReadAnswers } from '../support/traffic.ts';
import { admitted } from '../support/limiter.ts';
import { holder, listingItems, type ListingNames, PATHS } from '../support/read.ts';

const rule = section({ surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:world:read'] } });

const CERTIFICATES: ListingNames = { name: 'world certificates', key: 'certificates', item: 'certificate' };

async function readCertificates(ctx: CheckContext) {
  // One read: a 429 of a per-principal limit is waited out once (its numbers are not shown), so the rule judges an answer of the API.
  const res = await admitted(ctx, () => ctx.http.send({ method: 'GET', path: PATHS.certificates, credential: holder(ctx, 'world:read'), label: 'list world certificates' }));
  return { res, listing: listingItems(res.json, certificatesResponse, 'certificates') };
}

export const certificatesShape = rule({
  id: 'v8.certificates.shape',
  title: 'World certificates answer 200 and every certificate has a documented healthState and UTC horizon, expiresAt and issuedAt',
  level: 'required',
  spec: {
    section: 'Resources > World certificate',
    quote:
      'horizon | string | ISO 8601 UTC; furthest time the knowledge is expected valid … expiresAt | string | ISO 8601 UTC; after it the gateway does not use the certificate for planning … healthState | string | `healthy`, `degraded`, `unavailable`, `quarantined` … issuedAt | string | ISO 8601 UTC',
  },
  judgement: {
    record: 'a GET /v8/world-model/certificates from a caller holding world:read',
    judge: (j) => judgeReadAnswers(j, { op: 'v8.certificates.list', scope: 'world:read', name: 'world certificates', schema: certificatesResponse, expect200: () => true, extra: judgeListingItems(j, 'certificates', worldCertificate) }),
  },
  async provoke(ctx: CheckContext) {
    await readCertificates(ctx);
  },
});

export const certificatesPayloadForm = rule({
  id: 'v8.certificates.payload-form',
  title: 'Which form the certificates payload takes: the {certificates: [...]} wrapper of the table or the array of the prose and SDK',
  level: 'observation',
  spec: {
    section: 'Resources > World certificate',
    quote: 'The response is an object `{certificates: [...]}`. The prose and SDK call the payload an array.',
  },
  judgement: {
    record: 'a GET /v8/world-model/certificates from a caller holding world:read',
    judge: (j) => judgeListingForms(j, 'v8.certificates.list', 'world:read', certificatesResponse, CERTIFICATES),
  },
  async provoke(ctx: CheckContext) {
    await readCertificates(ctx);
  },
});

const healthFields = z.looseObject({ certificateId: z.unknown().optional(), domain: z.unknown().optional(), healthState: z.unknown().optional(), expiresAt: z.unknown().optional(), signature: z.unknown().optional() });

/** How a signature string decodes; the seed names Ed25519 (64-byte signatures) but no encoding. */
function signatureEncoding(signature: unknown): string {
  if (typeof signature !== 'string') return 'not a string';
  if (/^[0-9a-fA-F]{128}$/.test(signature)) return 'hex, 64 bytes';
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(signature)) return `base64, ${Buffer.from(signature, signature.includes('-') || signature.includes('_') ? 'base64url' : 'base64').length} bytes`;
  return 'other';
}

export const certificatesHealth = rule({
  id: 'v8.certificates.health',
  title: 'Certificates past expiresAt or not healthy (stale or under review) are recorded, with the signature encoding',
  level: 'observation',
  spec: {
    section: 'Resources > World certificate',
    quote: 'A certificate that is not `healthy` means the knowledge of that domain is stale or under review. Missions that depend on a quarantined domain may be rejected at planning.',
  },
  judgement: {
    record: 'a GET /v8/world-model/certificates from a caller holding world:read',
    judge(j) {
      const flagged: Array<Record<string, unknown>> = [];
      const encodings = new Set<string>();
      judgeListingForms(j, 'v8.certificates.list', 'world:read', certificatesResponse, CERTIFICATES, (ex, listing) => {
        // Past expiresAt when the answer was given (a recording's time), not when it is judged.
        const at = ex.startedAt !== undefined && !Number.isNaN(Date.parse(ex.startedAt)) ? Date.parse(ex.startedAt) : Date.now();
        for (const item of listing.items) {
          const c = healthFields.safeParse(item);
          if (!c.success) continue;
          encodings.add(signatureEncoding(c.data.signature));
          const expired = typeof c.data.expiresAt === 'string' && (isoInstant(c.data.expiresAt) ?? Number.NaN) < at;
          if (expired || c.data.healthState !== 'healthy') {
            flagged.push({ certificateId: c.data.certificateId, domain: c.data.domain, healthState: c.data.healthState, expiresAt: c.data.expiresAt, pastExpiresAt: expired });
          }
        }
      });
      j.observe('certificates past expiresAt or not healthy', flagged, 'the gateway does not plan with an expired certificate; a domain that is not healthy is stale or under review');
      j.observe('signature encodings', [...encodings], 'no verifier public key is published, so signatures are not verified');
    },
  },
  async provoke(ctx: CheckContext) {
    await readCertificates(ctx);
  },
});
