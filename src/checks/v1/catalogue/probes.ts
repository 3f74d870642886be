/**
 * The probe catalogue on /v1 (src/checks/catalogue/, docs/probe-catalogue.md): every operator on
 * every endpoint it fits, judged by one aspect of the one judgement per rule.
 */
import { section } from '../../../rule/index.ts';
import { provokeCatalogue } from '../../catalogue/judge.ts';
import { catalogueJudgement } from '../../catalogue/traffic.ts';

const rule = section({ surface: 'v1', document: 'v1-execution-fabric.md', section: 'Errors', needs: { credentials: ['v1:primary'] } });

export const catalogueNo5xx = rule({
  id: 'v1.catalogue.no-5xx',
  title: 'No probe of the catalogue (framing, encodings, JSON text, fields, headers, methods, paths, queries, negotiation, credentials) gets a 5xx from /v1',
  level: 'required',
  bulk: true,
  spec: { quote: 'ErrorCode values: `authentication_failed`, `authorization_failed`, `entitlement_failed`, `rate_limited`, `invalid_request`' },
  judgement: catalogueJudgement('v1', 'no-5xx'),
  provoke: provokeCatalogue('v1', 'no-5xx'),
});

export const catalogueProblemJson = rule({
  id: 'v1.catalogue.problem-json',
  title: 'Every refusal of a catalogue probe by /v1 is application/problem+json with the /v1 problem shape (a bodiless refusal of an unframable raw message aside)',
  level: 'required',
  bulk: true,
  spec: { section: 'Endpoints; Errors', quote: 'Error responses on every endpoint are `application/problem+json` (see Errors). … Errors are RFC 9457 `application/problem+json`.' },
  judgement: catalogueJudgement('v1', 'problem-json'),
  provoke: provokeCatalogue('v1', 'problem-json'),
});

export const catalogueErrorStatus = rule({
  id: 'v1.catalogue.error-status',
  title: 'A catalogue probe a sentence says must be refused (a token outside the Authorization header, a forged key, JSON that is not JSON, HTTP framing RFC 9112 refuses) is refused',
  level: 'required',
  bulk: true,
  spec: { section: 'Authentication', quote: 'Scheme: HTTP bearer. The token is an API key whose format has the prefix `service_sk_`.' },
  judgement: catalogueJudgement('v1', 'error-status'),
  provoke: provokeCatalogue('v1', 'error-status'),
});

export const v1CatalogueRules = [catalogueNo5xx, catalogueProblemJson, catalogueErrorStatus];
