/**
 * The profile's `network` settings as k6 takes them, for `apicert load` (vitest and the CLI).
 * k6 has no option for a private CA: Go reads SSL_CERT_FILE instead of the system's bundle file
 * (its certificate directories are still read unless SSL_CERT_DIR is set), so apicert writes a
 * bundle of Node's roots plus the profile's CA and points SSL_CERT_FILE at it: the CA is added, as
 * network.tls.ca adds it for certify, rather than replacing the roots. The client certificate
 * becomes tlsAuth (APICERT_TLS_CERT, APICERT_TLS_KEY), the headers APICERT_HEADERS, the proxy
 * HTTPS_PROXY, HTTP_PROXY and NO_PROXY, which Go's net/http honours (never for localhost or a
 * loopback address: Go sends those direct whatever the proxy settings say).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { tlsFiles } from '../probe/dispatcher.ts';
import type { Network } from '../profile/network.ts';
import type { Env } from './config.ts';

/** The variable Go (k6) reads its root certificates from; apicert sets it for k6 and never reads it. */
export const K6_CA_FILE = 'SSL_CERT_FILE';

/** The proxy variables Go reads, in both cases (lower case wins nowhere: apicert sets upper and clears lower). */
export const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'] as const;

export interface K6Network {
  /** Variables to set in k6's environment. */
  env: Env;
  /** Variables to remove from it (the profile says `proxy: none`, or replaces the environment's). */
  unset: string[];
}

/**
 * k6's environment for these settings; files are read and checked (a ProfileError, exit 2, before
 * k6 starts). `folder` receives the CA bundle when there is a CA.
 */
export async function k6Network(network: Network | undefined, folder: string): Promise<K6Network> {
  const env: Env = {};
  const unset: string[] = [];
  const headers = Object.fromEntries(Object.entries(network?.headers ?? {}).filter(([, h]) => h && Object.keys(h).length > 0));
  if (Object.keys(headers).length > 0) env.APICERT_HEADERS = JSON.stringify(headers);
  // Read and proven usable together exactly as certify's dispatcher does.
  await tlsFiles(network?.tls);
  if (network?.tls?.cert && network.tls.key) {
    env.APICERT_TLS_CERT = await readFile(network.tls.cert, 'utf8');
    env.APICERT_TLS_KEY = await readFile(network.tls.key, 'utf8');
  }
  if (network?.tls?.ca) {
    const bundle = join(folder, 'ca-bundle.pem');
    await writeFile(bundle, `${[...rootCertificates, (await readFile(network.tls.ca, 'utf8')).trim()].join('\n')}\n`);
    env[K6_CA_FILE] = bundle;
  }
  if (network?.proxy === 'none') unset.push(...PROXY_VARIABLES);
  else if (network?.proxy) {
    unset.push(...PROXY_VARIABLES);
    env.HTTPS_PROXY = env.HTTP_PROXY = network.proxy;
  }
  if (network?.noProxy !== undefined && network.proxy !== 'none') {
    if (!unset.includes('NO_PROXY')) unset.push('NO_PROXY', 'no_proxy');
    env.NO_PROXY = network.noProxy;
  }
  return { env, unset: unset.filter((name) => env[name] === undefined) };
}
