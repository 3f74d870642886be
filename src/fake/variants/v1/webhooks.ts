import type { VariantDefinition } from '../types.ts';

const DOC = 'v1-execution-fabric.md';
const LISTING = 'Query parameters and response shape of the delivery listing: not shown.';

export const v1WebhooksVariants = [
  {
    id: 'v1.webhooks/names-checked-at-delivery',
    description: 'names of internal-only namespaces (metadata.google.internal, printer.local, *.corp, single labels) are accepted at registration: the address a name resolves to is checked when delivering (the fake delivers only to the harness receiver)',
    spec: { document: DOC, section: 'Events > Webhooks', quote: 'Endpoint URL rules: public HTTPS on the default port. Rejected: localhost, IP literals, private networks, embedded credentials, unsafe redirect targets.' },
  },
  {
    id: 'v1.webhooks/scope-entitlement-failed',
    description: 'a key lacking runs:read or runs:write is refused registration with 403 entitlement_failed (the fake says authorization_failed by default)',
    spec: { document: DOC, section: 'Authentication', quote: 'Related errors: `authentication_failed`, `authorization_failed`, `entitlement_failed`.' },
  },
  {
    id: 'v1.webhooks/extra-properties',
    description: 'endpoint records, delivery listing items (and the listing) and delivery bodies carry unknown properties (nested objects, arrays, nulls, odd names)',
    spec: { document: DOC, section: 'Resources and their fields > Run, usage and webhook endpoint records', quote: 'Fields of the registered endpoint record beyond `signing_secret`: not shown.' },
  },
  {
    id: 'v1.webhooks/id-format',
    description: 'endpoint, delivery and event ids take other legal shapes in turn: purely numeric, 128 characters with . : _ -',
    spec: { document: DOC, section: 'Resources and their fields > Shared primitives', quote: '| Identifier | string | length 1-128; pattern `^[A-Za-z0-9][A-Za-z0-9._:-]*$` |' },
  },
  {
    id: 'v1.webhooks/integer-ids',
    description: 'endpoint and delivery ids are JSON integers (in the creation response, readback and listing), not strings',
    spec: { document: DOC, section: 'Endpoints', quote: 'The listing exposes the endpoint and run identifiers of deliveries.' },
    excludes: ['v1.webhooks/id-format'],
  },
  {
    id: 'v1.webhooks/integer-event-ids',
    description: 'event ids are JSON integers in delivery bodies and listings; the Service-Webhook-Id header carries their digits',
    spec: { document: DOC, section: 'Events > Webhooks', quote: 'Each delivery is an HTTP POST with a JSON body that includes `apiVersion` (`v1`), `event_id`, `run_id` and `sequence`.' },
    excludes: ['v1.webhooks/id-format'],
  },
  {
    id: 'v1.webhooks/listing-array',
    description: 'the delivery listing is a bare JSON array of deliveries',
    spec: { document: DOC, section: 'Endpoints', quote: LISTING },
    excludes: ['v1.webhooks/listing-camel-case'],
  },
  {
    id: 'v1.webhooks/listing-camel-case',
    description: 'the delivery listing is {items: [...], page: {...}} and its items name their fields in camelCase (deliveryId, endpointId, runId, eventId) with the endpoint nested',
    spec: { document: DOC, section: 'Endpoints', quote: LISTING },
  },
  {
    id: 'v1.webhooks/paged-listing',
    description: 'the delivery listing is oldest first in small pages (?page=N), ignores run_id (and every other filter), and names the other pages by a Link header of absolute URLs (rel next, prev, last) and by paths in the body (next, prev, last; links.* in camelCase)',
    spec: { document: DOC, section: 'Endpoints', quote: LISTING },
  },
  {
    id: 'v1.webhooks/events-filter',
    description: 'the endpoint filter is read only from events (the reference schema\'s name); event_types is an unknown extra property, ignored whatever its value (event_types: 5 is registered)',
    spec: { document: DOC, section: 'Resources and their fields > Run, usage and webhook endpoint records', quote: 'The reference schema lists the filter as `events` (array of string; omitted presumably means all)' },
  },
  {
    id: 'v1.webhooks/terminal-only',
    description: 'only run.completed and run.failed are delivered, no other run event',
    spec: { document: DOC, section: 'Events > Webhooks', quote: 'Full list of webhook event types: not shown.' },
  },
  {
    id: 'v1.webhooks/event-type-field',
    description: 'the delivery body names its event type in event_type, not type',
    spec: { document: DOC, section: 'Events > Webhooks', quote: 'Each delivery is an HTTP POST with a JSON body that includes `apiVersion` (`v1`), `event_id`, `run_id` and `sequence`.' },
  },
  {
    id: 'v1.webhooks/string-sequence',
    description: 'delivery bodies carry sequence as a JSON string of its decimal digits ("3"), not a number',
    spec: { document: DOC, section: 'Events > Webhooks', quote: 'Each delivery is an HTTP POST with a JSON body that includes `apiVersion` (`v1`), `event_id`, `run_id` and `sequence`.' },
  },
  {
    id: 'v1.webhooks/attempt-counter',
    description: 'a retried delivery carries the same event_id, run_id, type and sequence but an attempt counter (delivery_attempt) in its body, so its bytes differ from the first attempt; every attempt is signed over its own bytes',
    spec: { document: DOC, section: 'Events > Webhooks', quote: 'Delivery is at least once and may arrive out of order.' },
  },
  {
    id: 'v1.webhooks/endpoint-listing',
    description: 'GET /v1/webhooks, a method the description does not list, answers 200 with the caller\'s registered endpoints',
    spec: { document: 'v1-execution-fabric.md', section: 'Resources and their fields > Run, usage and webhook endpoint records', quote: 'Fields of the registered endpoint record beyond `signing_secret`: not shown.' },
  },
  {
    id: 'v1.webhooks/registration-cap',
    description: 'a tenant keeps at most 7 registered endpoints: the next registration is refused with 403 entitlement_failed (problem+json) whatever its URL, until one is freed (the description names no way to remove an endpoint, so none is)',
    spec: { document: DOC, section: 'Events > Webhooks', quote: 'Endpoint URL rules: public HTTPS on the default port. Rejected: localhost, IP literals, private networks, embedded credentials, unsafe redirect targets.' },
    leavesUntestable: 'no room for another webhook endpoint',
  },
  {
    id: 'v1.webhooks/secret-only-creation',
    description: 'the 201 of a registration is {signing_secret} alone: no endpoint id, so a delivery listing item cannot be told to be this endpoint\'s by its id',
    spec: { document: DOC, section: 'Resources and their fields > Run, usage and webhook endpoint records', quote: 'Fields of the registered endpoint record beyond `signing_secret`: not shown.' },
    leavesUntestable: 'no endpoint id in its creation response',
  },
  {
    id: 'v1.webhooks/description-any-type',
    description: 'a registration whose description is not a string (a number, an object, null) is taken (201), the description unread; the fake refuses one by default (400 invalid_request)',
    spec: { document: DOC, section: 'Resources and their fields > Run, usage and webhook endpoint records', quote: 'Webhook endpoint creation request fields as used in practice: `url` (string, HTTPS, required), `event_types` (array of string), `description` (string).' },
  },
] as const satisfies readonly VariantDefinition[];
