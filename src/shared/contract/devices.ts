import { z } from 'zod';
import type { AnswerSchemas } from './answer';

/**
 * Devices: phones and other machines that open the window through `rigdesk serve --listen`. Each
 * is paired once with a one-time code and then known by a token only it holds (the store keeps
 * its hash).
 */

/** A device's name as a person gives it: shown in lists and recorded with its answers. */
export const deviceName = z
  .string()
  .trim()
  .min(1)
  .max(40)
  .regex(/^[^\x00-\x1f\x7f-\x9f]+$/u, { message: 'no control characters' });

export const deviceId = z.string().regex(/^d[0-9a-f]{10}$/, { message: 'a device id from `rigdesk devices`' });

export const deviceRow = z.strictObject({
  id: z.string(),
  name: z.string(),
  pairedAt: z.number(),
  /** The address the pairing came from. */
  pairedFrom: z.string().nullable(),
  lastSeenAt: z.number().nullable(),
  lastAddress: z.string().nullable(),
  revokedAt: z.number().nullable(),
  /** Open window connections of this device in this engine now. */
  connections: z.number().int().min(0),
});
export type DeviceRow = z.output<typeof deviceRow>;

export const DEVICES_REQUESTS = {
  /** A one-time code for a new device, and the URL that redeems it (valid 10 minutes, once). */
  'devices.pair': z.strictObject({ name: deviceName.optional() }),
  'devices.list': z.strictObject({}),
  /** Ends a device: its open connections close and its token is refused from then on. */
  'devices.revoke': z.strictObject({ id: deviceId }),
} as const;

export const DEVICES_ANSWERS = {
  'devices.pair': z.strictObject({ code: z.string(), url: z.string(), expiresAt: z.number() }),
  'devices.list': z.strictObject({ listening: z.string().nullable(), devices: z.array(deviceRow) }),
  'devices.revoke': z.strictObject({ id: z.string(), name: z.string(), closed: z.number().int().min(0) }),
} as const satisfies AnswerSchemas<typeof DEVICES_REQUESTS>;

/** What a device may not ask: making or ending devices belongs to this machine's own window and CLI. */
export const DEVICE_REFUSED: ReadonlySet<string> = new Set(['devices.pair', 'devices.revoke', 'shim.install']);
