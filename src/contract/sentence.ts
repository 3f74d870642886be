/**
 * Where an expectation comes from: a sentence of the descriptions (quoted verbatim, held to spec/
 * by suites/harness/stated-quotes.test.ts) or a section of a standard they build on. An
 * expectation without one is open: silence never makes a case "must accept" or "must refuse".
 */
import type { SpecDocument } from '../rule/types.ts';

export type Sentence =
  | {
      kind: 'document';
      document: SpecDocument;
      /** Heading path inside the document, e.g. "Resources and their fields > Signal request". */
      section: string;
      /** Verbatim; pieces joined with ` … ` as in a rule's quote. */
      quote: string;
    }
  | {
      kind: 'standard';
      /** `RFC 8259`, `JSON-RPC 2.0`, `RFC 9110`. */
      standard: string;
      /** `§8.2`. */
      section: string;
      quote?: string;
    };

export function said(document: SpecDocument, section: string, quote: string): Sentence {
  return { kind: 'document', document, section, quote };
}

export function standard(name: string, section: string, quote?: string): Sentence {
  return quote === undefined ? { kind: 'standard', standard: name, section } : { kind: 'standard', standard: name, section, quote };
}

/** One line for reports: `v8-integration-gateway.md, Endpoints > Rules: "…"` or `RFC 8259 §8.2`. */
export function sentenceText(s: Sentence): string {
  if (s.kind === 'standard') return `${s.standard} ${s.section}${s.quote ? `: "${s.quote}"` : ''}`;
  return `${s.document}, ${s.section}: "${s.quote}"`;
}

export const V8 = (section: string, quote: string): Sentence => said('v8-integration-gateway.md', section, quote);
export const V1 = (section: string, quote: string): Sentence => said('v1-execution-fabric.md', section, quote);
export const MCP = (section: string, quote: string): Sentence => said('mcp-2025-03-26', section, quote);
