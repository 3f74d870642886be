/**
 * Detached Ed25519 signatures over the canonical JSON of a report. The signature file also carries a
 * signed manifest (one digest per part of the report), so `verify` can say which part changed, and
 * the SHA-256 of each rendered file written beside report.json (junit.xml, summary.md, report.html):
 * a reader opens those, so a signature that vouched for report.json alone would let an edited
 * report.html say PASS beside an intact report.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { ProfileError } from '../profile/load.ts';
import { canonicalJson, isRecord } from '../util/json.ts';
import { digestOf, sha256, type Report } from './model.ts';

export const SIGNATURE_SUFFIX = '.sig';

export interface SignatureFile {
  algorithm: 'ed25519';
  /** SHA-256 of the public key (SPKI DER), to tell keys apart without printing them. */
  keyId: string;
  /** Signature over canonicalJson(report), base64. */
  signature: string;
  manifest: Manifest;
  /** Signature over canonicalJson(manifest), base64. */
  manifestSignature: string;
}

/** A digest per part of the report: a mismatch names the part (and the rule) that changed. */
export interface Manifest {
  report: string;
  parts: Record<string, string>;
  /**
   * The SHA-256 of each rendered file beside report.json when it was signed, by file name. Absent
   * from signatures made before apicert covered them: those vouch for report.json only.
   */
  files?: Record<string, string>;
}

/** The files a run renders from report.json beside it, which a signature covers when they were written. */
export const RENDERED_FILES = ['junit.xml', 'summary.md', 'report.html'] as const;

export function keyIdOf(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return sha256(pub.export({ type: 'spki', format: 'der' }));
}

export function generateKeys(): { privatePem: string; publicPem: string; keyId: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    keyId: keyIdOf(publicKey),
  };
}

/** A key the user must fix; a ProfileError so the CLI exits 2 with its message. */
export class KeyError extends ProfileError {}

