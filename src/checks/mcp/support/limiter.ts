/**
 * The gateway's rate limit on /mcp. The gateway description covers /v8 and /mcp, and under Limits:
 * "A per-principal rate limit exists (`429`). Its numeric values: not shown." Any request to /mcp
 * may meet it, however low, and MCP lets a server refuse what it cannot accept with "an HTTP error
 * status code". A 429 says nothing of what the request asked: each /mcp rule reads it as /v8's
 * rules do (src/checks/v8/support/limiter.ts), a lack naming the limit, never a case; an active
 * setup waits out one 429 and, refused again, stops saying the limiter stopped it.
 */
import { pathOnly, section, type Exchange, type Judgement, type Rule, type RuleDeclaration, type SectionDefaults } from '../../../rule/index.ts';
import { LIMITED_ANSWER } from '../../v8/support/limiter.ts';
import { mcpEndpoint } from './traffic.ts';

export { admitted, stopIfLimited } from '../../v8/support/limiter.ts';

/** The limiter's refusal: the one status the descriptions name for it. */
export function limited(ex: Pick<Exchange, 'status'>): boolean {
  return ex.status === 429;
}

const aware = new WeakSet<Judgement>();

/**
 * `judgement` with every case it would decide on a 429 (the exchange judged, or one it is compared
 * with) recorded as a lack naming the limit instead: a 429 neither fails nor passes a rule. A
 * judgement that decided nothing where the limiter refused every request to the endpoint lacks
 * those answers: what the rule needs may have been among them, so "none found" is not the reason.
 * `answers` picks the 429s the rule's sentence still governs (a refusal carrying JSON-RPC responses
 * answered the requests, and MCP frames that answer): their cases stand. `runJudgement` reads it.
 */
export function limitAware(judgement: Judgement, answers: (ex: Exchange) => boolean = () => false): Judgement {
  const wrapped: Judgement = {
    ...judgement,
    limit: { refused: (ex) => limited(ex) && !answers(ex), why: LIMITED_ANSWER, within: (ex, profile) => pathOnly(ex) === mcpEndpoint({ profile }) },
  };
  aware.add(wrapped);
  return wrapped;
}

/** `section` for /mcp rules: their judgement is `limitAware` (one the rule made so itself is kept as it is). */
export function limitAwareSection(defaults: SectionDefaults): (declaration: RuleDeclaration) => Rule {
  const declare = section(defaults);
  return (declaration) => declare(declaration.judgement === undefined || aware.has(declaration.judgement) ? declaration : { ...declaration, judgement: limitAware(declaration.judgement) });
}
