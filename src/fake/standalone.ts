/**
 * `apicert fake` in a process of its own: the certifying apicert runs elsewhere, so the fake is told
 * where that apicert's webhook receiver will listen, lets deliveries go to exactly that loopback
 * origin, and writes the address into the profile it hands out (fixtures.webhooks), which makes
 * `apicert certify --profile <that profile>` start its receiver there.
 */
import { createServer } from 'node:net';
import type { Profile } from '../profile/schema.ts';
import { embeddedProfile } from './embedded-profile.ts';
import type { RunningFake } from './server.ts';

export interface ReceiverAddress {
  host: '127.0.0.1' | '::1';
  port: number;
  /** http://host:port, what deliveries are sent to. */
  origin: string;
}

const LOOPBACK: Record<string, ReceiverAddress['host']> = { '127.0.0.1': '127.0.0.1', localhost: '127.0.0.1', '::1': '::1', '[::1]': '::1' };

/** `PORT`, `HOST:PORT` or `http://HOST:PORT`, on loopback only: the fake sends nothing off the machine. */
export function parseReceiverAddress(value: string): ReceiverAddress {
  const text = /^\d+$/.test(value) ? `http://127.0.0.1:${value}` : value.includes('://') ? value : `http://${value}`;
  const url = URL.canParse(text) ? new URL(text) : undefined;
  const host = url ? LOOPBACK[url.hostname] : undefined;
  const port = url ? Number(url.port) : NaN;
  if (!url || url.protocol !== 'http:' || !host || !Number.isInteger(port) || port < 1 || port > 65535 || (url.pathname !== '/' && url.pathname !== '')) {
    throw new Error(`"${value}" is not a loopback receiver address: give PORT, 127.0.0.1:PORT or [::1]:PORT`);
  }
  return { host, port, origin: `http://${host === '::1' ? '[::1]' : host}:${port}` };
}

/** A port free right now on loopback, for a receiver the certifying process will open later. */
export function freeLoopbackPort(host: ReceiverAddress['host'] = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Lets the fake deliver to the receiver and returns the profile that names it. */
export function standaloneProfile(fake: RunningFake, receiver: ReceiverAddress): Profile {
  fake.context.config.webhookAllowedOrigins.push(receiver.origin);
  const profile = embeddedProfile(fake);
  profile.fixtures.webhooks.publicReceiverUrl = receiver.origin;
  profile.fixtures.webhooks.receiverListen = { host: receiver.host, port: receiver.port };
  return profile;
}
