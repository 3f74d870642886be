/**
 * The probe catalogue's vocabulary: an operator is a small named unit that turns the request an
 * endpoint accepts (its base) into one unusual request, says where it applies, and what decides
 * the expectation of what it sent: a sentence of the descriptions, a section of a standard they
 * build on, or nothing (then the case is open and judged only for no 5xx and the error format).
 */
import type { Endpoint, EndpointSurface } from '../../contract/endpoints.ts';
import type { Sentence } from '../../contract/sentence.ts';
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

/**
 * What an operator itself states about the case it built, from a sentence of the descriptions or a
 * standard's section. Without it the expectation is the one `expectationOf` computes from the request
 * as sent, opened wherever the operator's change is one the descriptions leave to the deployment.
 */
export interface Stated {
  kind: 'accept' | 'refuse';
  because: Sentence;
  status?: number;
  codes?: readonly number[];
  /**
   * /mcp tools/call: a tool result with `isError: true` carrying the request's id counts as the
   * refusal too (MCP tools, Error Handling: "Invalid input data" is a tool execution error, as
   * "Invalid arguments" is a protocol error; `toolErrorFinding` judges it).
   */
  orToolError?: true;
}

/** A request the catalogue sends: through undici, or written on a raw socket. */
export type Sent = { kind: 'http'; request: ProbeRequest } | { kind: 'raw'; request: RawRequest };

/** One case as an operator builds it. */
export interface Built {
  label: string;
  sent: Sent;
  /** The operator's own statement; absent: derived from the request as sent, open where `why` says. */
  stated?: Stated;
  /**
   * The request is the base written another way that a standard says means the same (whitespace,
   * escapes, header name case, the scheme's case): its expectation is the base's.
   */
  same?: Sentence;
  /** Why the operator's change is open, when it is. */
  why?: string;
  /**
   * A sentence that allows this input outright, so it stays open even where the derivation would
   * state a refusal (MCP: a POST body may be "A single JSON-RPC request, notification, or response").
   */
  allowedBy?: Sentence;
  /** 5xx statuses a standard names for this input (RFC 9110's 501 for an unknown method or coding). */
  permits?: readonly number[];
}

export interface Case extends Built {
  operator: string;
  family: Family;
  /** `<method> <path template>` of the endpoint, or `POST /mcp`. */
  endpoint: string;
}

/** What an operator needs to know about where it acts. */
export interface HttpTarget {
  surface: EndpointSurface;
  endpoint: Endpoint;
  /** The request the endpoint takes with nothing changed. */
  base: ProbeRequest;
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
  /**
   * `message`: what it changes is read by the HTTP layer or middleware in front of every route
   * (framing, method tokens, forwarding headers, where the credential sits), so `default` sends it
   * once per surface and method; `deep` on every endpoint. Otherwise once per endpoint it fits.
   */
  scope?: 'message';
  applies(t: HttpTarget): boolean;
  /** Its cases on one endpoint: the first is the one `quick` and `default` send; `deep` sends them all. */
  cases(t: HttpTarget): Built[];
}

/** An /mcp case: a JSON-RPC message (or body text) posted inside the operator run's session. */
export interface McpCase {
  label: string;
  body: { json: unknown } | { rawBody: string };
  headers?: Record<string, string>;
  /** `null`: no Mcp-Session-Id; a string: that id; undefined: the session's. */
  session?: string | null;
  stated?: Stated;
  /** The message written another way a standard says means the same (a header value padded with whitespace): its expectation is the plain message's. */
  same?: Sentence;
  why?: string;
  allowedBy?: Sentence;
}

export interface McpOperator {
  id: string;
  family: Family;
  sends: string;
  peer: string;
  /** `tool`: the tool the profile declares safe, when it names one. */
  cases(tool: { name: string; arguments: Record<string, unknown> } | undefined): McpCase[];
}
