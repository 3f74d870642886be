/**
 * The gateway's rate limit on /mcp. The gateway description covers /v8 and /mcp, and under Limits:
 * "A per-principal rate limit exists (`429`). Its numeric values: not shown." Any request to /mcp
 * may meet it, however low, and MCP lets a server refuse what it cannot accept with "an HTTP error
 * status code". A 429 says nothing of what the request asked: each /mcp rule reads it as /v8's
 * rules do (src/checks/v8/support/limiter.ts), a lack naming the limit, never a case; an active
 * setup waits out one 429 and, refused again, stops saying the limiter stopped it.
 */
import { pathOnly, section, type Exchange, type Judge, type Judgement, type Rule, type RuleDeclaration, type SectionDefaults } from '../../../rule/index.ts';
import { limiterRefused } from '../../v8/support/limiter.ts';
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
 * answered the requests, and MCP frames that answer): their cases stand.
 */
export function limitAware(judgement: Judgement, answers: (ex: Exchange) => boolean = () => false): Judgement {
  const refusedOf = (ex: Exchange): Exchange | undefined => (limited(ex) && !answers(ex) ? ex : undefined);
  const wrapped: Judgement = {
    ...judgement,
    judge(j) {
      let decided = false;
      let lacked = false;
      const judge: Judge = {
        exchanges: j.exchanges,
        source: j.source,
        profile: j.profile,
        secrets: j.secrets,
        check(ex, ok, reason, also) {
          // A recording's judgement makes some 100k cases: no array is built for one.
          const refused = refusedOf(ex) ?? also?.find(refusedOf);
          if (refused !== undefined) {
            lacked = limiterRefused(j, refused);
            return false;
          }
          decided = true;
          return j.check(ex, ok, reason, also);
        },
        lacks(ex, missing) {
          lacked = true;
          j.lacks(ex, missing);
        },
        credentialOf: (ex) => j.credentialOf(ex),
        untestable: (missing) => j.untestable(missing),
        observe: (subject, value, note) => j.observe(subject, value, note),
        get failed() {
          return j.failed;
        },
      };
      judgement.judge(judge);
      if (decided || lacked) return;
      const endpoint = mcpEndpoint(j);
      const answered = j.exchanges.filter((ex) => ex.status !== undefined && pathOnly(ex) === endpoint);
      // Only where the limiter refused all there was: an answer it let through may show what "none" says (no session ids, say).
      if (answered.length > 0 && answered.every(limited)) for (const ex of answered) limiterRefused(j, ex);
    },
  };
  aware.add(wrapped);
  return wrapped;
}

/** `section` for /mcp rules: their judgement is `limitAware` (one the rule made so itself is kept as it is). */
export function limitAwareSection(defaults: SectionDefaults): (declaration: RuleDeclaration) => Rule {
  const declare = section(defaults);
  return (declaration) => declare(declaration.judgement === undefined || aware.has(declaration.judgement) ? declaration : { ...declaration, judgement: limitAware(declaration.judgement) });
}
