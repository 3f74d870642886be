/**
 * The probe catalogue's vocabulary: an operator is a small named unit that turns the request an
 * endpoint accepts (its base) into one unusual request, says where it applies, and what decides
 * the expectation of what it sent: a sentence of the descriptions, a section of a standard they
 * build on, or nothing (then the case is open and judged only for no 5xx and the error format).
 */
import type { Endpoint, EndpointSurface } from '../../contract/endpoints.ts';
import type { Credential } from '../../profile/schema.ts';
import type { ProbeRequest, RawRequest } from '../../rule/index.ts';

export type Family =
  | 'framing'
  | 'encoding'
  | 'json-text'
  | 'field'
  | 'header'
  | 'method'
  | 'path'
  | 'query'
  | 'negotiation'
  | 'credentials'
  | 'jsonrpc'
  | 'mcp-params';

export const FAMILIES: readonly Family[] = ['framing', 'encoding', 'json-text', 'field', 'header', 'method', 'path', 'query', 'negotiation', 'credentials', 'jsonrpc', 'mcp-params'];

/**
 * How deep the catalogue goes: `quick` runs each operator once per surface (first endpoint it fits),
 * `default` once per endpoint it fits, `deep` every variant of every operator on every field it
 * fits, then random pairs of operators until the surface's share of the request budget.
 */
export type Depth = 'quick' | 'default' | 'deep';
export const DEPTHS: readonly Depth[] = ['quick', 'default', 'deep'];

/** `accept`: never refused for what the operator changed; `reject`: refused (with `status` where stated); `any`: open. */
export type CatalogueExpect = 'accept' | 'reject' | 'any';

/** Where an expectation comes from: the descriptions' own sentence, or a standard's section. */
export interface Because {
  /** `v8`, `v1`, `mcp`, or a standard: `RFC 9110 5.5`, `RFC 8259 2`, `JSON-RPC 2.0 5.1`. */
  source: string;
  /** The sentence, verbatim (quoted from spec/ for the descriptions and MCP). */
  sentence: string;
}

/** A request the catalogue sends: through undici, or written on a raw socket. */
export type Sent = { kind: 'http'; request: ProbeRequest } | { kind: 'raw'; request: RawRequest };

export interface Case {
  operator: string;
  family: Family;
  /** `<method> <path template>` of the endpoint, or `POST /mcp <method>`. */
  endpoint: string;
  label: string;
  sent: Sent;
  expect: CatalogueExpect;
  /** The status stated for a refusal, when one is. */
  status?: number;
  /** Statuses that would refuse what an `accept` case keeps legal (401 for a legal credential form). */
  refusedAs?: readonly number[];
  /** 5xx statuses a standard names for this input (RFC 9110's 501 for an unknown method or coding). */
  permits?: readonly number[];
  /** The sentence behind a stated expectation; for an open case, why it is open. */
  because: Because;
  /** /mcp: how the JSON-RPC answer is judged (a stated error, a response echoing the id, or open). */
  rpc?: { expectError: boolean; id?: unknown };
}

/** What an operator needs to know about where it acts. */
export interface HttpTarget {
  surface: EndpointSurface;
  endpoint: Endpoint;
  /** The request the endpoint accepts with nothing changed. */
  base: ProbeRequest;
  /** The base's own expectation: `accept` when its body is one the deployment must take. */
  baseExpect: CatalogueExpect;
  credential: Credential;
  depth: Depth;
}

export interface HttpOperator {
  id: string;
  family: Family;
  /** One line: what it sends. */
  sends: string;
  /** The peer fuzzer or check it matches, and the standard section it rests on. */
  peer: string;
  /** Whether it needs a raw socket (Node's clients cannot send the form). */
  raw?: boolean;
  applies(t: HttpTarget): boolean;
  /** Its cases on one endpoint: the first is the one `default` sends; `deep` sends them all. */
  cases(t: HttpTarget): Array<Omit<Case, 'operator' | 'family' | 'endpoint'>>;
}

/** An MCP operator acts on a JSON-RPC message posted inside one session. */
export interface McpCase {
  label: string;
  /** A JSON value, or the body text as is. */
  body: { json: unknown } | { rawBody: string };
  headers?: Record<string, string>;
  /** `null`: no Mcp-Session-Id; a string: that id; undefined: the session's. */
  session?: string | null;
  expect: CatalogueExpect;
  rpc?: { expectError: boolean; id?: unknown };
  because: Because;
}

export interface McpOperator {
  id: string;
  family: Family;
  sends: string;
  peer: string;
  /** The tool the profile declares safe, when the operator calls one. */
  cases(tool: { name: string; arguments: Record<string, unknown> } | undefined): McpCase[];
}

export const OPEN = (why: string): Because => ({ source: 'open', sentence: why });
