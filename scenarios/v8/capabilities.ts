/** Capability manifests the fake's search ranks; every kind and health state appears at least once. */
import { createHash } from 'node:crypto';
import type { CapabilityKind, CapabilityManifest } from '../../src/contract/v8/capabilities.ts';
import type { HEALTH_STATES } from '../../src/contract/v8/common.ts';

type Health = (typeof HEALTH_STATES)[number];

interface CapabilitySeed {
  capabilityId: string;
  kind: CapabilityKind;
  healthState: Health;
  /** The action family the fake ranks this capability highest for. */
  actionFamily: string;
}

const seeds: CapabilitySeed[] = [
  { capabilityId: 'cap.crm.contacts.read', kind: 'api', healthState: 'healthy', actionFamily: 'read' },
  { capabilityId: 'cap.crm.contacts.write', kind: 'api', healthState: 'degraded', actionFamily: 'write' },
  { capabilityId: 'cap.docs.search', kind: 'mcp', healthState: 'healthy', actionFamily: 'read' },
  { capabilityId: 'cap.ledger.agent', kind: 'a2a_agent', healthState: 'healthy', actionFamily: 'reconcile' },
  { capabilityId: 'cap.portal.browser', kind: 'browser', healthState: 'unavailable', actionFamily: 'read' },
  { capabilityId: 'cap.badge.printer', kind: 'device', healthState: 'quarantined', actionFamily: 'print' },
  { capabilityId: 'cap.skill.summarise', kind: 'skill', healthState: 'healthy', actionFamily: 'summarise' },
  { capabilityId: 'cap.human.approver', kind: 'human', healthState: 'healthy', actionFamily: 'approve' },
  { capabilityId: 'cap.mail.send', kind: 'api', healthState: 'healthy', actionFamily: 'send' },
  { capabilityId: 'cap.tickets.mcp', kind: 'mcp', healthState: 'degraded', actionFamily: 'write' },
];

export const capabilityManifests: CapabilityManifest[] = seeds.map((s) => ({
  capabilityId: s.capabilityId,
  kind: s.kind,
  version: '1.0.0',
  contractHash: createHash('sha256').update(`contract:${s.capabilityId}`).digest('hex'),
  healthState: s.healthState,
}));

export function actionFamilyOf(capabilityId: string): string | undefined {
  return seeds.find((s) => s.capabilityId === capabilityId)?.actionFamily;
}

/** A search body every deployment can answer: the checks' default when the profile gives none. */
export const defaultCapabilitySearch = { actionFamily: 'read', purpose: 'apicert conformance probe', targetType: 'document' };
