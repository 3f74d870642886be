import type { Rule } from '../../../rule/index.ts';
import { deliveryBody, idHeader, retry, sequenceOrder, signatureFormat, signatureValid, terminalEvents, timestampHeader } from './delivery.ts';
import { deadLetter, deliveryListing, replay } from './operations.ts';
import { filterField, registerCreated, registerScopes, secretOnce } from './registration.ts';
import { defaultPort, embeddedCredentials, httpsOnly, ipv4Literal, ipv6Literal, loopbackNames, privateNetwork, unsafeRedirect } from './url-rules.ts';

/** /v1 webhook rules: registration, URL rules, deliveries judged by the harness's receiver, listing and replay. */
export const v1WebhookRules: Rule[] = [
  registerCreated,
  registerScopes,
  secretOnce,
  filterField,
  httpsOnly,
  defaultPort,
  loopbackNames,
  ipv4Literal,
  ipv6Literal,
  privateNetwork,
  embeddedCredentials,
  unsafeRedirect,
  deliveryBody,
  idHeader,
  timestampHeader,
  signatureFormat,
  signatureValid,
  terminalEvents,
  retry,
  sequenceOrder,
  deliveryListing,
  replay,
  deadLetter,
];
