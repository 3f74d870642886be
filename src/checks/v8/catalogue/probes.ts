/**
 * The probe catalogue on /v8 (src/checks/catalogue/, docs/probe-catalogue.md): every operator on
 * every endpoint it fits, judged by one aspect of the one judgement per rule.
 */
import { section } from '../../../rule/index.ts';
import { provokeCatalogue } from '../../catalogue/judge.ts';
import { catalogueJudgement } from '../../catalogue/traffic.ts';

const rule = section({ surface: 'v8', document: 'v8-integration-gateway.md', section: 'Errors', needs: { credentials: ['v8:primary'] } });

export const catalogueNo5xx = rule({
  id: 'v8.catalogue.no-5xx',
  title: 'No probe of the catalogue (framing, encodings, JSON text, fields, headers, methods, paths, queries, negotiation, credentials) gets a 5xx from /v8',
  level: 'required',
  bulk: true,
  spec: { quote: 'Error statuses are in Errors. … `400` missing fields, budget out of range, malformed JSON' },
  judgement: catalogueJudgement('v8', 'no-5xx'),
  provoke: provokeCatalogue('v8', 'no-5xx'),
});

export const catalogueProblemJson = rule({
  id: 'v8.catalogue.problem-json',
  title: 'Every refusal of a catalogue probe by /v8 is application/problem+json with the /v8 problem shape (a bodiless refusal of an unframable raw message aside)',
  level: 'required',
  bulk: true,
  spec: { quote: 'Failures are `application/problem+json` (RFC 9457) with fields `type` (URI string), `title`, `status` (integer), `detail`, `code` (machine-readable string), `requestId` (UUID string).' },
  judgement: catalogueJudgement('v8', 'problem-json'),
  provoke: provokeCatalogue('v8', 'problem-json'),
});

export const catalogueErrorStatus = rule({
  id: 'v8.catalogue.error-status',
  title: 'A catalogue probe a sentence says must be refused (a token outside the Authorization header, a forged token, JSON that is not JSON, HTTP framing RFC 9112 refuses) is refused, with the status named',
  level: 'required',
  bulk: true,
  spec: { section: 'Endpoints; Authentication; Errors', quote: 'Header `Authorization: Bearer <ACCESS_TOKEN>` is required on every `/v8` call. … A missing or expired token gives `401`.' },
  judgement: catalogueJudgement('v8', 'error-status'),
  provoke: provokeCatalogue('v8', 'error-status'),
});

export const v8CatalogueRules = [catalogueNo5xx, catalogueProblemJson, catalogueErrorStatus];
