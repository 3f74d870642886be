import { z } from 'zod';
import { headerMap, tlsSection } from './network.ts';

/** The `receiver:` section of a profile: the webhook receiver `apicert certify-receiver` judges. */
export const receiverSection = z.strictObject({
  /** The URL deliveries are POSTed to. Loopback, or a host listed in allowHosts. */
  url: z.url({ protocol: /^https?$/ }),
  /** The environment variable holding the endpoint's signing secret; never the secret itself. */
  secretEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
    .default('APICERT_WEBHOOK_SECRET'),
  /** Hosts besides loopback that deliveries may go to: a receiver you are allowed to test. */
  allowHosts: z.array(z.string().min(1)).default([]),
  requestTimeoutMs: z.number().int().min(100).max(60_000).default(5_000),
  /** Sent with every delivery (a gateway's token in front of the receiver); the values are never printed. */
  headers: headerMap.optional(),
  /** A private CA the receiver's certificate chains to, and a client certificate it demands (mTLS); paths relative to the profile. */
  tls: tlsSection.optional(),
});
export type ReceiverSection = z.infer<typeof receiverSection>;
