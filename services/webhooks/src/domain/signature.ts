import { createHmac } from 'node:crypto';
import { secretKey } from './secret';

export interface SignedMessage {
  /** The event id: the same on every attempt and redelivery, so receivers dedupe by it. */
  id: string;
  /** Unix seconds of this attempt (receivers reject old ones, which stops replays). */
  timestamp: number;
  body: string;
}

/** `v1,` + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}` under the secret's bytes (Standard Webhooks). */
export function sign(secret: string, message: SignedMessage): string {
  const mac = createHmac('sha256', secretKey(secret))
    .update(`${message.id}.${message.timestamp}.${message.body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

/** Every header of one attempt. */
export function deliveryHeaders(
  secret: string,
  message: SignedMessage,
  userAgent: string,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': userAgent,
    'webhook-id': message.id,
    'webhook-timestamp': String(message.timestamp),
    'webhook-signature': sign(secret, message),
  };
}
