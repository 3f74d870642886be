/** World-model certificates of the fake: healthy ones, a degraded one and one past its expiresAt. */
import { createHash } from 'node:crypto';
import type { WorldCertificate } from '../../src/contract/v8/certificates.ts';

function cert(certificateId: string, domain: string, healthState: WorldCertificate['healthState'], expiresAt: string): WorldCertificate {
  const head = createHash('sha256').update(`snapshot:${domain}`).digest('hex');
  return {
    certificateId,
    domain,
    head,
    horizon: expiresAt,
    expiresAt,
    // Shaped like an Ed25519 signature (64 bytes, base64url); nothing in the fake verifies it.
    signature: createHash('sha512').update(`sig:${certificateId}`).digest('base64url'),
    healthState,
    issuedAt: '2026-11-01T00:00:00Z',
  };
}

export const worldCertificates: WorldCertificate[] = [
  cert('cert-crm', 'crm.example.com', 'healthy', '2099-01-01T00:00:00Z'),
  cert('cert-ledger', 'ledger.example.com', 'degraded', '2099-01-01T00:00:00Z'),
  cert('cert-legacy', 'legacy.example.com', 'healthy', '2026-01-01T00:00:00Z'),
];
