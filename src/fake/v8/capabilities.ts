import { z } from 'zod';
import { actionFamilyOf, capabilityManifests } from '../../../scenarios/v8/capabilities.ts';
import { capabilitySearchRequest, type CapabilityManifest } from '../../contract/v8/capabilities.ts';
import type { FakeContext } from '../context.ts';
import { servedManifests } from './contract.ts';
import type { Route, RouteRequest } from '../http.ts';
import { withExtraProperties } from '../support/extra-properties.ts';
import type { ReadSurface } from './read-surface.ts';

/** "stable unique id": the fake's dotted ids, or under the variant URNs with `:`, `/`, `#` and `@`, one of 300 characters. */
function shownId(fake: FakeContext, capabilityId: string): string {
  if (!fake.variants.has('v8.capabilities/other-ids')) return capabilityId;
  const urn = `urn:apicert:cap/${capabilityId.replace(/\./g, '/')}#v1@tenant-a`;
  return capabilityId === 'cap.crm.contacts.read' ? urn.padEnd(300, '0') : urn;
}

/** A manifest as served: unknown properties added under the variant. */
function shown(fake: FakeContext, manifest: Record<string, unknown>): Record<string, unknown> {
  const out = { ...manifest, capabilityId: shownId(fake, String(manifest.capabilityId)) };
  return fake.variants.has('v8.capabilities/extra-properties') ? withExtraProperties(out) : out;
}

/** POST /v8/capabilities/search: manifests ranked by how well their action family matches. */
export function capabilitiesRoutes(surface: ReadSurface): Route[] {
  const faults = surface.fake.faults;
  const schema = capabilitySearchRequest.extend({
    actionFamily: z.string().min(1).max(faults.has('v8.capabilities.search.validation/action-family-129') ? 129 : 128),
    targetType: faults.has('v8.capabilities.search.validation/target-type-optional') ? z.string().min(1).max(128).optional() : capabilitySearchRequest.shape.targetType,
  });

  function rank(actionFamily: string): CapabilityManifest[] {
    const matches = (m: CapabilityManifest) => (actionFamilyOf(m.capabilityId) === actionFamily ? 0 : 1);
    let ranked = [...capabilityManifests].sort((a, b) => matches(a) - matches(b));
    // A deployment may answer fewer manifests than it knows: only healthy ones relevant to the action family.
    if (surface.fake.variants.has('v8.capabilities/filtered-results')) ranked = ranked.filter((m) => m.healthState === 'healthy' && matches(m) === 0);
    if (faults.has('v8.capabilities.search.ok/over-256-results')) {
      ranked = Array.from({ length: 300 }, (_, i) => ({ ...ranked[i % ranked.length]!, capabilityId: `${ranked[i % ranked.length]!.capabilityId}.${i}` }));
    }
    // Two manifests under one capabilityId: no longer a unique id.
    if (faults.has('v8.capabilities.search.ok/duplicate-id') && ranked.length > 0) ranked = [...ranked, ranked[0]!];
    return ranked.map((m, i) => {
      const out: Record<string, unknown> = { ...m };
      if (i === 0 && faults.has('v8.capabilities.search.ok/unknown-kind')) out.kind = 'plugin';
      if (faults.has('v8.capabilities.search.ok/uppercase-contract-hash')) out.contractHash = m.contractHash.toUpperCase();
      return shown(surface.fake, out) as CapabilityManifest;
    });
  }

  async function search(r: RouteRequest): Promise<void> {
    const caller = surface.authorize(r, 'capabilities', 'capabilities:read');
    if (!caller) return;
    const body = await surface.jsonBody(r);
    if (body === undefined) return;
    if (surface.refusePrincipalInBody(r, body, faults.has('v8.capabilities.search.principal-403/ignored'))) return;
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      surface.invalid(r, parsed.error);
      return;
    }
    surface.v8.json(r.res, 200, servedManifests(surface.fake, parsed.data.purpose, rank(parsed.data.actionFamily)));
  }

  return [{ method: 'POST', pattern: /^\/v8\/capabilities\/search$/, handler: search }];
}