export function privateKeyFrom(pem: string, source: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new KeyError(`${source} is not a private key in PEM: make one with "apicert keygen --out PREFIX" and pass PREFIX.key`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new KeyError(`${source} is a ${key.asymmetricKeyType} key; apicert signs with Ed25519 keys from "apicert keygen"`);
  return key;
}

export function publicKeyFrom(pem: string, source: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new KeyError(`${source} is not a public key in PEM: pass the PREFIX.pub that "apicert keygen" wrote`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new KeyError(`${source} is a ${key.asymmetricKeyType} key, not Ed25519`);
  return key;
}

function partsOf(report: Record<string, unknown>): Record<string, string> {
  const parts: Record<string, string> = {};
  for (const [name, value] of Object.entries(report)) {
    if (name === 'rules' && Array.isArray(value)) {
      for (const rule of value) {
        const id = isRecord(rule) && typeof rule.id === 'string' ? rule.id : '?';
        parts[`rules.${id}`] = sha256(canonicalJson(rule));
      }
    } else {
      parts[name] = sha256(canonicalJson(value));
    }
  }
  return parts;
}

/** `files`: the SHA-256 of each rendered file beside the report (`RENDERED_FILES`), by name. */
export function signReport(report: Report, key: KeyObject, files?: Record<string, string>): SignatureFile {
  const manifest: Manifest = { report: sha256(canonicalJson(report)), parts: partsOf(report as unknown as Record<string, unknown>), ...(files ? { files } : {}) };
  return {
    algorithm: 'ed25519',
    keyId: keyIdOf(key),
    signature: sign(null, Buffer.from(canonicalJson(report)), key).toString('base64'),
    manifest,
    manifestSignature: sign(null, Buffer.from(canonicalJson(manifest)), key).toString('base64'),
  };
}

export interface Verification {
  ok: boolean;
  /** What no longer matches, one line each; empty when intact. */
  problems: string[];
  /** The rendered files the signature covers (report.json aside); undefined for a signature over report.json only. */
  covers?: string[];
  /** Covered files found beside the report whose digest matched. */
  checked: string[];
  /** Covered files not found beside the report: nothing said about them. */
  absent: string[];
  /** Rendered files beside the report that the signature does not cover. */
  uncovered: string[];
}

function parseSignature(value: unknown): SignatureFile | undefined {
  if (!isRecord(value) || value.algorithm !== 'ed25519' || typeof value.signature !== 'string' || typeof value.manifestSignature !== 'string' || typeof value.keyId !== 'string') return undefined;
  const m = value.manifest;
  if (!isRecord(m) || typeof m.report !== 'string' || !isRecord(m.parts)) return undefined;
  if (m.files !== undefined && (!isRecord(m.files) || Object.values(m.files).some((d) => typeof d !== 'string'))) return undefined;
  return value as unknown as SignatureFile;
}

/**
 * Checks the report against its signature and its own digest, and names every part that changed;
 * `beside` holds the SHA-256 of each rendered file found beside the report (absent ones left out),
 * checked against those the signature covers.
 */
export function verifyReport(report: unknown, signatureFile: unknown, key: KeyObject, beside: Record<string, string> = {}): Verification {
  const problems: string[] = [];
  const none = { checked: [], absent: [], uncovered: [] };
  const sig = parseSignature(signatureFile);
  if (!sig) return { ok: false, problems: ['the signature file is not an apicert signature (ed25519, signature, manifest)'], ...none };
  if (!isRecord(report)) return { ok: false, problems: ['the report is not a JSON object'], ...none };
  if (sig.keyId !== keyIdOf(key)) problems.push(`the report was signed with key ${sig.keyId}, not with this public key (${keyIdOf(key)})`);
  const intact = verify(null, Buffer.from(canonicalJson(report)), key, Buffer.from(sig.signature, 'base64'));
  // Asked every time: the file digests are in the manifest alone, and the report's signature says nothing of them.
  const manifestOk = verify(null, Buffer.from(canonicalJson(sig.manifest)), key, Buffer.from(sig.manifestSignature, 'base64'));
  if (intact && !manifestOk && problems.length === 0) problems.push("the signature's manifest (the digests of the report's parts and rendered files) does not verify with this key: the signature file was altered");
  const { digest, ...body } = report;
  const ownDigestHolds = typeof digest === 'string' && digest === digestOf(body as Omit<Report, 'digest'>);
  if (!intact) {
    if (!manifestOk) {
      if (problems.length === 0) problems.push('the signature does not verify with this key, and neither does its manifest: the signature file was altered or comes from another key');
    } else {
      const now = partsOf(report);
      // A report whose own digest holds but is not the signed one was not edited here: it and the
      // signature come from two runs (or the whole report was written anew). Said first: the parts
      // listed below then differ because the runs do, which read alone looks like an edit.
      if (now.digest !== sig.manifest.parts.digest && ownDigestHolds) {
        problems.push(
          `the signature is of another report: this report.json (digest ${String(digest)}) is whole by its own digest, but the signature was made for a report with another digest, from another run or a report.json written anew; fetch the report.json and report.json.sig that were written together`,
        );
      }
      const names = new Set([...Object.keys(sig.manifest.parts), ...Object.keys(now)]);
      for (const name of [...names].sort()) {
        const signed = sig.manifest.parts[name];
        if (signed === undefined) problems.push(`${name} was added after signing`);
        else if (now[name] === undefined) problems.push(`${name} was removed after signing`);
        else if (signed !== now[name]) problems.push(`${name} changed after signing`);
      }
      if (problems.length === 0) problems.push('the report changed after signing');
    }
  }
  if (!ownDigestHolds) {
    problems.push(`the report's own digest (${String(digest)}) does not match its content`);
  }
  const signedFiles = manifestOk ? sig.manifest.files : undefined;
  const checked: string[] = [];
  const absent: string[] = [];
  const uncovered = Object.keys(beside).filter((name) => signedFiles?.[name] === undefined).sort();
  for (const [name, signed] of Object.entries(signedFiles ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const now = beside[name];
    if (now === undefined) absent.push(name);
    else if (now !== signed) problems.push(`${name} changed after signing (its SHA-256 is not the signed one): do not trust what it says; read the intact report.json, or ask the certifier for the signed folder`);
    else checked.push(name);
  }
  return { ok: problems.length === 0, problems, ...(signedFiles ? { covers: Object.keys(signedFiles).sort() } : {}), checked, absent, uncovered };
}
