import type { FaultDefinition } from '../types.ts';

/** Faults of the v1.webhooks rules: each breaks exactly the rule named before its slash. */
export const v1WebhooksFaults = [
  { id: 'v1.webhooks.register.created/no-secret', description: 'registration answers 201 without signing_secret' },
  { id: 'v1.webhooks.register.created/answers-200', description: 'registration creates the endpoint but answers 200 (with its signing_secret), not 201' },
  { id: 'v1.webhooks.register.created/extra-refused', description: 'a registration carrying a member beyond url, event_types, events and description is refused 400, though the request allows extra properties' },
  { id: 'v1.webhooks.register.scopes-403/write-only-accepted', description: 'a key holding only runs:write can register an endpoint' },
  { id: 'v1.webhooks.register.secret-once/shown-twice', description: 'registering the same URL again returns the first signing_secret again' },
  { id: 'v1.webhooks.url.https-only/http-accepted', description: 'http: endpoint URLs are accepted' },
  { id: 'v1.webhooks.url.default-port/other-port-accepted', description: 'https URLs with an explicit non-default port are accepted' },
  { id: 'v1.webhooks.url.loopback-names/accepted', description: 'localhost and other loopback names are accepted' },
  { id: 'v1.webhooks.url.ipv4-literal/accepted', description: 'public IPv4 literals are accepted' },
  { id: 'v1.webhooks.url.ipv6-literal/accepted', description: 'public IPv6 literals are accepted' },
  { id: 'v1.webhooks.url.private-network/accepted', description: 'private, link-local and internal-name hosts are accepted' },
  {
    id: 'v1.webhooks.url.private-network/loopback-accepted',
    description: 'loopback address literals (127.0.0.0/8, [::1]) are accepted although the receiver the deployment was told of is public (under it the embedded profile names https://receiver.example.net/apicert)',
  },
  { id: 'v1.webhooks.url.credentials/accepted', description: 'URLs with embedded user:password are accepted' },
  { id: 'v1.webhooks.url.redirect/followed', description: 'the delivery engine follows a redirect to an unsafe target' },
  { id: 'v1.webhooks.delivery.body/no-api-version', description: 'delivery bodies carry no apiVersion' },
  { id: 'v1.webhooks.delivery.id-header/differs-from-body', description: 'Service-Webhook-Id differs from the body event_id' },
  { id: 'v1.webhooks.delivery.timestamp/milliseconds', description: 'Service-Webhook-Timestamp is in milliseconds' },
  { id: 'v1.webhooks.delivery.signature-format/uppercase-hex', description: 'the signature is v1= with uppercase hex' },
  { id: 'v1.webhooks.delivery.signature-valid/signs-reserialized-body', description: 'the MAC covers a re-serialized body, not the bytes sent' },
  { id: 'v1.webhooks.delivery.terminal-events/no-run-failed', description: 'failed runs produce no run.failed delivery' },
  { id: 'v1.webhooks.delivery.retry/no-retry', description: 'a delivery answered 500 is never retried' },
  { id: 'v1.webhooks.delivery.retry/sequence-changes', description: 'a retry carries the same event_id but another sequence' },
  { id: 'v1.webhooks.delivery.retry/new-event-id', description: 'a retry carries a new event_id' },
  { id: 'v1.webhooks.delivery.sequence-order/constant-sequence', description: 'every delivery of a run carries sequence 0' },
  { id: 'v1.webhooks.deliveries.listing/no-run-id', description: 'the delivery listing omits run ids' },
  { id: 'v1.webhooks.deliveries.replay/new-event-id', description: 'a replayed delivery carries a new event_id' },
] as const satisfies readonly FaultDefinition[];
